#!/usr/bin/env bash
# Builds bankviz on a GPU machine and runs what issue 10's counters need checked there: the
# counter tests, validate over every suite, run with counters (both modes) and the counters'
# added cost. Output under ${OUT:-/tmp/counters-out}.
# usage: tools/counters/device-check.sh [EXTRA_DEPS_PREFIX]
set -uo pipefail
out=${OUT:-/tmp/counters-out}
mkdir -p "$out"
deps=${1:-$PWD/.devdeps}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
cmake -S . -B build-dev -G Ninja -DBANKVIZ_GUI=OFF -DBANKVIZ_BENCHMARKS=OFF \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$deps" -DGTEST_ROOT="$deps" > "$out/cmake.log" 2>&1 &&
  ninja -C build-dev -j16 bankviz-cli kernel_tests cli_tests > "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log" "$out/cmake.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
cli=build-dev/app/bankviz-cli
echo "== metric names the device knows"
if command -v ncu > /dev/null; then
  ncu --query-metrics --chip gh100 2>/dev/null > "$out/metrics.txt" || ncu --query-metrics > "$out/metrics.txt" 2>&1
  grep -E "^(l1tex__data_pipe_lsu_wavefronts_mem_shared|l1tex__data_bank_conflicts_pipe_lsu_mem_shared|smsp__inst_executed_op_(shared|ldsm|stsm|ldgsts))" "$out/metrics.txt" | cut -c1-90
fi
echo "== kernel tests (all)"
build-dev/tests/kernels/kernel_tests 2>&1 | tee "$out/kernel_tests.txt" | grep -vE "^\[ RUN|^\[       OK" | tail -80
echo "== cli tests (all)"
build-dev/tests/cli/cli_tests 2>&1 | tee "$out/cli_tests.txt" | grep -vE "^\[ RUN|^\[       OK" | tail -30
echo "== validate"
/usr/bin/time -f "validate: exit %x, wall %e s" $cli validate --report "$out/validate.txt" 2>&1 | head -150
echo "== run with counters"
$cli run --preset row-write-column-read 2>&1 | tail -12
$cli run --preset row-write-column-read --mode exposed 2>&1 | tail -14
echo "== counters' added cost on a cached run (written; counters_ms, run_ms)"
for i in 1 2 3; do
  $cli run --preset matmul-tile32 --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print("counters", j["counters"], "run_ms", round(j["run_ms"],1), "cache_hit", j["cache_hit"])'
done
for i in 1 2; do
  $cli run --preset matmul-tile32 --json --no-counters | python3 -c 'import json,sys; j=json.load(sys.stdin); print("no counters: run_ms", round(j["run_ms"],1))'
done
