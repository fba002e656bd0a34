// preset_times.cpp: see preset_times.h.
#include "preset_times.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"

namespace bankviz {

std::string preset_analysis_times_json(const std::string& dir, int repeats) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string out = "{";
  for (const auto& f : files) {
    ScenarioLoad load = load_scenario_file(f.string());
    if (!load.scenario) continue;
    std::vector<double> ms;
    for (int i = 0; i < std::max(1, repeats); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const AnalysisResult a = analyze(*load.scenario);
      const auto t1 = std::chrono::steady_clock::now();
      if (!a.analysis) break;
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    if (ms.empty()) continue;
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    out += (out.size() > 1 ? ", \"" : "\"") + f.stem().string() +
           "\": " + std::to_string(ms[ms.size() / 2]);
  }
  return out + "}";
}

}  // namespace bankviz
