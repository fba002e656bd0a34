#!/usr/bin/env python3
"""Targeted 8- and 16-byte patterns that isolate when Hopper merges the fixed half-/quarter-warp
split on loads. Addresses are chosen conflict-free unless a family says otherwise, so a measured
count of 1 (8 B) or 1 per half (16 B) means "merged". Same output format as gen_cases.py."""
import itertools
import random

rng = random.Random(7)
out = []


def emit(name, w, mask, addr):
    out.append(f"{name} {w} 0x{mask:08x} " + " ".join(str(x) for x in addr))


def lanes_mask(ls):
    m = 0
    for l in ls:
        m |= 1 << l
    return m


def place(ls, vals, w, base=1024):
    a = [base] * 32
    for l, v in zip(ls, vals):
        a[l] = base + v * w
    return a


# 8 B: every pair of lanes with two different, conflict-free addresses.
for i, j in itertools.combinations(range(32), 2):
    emit(f"t8_two_{i}_{j}", 8, lanes_mask([i, j]), place([i, j], [0, 1], 8))
# 8 B: triples and quads, distinct conflict-free addresses (k distinct values).
for k in (3, 4, 5, 6):
    for t in range(120):
        ls = sorted(rng.sample(range(32), k))
        nv = rng.randrange(1, k + 1)
        vals = [rng.randrange(nv) for _ in ls]
        emit(f"t8_k{k}_{t:03d}", 8, lanes_mask(ls), place(ls, vals, 8))
# 8 B: full warp with u distinct conflict-free addresses, several assignments.
for u in range(1, 17):
    for kind in ("mod", "div", "rand", "pairmod", "halfsplit"):
        if kind == "mod":
            vals = [l % u for l in range(32)]
        elif kind == "div":
            vals = [l * u // 32 for l in range(32)]
        elif kind == "rand":
            vals = [rng.randrange(u) for _ in range(32)]
        elif kind == "pairmod":
            vals = [(l // 2) % u for l in range(32)]
        else:
            vals = [(l % 16) % u if l < 16 else u - 1 - (l % 16) % u for l in range(32)]
        emit(f"t8_u{u}_{kind}", 8, 0xFFFFFFFF, place(range(32), vals, 8))
# 8 B: fused pairs with conflicts arranged per half (whole-warp vs fixed-minus-one).
for t in range(80):
    vals = []
    for p in range(16):
        # each pair: same address; bank chosen from a small set to create conflicts
        bank2 = rng.choice([0, 0, 1, 2, 3]) if p < 8 else rng.choice([0, 4, 4, 5, 6])
        row = rng.randrange(8)
        vals.append(row * 16 + bank2)  # in 8-byte units: 16 per 128-byte row
    a = [1024 + vals[l // 2] * 8 for l in range(32)]
    emit(f"t8_fusedconf_{t:03d}", 8, 0xFFFFFFFF, a)
# 8 B: random masks with fused pairs and random (conflicting) addresses.
for t in range(80):
    m = rng.getrandbits(32)
    vals = [rng.randrange(64) for _ in range(16)]
    a = [1024 + vals[l // 2] * 8 for l in range(32)]
    emit(f"t8_fusedrand_{t:03d}", 8, m or 1, a)

# 16 B: every pair of lanes, two different conflict-free addresses.
for i, j in itertools.combinations(range(32), 2):
    emit(f"t16_two_{i}_{j}", 16, lanes_mask([i, j]), place([i, j], [0, 1], 16))
for k in (3, 4, 5):
    for t in range(100):
        ls = sorted(rng.sample(range(16), k))
        nv = rng.randrange(1, k + 1)
        vals = [rng.randrange(nv) for _ in ls]
        emit(f"t16_k{k}_{t:03d}", 16, lanes_mask(ls), place(ls, vals, 16))
for u in range(1, 9):
    for kind in ("mod", "div", "rand", "pairmod"):
        if kind == "mod":
            vals = [l % u for l in range(32)]
        elif kind == "div":
            vals = [l * u // 32 for l in range(32)]
        elif kind == "rand":
            vals = [rng.randrange(u) for _ in range(32)]
        else:
            vals = [(l // 2) % u for l in range(32)]
        emit(f"t16_u{u}_{kind}", 16, 0xFFFFFFFF, place(range(32), vals, 16))
for t in range(60):
    m = rng.getrandbits(32)
    vals = [rng.randrange(32) for _ in range(16)]
    a = [1024 + vals[l // 2] * 16 for l in range(32)]
    emit(f"t16_fusedrand_{t:03d}", 16, m or 1, a)

print("# targeted 8/16-byte merge suite: NAME WIDTH MASK A0..A31")
print("\n".join(out))
