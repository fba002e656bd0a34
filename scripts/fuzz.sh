#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/README.md) with clang into build-fuzz/ (or
# $BANKVIZ_FUZZ_BUILD_DIR) and runs each for about SECONDS of one core (default 30), side by side
# on BANKVIZ_JOBS cores (else all of them). Exit status 1 if any harness crashed, leaked, hung
# (10 s of one core per input) or went over 2 GB; the inputs that did are saved in
# build-fuzz/fuzz-run/crashes/NAME/ and listed at the end. Without clang (or its libFuzzer
# runtime) it says so and exits 0.
# usage: scripts/fuzz.sh [SECONDS]      CI runs it after the tests (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-30}
if [[ ! $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "usage: scripts/fuzz.sh [SECONDS]   (seconds per harness, default 30)" >&2
  exit 2
fi
build=${BANKVIZ_FUZZ_BUILD_DIR:-build-fuzz}
[[ $build = /* ]] || build=$root/$build
jobs=${BANKVIZ_JOBS:-$(nproc)}
harnesses=(expr scenario records cli source)

cxx=${BANKVIZ_FUZZ_CXX:-$(command -v clang++ || true)}
if [[ -z $cxx ]]; then
  echo "fuzz: SKIPPED: no clang++ (libFuzzer needs clang; install clang and libclang-rt-dev)"
  exit 0
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [[ ! -f $build/CMakeCache.txt ]]; then
  # -O1 -gline-tables-only: the flags libFuzzer's documentation and OSS-Fuzz build harnesses
  # with (line tables are what a report names); a unity build of the libraries, as the ASan
  # build (scripts/sanitize.sh): both for CI's 45 minutes (BENCHMARKS.md, "CI").
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_UNITY_BUILD=ON -DBANKVIZ_FUZZ=ON -DBANKVIZ_WERROR=ON \
    -DBANKVIZ_GUI=OFF -DBANKVIZ_CUDA=OFF -DBANKVIZ_TESTS=OFF -DBANKVIZ_BENCHMARKS=OFF
fi
if ! grep -qs '^BANKVIZ_HAVE_LIBFUZZER:INTERNAL=1$' "$build/CMakeCache.txt"; then
  echo "fuzz: SKIPPED: $cxx cannot link libFuzzer with ASan and UBSan (install libclang-rt-dev)"
  exit 0
fi
cmake --build "$build" -j "$jobs" --target "${harnesses[@]/#/fuzz_}"

# The CLI harness runs in a scratch directory: the relative paths it makes up name these files.
run=$build/fuzz-run
rm -rf "$run/sandbox"
mkdir -p "$run/sandbox/d"
cp assets/presets/row-write-column-read.json "$run/sandbox/s.json"
head -n 5 tests/data/hopper/random.txt >"$run/sandbox/r.txt"
cd "$run/sandbox"

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# One harness: its regressions, then SECONDS of fuzzing; the verdict in $run/NAME.verdict.
fuzz_one() {
  local name=$1
  local bin=$build/fuzz/fuzz_$name crashes=$run/crashes/$name
  mkdir -p "$run/corpus/$name" "$crashes"
  # Inputs that once failed (fixed since) must pass first.
  local regressions=("$root"/fuzz/regressions/"$name"/*)
  if [[ -e ${regressions[0]} ]] &&
    ! "$bin" "${regressions[@]}" >"$run/$name-regressions.log" 2>&1; then
    echo "fuzz_$name: a regression input fails again: see $run/$name-regressions.log" \
      >"$run/$name.verdict"
    return 1
  fi
  if "$bin" "$run/corpus/$name" "$root/fuzz/corpus/$name" -dict="$root/fuzz/dict/$name.dict" \
    -max_total_time="$seconds" -timeout="$hang" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/" >"$run/$name.log" 2>&1; then
    local runs rate
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/$name.log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/$name.log")
    echo "fuzz_$name: ok: $runs inputs, $rate per second" >"$run/$name.verdict"
  else
    {
      echo "fuzz_$name: FAILED: the end of $run/$name.log:"
      grep -a -v '^#[0-9]' "$run/$name.log" | tail -n 40
    } >"$run/$name.verdict"
    return 1
  fi
}
# The harnesses run side by side, all at once: each is one busy process, so with more harnesses
# than cores each runs SECONDS x harnesses / cores of wall time (libFuzzer's -max_total_time is
# wall time) to get about SECONDS of one core. Five on 2 cores take 2.5 x SECONDS; run two at a
# time, they took 3 x SECONDS, one core idle for the last (BENCHMARKS.md, "CI").
# An input's time limit (10 s of one core) is stretched alike.
per_core=$seconds
hang=10
if ((jobs < ${#harnesses[@]})); then
  seconds=$(((per_core * ${#harnesses[@]} + jobs - 1) / jobs))
  hang=$(((hang * ${#harnesses[@]} + jobs - 1) / jobs))
fi
for name in "${harnesses[@]}"; do
  echo "fuzz_$name: ${seconds} s side by side with the others on $jobs cores"
  rm -f "$run/$name.verdict"
  fuzz_one "$name" &
done
wait || true
failed=()
for name in "${harnesses[@]}"; do
  if [[ -f $run/$name.verdict ]]; then
    cat "$run/$name.verdict"
  else
    echo "fuzz_$name: FAILED: it gave no verdict"
  fi
  grep -q "^fuzz_$name: ok: " "$run/$name.verdict" 2>/dev/null || failed+=("$name")
done

if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]}; inputs that crashed, leaked, hung or ran out of memory:"
  find "$run/crashes" -type f -newer "$run/sandbox/s.json" | sed 's/^/  /'
  echo "reproduce one: (cd $run/sandbox && $build/fuzz/fuzz_NAME FILE)"
  exit 1
fi
echo "fuzz: all ${#harnesses[@]} harnesses ran without a failure: side by side for ${seconds} s," \
  "about ${per_core} s of one core each"
