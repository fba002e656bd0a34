#!/usr/bin/env python3
"""The sweep's runs as test data for `bankviz-cli wavefronts`.

usage: join.py RUNDIR CASEDIR OUT.txt OUT.expected RUN...
RUNDIR holds run.sh's RUN.launch / RUN.csv; CASEDIR gen.py's case files (the sources). Writes
'NAME cp.async.S MASK D0..D31 G0..G31' and 'NAME WAVEFRONTS IDEAL' for every launch whose
counters came back (WAVEFRONTS = l1tex__data_pipe_lsu_wavefronts_mem_shared - 4, the probe's own;
IDEAL = WAVEFRONTS - the ldgsts bank conflicts, as docs/MATRIX_RULE.md takes them), first launch
of each case only. G are offsets into a 2 MiB-aligned buffer. The header names the GPU run.sh
wrote into RUNDIR/DEVICE.txt (nvidia-smi's name) and that file's date.
"""
import csv
import datetime
import glob
import os
import sys

rundir, casedir, out_txt, out_exp = sys.argv[1:5]
src = {}
for f in glob.glob(f"{casedir}/*.txt"):
    for line in open(f):
        p = line.split()
        if p and not p[0].startswith("#"):
            src[p[0]] = p
def device(rundir):
    """'NVIDIA H200, 2026-11-29' from run.sh's DEVICE.txt, or says it is unknown."""
    path = os.path.join(rundir, "DEVICE.txt")
    try:
        name = open(path).readline().split(",")[0].strip()
        day = datetime.datetime.fromtimestamp(os.path.getmtime(path)).strftime("%Y-%m-%d")
    except OSError:
        return "GPU unknown: no DEVICE.txt in " + rundir
    return f"{name or 'GPU unknown: DEVICE.txt is empty'}, {day}"


SH = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
CF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"
seen = set()
with open(out_txt, "w") as t, open(out_exp, "w") as e:
    t.write("# cp.async sources in a 2 MiB-aligned buffer: NAME OP MASK A0..A31 S0..S31 "
            f"(tools/cpsweep, {device(rundir)})\n")
    for run in sys.argv[5:]:
        vals = {}
        rows = [l for l in open(f"{rundir}/{run}.csv") if not l.startswith("==")]
        for r in csv.DictReader(rows):
            try:
                vals.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
            except (KeyError, ValueError):
                pass
        for line in open(f"{rundir}/{run}.launch"):
            p = line.split()
            if not p or p[0] != "case" or p[2] in seen or int(p[1]) not in vals:
                continue
            v = vals[int(p[1])]
            if SH not in v or CF not in v:
                continue
            seen.add(p[2])
            c = src[p[2]]
            t.write(f"{c[0]} cp.async.{c[1]} {c[3]} " + " ".join(c[4:68]) + "\n")
            w = int(v[SH]) - 4
            e.write(f"{c[0]} {w} {w - int(v[CF])}\n")
