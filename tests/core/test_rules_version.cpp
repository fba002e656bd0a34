// test_rules_version.cpp: the model's rules have a version (arch.h kModelRulesVersion) that a
// recorded measurement carries (app/shared/recorded.h), so that a set measured with older rules
// says so. This test keeps the version honest: a digest of what the model counts for every preset
// under every rule set (each executed step's wavefronts and ideal) is written down here for the
// current version; when the figures change, the test fails until the version is raised and the
// new digest written beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/arch.h"
#include "bankviz/scenario.h"

namespace bankviz {
namespace {

// kModelRulesVersion -> the digest of the presets' figures under it.
constexpr int kDigestVersion = 1;
constexpr const char* kDigest = "0c2fcd181a72efac";

std::string presets_digest() {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets"))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xFF;
      h *= 1099511628211ULL;
    }
  };
  for (const std::string& f : files) {
    ScenarioLoad l = load_scenario_file(f);
    if (!l.scenario) continue;
    for (const Arch& arch : all_archs()) {
      AnalysisResult a = analyze(*l.scenario, &arch);
      if (!a.analysis) {
        mix(-1);
        continue;
      }
      for (size_t i = 0; i < a.analysis->steps.size(); ++i) {
        mix(a.analysis->step_wavefronts(static_cast<int>(i)));
        mix(a.analysis->step_ideal(static_cast<int>(i)));
      }
    }
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

TEST(RulesVersion, ThePresetsFiguresChangeOnlyWithTheVersion) {
  const std::string digest = presets_digest();
  EXPECT_EQ(kModelRulesVersion, kDigestVersion)
      << "kModelRulesVersion was raised: write the digest of its figures here (" << digest << ")";
  EXPECT_EQ(digest, kDigest)
      << "the model's figures for the presets changed: raise kModelRulesVersion in "
         "core/include/bankviz/arch.h (recorded measurements made before then will say they are "
         "older) and set kDigestVersion and kDigest here to the new version and "
      << digest;
}

}  // namespace
}  // namespace bankviz
