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
import subprocess
import sys

CASES = [
    ("data_layout.cu", "setRowReadRow", "32x32", ["buffer:4K"], 0),
    ("data_layout.cu", "setColReadCol", "32x32", ["buffer:4K"], 0),
    ("data_layout.cu", "setRowReadCol", "32x32", ["buffer:4K"], 0),
    ("data_layout.cu", "setRowReadColDyn", "32x32", ["buffer:4K"], 4096),
    ("data_layout.cu", "setRowReadColIpad", "32x32", ["buffer:4K"], 0),
    ("histogram.cu", "histogram", "256", ["buffer:64K", "buffer:1K"], 0),
    ("widths.cu", "widths", "128", ["buffer:64K", "int:3"], 0),
    ("dot.cu", "dot", "256", ["buffer:132K", "buffer:132K", "buffer:1K"], 0),
    ("reverse.cu", "staticReverse", "64", ["buffer:256", "int:64"], 0),
    ("reverse.cu", "dynamicReverse", "64", ["buffer:256", "int:64"], 256),
    ("kepler_filter.cu", "filter", "256", ["buffer:72K", "buffer:72K", "buffer:128"], 0),
    ("kepler_filter.cu", "filter2", "256", ["buffer:72K", "buffer:72K", "buffer:128"], 0),
    ("kernels.cu", "transposeCoalesced", "32x8", ["buffer:4K", "buffer:4K"], 0),
    ("kernels.cu", "transposeNoBankConflicts", "32x8", ["buffer:4K", "buffer:4K"], 0),
    ("kernels.cu", "transposeInPlace", "32x32", ["buffer:4K"], 0),
    ("kernels.cu", "reduceInterleavedModulo", "256", ["buffer:1K", "buffer:1K"], 0),
    ("kernels.cu", "reduceInterleavedStrided", "256", ["buffer:1K", "buffer:1K"], 0),
    ("kernels.cu", "reduceSequential", "256", ["buffer:1K", "buffer:1K"], 0),
    ("kernels.cu", "prescan", "256", ["buffer:2K", "buffer:2K"], (512 + 16) * 4),
    ("kernels.cu", "histogramBins", "256", ["buffer:1K", "buffer:1K"], 0),
    ("kernels.cu", "stencil1d", "128", ["buffer:1K", "buffer:1K"], 0),
    ("kernels.cu", "xorSwizzle", "32x32", ["buffer:4K"], 0),
    ("kernels.cu", "block3d", "8x8x4", ["buffer:1K"], 0),
    ("kernels.cu", "sgemmTile", "16x16", ["buffer:16K", "buffer:16K", "buffer:16K"], 0),
    ("kernels.cu", "dynamicAndDouble", "256", ["buffer:1K"], 2048),
    ("kernels.cu", "guardsAndReturns", "64", ["buffer:1K"], 0),
]


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
