#!/usr/bin/env python3
"""Scenarios for the cost of a cp.async step in exposed mode (issue 19, item 3).

For each copy size S (4, 8, 16 bytes) one scenario whose steps write k lanes into one bank in
every store group (S = 4: the warp, 8: half-warps, 16: quarter-warps), k = 1 .. the group's
lanes, so the step costs k x (32 / group lanes) wavefronts per warp instruction. The source is
coalesced (the default). Blocks of 256 threads with a 4 KB tile: exposed mode runs 8 blocks of
8 warps, 64 warps per SM, so the shared pipe, not the warps, sets the pace. Every warp writes
the same words (the tile is shared by the block's 8 warps): the pattern is the lane's alone.

Also the smallest destination pattern with its source spread over 1 to 32 lines, and, for
the reduction question: one-wavefront loads and stores with n active lanes per warp.

Usage: gen_cpcost.py OUTDIR
"""
import json
import os
import sys


def scen(out, name, steps, block=256, words=1024):
    st = []
    for i, s in enumerate(steps):
        if i:
            st.append({"kind": "sync"})
        st.append(s)
    d = {"name": name, "title": name, "arch": "hopper", "block": [block, 1, 1], "grid": 1,
         "tiles": [{"name": "t", "elem": "int", "dims": [words]}], "steps": st}
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(d, f, indent=1)


def cp_steps(size):
    words = size // 4
    group = {4: 32, 8: 16, 16: 8}[size]
    groups = 32 // group
    steps = []
    for k in range(1, group + 1):
        c = -(-group // k)  # lanes per row: at most k lanes share a bank in the group
        if k > 1 and -(-group // c) != k:
            continue  # the same c as a smaller k
        q = f"(threadIdx.x % {group})"
        idx = f"{q} % {c} * {words} + {q} / {c} * 32"
        if groups > 1:
            idx += f" + threadIdx.x % 32 / {group} * {1024 // groups}"
        steps.append({"kind": f"cp.async.{size}", "index": f"t[{idx}]"})
    return steps


def floor_steps():
    """Below 4 wavefronts: what sets a cp.async's floor (destination rows, source lines)."""
    l = "(threadIdx.x % 32)"
    out = {}
    # 4 bytes, one wavefront, the destination over R rows of 128 bytes (banks distinct).
    out["floor-4-rows"] = [{"kind": "cp.async.4", "index": f"t[{l} + {l} % {r} * 32]"}
                           for r in (1, 2, 4, 8, 16, 32)]
    out["floor-4-rows-mid"] = [{"kind": "cp.async.4", "index": f"t[{l} + {l} % {r} * 32]"}
                               for r in (17, 20, 24, 28)]
    out["floor-4-rowsblk"] = [{"kind": "cp.async.4", "index": f"t[{l} + {l} / {32 // r} * 32]"}
                              for r in (2, 4, 8)]
    # Two lanes per word (2 wavefronts) in one row, and over 32 rows.
    out["floor-4-pairs"] = [{"kind": "cp.async.4", "index": f"t[{l} % 16]"},
                            {"kind": "cp.async.4", "index": f"t[{l} % 16 + {l} * 32]"}]
    # 8 and 16 bytes: every group in one row (the same words) or a row each (the default).
    out["floor-8-16-rows"] = [{"kind": "cp.async.8", "index": f"t[{l} % 16 * 2]"},
                              {"kind": "cp.async.8", "index": f"t[{l} % 16 * 2 + {l} / 16 * 32]"},
                              {"kind": "cp.async.16", "index": f"t[{l} % 8 * 4]"},
                              {"kind": "cp.async.16", "index": f"t[{l} % 8 * 4 + {l} / 8 * 32]"}]
    # One wavefront, one destination row, the source over 1, 2 or 4 lines (no source conflict).
    out["floor-4-lines"] = [{"kind": "cp.async.4", "index": f"t[{l}]",
                             "source": f"{l} + {l} % {m} * 32"} for m in (1, 2, 4)]
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for size in (4, 8, 16):
        scen(out, f"cpcost-{size}", cp_steps(size))
        # The same 1-group destination, the source spread over more lines: does the floor move?
        steps = []
        for m in (1, 2, 4, 8, 32):
            st = dict(cp_steps(size)[0])
            st["source"] = f"threadIdx.x % 32 * {m}"
            steps.append(st)
        scen(out, f"cpsrc-{size}", steps)
    for name, steps in floor_steps().items():
        scen(out, name, steps)
    for kind in ("load", "store"):
        steps = []
        for n in (0, 1, 2, 4, 8, 16, 24, 32):  # 0: no guard; 32: a guard every lane passes
            s = {"kind": kind, "index": "t[threadIdx.x % 32]"}
            if n:
                s["guard"] = f"threadIdx.x % 32 < {n}"
            if kind == "store":
                s["value"] = "threadIdx.x"
            steps.append(s)
        scen(out, f"mask-{kind}", steps)
        scen(out, f"mask1-{kind}", steps, block=32)  # one warp: exposed mode adds replicas
        # 16 wavefronts: the whole warp (2 lanes per word) or the even lanes alone
        steps = [{"kind": kind, "index": "t[threadIdx.x % 32 / 2 * 32]"},
                 {"kind": kind, "index": "t[threadIdx.x % 32 / 2 * 32]",
                  "guard": "threadIdx.x % 2 == 0"}]
        if kind == "store":
            for x in steps:
                x["value"] = "threadIdx.x"
        scen(out, f"mask16-{kind}", steps)


main()
