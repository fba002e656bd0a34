#!/usr/bin/env python3
"""The model against the hardware, line by line (issue 20), on a GPU.

Runs `bankviz-cli profile FILE --kernel K --grid 1 --block B ... --json` for each kernel below
(the seeds' kernels as written and bankviz's own in tests/data/profile/) and prints, for every
shared-memory line, the hardware's warp instructions and wavefronts (CUPTI SASS metrics, one
block) beside the model's (the kernel followed for that block, core/from_source.h), and whether
the wavefronts are equal. A line the model refuses shows its reason.

usage: kernels/tools/model_vs_hardware.py CLI [DATA_DIR]   (DATA_DIR: tests/data/profile)
"""
import json
import os
import subprocess
import sys

CASES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                          "profile", "cases.txt")


def read_cases(tags):
    """(file, kernel, block, args, shared) of tests/data/profile/cases.txt's lines tagged in tags."""
    out = []
    with open(CASES_FILE) as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith("#") and w[0] in tags:
                out.append((w[1], w[2], w[3], w[5:], int(w[4])))
    return out


CASES = read_cases(("model",))


def main():
    cli = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else "tests/data/profile"
    equal = differ = refused = 0
    for f, kernel, block, args, shared in CASES:
        cmd = [cli, "profile", f"{data}/{f}", "--kernel", kernel, "--grid", "1", "--block", block,
               "--shared", str(shared), "--json"]
        for a in args:
            cmd += ["--arg", a]
        p = subprocess.run(cmd, capture_output=True, text=True)
        print(f"== {f} {kernel} block {block}" + (f" shared {shared}" if shared else ""))
        try:
            j = json.loads(p.stdout)
        except json.JSONDecodeError:
            print("   no JSON:", p.stderr.strip()[:300])
            continue
        if j.get("status") != "ok" or j.get("counters") != "ok":
            print("  ", j.get("status"), j.get("message", ""), j.get("counters_message", ""))
            continue
        for l in sorted(j["lines"], key=lambda l: l["line"]):
            m = l.get("model", {})
            head = (f"  line {l['line']:3} {','.join(l['ops']):8} hw: {l['executed']:5} instr "
                    f"{l['wavefronts']:6} wavefronts ({l['wavefronts_per_request']:.2f}/req)")
            if "why" in m:
                refused += 1
                print(f"{head} | model refuses: {m['why']}")
                continue
            same = m["wavefronts"] == l["wavefronts"]
            equal += same
            differ += not same
            print(f"{head} | model: {m['instructions']:5} instr {m['wavefronts']:6} wavefronts "
                  f"({m['wavefronts_per_request']:.2f}/req) {'EQUAL' if same else 'DIFFERENT'}")
    print(f"lines: {equal} equal, {differ} different, {refused} refused by the model")


if __name__ == "__main__":
    main()
