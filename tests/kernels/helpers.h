// helpers.h: loading presets for the kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bankviz/scenario.h"

namespace bankviz::test {

inline std::string preset_dir() {
  return std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/";
}

inline Scenario preset(const std::string& name) {
  ScenarioLoad l = load_scenario_file(preset_dir() + name + ".json");
  if (!l.scenario) {
    ADD_FAILURE() << name << ": " << (l.errors.empty() ? "?" : l.errors[0].format());
    return {};
  }
  return *l.scenario;
}

inline std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(preset_dir()))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bankviz::test
