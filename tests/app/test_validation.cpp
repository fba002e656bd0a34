// test_validation.cpp: validate's record for the app (app/shared/validation.h): written, read
// back, and the label only for the GPU and rule set it is about.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "validation.h"

namespace bankviz {
namespace {

namespace fs = std::filesystem;

struct ValidationConfigHome {
  fs::path dir = fs::temp_directory_path() / ("bankviz-validation-" + std::to_string(::getpid()));
  std::string old;
  bool had = false;
  ValidationConfigHome() {
    if (const char* x = std::getenv("XDG_CONFIG_HOME")) {
      had = true;
      old = x;
    }
    ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  }
  ~ValidationConfigHome() {
    had ? ::setenv("XDG_CONFIG_HOME", old.c_str(), 1) : ::unsetenv("XDG_CONFIG_HOME");
    fs::remove_all(dir);
  }
};

ValidationRecord h100(bool agrees) {
  ValidationRecord r;
  r.device = "NVIDIA H100 80GB HBM3";
  r.sm = "sm_90";
  r.arch = "hopper";
  r.date = "2026-11-22";
  r.agrees = agrees;
  r.cases = 7216;
  r.compared = 14432;
  r.agreeing = agrees ? 14432 : 14420;
  return r;
}

TEST(Validation, TheRecordIsWrittenAndReadBack) {
  ValidationConfigHome home;
  EXPECT_FALSE(load_validation_record());  // none yet
  ASSERT_EQ(save_validation_record(h100(true)), "");
  EXPECT_TRUE(fs::exists(home.dir / "bankviz" / "validated.json"));
  std::string problem;
  const auto r = load_validation_record(&problem);
  ASSERT_TRUE(r) << problem;
  EXPECT_EQ(r->device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r->sm, "sm_90");
  EXPECT_TRUE(r->agrees);
  EXPECT_EQ(r->compared, 14432);
}

TEST(Validation, TheLabelIsOnlyForTheGpuAndRuleSetValidated) {
  const auto rec = std::optional<ValidationRecord>(h100(true));
  EXPECT_EQ(validation_label(rec, "NVIDIA H100 80GB HBM3", "sm_90", "hopper"),
            "validated on this GPU (2026-11-22: 14432 counts agree)");
  EXPECT_EQ(validation_label(rec, "NVIDIA H200", "sm_90", "hopper"), "");
  EXPECT_EQ(validation_label(rec, "NVIDIA H100 80GB HBM3", "sm_89", "hopper"), "");
  EXPECT_EQ(validation_label(rec, "NVIDIA H100 80GB HBM3", "sm_90", "ampere"), "");
  EXPECT_EQ(validation_label(std::nullopt, "NVIDIA H100 80GB HBM3", "sm_90", "hopper"), "");
  const auto bad = std::optional<ValidationRecord>(h100(false));
  EXPECT_EQ(validation_label(bad, "NVIDIA H100 80GB HBM3", "sm_90", "hopper"),
            "validate on this GPU found 12 of 14432 counts differ (2026-11-22)");
}

TEST(Validation, ABrokenRecordIsReportedAndIgnored) {
  ValidationConfigHome home;
  fs::create_directories(home.dir / "bankviz");
  std::ofstream(home.dir / "bankviz" / "validated.json") << "{\"device\": 3}";
  std::string problem;
  EXPECT_FALSE(load_validation_record(&problem));
  EXPECT_NE(problem.find("validated.json"), std::string::npos) << problem;
}

}  // namespace
}  // namespace bankviz
