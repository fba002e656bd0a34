// preset_times.h: how long core's analyze() takes for every preset, the median of a few runs:
// the same code timed natively (bench_presets) and in the browser (app/web/bench_export.cpp), so
// that BENCHMARKS.md compares like with like ("every preset analyzed within 3x its desktop time").
#pragma once

#include <string>

namespace bankviz {

// {"preset name": median milliseconds, ...} over the *.json files of `dir`, `repeats` runs each.
std::string preset_analysis_times_json(const std::string& dir, int repeats);

}  // namespace bankviz
