#!/usr/bin/env python3
"""Counts the shared-memory instructions of each kernel in `cuobjdump -sass` output.

usage: sass_check.py SASS.txt   exits 1 unless every k_ldsm kernel has exactly one LDSM, every
k_stsm exactly one STSM and every k_cp exactly one LDGSTS, and none has another shared access
(instructions predicated on @!PT never execute and are skipped).
"""
import re
import sys

OPS = ["LDSM", "STSM", "LDGSTS", "LDS", "STS", "ATOMS", "LD", "ST", "LDGDEPBAR", "DEPBAR"]
funcs = {}
cur = None
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        cur = m.group(1)
        funcs[cur] = {o: 0 for o in OPS}
        funcs[cur]["text"] = []
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_]+)(\.[^\s]*)?", line)
    if cur and m:
        if m.group(1) and m.group(1).strip() == "@!PT":
            continue  # never executed (ptxas pads with "@!PT LDS RZ, [RZ]")
        op = m.group(2)
        if op in OPS:
            funcs[cur][op] += 1
            funcs[cur]["text"].append(line.strip())
bad = 0
for f, c in sorted(funcs.items()):
    want = "LDSM" if "k_ldsm" in f else "STSM" if "k_stsm" in f else "LDGSTS" if "k_cp" in f else None
    if want is None:
        continue
    others = sum(c[o] for o in ("LDSM", "STSM", "LDGSTS", "LDS", "STS", "ATOMS", "LD", "ST") if o != want)
    ok = c[want] == 1 and others == 0
    bad += not ok
    print(("OK  " if ok else "BAD ") + f, {o: c[o] for o in OPS if c[o]})
    for t in c["text"]:
        print("      ", t)
print(f"{len([f for f in funcs if 'k_' in f])} kernels, {bad} bad")
sys.exit(1 if bad else 0)
