#!/bin/bash
# device_check.sh: everything issue 3 needs from an H100/H200 in one call (see BENCHMARKS.md).
# Build (no GUI; GTest/json/CLI11 headers carried in .devdeps when the machine lacks them), the
# kernel tests, compute-sanitizer memcheck + racecheck on every preset's kernel, ncu counts of
# shared instructions and wavefronts, and the exposed-mode timing table. Outputs go to $OUT.
set -u
OUT=${OUT:-/tmp/bankviz-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../.."
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; date -u; } > "$OUT/device.txt" 2>&1

DEPS=""
[ -d .devdeps ] && DEPS="-DCMAKE_PREFIX_PATH=$PWD/.devdeps -DGTEST_ROOT=$PWD/.devdeps"
cmake -S . -B build-dev -G Ninja -DBANKVIZ_GUI=OFF -DBANKVIZ_BENCHMARKS=OFF \
  -DCMAKE_BUILD_TYPE=Release $DEPS > "$OUT/build.log" 2>&1 &&
  ninja -C build-dev -j16 kernel_tests bankviz-cli >> "$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
CLI=build-dev/app/bankviz-cli
PRESETS=$(ls assets/presets/*.json | xargs -n1 basename | sed 's/\.json$//')

# 1. Tests (device tests included).
build-dev/tests/kernels/kernel_tests 2>&1 | tee "$OUT/tests.txt" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|^\[==" 

# 2. ncu: executed shared instructions and wavefronts per launch (exposed mode, 1 timing run:
#    per config 3 launches: verify, warm-up, timed). python checks them against the JSON.
{
  for p in row-write-column-read rect-row-write-column-read-pad1 kepler-filter-float2-8byte dot-product-reduction; do
    $CLI run --preset $p --mode exposed --reps 512 --timing-runs 1 --json > /tmp/run.json 2>/dev/null
    ncu --clock-control none --csv --log-file /tmp/ncu.csv --metrics \
smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
      $CLI run --preset $p --mode exposed --reps 512 --timing-runs 1 > /dev/null 2>&1
    python3 kernels/tools/check_ncu.py "$p" /tmp/run.json /tmp/ncu.csv
  done
} > "$OUT/ncu.txt" 2>&1
tail -8 "$OUT/ncu.txt"

# 3. Timings: every preset, both modes, as the CLI prints them.
{
  for p in $PRESETS; do
    $CLI run --preset "$p" --mode written; echo
    $CLI run --preset "$p" --mode exposed; echo
  done
} > "$OUT/timings.txt" 2>&1
grep -E "^(exposed|as written)" "$OUT/timings.txt" | head -3
# 5. Sanitizers (last: the slowest) on every preset's kernel as written (the lesson's launch), memcheck also on the
#    exposed kernel with few repeats. SANITIZE="p1 p2" limits them to some presets; SANITIZE_EXPOSED=1
#    adds racecheck on the exposed kernel (its padded block included).
{
  for p in ${SANITIZE:-$PRESETS}; do
    for tool in memcheck racecheck; do
      printf '%-45s %-9s written: ' "$p" "$tool"
      timeout 90 compute-sanitizer --tool $tool --print-limit 3 $CLI run --preset "$p" --mode written \
        --timing-runs 1 --launches 1 > /tmp/san.txt 2>&1
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|hazard" /tmp/san.txt | tail -2 | tr '\n' ' '
      echo
    done
    printf '%-45s %-9s exposed: ' "$p" memcheck
    timeout 90 compute-sanitizer --tool memcheck --print-limit 3 $CLI run --preset "$p" --mode exposed \
      --reps 2 --timing-runs 1 > /tmp/san.txt 2>&1
    grep -E "ERROR SUMMARY" /tmp/san.txt | tail -1
    if [ -n "${SANITIZE_EXPOSED:-}" ]; then
      printf '%-45s %-9s exposed: ' "$p" racecheck
      timeout 90 compute-sanitizer --tool racecheck --print-limit 3 $CLI run --preset "$p" --mode exposed \
        --reps 16 --timing-runs 1 > /tmp/san.txt 2>&1
      grep -E "RACECHECK SUMMARY" /tmp/san.txt | tail -1
    fi
  done
} > "$OUT/sanitizer.txt" 2>&1
grep -c "ERROR SUMMARY: 0 errors" "$OUT/sanitizer.txt"

echo done
