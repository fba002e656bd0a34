// bench_export.cpp: the browser build's benchmark entry (tests/web/bench.mjs calls it): every
// preset's analysis timed in the page by the code bench_presets times natively.
#include <emscripten.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "preset_times.h"

extern "C" EMSCRIPTEN_KEEPALIVE char* bankviz_bench_presets(int repeats) {
  const std::string json = bankviz::preset_analysis_times_json("/bankviz/assets/presets", repeats);
  char* out = static_cast<char*>(std::malloc(json.size() + 1));
  if (out) std::memcpy(out, json.c_str(), json.size() + 1);
  return out;
}
