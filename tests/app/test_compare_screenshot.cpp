// The before/after view of the real app (bankviz --compare A B) under xvfb-run: both sides'
// tile and bank grids, both verdicts and the ratio inside the window in presenter mode at
// 1024x768, 1280x720 and 1920x1080 (--dump-layout says where they landed), sharing one playhead;
// the comparison's 16:9 SVG slide; usage errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "scratch_dir.h"

namespace {

struct AppRun {
  int rc = -1;
  std::string log;
  nlohmann::json layout;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs the app (under xvfb-run when `xvfb`), returning its exit status and output.
AppRun app(const std::string& name, const std::string& args, bool xvfb) {
  AppRun r;
  const std::string dir = bankviz::test::scratch_dir();
  const std::string log = dir + "compare-" + name + ".log";
  std::string cmd = xvfb ? std::string(XVFB_RUN) + " -a -s \"-screen 0 1920x1080x24\" " : "";
  cmd += std::string(BANKVIZ_APP) + " --no-settings " + args + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.log = slurp(log);
  return r;
}

AppRun shot(const std::string& name, const std::string& args) {
  const std::string dir = bankviz::test::scratch_dir();
  const std::string png = dir + "compare-" + name + ".png",
                    json = dir + "compare-" + name + ".json";
  AppRun r = app(name, args + " --screenshot " + png + " --dump-layout " + json + " --force", true);
  if (r.rc == 0) r.layout = nlohmann::json::parse(slurp(json), nullptr, false);
  return r;
}

bool have_xvfb() {
  return std::string(XVFB_RUN).find("NOTFOUND") == std::string::npos;
}

// A grid (x, y, cell, rows, cols) lies wholly inside the window.
void expect_grid_inside(const nlohmann::json& g, double w, double h, const char* what) {
  const double x = g["x"], y = g["y"], cell = g["cell"];
  const double rows = g["rows"], cols = g["cols"];
  EXPECT_GT(cell, 0) << what;
  EXPECT_GE(x, 0) << what;
  EXPECT_GE(y, 0) << what;
  EXPECT_LE(x + cols * cell, w + 0.5) << what << ": " << g.dump();
  EXPECT_LE(y + rows * cell, h + 0.5) << what << ": " << g.dump();
}

void expect_box_inside(const nlohmann::json& b, double w, double h, const char* what) {
  const double x = b["x"], y = b["y"], bw = b["w"], bh = b["h"];
  EXPECT_GT(bh, 0) << what;
  EXPECT_GE(x, 0) << what;
  EXPECT_GE(y, 0) << what;
  EXPECT_LE(x + bw, w + 0.5) << what << ": " << b.dump();
  EXPECT_LE(y + bh, h + 0.5) << what << ": " << b.dump();
}

// Both sides, their verdicts and the ratio inside the window; the toolbar too unless it is a
// slide (which has none) or presenter mode (collapsed). Presenter mode shows each side's bank view
// whole (no tile view).
void expect_both_sides_fit(const AppRun& r, double w, double h, bool toolbar = true,
                           bool banks_only = false) {
  const nlohmann::json& l = r.layout;
  ASSERT_TRUE(l.contains("compare")) << l.dump();
  const nlohmann::json& c = l["compare"];
  if (!banks_only) {
    expect_grid_inside(l["tile"], w, h, "A's tile");
    expect_grid_inside(c["b_tile"], w, h, "B's tile");
  }
  expect_grid_inside(l["banks"], w, h, "A's banks");
  expect_grid_inside(c["b_banks"], w, h, "B's banks");
  expect_box_inside(c["a_verdict"], w, h, "A's verdict");
  expect_box_inside(c["b_verdict"], w, h, "B's verdict");
  expect_box_inside(c["ratio"], w, h, "the ratio");
  if (toolbar) expect_box_inside(l["toolbar"], w, h, "the toolbar");
  // A on the left half, B on the right.
  const char* grid = banks_only ? "banks" : "tile";
  EXPECT_LT(l[grid]["x"].get<double>(), w / 2);
  EXPECT_GE(c[std::string("b_") + grid]["x"].get<double>(), w / 2);
  // One playhead: B shows A's step and warp (the column load: A's opening step).
  EXPECT_EQ(c["b_frame"]["step"], l["frame"]["step"]);
  EXPECT_EQ(c["b_frame"]["warp"], l["frame"]["warp"]);
  EXPECT_EQ(l["frame"]["step"].get<int>(), 2);
}

}  // namespace

// The three rooms from one run of the app (--sizes: each picture is the one a run at its size
// draws, tests/app/test_screenshot.cpp AskBeforeTelling/SizesInOneRun).
TEST(CompareScreenshot, PresenterModeFitsBothSidesInto1024x768And1280x720And1920x1080) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  const std::string dir = bankviz::test::scratch_dir();
  AppRun r = app("rooms",
                 "--compare row-write-column-read row-write-column-read-padded --presenter "
                 "--sizes 1024x768,1280x720,1920x1080 --screenshot " +
                     dir + "rooms.png --dump-layout " + dir + "rooms.json --force",
                 true);
  ASSERT_EQ(r.rc, 0) << r.log;
  auto at = [&](const char* size) {
    AppRun one = r;
    one.layout = nlohmann::json::parse(slurp(dir + "rooms-" + size + ".json"), nullptr, false);
    return one;
  };
  {
    SCOPED_TRACE("at 1024x768");
    expect_both_sides_fit(at("1024x768"), 1024, 768, false, true);
  }
  {
    SCOPED_TRACE("at 1280x720");
    const AppRun r720 = at("1280x720");
    expect_both_sides_fit(r720, 1280, 720, false, true);
    EXPECT_GE(r720.layout["bank_count_px"].get<double>(), 10) << r720.layout.dump();
    EXPECT_GE(r720.layout["banks"]["cell"].get<double>(), 10) << r720.layout.dump();
  }
  SCOPED_TRACE("at 1920x1080");
  const AppRun r1080 = at("1920x1080");
  expect_both_sides_fit(r1080, 1920, 1080, false, true);
  // Larger room, larger cells than at 1024x768.
  EXPECT_GE(r1080.layout["banks"]["cell"].get<double>(), 14);
}

TEST(CompareScreenshot, DeskLayoutWithTheSidebarFitsToo) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  AppRun r = shot("desk",
                  "--compare row-write-column-read row-write-column-read-padded "
                  "--size 1600x1000");
  ASSERT_EQ(r.rc, 0) << r.log;
  expect_both_sides_fit(r, 1600, 1000);
  EXPECT_EQ(r.layout["compare_buttons"], 1) << r.layout.dump();  // "Close comparison"
}

TEST(CompareScreenshot, TheSlideShowsBothSidesWithoutTheWindowsButtons) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  AppRun r = shot("slide",
                  "--compare row-write-column-read row-write-column-read-padded "
                  "--slide --size 1280x720");
  ASSERT_EQ(r.rc, 0) << r.log;
  expect_both_sides_fit(r, 1280, 720, false);
  EXPECT_EQ(r.layout["compare_buttons"], 0) << r.layout.dump();
  EXPECT_EQ(r.layout["toolbar"]["w"].get<double>(), 0) << r.layout.dump();
}

TEST(CompareSlide, TheAppWritesTheComparisonAsASixteenByNineSvg) {
  const std::string svg = bankviz::test::scratch_dir() + "compare-slide.svg";
  std::filesystem::remove(svg);
  AppRun r = app("svg", "--compare row-write-column-read row-write-column-read-padded --svg " + svg,
                 false);
  ASSERT_EQ(r.rc, 0) << r.log;
  const std::string text = slurp(svg);
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(text, m, std::regex("<svg[^>]* width=\"([0-9.]+)\" height=\"([0-9.]+)\"")));
  EXPECT_NEAR(std::stod(m[1]) / std::stod(m[2]), 16.0 / 9.0, 1e-3);
  EXPECT_NE(text.find("row-write-column-read-padded"), std::string::npos);
  EXPECT_NE(text.find("32-way bank conflict"), std::string::npos);  // A's column load
  EXPECT_NE(text.find("conflict-free"), std::string::npos);         // B's padded one
  EXPECT_NE(text.find("32x fewer"), std::string::npos);
  // It never overwrites silently.
  AppRun again = app(
      "svg2", "--compare row-write-column-read row-write-column-read-padded --svg " + svg, false);
  EXPECT_EQ(again.rc, 1) << again.log;
}

TEST(CompareSlide, TheAppsSlideSvgOfAComparisonCarriesBothSides) {
  // --svg --slide (the Export menu's "SVG slide") wrote only A (issue 18); now both sides, at the
  // slide's width.
  const std::string svg = bankviz::test::scratch_dir() + "compare-slide-both.svg";
  std::filesystem::remove(svg);
  AppRun r = app("svg-slide",
                 "--compare row-write-column-read row-write-column-read-padded --slide --size "
                 "1280x720 --svg " +
                     svg,
                 false);
  ASSERT_EQ(r.rc, 0) << r.log;
  const std::string text = slurp(svg);
  EXPECT_NE(text.find("viewBox=\"0 0 1280 720\""), std::string::npos) << text.substr(0, 300);
  EXPECT_NE(text.find("A: "), std::string::npos);
  EXPECT_NE(text.find("B: "), std::string::npos);
  EXPECT_NE(text.find("row-write-column-read-padded"), std::string::npos);
  EXPECT_NE(text.find("32-way bank conflict"), std::string::npos);  // A's column load
  EXPECT_NE(text.find("conflict-free"), std::string::npos);         // B's padded one
  EXPECT_NE(text.find("32x fewer"), std::string::npos);
  std::filesystem::remove(svg);
}

TEST(CompareUsage, BadCompareAndSweepFlagsAreUsageErrors) {
  EXPECT_EQ(app("u1", "--compare row-write-column-read --svg x.svg", false).rc, 2);
  EXPECT_EQ(app("u2", "--compare a b --preset row-write-column-read --svg x.svg", false).rc, 2);
  AppRun unknown = app("u3", "--compare row-write-column-read no-such-preset --svg x.svg", false);
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_NE(unknown.log.find("no-such-preset"), std::string::npos) << unknown.log;
  AppRun sweep = app("u4", "--preset row-write-column-read --sweep pad=9..1 --svg x.svg", false);
  EXPECT_EQ(sweep.rc, 2);
  EXPECT_NE(sweep.log.find("empty"), std::string::npos) << sweep.log;
}

TEST(CompareSlide, BothSidesOfTheSlideShowTheStepGivenWithStep) {
  const std::string svg = bankviz::test::scratch_dir() + "compare-slide-step0.svg";
  std::filesystem::remove(svg);
  AppRun r = app(
      "svg-step0",
      "--compare row-write-column-read row-write-column-read-padded --step 0 --svg " + svg, false);
  ASSERT_EQ(r.rc, 0) << r.log;
  const std::string text = slurp(svg);
  // Step 0 is the row store in both: A's and B's sides both name it, and neither conflicts.
  EXPECT_NE(text.find("A's store tile[threadIdx.y][threadIdx.x]"), std::string::npos);
  EXPECT_NE(text.find("B's store tile[threadIdx.y][threadIdx.x]"), std::string::npos);
  EXPECT_EQ(text.find("32-way bank conflict"), std::string::npos);
}
