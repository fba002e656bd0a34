#!/usr/bin/env python3
"""The GPU recording against the hardware, line by line (issue 20, item 1), on a GPU.

For each kernel of model_vs_hardware.py's CASES (the seeds' kernels as written and bankviz's own)
and of EXTRA below, runs `bankviz-cli profile --grid 1 --record-gpu --json`: one block profiled
under CUPTI's SASS metrics and recorded as the GPU ran it (kernels/src/record_gpu.cpp), each
recorded line served by the model. Prints each shared-memory line's hardware counts beside the
recording's (EQUAL: the same wavefronts; the hardware's executed count also holds predicated
instructions issued by warps with no active lane), and the totals; a kernel the recording
refuses is listed with its reason, and a differing line with the CLI's reason.

usage: kernels/tools/record_gpu_vs_hardware.py CLI [DATA_DIR]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_vs_hardware import CASES, read_cases  # noqa: E402

EXTRA = read_cases(("record",))


def main():
    cli = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else "tests/data/profile"
    equal = differ = hw_only = rec_only = kernels = refused = 0
    for f, kernel, block, args, shared in CASES + EXTRA:
        cmd = [cli, "profile", f"{data}/{f}", "--kernel", kernel, "--grid", "1", "--block", block,
               "--shared", str(shared), "--record-gpu", "--json"]
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
        kernels += 1
        rec = j.get("recording", {})
        if "lines" not in rec:
            refused += 1
            print(f"   not recorded: {rec.get('why', '?')}")
            for l in sorted(j["lines"], key=lambda l: l["line"]):
                print(f"  line {l['line']:3} hw: {l['executed']:5} instr {l['wavefronts']:6} "
                      f"wavefronts (the hardware's figures only)")
            continue
        for l in rec["lines"]:
            h, r = l.get("hardware"), l.get("recorded")
            hs = f"hw: {h['executed']:5} instr {h['wavefronts']:6} wavefronts" if h else \
                "hw:     - instr      - wavefronts"
            rs = f"recorded: {r['requests']:5} req {r['wavefronts']:6} wavefronts ({r['ops']})" \
                if r else "recorded: -"
            if h and r:
                equal += l["equal"]
                differ += not l["equal"]
                verdict = "EQUAL" if l["equal"] else "DIFFERENT"
            elif h:
                hw_only += 1
                verdict = "hardware only"
            else:
                rec_only += 1
                verdict = "no shared instruction on the GPU"
            pic = l.get("picture", {})
            ps = (f" | picture: {pic['wavefronts']} wavefronts, per warp {pic['per_warp']}"
                  if "wavefronts" in pic else f" | no picture: {pic['why']}" if pic else "")
            print(f"  line {l['line']:3} {hs} | {rs}  {verdict}{ps}")
            if l.get("reason"):
                print(f"      why: {l['reason']}")
    print(f"kernels: {kernels} profiled, {kernels - refused} recorded, {refused} refused with a "
          f"reason; lines: {equal} equal, {differ} different, {hw_only} hardware only, "
          f"{rec_only} recorded only")


if __name__ == "__main__":
    main()
