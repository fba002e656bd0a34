#!/usr/bin/env bash
# Configures and builds bankviz into build/ (or $BANKVIZ_BUILD_DIR). Used by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BANKVIZ_BUILD_DIR:-build}
jobs=${BANKVIZ_JOBS:-$(nproc)}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
elif (($#)); then
  cmake -S . -B "$build" "$@"
fi
cmake --build "$build" -j "$jobs"
