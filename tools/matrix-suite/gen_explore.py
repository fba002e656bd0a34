#!/usr/bin/env python3
"""Exploration set for cp.async: the same destinations copied from different global sources.

Writes lines NAME OP MASK A0..A31 S0..S31 (S: each lane's global source byte offset, which the
probe reads when a cp.async line carries them), plus mask-0 lines (the probe's baseline).
These cases show how the source changes the shared-memory side; they are not a suite of the
command line, whose model assumes the coalesced source (docs/MATRIX_RULE.md).
usage: gen_explore.py SEED > cpsrc.txt
"""
import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 5150)
G = 65536  # source base: 128-byte aligned, inside the probe's 1 MiB buffer
out = []


def add(name, op, mask, a, s):
    out.append(f"{name} {op} 0x{mask:08x} " + " ".join(map(str, a)) + " " + " ".join(map(str, s)))


for size in (4, 8, 16):
    op = f"cp.async.{size}"
    glanes = {4: 32, 8: 16, 16: 8}[size]
    dsts = {"dc": [4096 + l * size for l in range(32)],
            "dx": [4096 + l * 2 * size for l in range(32)]}
    for dname, a in dsts.items():
        srcs = {"contig": [G + l * size for l in range(32)]}
        for j in sorted({size, 16, 64}):
            srcs[f"shift{j}"] = [G + j + l * size for l in range(32)]
        perm = []
        for g in range(0, 32, glanes):
            idx = list(range(glanes))
            rng.shuffle(idx)
            perm += [G + (g + i) * size for i in idx]
        srcs["permline"] = perm
        srcs["rev"] = [G + (g + glanes - 1 - (l - g)) * size
                       for g in range(0, 32, glanes) for l in range(g, g + glanes)]
        srcs["rows8"] = [G + (l // 8) * 4096 + (l % 8) * size for l in range(32)]
        srcs["stride2"] = [G + l * 2 * size for l in range(32)]
        srcs["pairsame"] = [G + (l // 2) * size for l in range(32)]
        srcs["groupsame"] = [G + (l // glanes) * 128 for l in range(32)]
        srcs["bankdup"] = [G + l * 128 for l in range(32)]
        srcs["win512"] = [G + size * rng.randrange(512 // size) for _ in range(32)]
        srcs["anyline"] = [G + size * rng.randrange(65536 // size) for _ in range(32)]
        for sname, s in srcs.items():
            add(f"x{size}_{dname}_{sname}", op, 0xFFFFFFFF, a, s)
    add(f"x{size}_mask0", op, 0, dsts["dc"], [G + l * size for l in range(32)])
    add(f"x{size}_lane0", op, 1, dsts["dc"], [G + l * size for l in range(32)])
print("# cp.async exploration: NAME OP MASK A0..A31 S0..S31")
print("\n".join(out))
