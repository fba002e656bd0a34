#!/usr/bin/env python3
"""Prints the README's "Teaching set" table from the model: runs `bankviz-cli analyze --preset NAME
--json` for each preset and writes one Markdown row per preset (title, architecture, wavefronts per
request of the memory steps in program order, total / ideal).

    scripts/teaching_set.py BUILD/app/bankviz-cli > /tmp/table.md
"""
import json
import subprocess
import sys

PRESETS = [
    "transpose-naive", "transpose-padded", "transpose-swizzled",
    "reduction-interleaved-divergent", "reduction-interleaved-strided", "reduction-sequential",
    "scan-up-sweep", "scan-up-sweep-conflict-free",
    "stride-sweep",
    "sgemm-as-transposed-store", "sgemm-as-transposed-store-padded",
    "float4-rows-and-broadcasts",
    "swizzle-128b-atom", "swizzle-128b-atom-16-byte-chunks",
    "column-write-row-read", "vector-add-shared-temp3-race",
    "reverse-cc1x-half-warps", "reverse-double-cc1x", "reverse-double-kepler8",
]


def number(x):
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def runs(values):
    """[1, 1, 1, 32] -> '1 x3, 32'"""
    out = []
    for v in values:
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return ", ".join(number(v) + (f" x{n}" if n > 1 else "") for v, n in out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: teaching_set.py PATH/TO/bankviz-cli")
    cli = sys.argv[1]
    print("| preset | what it shows | arch | wavefronts per request, memory steps in order | total / ideal | races |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in PRESETS:
        a = json.loads(subprocess.run([cli, "analyze", "--preset", name, "--json"], check=False,
                                      capture_output=True, text=True).stdout)
        steps = [s for s in a["steps"] if s["kind"] != "sync"]
        races = sum(1 for i in a["issues"] if i["message"].startswith("race"))
        title = a["scenario"]["title"]
        for c in "\\|*_<[]":
            title = title.replace(c, "\\" + c)
        print(f"| [`{name}`](assets/presets/{name}.json) | {title} | {a['arch']['id']} | "
              f"{runs([s['per_request'] for s in steps])} | "
              f"{a['totals']['wavefronts']} / {a['totals']['ideal']} | {'yes' if races else 'no'} |")


main()
