#!/usr/bin/env python3
"""Reference model of the Hopper (sm_90) shared-memory cost of ldmatrix, stmatrix and cp.async,
as measured with Nsight Compute (docs/MATRIX_RULE.md gives the rules and the evidence).

Input lines:   NAME OP MASK A0 ... A31   (shared byte addresses per lane; # starts a comment)
Output lines:  NAME WAVEFRONTS IDEAL

  ldmatrix.xN[.trans] / stmatrix.xN[.trans] (b16, m8n8): lane 8m+r gives the address of the
    16-byte row r of matrix m, for lanes 0..8N-1; the other lanes' addresses are ignored.
    Each matrix is served on its own: it costs the largest number of distinct 32-bit words that
    its 8 rows touch in any one bank (rows with the same address count once; at least 1).
    WAVEFRONTS = the sum over the N matrices; IDEAL = N (ncu's bank-conflict counter is
    WAVEFRONTS - N). MASK must be full (the instructions are .sync.aligned); .trans changes
    nothing.
  cp.async.S (S = 4, 8, 16; the shared-memory write of cp.async.ca): the active lanes are split
    into fixed groups by copy size: S = 4 the whole warp, S = 8 half-warps, S = 16 quarter-warps.
    Each non-empty group costs the largest number of its active lanes that write into any one
    bank (a lane of S bytes writes S/4 banks; lanes writing the same word do NOT share it).
    WAVEFRONTS = the sum over the groups; IDEAL = the number of non-empty groups; ncu's
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts = WAVEFRONTS - IDEAL.
    This holds when each group's global source is one 128-byte line read lane by lane (a
    coalesced, aligned read: lane i of a group reads bytes [i*S, (i+1)*S) of its line). Other
    sources cost more (see the doc); the .cg variant's writes are not counted by ncu at all.

usage: model.py SUITE.txt                 prints NAME WAVEFRONTS IDEAL
       model.py SUITE.txt EXPECTED.txt     compares, prints mismatches, exits 1 if any
"""
import sys

BANKS = 32
MATRIX_OPS = {f"{k}.x{n}{t}": (k, n) for k in ("ldmatrix", "stmatrix") for n in (1, 2, 4)
              for t in ("", ".trans")}
CP_OPS = {"cp.async.4": 4, "cp.async.8": 8, "cp.async.16": 16}
FULL = 0xFFFFFFFF


class BadCase(ValueError):
    pass


def words_of(addr, size):
    """The 32-bit words that `size` bytes at `addr` touch."""
    return range(addr // 4, (addr + size - 1) // 4 + 1)


def distinct_words_per_bank(addrs, size):
    """Largest number of distinct words any one bank holds among the accesses (0 if none)."""
    per_bank = {}
    for a in addrs:
        for w in words_of(a, size):
            per_bank.setdefault(w % BANKS, set()).add(w)
    return max((len(s) for s in per_bank.values()), default=0)


def lanes_per_bank(addrs, size):
    """Largest number of accesses that touch any one bank (same word counted per access)."""
    count = [0] * BANKS
    for a in addrs:
        for w in words_of(a, size):
            count[w % BANKS] += 1
    return max(count)


def check(op, mask, addrs):
    if len(addrs) != 32:
        raise BadCase("need 32 addresses")
    if op in MATRIX_OPS:
        if mask != FULL:
            raise BadCase(f"{op} is .sync.aligned: MASK must be 0xffffffff")
        n = MATRIX_OPS[op][1]
        for lane in range(8 * n):
            if addrs[lane] % 16:
                raise BadCase(f"lane {lane}: row address {addrs[lane]} is not 16-byte aligned")
    elif op in CP_OPS:
        s = CP_OPS[op]
        for lane in range(32):
            if (mask >> lane) & 1 and addrs[lane] % s:
                raise BadCase(f"lane {lane}: address {addrs[lane]} is not {s}-byte aligned")
    else:
        raise BadCase(f"unknown op {op}")


def matrix_cost(op, addrs):
    n = MATRIX_OPS[op][1]
    wf = sum(max(1, distinct_words_per_bank(addrs[8 * m:8 * m + 8], 16)) for m in range(n))
    return wf, n


def cp_groups(size):
    lanes = {4: 32, 8: 16, 16: 8}[size]
    return [range(g, g + lanes) for g in range(0, 32, lanes)]


def cp_cost(op, mask, addrs):
    s = CP_OPS[op]
    wf = ideal = 0
    for g in cp_groups(s):
        active = [addrs[l] for l in g if (mask >> l) & 1]
        if active:
            wf += lanes_per_bank(active, s)
            ideal += 1
    return wf, ideal


SET_OF_LINE_BIT = [1, 2, 1, 2, 3, 1, 2, 3, 2, 1, 2, 1, 3, 1]  # bits 0-13 of the line index


def cp_source_set(source):
    """The L1 set (0-3) of the 128-byte line holding byte `source` (core's copy_source_set())."""
    line, s = source // 128, 0
    for h in SET_OF_LINE_BIT:
        if line & 1:
            s ^= h
        line >>= 1
    return s


def cp_cost_source(op, mask, dst, src):
    """cp.async with each lane's global source (byte offsets): the rule of docs/CPASYNC_SOURCE.md,
    as core/src/access.cpp serves it.

    The L1 reads the source lines in global passes of at most one line per set: set(line) is
    the 2-bit linear hash below (line = source // 128, counted from a 2 MiB boundary), the k-th
    distinct line of a set (lane order) is read in pass k, each lane with its line; each pass is
    split into the fixed groups. Within a (pass, group) the lanes are written in lane order,
    each in the first wavefront after the last one that used any of its destination banks and
    after the last one that read any of its source banks (global word % 32). WAVEFRONTS = the
    sum over (pass, group) of its latest wavefront + 1; IDEAL = the number of (pass, group)
    pairs. With src[l] = l * S it equals cp_cost().
    """
    s = CP_OPS[op]
    in_set, by_pass = {}, {}
    for lane in range(32):
        if not (mask >> lane) & 1:
            continue
        line = src[lane] // 128
        seen = in_set.setdefault(cp_source_set(src[lane]), [])
        if line not in seen:
            seen.append(line)
        by_pass.setdefault(seen.index(line), []).append(lane)
    passes = [by_pass[k] for k in sorted(by_pass)]

    def banks(a):
        return [(a // 4 + k) % BANKS for k in range(s // 4)]
    wf = ideal = 0
    for p in passes:
        for g in cp_groups(s):
            last_d, last_s, latest = {}, {}, 0
            for lane in (l for l in p if l in g):
                t = max([0] + [last_d[b] + 1 for b in banks(dst[lane]) if b in last_d] +
                        [last_s[b] + 1 for b in banks(src[lane]) if b in last_s])
                for b in banks(dst[lane]):
                    last_d[b] = t
                for b in banks(src[lane]):
                    last_s[b] = t
                latest = max(latest, t + 1)
            if latest:
                wf += latest
                ideal += 1
    return wf, ideal


def cp_cost_source_sketch(op, mask, dst, src):
    """A partial explanation of cp.async with an arbitrary global source (not the CLI's model).

    The active lanes are taken in lane order into global passes of at most 4 distinct 128-byte
    source lines; within a pass, each fixed group costs the larger of its source-bank load and
    its destination-bank load (lanes counted per bank, same words included); IDEAL is the
    number of (pass, group) pairs. It reproduces the coalesced and the one-source-address runs
    but only part of the others (tools/matrix-suite/check.py prints how much).
    """
    s = CP_OPS[op]
    passes, cur, lines = [], [], set()
    for lane in range(32):
        if not (mask >> lane) & 1:
            continue
        line = src[lane] // 128
        if line not in lines and len(lines) == 4:
            passes.append(cur)
            cur, lines = [], set()
        cur.append(lane)
        lines.add(line)
    if cur:
        passes.append(cur)
    wf = ideal = 0
    for p in passes:
        for g in cp_groups(s):
            lanes = [l for l in p if l in g]
            if lanes:
                wf += max(lanes_per_bank([src[l] for l in lanes], s),
                          lanes_per_bank([dst[l] for l in lanes], s))
                ideal += 1
    return wf, ideal


def model(op, mask, addrs):
    """(WAVEFRONTS, IDEAL) for one warp instruction."""
    check(op, mask, addrs)
    if op in MATRIX_OPS:
        return matrix_cost(op, addrs)
    return cp_cost(op, mask, addrs)


def read_suite(path):
    cases = []
    for lineno, line in enumerate(open(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        p = line.split()
        if len(p) != 35:
            raise BadCase(f"{path}:{lineno}: need NAME OP MASK A0..A31")
        cases.append((p[0], p[1], int(p[2], 0), [int(x) for x in p[3:]]))
    return cases


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    cases = read_suite(sys.argv[1])
    if len(sys.argv) == 2:
        for name, op, mask, a in cases:
            wf, ideal = model(op, mask, a)
            print(name, wf, ideal)
        return 0
    expected = {}
    for line in open(sys.argv[2]):
        if line.strip() and not line.startswith("#"):
            name, wf, ideal = line.split()
            expected[name] = (int(wf), int(ideal))
    bad = 0
    for name, op, mask, a in cases:
        got = model(op, mask, a)
        if expected.get(name) != got:
            bad += 1
            print(f"{name} {op} mask {mask:#010x}: measured {expected.get(name)} model {got}")
    print(f"{len(cases) - bad} / {len(cases)} agree", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
