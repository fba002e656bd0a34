#!/usr/bin/env bash
# Configures and builds bankviz into build/ (or $BANKVIZ_BUILD_DIR). Used by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BANKVIZ_BUILD_DIR:-build}
jobs=${BANKVIZ_JOBS:-$(nproc)}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# Our development builds treat warnings as errors (a plain cmake build does not: BANKVIZ_WERROR).
# A build dir configured before that option existed gets it too; arguments given here come last,
# so -DBANKVIZ_WERROR=OFF still wins.
werror=()
grep -qs '^BANKVIZ_WERROR:' "$build/CMakeCache.txt" || werror=(-DBANKVIZ_WERROR=ON)
# A new build dir is a unity build (CMake's batches of 8 files a source): a file of app/ or kernels/
# spends most of its compile in the same headers (CLI11, nlohmann/json, CUDA's), parsed once a
# batch instead of once a file; a fresh clone's build takes about half the CPU (BENCHMARKS.md, "CI").
# -DCMAKE_UNITY_BUILD=OFF (given here or to cmake) makes a build dir of one file a source, which
# rebuilds faster after editing one file.
# Its RelWithDebInfo keeps line tables only (-g1: a debugger, a backtrace or perf names each
# function, file and line), not the types and variables of full -g, which cost a third of the
# compile (BENCHMARKS.md, "CI"); -DCMAKE_BUILD_TYPE=Debug for those, or the two flags below
# given here with -g.
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON "${werror[@]}" "$@"
elif (($# + ${#werror[@]})); then
  cmake -S . -B "$build" "${werror[@]}" "$@"
fi
cmake --build "$build" -j "$jobs"
