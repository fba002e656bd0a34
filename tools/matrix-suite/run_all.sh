#!/usr/bin/env bash
# The device run: builds the probe, checks its SASS, lists the metric names, measures every
# suite file in CASEDIR and packs the joined tables into OUTDIR/results.tgz.
# usage: tools/matrix-suite/run_all.sh CASEDIR OUTDIR
#   CASEDIR/ld*.txt are measured with the ldmatrix metrics, st*.txt with the stmatrix ones,
#   cp*.txt with the cp.async ones, sa*.txt with the instrumented (SASS) counters; a file named *.cg.txt runs with --cg, *.mirror.txt with
#   --src mirror, *.same.txt with --src same.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cases=$1
out=$2
w=$(mktemp -d)
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  nvcc --version | tail -2
  ncu --version | tail -1
} > "$w/DEVICE.txt" 2>&1
cat "$w/DEVICE.txt"
nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o /tmp/probe "$here/probe.cu" || exit 1
cuobjdump -sass /tmp/probe > "$w/sass.txt"
python3 "$here/sass_check.py" "$w/sass.txt" > "$w/sass_check.txt"
echo "sass check rc=$?"; tail -1 "$w/sass_check.txt"
ncu --query-metrics --chip gh100 > /tmp/q.txt 2>&1 || ncu --query-metrics > /tmp/q.txt 2>&1
grep -iE 'shared|ldsm|stsm|ldgsts' /tmp/q.txt > "$w/query_shared.txt"
wc -l /tmp/q.txt "$w/query_shared.txt"
for k in ld st cp sa; do
  python3 "$here/pick_metrics.py" /tmp/q.txt $k > "/tmp/metrics_$k"
  echo "$k: $(cat /tmp/metrics_$k)" | tee -a "$w/metrics_used.txt"
done
for f in "$cases"/*.txt; do
  b=$(basename "$f" .txt)
  k=${b:0:2}
  opts=()
  case "$b" in
    *.cg) opts=(--cg) ;;
    *.mirror) opts=(--src mirror) ;;
    *.same) opts=(--src same) ;;
  esac
  t0=$(date +%s)
  "$here/measure.sh" /tmp/probe "$f" "$w/$b.joined" "$(cat /tmp/metrics_$k)" "${opts[@]}"
  echo "$b: rc=$? $(grep -c . "$w/$b.joined") lines, $(( $(date +%s) - t0 )) s"
done
tar czf "$out/results.tgz" -C "$w" .
cp "$w/DEVICE.txt" "$w/sass_check.txt" "$out/"
