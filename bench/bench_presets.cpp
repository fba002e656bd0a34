// bench_presets: core's analyze() of every preset, natively, as JSON (median ms of N runs); the
// browser's figures come from the same code (app/web/bench_export.cpp, tests/web/bench.mjs).
// usage: bench_presets PRESETS_DIR [REPEATS]
#include <cstdio>
#include <cstdlib>

#include "preset_times.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_presets PRESETS_DIR [REPEATS]\n");
    return 2;
  }
  std::printf(
      "%s\n",
      bankviz::preset_analysis_times_json(argv[1], argc > 2 ? std::atoi(argv[2]) : 5).c_str());
  return 0;
}
