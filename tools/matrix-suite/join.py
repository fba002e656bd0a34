#!/usr/bin/env python3
"""Joins one measure.sh run into a compact table: one line per case, NAME OP then the metrics.

usage: join.py LAUNCHES.txt NCU.csv > joined.txt
The first line names the columns (# name op metric...); metric values are integers.
"""
import csv
import sys

launches = [l.split() for l in open(sys.argv[1]) if l.startswith("case ")]
rows = [l for l in open(sys.argv[2]) if not l.startswith("==")]
vals = {}
for r in csv.DictReader(rows):
    vals.setdefault(int(r["ID"]), {})[r["Metric Name"]] = r["Metric Value"].replace(",", "")
if len(vals) != len(launches):
    print(f"{len(launches)} launches but {len(vals)} profiled kernels", file=sys.stderr)
    sys.exit(1)
metrics = sorted(vals[0]) if vals else []
print("# name op " + " ".join(metrics))
for _, idx, name, op in launches:
    m = vals[int(idx)]
    print(name, op, " ".join(str(int(float(m[k]))) for k in metrics))
