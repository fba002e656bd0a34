// helpers.h: loading presets for the kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../test_support.h"
#include "bankviz/runner.h"
#include "bankviz/scenario.h"

namespace bankviz::test {

inline std::string preset_dir() {
  return std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/";
}

// The kernel tests' name for test_support.h's preset loader.
inline Scenario preset(const std::string& name) {
  return preset_scenario(name);
}

inline std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(preset_dir()))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

// One Runner for the whole test program (every file: one context, one module cache). Two
// Runners in one process share the device's primary context, and one resetting it under the
// other's counters crashed kernel_tests at exit (exit 139 on an H100, 2026-11-22).
inline Runner& runner() {
  static Runner r;
  return r;
}

inline bool have_gpu(std::string* reason) {
  return runner().device(reason).present;
}

#define REQUIRE_GPU()                                                                     \
  do {                                                                                    \
    std::string why;                                                                      \
    if (!bankviz::test::have_gpu(&why)) GTEST_SKIP() << "no CUDA device (" << why << ")"; \
  } while (0)

}  // namespace bankviz::test
