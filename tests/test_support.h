// test_support.h: small helpers every test program may share, one home each. Each test program's
// files compile as unity sources (tests/CMakeLists.txt), so a helper defined again, alike, in two
// files of one program is a compile error: such helpers live here.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"

namespace bankviz::test {

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A file's bytes; empty when it cannot be read.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// How often `what` occurs in `s`, overlapping occurrences included.
inline int occurrences(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// True where an NVIDIA driver is installed (a GPU machine): tests of the no-GPU path skip there.
inline bool gpu_machine() {
  std::error_code ec;
  return std::filesystem::exists("/dev/nvidiactl", ec) ||
         std::filesystem::exists("/dev/nvidia0", ec) ||
         std::filesystem::exists("/proc/driver/nvidia/version", ec);
}

// The model's analysis of `s`; a test failure naming the errors (and an empty analysis) if none.
inline Analysis analyzed(const Scenario& s, const Arch* arch = nullptr) {
  AnalysisResult r = analyze(s, arch);
  if (!r.analysis) {
    std::string all;
    for (const Diagnostic& d : r.errors) all += "\n  " + d.format();
    ADD_FAILURE() << "analysis failed:" << all;
    return {};
  }
  return *r.analysis;
}

// A shipped preset (assets/presets/NAME.json); a test failure (and an empty scenario) if it does
// not load.
inline Scenario preset_scenario(const std::string& name) {
  ScenarioLoad l =
      load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/" + name + ".json");
  if (!l.scenario) {
    ADD_FAILURE() << name << ": " << (l.errors.empty() ? "?" : l.errors[0].format());
    return {};
  }
  return *l.scenario;
}

inline Analysis preset_analysis(const std::string& name, const Arch* arch = nullptr) {
  return analyzed(preset_scenario(name), arch);
}

}  // namespace bankviz::test
