#!/usr/bin/env python3
"""Generates the warp patterns of the ldmatrix / stmatrix / cp.async suites measured with ncu.

Writes lines  NAME OP MASK A0 ... A31  (shared byte addresses per lane; # starts a comment).
  ldmatrix/stmatrix .xN: lane 8m+r gives row r of matrix m for lanes 0..8N-1; the other lanes'
  addresses are ignored by the hardware (the "ignored" family checks it) and are written as 0
  unless the family says otherwise. MASK is always full for them.
  cp.async.S: lane l copies S bytes to A_l; lanes outside MASK skip the instruction.

usage: gen_cases.py ldmatrix|stmatrix|cpasync SEED [PER [holdout]]
A fixed seed makes the file reproducible.
"""
import random
import sys

LIMIT = 48 * 1024  # addresses stay inside the first 48 KB (the probe allocates 227 KB)
HALF = 2  # bytes per b16 element


def align(a, w):
    return a - a % w


# ---------------------------------------------------------------------------------------------
# CuTe-style swizzle: Swizzle<B,M,S> maps an offset x to x ^ ((x & (mask << (M+S))) >> S),
# mask = 2^B - 1, over the offset's unit (elements of 2 bytes, or bytes).


def swizzle(x, b, m, s):
    msk = ((1 << b) - 1) << (m + s)
    return x ^ ((x & msk) >> s)


SWIZZLES = [(3, 3, 3), (2, 3, 3), (1, 3, 3), (3, 4, 3), (2, 4, 3), (1, 4, 3), (3, 3, 4),
            (2, 4, 2), (3, 4, 4), (3, 2, 3), (2, 3, 4)]


def full():
    return 0xFFFFFFFF


def rand_mask(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return rng.getrandbits(32) or 1
    if kind == 1:
        return (1 << rng.randrange(1, 32)) - 1
    if kind == 2:
        return (0xFFFFFFFF << rng.randrange(1, 32)) & 0xFFFFFFFF
    if kind == 3:
        return rng.choice([0x55555555, 0xAAAAAAAA, 0x0000FFFF, 0xFFFF0000, 0x00FF00FF,
                           0xFF00FF00, 0x0F0F0F0F, 0x000000FF, 0xFF000000, 0x11111111,
                           0x80000001, 0x00010001, 0x01010101, 0x0000FF00, 0x33333333])
    if kind == 4:
        m = 0
        for _ in range(rng.randrange(1, 6)):
            m |= 1 << rng.randrange(32)
        return m
    if kind == 5:
        lo = rng.randrange(32)
        hi = rng.randrange(lo, 32)
        return ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
    m = 0xFFFFFFFF
    for _ in range(rng.randrange(1, 5)):
        m &= ~(1 << rng.randrange(32))
    return m


# ---------------------------------------------------------------------------------------------
# Matrix instructions: rows[l] for l < 8N, 16-byte aligned.

MATRIX_FAMILIES = ["stride", "tile16", "padded", "swz", "swzbyte", "repeat", "random",
                   "window", "perm", "ignored", "mixed"]


def tile_fragment(rng, n, pitch, origin, kind=None):
    """Row addresses of an m16n16-style fragment read from a row-major tile of `pitch` bytes."""
    kind = kind or rng.choice(["a", "b", "k"])
    rows = []
    for l in range(8 * n):
        if kind == "a":  # lanes 0-15 rows 0-15 at column 0, lanes 16-31 rows 0-15 at col 8
            r, c = l % 16, l // 16
        elif kind == "b":  # lanes 0-7 rows 0-7 col 0, 8-15 rows 0-7 col 8, 16-31 rows 8-15
            r, c = (l % 8) + 8 * (l // 16), (l // 8) % 2
        else:  # "k": 8 rows, four 16-byte chunks side by side
            r, c = l % 8, l // 8
        rows.append(origin + r * pitch + c * 16)
    return rows, kind


def gen_matrix(rng, n, family):
    """Returns (rows for lanes 0..31, detail string)."""
    rows = None
    other = None  # values for lanes >= 8n (default 0)
    base = align(rng.randrange(0, 8192), 16) if rng.random() < 0.7 else 0
    if family == "stride":
        s = rng.choice([16 * k for k in range(1, 33)] + [16, 32, 64, 128, 256, 512])
        rows = [base + l * s for l in range(8 * n)]
        detail = f"s{s}"
    elif family == "tile16":
        pitch = rng.choice([16, 32, 64, 96, 128, 160, 192, 256, 384, 512])
        rows, kind = tile_fragment(rng, n, pitch, base)
        detail = f"p{pitch}{kind}"
    elif family == "padded":
        w = rng.choice([16, 32, 64, 128, 256])  # row width in halves
        pad = rng.choice([8, 8, 16, 24, 32, 40, 56, 64])  # halves
        pitch = (w + pad) * HALF
        if rng.random() < 0.5:
            rows = [base + l * pitch for l in range(8 * n)]
            kind = "col"
        else:
            rows, kind = tile_fragment(rng, n, pitch, base)
        detail = f"w{w}pad{pad}{kind}"
    elif family in ("swz", "swzbyte"):
        b, m, s = rng.choice(SWIZZLES)
        w = rng.choice([32, 64, 64, 64, 128])  # row width in halves
        unit_bytes = family == "swzbyte"
        r0 = rng.randrange(0, 32)
        c0 = rng.randrange(0, w // 8) * 8 if w > 16 else 0
        kind = rng.choice(["a", "b", "k"])
        rows = []
        for l in range(8 * n):
            if kind == "a":
                r, c = l % 16, l // 16
            elif kind == "b":
                r, c = (l % 8) + 8 * (l // 16), (l // 8) % 2
            else:
                r, c = l % 8, l // 8
            col = (c0 + c * 8) % w
            el = (r0 + r) * w + col
            if unit_bytes:
                off = swizzle(el * HALF, b, m, s)
            else:
                off = swizzle(el, b, m, s) * HALF
            rows.append(align(off, 16))
        detail = f"sw{b}{m}{s}w{w}{kind}"
    elif family == "repeat":
        kind = rng.choice(["all", "pairs", "inter", "matcopy", "kdist", "halfcopy", "quad",
                           "kdist_small"])
        distinct = [align(rng.randrange(0, 4096), 16) for _ in range(32)]
        if rng.random() < 0.4:
            distinct = [base + l * 16 for l in range(32)]
        if kind == "all":
            rows = [distinct[0]] * (8 * n)
        elif kind == "pairs":
            rows = [distinct[l // 2] for l in range(8 * n)]
        elif kind == "inter":
            rows = [distinct[(l // 4) * 2 + (l % 2)] for l in range(8 * n)]
        elif kind == "quad":
            rows = [distinct[l // 4] for l in range(8 * n)]
        elif kind == "matcopy":
            rows = [distinct[l % 8] for l in range(8 * n)]
        elif kind == "halfcopy":
            rows = [distinct[l % 16] for l in range(8 * n)]
        elif kind == "kdist":
            k = rng.randrange(1, 9)
            rows = [distinct[rng.randrange(k)] for l in range(8 * n)]
            kind = f"kdist{k}"
        else:
            k = rng.randrange(2, 5)
            rows = [base + 16 * rng.randrange(k) for l in range(8 * n)]
            kind = f"ksmall{k}"
        detail = kind
    elif family == "random":
        rows = [align(rng.randrange(0, LIMIT - 16), 16) for _ in range(8 * n)]
        detail = "any"
    elif family == "window":
        span = rng.choice([128, 256, 512, 1024, 2048])
        rows = [base + align(rng.randrange(0, span), 16) for _ in range(8 * n)]
        detail = f"span{span}"
    elif family == "perm":
        s = rng.choice([16, 16, 32, 128, 144])
        idx = list(range(8 * n))
        rng.shuffle(idx)
        rows = [base + idx[l] * s for l in range(8 * n)]
        detail = f"s{s}"
    elif family == "ignored":
        # lanes >= 8n carry arbitrary addresses: the count must not change (pair with 'ignored0')
        rows = [base + l * rng.choice([16, 128, 144]) for l in range(8 * n)]
        other = [align(rng.randrange(0, LIMIT - 16), 16) for _ in range(32 - 8 * n)]
        detail = "junk"
    elif family == "mixed":
        s = rng.choice([16, 128, 144, 256])
        rows = [base + l * s for l in range(8 * n)]
        for _ in range(rng.randrange(1, 6)):
            i, j = rng.randrange(8 * n), rng.randrange(8 * n)
            op = rng.random()
            if op < 0.4:
                rows[i] = rows[j]
            elif op < 0.7:
                rows[i] = align(rng.randrange(0, 4096), 16)
            else:
                rows[i] += 128 * rng.randrange(1, 8)
        detail = f"s{s}"
    else:
        raise ValueError(family)
    rows = [min(max(0, x), LIMIT - 16) for x in rows]
    if other is None:
        other = [0] * (32 - 8 * n)
    return rows + other, detail


def matrix_suite(kind, rng, per):
    out = []
    # x4 (the common case) twice as often as x1 and x2
    variants = [f"{kind}.x{n}{t}" for n in (1, 2, 4, 4) for t in ("", ".trans")]
    fams = list(MATRIX_FAMILIES)
    for fam in fams:
        count = per
        if fam in ("swz", "swzbyte", "repeat", "tile16"):
            count = per * 2
        for i in range(count):
            op = variants[i % len(variants)]
            n = int(op.split(".")[1][1])
            if fam == "ignored" and n == 4:
                n = rng.choice([1, 2])
                op = f"{kind}.x{n}" + (".trans" if "trans" in op else "")
            a, detail = gen_matrix(rng, n, fam)
            short = op.replace("matrix", "").replace(".", "")
            name = f"{short}_{fam}_{detail}_{i:03d}"
            out.append((name, op, full(), a))
            if fam == "ignored":
                # the same used rows with the other lanes zeroed: must measure the same
                b = a[:8 * n] + [0] * (32 - 8 * n)
                out.append((f"{short}_ignored0_{detail}_{i:03d}", op, full(), b))
            if fam in ("stride", "tile16", "swz", "repeat") and i % 3 == 0:
                # the same rows through the other transpose flag
                other = op[:-6] if op.endswith(".trans") else op + ".trans"
                oshort = other.replace("matrix", "").replace(".", "")
                out.append((f"{oshort}_{fam}_{detail}_{i:03d}t", other, full(), a))
    return out


# ---------------------------------------------------------------------------------------------
# cp.async: lane l writes S bytes at A_l.

CP_FAMILIES = ["contig", "stride", "random", "window", "bcast", "tile", "swz", "perm", "column",
               "pairs", "mixed"]


def gen_cp(rng, s, family):
    base = align(rng.randrange(0, 8192), 128) if rng.random() < 0.5 else align(
        rng.randrange(0, 8192), s)
    if family == "contig":
        a = [base + l * s for l in range(32)]
        detail = ""
    elif family == "stride":
        k = rng.choice([2, 3, 4, 5, 7, 8, 9, 16, 17, 32, 33])
        a = [base + l * k * s for l in range(32)]
        detail = f"k{k}"
    elif family == "random":
        a = [align(rng.randrange(0, LIMIT - s), s) for _ in range(32)]
        detail = "any"
    elif family == "window":
        span = rng.choice([128, 256, 512, 1024])
        a = [base + align(rng.randrange(0, span), s) for _ in range(32)]
        detail = f"span{span}"
    elif family == "bcast":
        g = rng.choice([1, 2, 4, 8, 16])  # distinct destinations
        vals = [align(rng.randrange(0, 4096), s) for _ in range(g)]
        mode = rng.choice(["block", "mod"])
        a = [vals[l * g // 32] if mode == "block" else vals[l % g] for l in range(32)]
        detail = f"g{g}{mode}"
    elif family == "tile":
        # a row-major tile of 16-byte chunks copied chunk per lane, rows padded or not
        rowbytes = rng.choice([64, 128, 256])
        pad = rng.choice([0, 0, 4, 8, 16, 32])
        pad = pad if pad % s == 0 else 0
        pitch = rowbytes + pad
        per_row = rowbytes // s
        a = [base + (l // per_row) * pitch + (l % per_row) * s for l in range(32)]
        if rng.random() < 0.3:
            a = [base + (l % 8) * pitch + (l // 8) * s for l in range(32)]  # column-first
            detail = f"r{rowbytes}p{pad}cf"
        else:
            detail = f"r{rowbytes}p{pad}"
    elif family == "swz":
        b, m, sh = rng.choice([(3, 4, 3), (2, 4, 3), (1, 4, 3), (3, 3, 3), (2, 3, 3)])
        rowbytes = rng.choice([64, 128, 256])
        per_row = rowbytes // s
        a = [swizzle(base + (l // per_row) * rowbytes + (l % per_row) * s, b, m, sh)
             for l in range(32)]
        a = [align(x, s) for x in a]
        detail = f"sw{b}{m}{sh}r{rowbytes}"
    elif family == "perm":
        idx = list(range(32))
        rng.shuffle(idx)
        k = rng.choice([1, 1, 2, 32 // s if s < 32 else 1, 33])
        a = [base + idx[l] * k * s for l in range(32)]
        detail = f"k{k}"
    elif family == "column":
        rows = rng.choice([8, 16, 32])
        pitch = rng.choice([128, 132, 136, 144, 256, 64, 160])
        pitch = align(pitch, s) if pitch % s else pitch
        a = [base + (l % rows) * pitch + (l // rows) * s for l in range(32)]
        detail = f"r{rows}p{pitch}"
    elif family == "pairs":
        vals = [base + rng.randrange(64) * s for _ in range(32)]
        mode = rng.choice(["adj", "inter"])
        if mode == "adj":
            a = [vals[l // 2] for l in range(32)]
        else:
            a = [vals[(l // 4) * 2 + (l % 2)] for l in range(32)]
        detail = mode
    elif family == "mixed":
        a = [base + l * s for l in range(32)]
        for _ in range(rng.randrange(1, 6)):
            i, j = rng.randrange(32), rng.randrange(32)
            op = rng.random()
            if op < 0.4:
                a[i] = a[j]
            elif op < 0.7:
                a[i] = align(rng.randrange(0, 4096), s)
            else:
                a[i] += 128 * rng.randrange(1, 8)
        detail = ""
    else:
        raise ValueError(family)
    a = [min(max(0, x), LIMIT - s) for x in a]
    a = [align(x, s) for x in a]
    return a, detail


def cp_suite(rng, per):
    out = []
    for s in (4, 8, 16):
        for fam in CP_FAMILIES:
            for i in range(per):
                a, detail = gen_cp(rng, s, fam)
                mask = full() if i % 2 == 0 else rand_mask(rng)
                d = f"_{detail}" if detail else ""
                out.append((f"cp{s}_{fam}{d}_{i:03d}", f"cp.async.{s}", mask, a))
    return out


# ---------------------------------------------------------------------------------------------
# Held-out suite: the patterns the rules were least sure of, predicted before measuring.

HIGH = 227 * 1024 - 1024 - 16  # the probe's whole dynamic allocation


def gen_matrix_holdout(rng, n, family):
    base = align(rng.randrange(0, 16384), 16)
    if family == "dupmix":
        # k distinct rows that collide in banks (128-byte multiples apart, few bank offsets)
        k = rng.randrange(2, 9)
        offs = [16 * rng.randrange(2) for _ in range(k)]
        distinct = [base + 128 * rng.randrange(16) + offs[i] for i in range(k)]
        rows = [rng.choice(distinct) for _ in range(8 * n)]
        detail = f"k{k}"
    elif family == "xmat":
        # matrices reuse each other's rows, with conflicts inside each matrix
        pool = [base + 128 * rng.randrange(8) + 16 * rng.randrange(8) for _ in range(8)]
        rows = []
        for m in range(n):
            rows += [pool[(r * rng.choice([1, 3, 5]) + m) % 8] if rng.random() < 0.7
                     else pool[rng.randrange(8)] for r in range(8)]
        detail = "pool8"
    elif family == "high":
        rows = [align(rng.randrange(0, HIGH), 16) for _ in range(8 * n)]
        if rng.random() < 0.5:
            s = rng.choice([16, 128, 144, 4096, 4096 + 16])
            b = align(rng.randrange(0, HIGH - 32 * s), 16)
            rows = [b + l * s for l in range(8 * n)]
            detail = f"s{s}"
        else:
            detail = "any"
    elif family == "junk":
        n = rng.choice([1, 2]) if n == 4 else n
        rows = [base + l * 16 for l in range(8 * n)]
        junk = [base + 128 * l for l in range(32 - 8 * n)]  # would conflict 32-ways if used
        return rows + junk, "c", n
    elif family == "swzconf":
        b, m, s = rng.choice(SWIZZLES)
        w = rng.choice([32, 64, 128])
        unit_bytes = rng.random() < 0.5
        kind = rng.choice(["a", "b", "k"])
        r0 = rng.randrange(0, 64)
        rows = []
        for l in range(8 * n):
            if kind == "a":
                r, c = l % 16, l // 16
            elif kind == "b":
                r, c = (l % 8) + 8 * (l // 16), (l // 8) % 2
            else:
                r, c = l % 8, l // 8
            el = (r0 + r) * w + (c * 8) % w
            off = swizzle(el * HALF, b, m, s) if unit_bytes else swizzle(el, b, m, s) * HALF
            rows.append(align(off, 16))
        detail = f"sw{b}{m}{s}{'B' if unit_bytes else 'E'}w{w}{kind}"
    elif family == "mmajor":
        # an M-major (128 x 8) half atom, Swizzle<3,3,4> or <3,3,3> or none, read with .trans
        # style addressing: lane (8j + k) gives row k (a K index) at M block m0 + 8j
        sw = rng.choice([(3, 3, 4), (3, 3, 3), (2, 3, 4), None])
        m0 = 8 * rng.randrange(0, 12)
        rows = []
        for l in range(8 * n):
            j, k = l // 8, l % 8
            el = (m0 + 8 * j) % 128 + 128 * k
            rows.append(base + HALF * (swizzle(el, *sw) if sw else el))
        detail = f"sw{''.join(map(str, sw))}" if sw else "plain"
    else:
        raise ValueError(family)
    rows = [min(max(0, x), HIGH) for x in rows]
    return rows + [0] * (32 - 8 * n), detail, n


def gen_cp_holdout(rng, s, family):
    base = align(rng.randrange(0, 16384), 128) + s * rng.randrange(0, 128 // s)
    mask = full()
    if family == "dupdst":
        kind = rng.choice(["adj", "quad", "half", "across", "k"])
        vals = [base + s * rng.randrange(64) for _ in range(32)]
        if kind == "adj":
            a = [vals[l // 2] for l in range(32)]
        elif kind == "quad":
            a = [vals[l // 4] for l in range(32)]
        elif kind == "half":
            a = [vals[l % 16] for l in range(32)]
        elif kind == "across":
            a = [vals[l % 8] for l in range(32)]
        else:
            k = rng.randrange(1, 6)
            a = [vals[rng.randrange(k)] for _ in range(32)]
            kind = f"k{k}"
        if rng.random() < 0.5:
            mask = rand_mask(rng)
        detail = kind
    elif family == "emptygroups":
        groups = {4: 1, 8: 2, 16: 4}[s]
        glanes = 32 // groups
        keep = [g for g in range(groups) if rng.random() < 0.5] or [rng.randrange(groups)]
        mask = 0
        for g in keep:
            mask |= (rng.getrandbits(glanes) or 1) << (g * glanes)
        k = rng.choice([1, 2, 4, 8, 16, 32, 33])
        a = [base + l * k * s for l in range(32)]
        detail = f"k{k}"
    elif family == "crossgroup":
        # the same bank hit from lanes in different groups only (free for 8 and 16 bytes)
        glanes = {4: 32, 8: 16, 16: 8}[s]
        a = [base + (l % glanes) * s + 128 * (l // glanes) * rng.choice([1, 2, 3]) for l in range(32)]
        if s == 4:
            a = [base + (l % 16) * 4 + 128 * (l // 16) for l in range(32)]
        if rng.random() < 0.5:
            mask = rand_mask(rng)
        detail = f"g{glanes}"
    elif family == "bankpile":
        # j lanes of one group in one bank at different words, the rest spread
        j = rng.randrange(2, 9)
        a = [base + l * s for l in range(32)]
        start = rng.randrange(0, 32 - j)
        for i in range(j):
            a[start + i] = base + 128 * (i + 1)
        if rng.random() < 0.5:
            mask = rand_mask(rng)
        detail = f"j{j}"
    elif family == "rand":
        span = rng.choice([128, 256, 1024, 16384])
        a = [base + align(rng.randrange(0, span), s) for _ in range(32)]
        mask = rand_mask(rng) if rng.random() < 0.7 else full()
        detail = f"span{span}"
    elif family == "high":
        a = [align(rng.randrange(0, HIGH), s) for _ in range(32)]
        mask = rand_mask(rng) if rng.random() < 0.5 else full()
        detail = "any"
    else:
        raise ValueError(family)
    a = [min(max(0, x), HIGH) for x in a]
    a = [align(x, s) for x in a]
    return a, mask, detail


def holdout_suite(kind, rng, per):
    out = []
    if kind == "cpasync":
        for s in (4, 8, 16):
            for fam in ["dupdst", "emptygroups", "crossgroup", "bankpile", "rand", "high"]:
                for i in range(per):
                    a, mask, detail = gen_cp_holdout(rng, s, fam)
                    out.append((f"hcp{s}_{fam}_{detail}_{i:03d}", f"cp.async.{s}", mask, a))
        return out
    variants = [f"{kind}.x{n}{t}" for n in (1, 2, 4, 4) for t in ("", ".trans")]
    for fam in ["dupmix", "xmat", "high", "junk", "swzconf", "mmajor"]:
        for i in range(per * (2 if fam in ("dupmix", "swzconf") else 1)):
            op = variants[i % len(variants)]
            n = int(op.split(".")[1][1])
            a, detail, n = gen_matrix_holdout(rng, n, fam)
            op = f"{kind}.x{n}" + (".trans" if op.endswith(".trans") else "")
            short = "h" + op.replace("matrix", "").replace(".", "")
            out.append((f"{short}_{fam}_{detail}_{i:03d}", op, full(), a))
    return out


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("ldmatrix", "stmatrix", "cpasync"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    kind, seed = sys.argv[1], int(sys.argv[2])
    per = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    holdout = len(sys.argv) > 4 and sys.argv[4] == "holdout"
    rng = random.Random(seed)
    if holdout:
        cases = holdout_suite(kind, rng, per)
    else:
        cases = cp_suite(rng, per) if kind == "cpasync" else matrix_suite(kind, rng, per)
    what = "held-out suite" if holdout else "suite"
    print(f"# bankviz {kind} {what}, seed {seed}, per {per}: NAME OP MASK A0..A31 (byte addresses)")
    names = set()
    for name, op, mask, a in cases:
        assert name not in names, name
        names.add(name)
        print(name, op, f"0x{mask:08x}", " ".join(str(x) for x in a))
    print(f"# {len(cases)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
