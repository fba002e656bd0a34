#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and runs every test. GPU tests skip with a
# message when there is no CUDA device; GUI tests run under xvfb-run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --gui
bash scripts/build.sh
build=${BANKVIZ_BUILD_DIR:-build}
# Twice as many tests at a time as cores (BANKVIZ_TEST_JOBS to choose): most of the time of the
# slow ones is spent waiting on a program they start (the app under xvfb-run, bankviz-cli, a
# compiler, a sandbox), and one test a core left a core idle a third of the time (BENCHMARKS.md, "CI").
ctest --test-dir "$build" --output-on-failure -j "${BANKVIZ_TEST_JOBS:-$((2 * $(nproc)))}"
