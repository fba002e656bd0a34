#!/bin/bash
# The device run of the sweep (issue 19, item 5): run.sh OUTDIR [CPSOURCE.txt]. Needs nvcc and ncu.
# A: every family (a process per file), caches flushed before each launch (ncu --cache-control all), the L1 at its
#    smallest (227 KB of shared memory); B: a second process, same settings, the core families;
# C: caches not flushed, each case twice in a row; D: flushed, 4 KB of shared memory, carveout 0.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
src=${2:-$here/../../tests/data/hopper/cpsource.txt}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/DEVICE.txt"
ncu --version | tail -1 | tee -a "$out/DEVICE.txt"
nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o /tmp/sweep "$here/sweep.cu" || exit 1
cuobjdump -sass /tmp/sweep | grep -E "LDGSTS|Function" > "$out/sass.txt"
ncu --query-metrics --chip gh100 > /tmp/q.txt 2>&1 || ncu --query-metrics > /tmp/q.txt 2>&1
grep ldgsts /tmp/q.txt > "$out/query_ldgsts.txt"
full=$(python3 "$here/pick.py" /tmp/q.txt full) min=$(python3 "$here/pick.py" /tmp/q.txt min)
echo "full: $full" | tee -a "$out/DEVICE.txt"; echo "min: $min" | tee -a "$out/DEVICE.txt"
python3 "$here/gen.py" "$src" /tmp
one() {  # NAME TIMEOUT CACHE METRICS CASES [sweep options]
  local n=$1 t=$2 c=$3 m=$4 f=$5; shift 5
  local t0=$(date +%s)
  timeout "$t" ncu --clock-control none --cache-control "$c" -k regex:^k_cp --metrics "$m" --csv \
    --log-file "$out/$n.csv" /tmp/sweep "$f" "$@" > "$out/$n.launch" 2> "$out/$n.err"
  echo "$n rc=$? $(grep -c ^case "$out/$n.launch") launches $(( $(date +%s) - t0 )) s"
}
for c in a1 a2 a3 a4; do one A-$c 50 all "$full" /tmp/$c.txt; done
one B 45 all "$full" /tmp/b.txt
one C 50 none "$min" /tmp/small.txt --reps 2
one D 35 all "$min" /tmp/small.txt --smem 4096 --carveout 0
