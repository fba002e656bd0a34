// `bankviz-cli validate`: the committed suites on the present GPU through its counters. Without
// a GPU (every CI machine) it must say so and fail cleanly; with one (the device runs) the Hopper
// suites must agree with the model everywhere.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../test_support.h"
#include "cli_run.h"

using bankviz::test::gpu_machine;

namespace {

namespace fs = std::filesystem;

using bankviz::test::cli;
using bankviz::test::Result;
using bankviz::test::slurp;

fs::path scratch() {
  const fs::path dir =
      fs::temp_directory_path() / ("bankviz-validate-test-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  return dir;
}

// An NVIDIA driver's device node: the GPU machines have it, CI and the development machines not.
std::string suites() {
  return std::string(BANKVIZ_TEST_DATA) + "/hopper";
}

}  // namespace

TEST(Validate, WithoutAGpuSaysWhyAndFails) {
  if (gpu_machine()) GTEST_SKIP() << "a GPU is present; this test covers machines without one";
  const Result r = cli("validate --suite targeted --suites '" + suites() + "'");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("cannot validate on this machine"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("need a CUDA GPU"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Validate, AnUnknownSuiteIsAUsageErrorListingTheSuites) {
  const Result r = cli("validate --suite nosuch --suites '" + suites() + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("no such suite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ldmatrix_holdout"), std::string::npos) << r.err;
}

TEST(Validate, AMissingSuitesDirectoryIsNamed) {
  const Result r = cli("validate --suites /nonexistent-bankviz-suites");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent-bankviz-suites"), std::string::npos) << r.err;
}

TEST(Validate, ABrokenSuiteFileNamesItsLine) {
  const fs::path dir = scratch();
  std::ofstream(dir / "atomic.txt") << "# comment\nbad 4 0xffffffff 1 2 3\n";
  std::ofstream(dir / "atomic.expected") << "bad 1\n";
  const Result r = cli("validate --suite atomic --suites '" + dir.string() + "'");
  fs::remove_all(dir);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("atomic.txt:2:"), std::string::npos) << r.err;
}

TEST(Validate, OnAHopperGpuEverySuiteAgreesWithTheModel) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  const Result r = cli("validate --json --suites '" + suites() + "'");
  if (r.err.find("not permitted") != std::string::npos ||
      r.err.find("ERR_NVGPUCTRPERM") != std::string::npos)
    GTEST_SKIP() << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  if (j["device"]["model_arch"] != "hopper") GTEST_SKIP() << "not a Hopper GPU: " << r.out;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(j["agrees"].get<bool>());
  ASSERT_EQ(j["suites"].size(), 11u);
  for (const auto& s : j["suites"]) {
    EXPECT_EQ(s["ran"], s["cases"]) << s["name"];
    EXPECT_EQ(s["hardware_equals_model"], s["compared"]) << s["name"];
    EXPECT_EQ(s["hardware_equals_measured"], s["compared_with_measured"]) << s["name"];
    EXPECT_GT(s["compared"].get<int>(), 0) << s["name"];
    // cp.async from per-lane sources, all below 2 MiB: every case is the model's claim (1932
    // cases, two counts each), none reported apart.
    if (s["name"] == "cpsource") {
      EXPECT_EQ(s["compared"], 2 * 1932);
      EXPECT_FALSE(s.contains("beyond_2_mib"));
    }
  }
}
