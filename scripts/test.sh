#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and runs every test. GPU tests skip with a
# message when there is no CUDA device; GUI tests run under xvfb-run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --gui
bash scripts/build.sh
build=${BANKVIZ_BUILD_DIR:-build}
ctest --test-dir "$build" --output-on-failure -j "${BANKVIZ_JOBS:-$(nproc)}"
