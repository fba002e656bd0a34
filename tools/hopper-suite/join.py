#!/usr/bin/env python3
"""Joins measure.sh's outputs into the measured suite: one line per case, NAME LOAD STORE.

usage: join.py OUTDIR > expected.txt
Checks that every launch executed exactly one shared load and one shared store instruction
(otherwise the wavefront count would not be per-instruction).
"""
import csv
import sys

out = sys.argv[1]
names = {}
for line in open(f"{out}/launches.txt"):
    _, idx, name = line.split()
    names[int(idx)] = name
rows = [l for l in open(f"{out}/ncu.csv") if not l.startswith("==")]
vals = {}
for r in csv.DictReader(rows):
    vals.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
bad = 0
for idx in sorted(names):
    m = vals[idx]
    if m["smsp__inst_executed_op_shared_ld.sum"] != 1 or m["smsp__inst_executed_op_shared_st.sum"] != 1:
        print(f"{names[idx]}: not one instruction each: {m}", file=sys.stderr)
        bad += 1
    ld = int(m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"])
    st = int(m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"])
    print(names[idx], ld, st)
sys.exit(1 if bad else 0)
