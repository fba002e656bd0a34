#!/usr/bin/env python3
"""Generates the randomized warp access patterns measured on Hopper with ncu.

Writes lines in the address-record format of `bankviz-cli wavefronts`:
    NAME WIDTH MASK A0 ... A31
Families: random, strided, broadcast, neighbour repeats, partial masks, permutations,
mixed. A fixed seed makes the file reproducible: python3 gen_cases.py SEED > cases.txt
"""
import random
import sys

WIDTHS = [1, 2, 4, 8, 16]
LIMIT = 228 * 1024 - 1024  # probe's dynamic shared allocation


def full():
    return 0xFFFFFFFF


def rand_mask(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return rng.getrandbits(32) or 1
    if kind == 1:
        k = rng.randrange(1, 32)
        return (1 << k) - 1  # first k lanes
    if kind == 2:
        k = rng.randrange(1, 32)
        return (0xFFFFFFFF << k) & 0xFFFFFFFF  # last 32-k lanes
    if kind == 3:
        return rng.choice([0x55555555, 0xAAAAAAAA, 0x0000FFFF, 0xFFFF0000, 0x00FF00FF,
                           0xFF00FF00, 0x0F0F0F0F, 0x000000FF, 0xFF000000, 0x11111111,
                           0x80000001, 0x00010001, 0x01010101, 0x0000FF00])
    if kind == 4:
        m = 0
        for _ in range(rng.randrange(1, 6)):
            m |= 1 << rng.randrange(32)
        return m
    if kind == 5:
        # a random run of lanes
        lo = rng.randrange(32)
        hi = rng.randrange(lo, 32)
        return ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
    # dense random
    m = 0xFFFFFFFF
    for _ in range(rng.randrange(1, 5)):
        m &= ~(1 << rng.randrange(32))
    return m


def align(a, w):
    return a - a % w


def gen(rng, w, family):
    span = rng.choice([256, 1024, 4096, 4096, 16384, LIMIT - 16])
    base = align(rng.randrange(0, max(1, LIMIT - 32 * 33 * w - 64)), w)
    if rng.random() < 0.5:
        base = align(rng.randrange(0, 512), w)
    if family == "rand":
        a = [align(rng.randrange(0, span - w), w) for _ in range(32)]
    elif family == "stride":
        s = rng.choice([1, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 64, 0.5, 0.25])
        unit = w
        if s < 1:
            # sub-element strides: several lanes per element (bytes shared)
            a = [align(base + int(l * s) * unit, w) for l in range(32)]
        else:
            a = [base + l * int(s) * unit for l in range(32)]
    elif family == "bcast":
        g = rng.choice([32, 16, 8, 4, 2])
        pick = rng.choice(["block", "mod"])
        addrs = [align(rng.randrange(0, span - w), w) for _ in range(32)]
        if pick == "block":
            a = [addrs[l // g] if g < 32 else addrs[0] for l in range(32)]
        else:
            n = 32 // g if g < 32 else 1
            a = [addrs[l % n] for l in range(32)]
    elif family == "repeat":
        # neighbours repeat addresses: lane l uses element f(l // r) or l ^ x
        r = rng.choice([2, 4, 8])
        s = rng.choice([1, 1, 2, 4, 8, 16, 32, 33])
        mode = rng.choice(["div", "xor16", "xor8", "mod16", "mod8"])
        if mode == "div":
            a = [base + (l // r) * s * w for l in range(32)]
        elif mode == "xor16":
            a = [base + (l % 16) * s * w for l in range(32)]
        elif mode == "xor8":
            a = [base + (l % 8 + 8 * ((l // 16) % 2)) * s * w for l in range(32)]
        elif mode == "mod16":
            a = [base + ((l * 7) % 16) * s * w for l in range(32)]
        else:
            a = [base + (l % 8) * s * w for l in range(32)]
    elif family == "perm":
        idx = list(range(32))
        rng.shuffle(idx)
        s = rng.choice([1, 1, 2, 32, 33])
        a = [base + idx[l] * s * w for l in range(32)]
    elif family == "mixed":
        a = [base + l * w for l in range(32)]
        for _ in range(rng.randrange(1, 8)):
            i, j = rng.randrange(32), rng.randrange(32)
            op = rng.random()
            if op < 0.4:
                a[i] = a[j]
            elif op < 0.7:
                a[i] = align(rng.randrange(0, span - w), w)
            else:
                a[i] = a[i] + 128 * rng.randrange(1, 8)
    elif family == "column":
        rows = rng.choice([8, 16, 32])
        pitch = rng.choice([32, 33, 34, 36, 40, 64, 16, 17, 8, 9, 2, 4])
        a = [base + ((l % rows) * pitch + l // rows) * w for l in range(32)]
    elif family in ("pairs", "inter", "halfmode", "nearpair"):
        # Lanes that pair up (the measured Hopper merge condition) and near misses.
        vals = [align(rng.randrange(0, span - w), w) if rng.random() < 0.5
                else base + rng.randrange(64) * w for _ in range(32)]
        a = list(vals)
        pair = [vals[l // 2] for l in range(32)]
        inter = [vals[(l // 4) * 2 + (l % 2)] for l in range(32)]
        if family == "pairs":
            a = pair
        elif family == "inter":
            a = inter
        elif family == "halfmode":
            a = pair[:16] + inter[16:] if rng.random() < 0.5 else inter[:16] + pair[16:]
        else:
            a = pair if rng.random() < 0.5 else inter
            for _ in range(rng.randrange(1, 3)):
                a[rng.randrange(32)] = align(rng.randrange(0, span - w), w)
    else:
        raise ValueError(family)
    a = [min(max(0, x), LIMIT - w) for x in a]
    a = [align(x, w) for x in a]
    return a


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 20261122
    per = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    rng = random.Random(seed)
    fams = ["rand", "stride", "bcast", "repeat", "perm", "mixed", "column"]
    if len(sys.argv) > 3 and sys.argv[3] == "pairing":
        fams = ["pairs", "inter", "halfmode", "nearpair", "bcast", "repeat"]
    print(f"# Hopper wavefront suite, seed {seed}: NAME WIDTH MASK A0..A31 (byte addresses)")
    n = 0
    for w in WIDTHS:
        for fam in fams:
            for i in range(per * (2 if w >= 8 else 1)):
                a = gen(rng, w, fam)
                mask = full() if i % 2 == 0 else rand_mask(rng)
                name = f"w{w}_{fam}_{i:03d}"
                print(name, w, f"0x{mask:08x}", " ".join(str(x) for x in a))
                n += 1
    print(f"# {n} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
