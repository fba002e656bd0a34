#!/usr/bin/env python3
"""The cp.async source suite: destinations of the coalesced suite copied from many global sources.

Writes lines NAME OP MASK A0..A31 S0..S31 (S: each lane's global source byte offset, which the
probe reads when a cp.async line carries them). For each copy size and each source family, DEST
destinations are drawn from tests/data/hopper/cpasync.txt (the measured coalesced suite: rows,
columns, strides, swizzles, broadcasts, random) plus a few written here, and each is copied
from a source of that family at a random 128-byte aligned base. A seventh of the cases keep a
random mask. The measured counts are tests/data/hopper/cpsource.expected (docs/CPASYNC_SOURCE.md).
usage: gen_sources.py SEED DEST > cpsource.txt
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "..", "..", "tests", "data", "hopper", "cpasync.txt")
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1919)
per = int(sys.argv[2]) if len(sys.argv) > 2 else 20
GLOBAL = 1 << 20  # the probe's source buffer


def pool(size):
    out = []
    for line in open(SUITE):
        p = line.split()
        if not p or p[0].startswith("#") or p[1] != f"cp.async.{size}":
            continue
        if int(p[2], 0) == 0xFFFFFFFF:
            out.append((p[0], [int(x) for x in p[3:35]]))
    base = 8192
    own = {"contig": [base + l * size for l in range(32)],
           "stride2": [base + l * 2 * size for l in range(32)],
           "stride4": [base + l * 4 * size for l in range(32)],
           "col128": [base + l * 128 for l in range(32)],
           "same": [base] * 32,
           "pairs": [base + (l // 2) * size for l in range(32)]}
    out += [("own_" + k, v) for k, v in own.items()]
    return out


def sources(size):
    """Family name -> function(base) giving 32 source offsets."""
    g = {4: 32, 8: 16, 16: 8}[size]  # lanes of one fixed group
    f = {}
    f["contig"] = lambda b: [b + l * size for l in range(32)]
    for k in sorted({size, 16, 32, 64, 96}):
        f[f"shift{k}"] = lambda b, k=k: [b + k + l * size for l in range(32)]
    for st in sorted({2 * size, 3 * size, 16, 32, 64, 128, 256, 4096} - {size}):
        if st % size == 0:
            f[f"stride{st}"] = lambda b, st=st: [b + l * st for l in range(32)]
    for r in (4, 8, 16):
        if r * size > 256:
            continue
        for pitch in (128, 256, 512, 1024, 4096, 144, 160, 2048 + 128):
            if pitch % size or pitch < r * size:
                continue
            f[f"rows{r}p{pitch}"] = lambda b, r=r, pitch=pitch: [
                b + (l // r) * pitch + (l % r) * size for l in range(32)]
    f["rev"] = lambda b: [b + (31 - l) * size for l in range(32)]
    f["revgroup"] = lambda b: [b + ((l // g) * g + g - 1 - l % g) * size for l in range(32)]

    def perm(b):
        out = []
        for s in range(0, 32, g):
            idx = list(range(s, s + g))
            rng.shuffle(idx)
            out += [b + i * size for i in idx]
        return out
    f["permgroup"] = perm

    def permall(b):
        idx = list(range(32))
        rng.shuffle(idx)
        return [b + i * size for i in idx]
    f["permwarp"] = permall
    for x in (1, 3, 7, 16):
        f[f"xor{x}"] = lambda b, x=x: [b + (l ^ x) * size for l in range(32)]
    f["pairs"] = lambda b: [b + (l // 2) * size for l in range(32)]
    f["quads"] = lambda b: [b + (l // 4) * size for l in range(32)]
    f["same"] = lambda b: [b] * 32
    f["halfsame"] = lambda b: [b + (l // 16) * 128 for l in range(32)]
    for w in (128, 256, 512, 1024):
        f[f"win{w}"] = lambda b, w=w: [b + size * rng.randrange(w // size) for _ in range(32)]
    f["anyline"] = lambda b: [b + size * rng.randrange(65536 // size) for _ in range(32)]
    f["mirror"] = None  # the destination's own offset
    return f


out = []
for size in (4, 8, 16):
    op = f"cp.async.{size}"
    dests = pool(size)
    for fam, fn in sources(size).items():
        picks = rng.sample(dests, min(per, len(dests)))
        for i, (dname, a) in enumerate(picks):
            base = 65536 + 128 * rng.randrange(2048)
            s = [base + x for x in a] if fn is None else fn(base)
            if min(s) < 0 or max(s) + size > GLOBAL:
                continue
            mask = 0xFFFFFFFF
            if rng.random() < 1 / 7:
                mask = rng.getrandbits(32) | 1
            name = f"s{size}_{fam}_{i:02d}_{dname.split('_', 1)[1] if '_' in dname else dname}"
            out.append(f"{name} {op} 0x{mask:08x} " + " ".join(map(str, a)) + " " +
                       " ".join(map(str, s)))
print("# cp.async sources: NAME OP MASK A0..A31 S0..S31 (gen_sources.py "
      f"{sys.argv[1] if len(sys.argv) > 1 else 1919} {per})")
print("\n".join(out))
