#!/usr/bin/env python3
"""The CPU recording against the hardware and the followed model, line by line (issue 20), no GPU.

For each kernel of model_vs_hardware.py's CASES, runs `bankviz-cli profile --record --json` (one
block recorded on the CPU, kernels/record.h) and `--model --json` (the kernel followed,
core/from_source.h), and compares each shared-memory line's wavefronts with the hardware's per-line
counts as an H100 measured them (the file model_vs_hardware.py wrote: docs/model-vs-hardware-h100.txt).

usage: kernels/tools/record_vs_hardware.py CLI [DATA_DIR] [HARDWARE_TXT]
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_vs_hardware import CASES  # noqa: E402


def hardware(path):
    """{(file, kernel): {line: wavefronts}} from model_vs_hardware.py's output."""
    out, cur = {}, None
    for l in open(path):
        m = re.match(r"== (\S+) (\S+) block", l)
        if m:
            cur = out.setdefault((m.group(1), m.group(2)), {})
            continue
        m = re.match(r"\s+line\s+(\d+) \S+\s+hw:\s+\d+ instr\s+(\d+) wavefronts", l)
        if m and cur is not None:
            cur[int(m.group(1))] = int(m.group(2))
    return out


def run(cli, data, f, kernel, block, args, shared, mode):
    cmd = [cli, "profile", f"{data}/{f}", "--kernel", kernel, "--block", block, "--shared",
           str(shared), mode, "--json"]
    for a in args:
        cmd += ["--arg", a]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().replace("\n", " ")[:200]
    return {l["line"]: l for l in json.loads(p.stdout)["lines"]}, ""


def main():
    cli = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else "tests/data/profile"
    hw_file = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "model-vs-hardware-h100.txt")
    hw = hardware(hw_file)
    equal = differ = failed = follow_equal = 0
    for f, kernel, block, args, shared in CASES:
        rec, why = run(cli, data, f, kernel, block, args, shared, "--record")
        mod, _ = run(cli, data, f, kernel, block, args, shared, "--model")
        print(f"== {f} {kernel} block {block}" + (f" shared {shared}" if shared else ""))
        h = hw.get((f, kernel), {})
        if rec is None:
            failed += len(h)
            print(f"   the recording fails: {why}")
            continue
        for line in sorted(set(h) | set(rec)):
            r = rec.get(line)
            m = (mod or {}).get(line, {})
            rw = r["wavefronts"] if r else None
            mw = m.get("wavefronts")
            hw_w = h.get(line)
            same = rw == hw_w
            if hw_w is not None:
                equal += same
                differ += not same
            follow_equal += hw_w is not None and mw == hw_w
            print(f"  line {line:3} hw: {hw_w if hw_w is not None else '-':>6}  recorded: "
                  f"{rw if rw is not None else '-':>6} ({r['requests'] if r else 0} req)  followed: "
                  f"{mw if mw is not None else 'refused':>7}  "
                  f"{'EQUAL' if same else 'DIFFERENT' if hw_w is not None else '(no hw line)'}")
    print(f"hardware lines: recording {equal} equal, {differ} different, {failed} not recorded; "
          f"followed model {follow_equal} equal")


if __name__ == "__main__":
    main()
