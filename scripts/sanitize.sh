#!/usr/bin/env bash
# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer without recovery (the
# first report fails the test), in its own build dir build-asan/ (or $BANKVIZ_BUILD_DIR):
# -DBANKVIZ_SANITIZE=ON (CMakeLists.txt); GCC is fine. GUI and CUDA as in scripts/test.sh: GPU
# tests skip without a device, screenshot tests run under xvfb-run.
# usage: scripts/sanitize.sh [CMAKE ARGS...]      CI runs it after the tests (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
export BANKVIZ_BUILD_DIR=${BANKVIZ_BUILD_DIR:-build-asan}
# A unity build of the libraries, programs and tests (tests/CMakeLists.txt):
# app/cli's files spend most of their time in the same headers (CLI11, nlohmann/json); four of
# them took 73 s of CPU as one source against 158 s apart (BENCHMARKS.md, "CI").
bash scripts/build.sh -DBANKVIZ_SANITIZE=ON -DBANKVIZ_BENCHMARKS=OFF -DCMAKE_UNITY_BUILD=ON "$@"
jobs=${BANKVIZ_TEST_JOBS:-$((2 * $(nproc)))} # tests at a time, as scripts/test.sh
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be; without it
# cuInit fails (CUDA_ERROR_OUT_OF_MEMORY) and the GPU tests skip. With it they pass under ASan
# and UBSan (H100, driver 580, CUDA 13.0; 2026-11-22).
asan=protect_shadow_gap=0:strict_string_checks=1
# No print_stacktrace: symbolizing a stack in each of the differential test's thousands of
# children that UBSan stops on purpose takes it from 1 minute to 8 (the report names the line).
export UBSAN_OPTIONS=halt_on_error=1

# Leaks are errors in every test but those that run the desktop app (ctest label desktop_app:
# tests/app/CMakeLists.txt gives it to every test of the screenshot programs, so a new test there
# needs no entry here): Mesa's GL driver is unloaded (dlclose) at exit, so LeakSanitizer no longer
# sees its allocations as reachable and reports them from an "<unknown module>" (with dlclose
# made a no-op, none). They run under ASan and UBSan with leak detection off.
# Left to the plain build (scripts/test.sh) and build-min, where they run whole: Install.* (cpack
# and an install of the same programs the rest of this suite runs under the sanitizers; ~70 s of
# test time), and of the lesson questions (AskBeforeTelling and AskBeforeTellingAtTheDesk: one run
# of the app per question and layout draws it at four sizes, the same panels for all) all but each
# lesson's first two, and those at 1280x720 only (BANKVIZ_LESSON_SIZES: a 4K picture costs
# several times more here), and the check that a run at several sizes draws what runs of their
# own draw (AskBeforeTelling/SizesInOneRun: five runs up to 4K). CI's 45 minutes (BENCHMARKS.md).
skip='^Install\.|AskBeforeTelling(AtTheDesk)?\..*_scene([3-9]|[1-9][0-9]) |^AskBeforeTelling/SizesInOneRun\.'
export BANKVIZ_LESSON_SIZES=1280x720
# Left to the plain build, where they run whole, because their time is in code the sanitizers do
# not instrument: NVRTC compiling every preset's kernels (the generation of the same kernels runs
# here: Codegen.EveryPresetGeneratesAKernelInEachMode) and every profiled kernel's GPU recording
# (53 texts, NVRTC's heaviest compiles: cooperative groups' headers; the same texts are made here
# by RecordGpu.EveryProfiledKernelsRecordingIsMadeOrRefusedWithTheReason), and the expression
# differential test, which is compiled with UBSan in every build and forks a child per case
# (ASan's fork is slow); fuzz_expr gives the evaluator random expressions under ASan and UBSan.
# They were the slowest of this stage (BENCHMARKS.md, "CI").
plain_only='^(Nvrtc\.EveryPresetCompilesForSm90InBothModes|RecordGpu\.EveryProfiledKernelsRecordingCompilesWithNvrtc|ExprDifferential\.)'
# The same tests for googletest, in this build's shards of each test program (tests/CMakeLists.txt,
# BANKVIZ_TEST_SHARDS), whose ctest names are the programs'.
plain_only_gtest=-Nvrtc.EveryPresetCompilesForSm90InBothModes:RecordGpu.EveryProfiledKernelsRecordingCompilesWithNvrtc
GTEST_FILTER=$plain_only_gtest ASAN_OPTIONS=$asan:detect_leaks=1 \
  ctest --test-dir "$BANKVIZ_BUILD_DIR" --output-on-failure -j "$jobs" -LE desktop_app \
  -E "$skip|$plain_only"
ASAN_OPTIONS=$asan:detect_leaks=0 \
  ctest --test-dir "$BANKVIZ_BUILD_DIR" --output-on-failure -j "$jobs" -L desktop_app -E "$skip"
