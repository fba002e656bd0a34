#!/usr/bin/env python3
"""Writes the case files of sweep.cu (tools/cpsweep/README.md says what each family asks).

usage: gen.py CPSOURCE.txt OUTDIR
  a1.txt adj0 + adj1, a2.txt zero0, a3.txt high, a4.txt committed (run A, one process each)
  b.txt  adj0 + committed (run B, another process)
  small.txt  adj0, zero0 (runs C and D)
Every family but `committed` is a 4-byte copy whose lanes 0-15 read words 0-15 of one 128-byte
line and lanes 16-31 words 16-31 of another, into shared words 0-31: conflict-free on both
sides, one pass and one wavefront in the model, so any extra is the L1's global pass.
"""
import random
import sys

rnd = random.Random(19)
DST = " ".join(str(4 * l) for l in range(32))


def pair(name, a, b, buf=0):
    src = [a * 128 + 4 * l for l in range(16)] + [b * 128 + 4 * l for l in range(16, 32)]
    return f"{name} 4 {buf} 0xffffffff {DST} " + " ".join(map(str, src))


adj0 = [pair(f"adj0_{a}", a, a + 1) for a in range(256)]
zero0 = [pair(f"zero0_{b}", 0, b) for b in range(1, 256)]
adj1 = [pair(f"adj1_{a}", a, a + 1, 1) for a in range(256)]
high = []
LINES = 32 << 20 >> 7  # 32 MiB of 128-byte lines
for k in sorted(rnd.sample(range(LINES // 16 - 1), 48)):
    high.append(pair(f"high_m7_{16 * k + 7}", 16 * k + 7, 16 * k + 8))
    high.append(pair(f"high_m15_{16 * k + 15}", 16 * k + 15, 16 * k + 16))
for d in (32, 224, 256, 1024, 16384):
    for a in sorted(rnd.sample(range(LINES - d), 24)):
        high.append(pair(f"high_d{d}_{a}", a, a + d))
committed = []
for line in open(sys.argv[1]):
    p = line.split()
    if not p or p[0].startswith("#"):
        continue
    size, mask = int(p[1].split(".")[-1]), int(p[2], 0)
    src = list(map(int, p[35:67]))
    lines = {(src[l] + e) // 128 for l in range(32) if mask >> l & 1 for e in (0, size - 1)}
    if len(lines) == 2:
        committed.append(f"c_{p[0]} {size} 0 {p[2]} " + " ".join(p[3:67]))
committed = committed[:: max(1, len(committed) // 120)]
out = sys.argv[2]
for name, rows in (("a1", adj0 + adj1), ("a2", zero0), ("a3", high), ("a4", committed),
                   ("b", adj0 + committed), ("small", adj0 + zero0)):
    open(f"{out}/{name}.txt", "w").write("\n".join(rows) + "\n")
