#!/usr/bin/env bash
# Measures one suite file with Nsight Compute on the GPU that is present.
# usage: tools/matrix-suite/measure.sh PROBE CASES.txt OUT.joined METRICS [probe options]
# PROBE is built from probe.cu (nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90);
# METRICS is a comma-separated list (pick_metrics.py QUERY ld|st|cp gives the suites' lists).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
probe=$1 cases=$2 out=$3 metrics=$4
shift 4
tmp=$(mktemp -d)
ncu --clock-control none -k regex:^k_ --metrics "$metrics" --csv --log-file "$tmp/ncu.csv" \
  "$probe" "$cases" "$@" > "$tmp/launches.txt"
python3 "$here/join.py" "$tmp/launches.txt" "$tmp/ncu.csv" > "$out"
cp "$tmp/ncu.csv" "$out.ncu.csv"
rm -rf "$tmp"
