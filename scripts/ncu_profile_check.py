#!/usr/bin/env python3
"""Compare `bankviz-cli profile --json` with Nsight Compute's source page, line by line.

    ncu --set full --import-source yes -o rep bankviz-cli profile K.cu ... --no-counters
    ncu -i rep.ncu-rep --page source --csv --print-source cuda,sass > K.ncu.csv
    bankviz-cli profile K.cu ... --json > K.json
    scripts/ncu_profile_check.py K.json K.ncu.csv

Nsight Compute profiles each launch; the first one's page is compared. For every source line where either tool counts shared-memory wavefronts, the line's
"L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal" and "L1 Wavefronts Shared Excessive" must equal
bankviz's wavefronts, ideal and excess. Prints one row per line; exits 1 on any difference.
"""
import csv
import json
import sys


def ncu_lines(path):
    rows = [r for r in csv.reader(open(path, newline="")) if r and not r[0].startswith("==")]
    header = next(i for i, r in enumerate(rows) if r[:2] == ["Line No", "Source"])
    names = rows[header]
    col = {n: names.index(n) for n in
           ("L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L1 Wavefronts Shared Excessive")}
    out = {}
    for r in rows[header + 1:]:
        if r[0] in ("File Path", "Function Name", "Line No"):
            break  # the next launch's page: the first launch is the one compared
        if not r[0] or len(r) < len(names):  # a SASS row under its line
            continue
        vals = {k: int(float(r[i].replace(",", "") or 0)) if r[i] not in ("-", "") else 0
                for k, i in col.items()}
        out[int(r[0])] = vals
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bv = json.load(open(sys.argv[1]))
    ncu = ncu_lines(sys.argv[2])
    ours = {l["line"]: l for l in bv["lines"]}
    lines = sorted(set(ours) | {n for n, v in ncu.items() if v["L1 Wavefronts Shared"]})
    bad = 0
    print(f"{bv['kernel']}: line  bankviz wavefronts/ideal/excess  ncu wavefronts/ideal/excess")
    for n in lines:
        o = ours.get(n, {"wavefronts": 0, "ideal": 0, "excess": 0})
        v = ncu.get(n, {"L1 Wavefronts Shared": 0, "L1 Wavefronts Shared Ideal": 0,
                        "L1 Wavefronts Shared Excessive": 0})
        a = (o["wavefronts"], o["ideal"], o["excess"])
        b = (v["L1 Wavefronts Shared"], v["L1 Wavefronts Shared Ideal"],
             v["L1 Wavefronts Shared Excessive"])
        same = a == b
        bad += not same
        print(f"  {n:5d}  {a[0]:8d} {a[1]:8d} {a[2]:8d}   {b[0]:8d} {b[1]:8d} {b[2]:8d}  "
              f"{'equal' if same else 'DIFFERENT'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
