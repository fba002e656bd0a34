// SVG of the tile and bank views: well-formed, marks the conflict, and matches the CLI goldens.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "bankviz/svg.h"

using namespace bankviz;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::string run(const std::string& cmd, int* rc) {
  std::string out;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), f)) out += buf.data();
  *rc = pclose(f);
  return out;
}

Analysis lesson(const char* name) {
  ScenarioLoad l =
      load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/" + name + ".json");
  EXPECT_TRUE(l.scenario);
  return *analyze(*l.scenario).analysis;
}

}  // namespace

TEST(Svg, ColumnReadOutlinesThirtyTwoConflictingWordsInRed) {
  Analysis a = lesson("row-write-column-read");
  Playback p;
  int load = 2;
  ASSERT_EQ(a.steps[load].kind, StepKind::Load);
  std::string svg = render_svg(a, frame_at(a, time_of(a, p, load, 0, 0), p), SvgOptions{});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  std::string red = "stroke=\"" + light_palette().conflict.hex() + "\"";
  EXPECT_EQ(count(svg, red), 32);
  EXPECT_NE(svg.find("32-way"), std::string::npos);
}

TEST(Svg, PaddingColumnIsHatchedAndNoWordConflicts) {
  Analysis a = lesson("row-write-column-read-padded");
  Playback p;
  std::string svg = render_svg(a, frame_at(a, time_of(a, p, 2, 0, 0), p), SvgOptions{});
  // 32 padding elements in the tile view, 32 padding words in the bank view.
  EXPECT_EQ(count(svg, "url(#hatch)"), 64);
  EXPECT_EQ(count(svg, "stroke=\"" + light_palette().conflict.hex() + "\""), 0);
}

TEST(Svg, TextIsEscaped) {
  Analysis a = lesson("row-write-column-read");
  a.scenario.title = "a < b & c";
  std::string svg = render_svg(a, Frame{}, SvgOptions{});
  EXPECT_NE(svg.find("a &lt; b &amp; c"), std::string::npos);
}

TEST(Palette, NeighbouringBanksDifferAndNoneIsTheConflictRed) {
  for (Palette pal : {light_palette(), dark_palette()})
    for (int b = 0; b < 32; ++b) {
      Rgba c = pal.bank(b, 32, true), n = pal.bank(b + 1, 32, true);
      EXPECT_NE(c.hex(), n.hex()) << b;
      EXPECT_NE(c.hex(), pal.conflict.hex()) << b;
    }
}

// Goldens: tests/data/golden/NAME.svg were written by
//   bankviz-cli export --preset NAME --svg tests/data/golden/NAME.svg
// Regenerate them only when the picture is meant to change.
class CliGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(CliGolden, ExportMatchesGolden) {
  std::string name = GetParam();
  std::string golden = std::string(BANKVIZ_TEST_DATA) + "/golden/" + name + ".svg";
  ASSERT_TRUE(std::filesystem::exists(golden)) << golden;
  std::string out = ::testing::TempDir() + "golden-" + name + ".svg";
  std::filesystem::remove(out);
  int rc = -1;
  std::string log =
      run(std::string(BANKVIZ_CLI) + " export --preset " + name + " --svg " + out, &rc);
  ASSERT_EQ(rc, 0) << log;
  EXPECT_EQ(slurp(out), slurp(golden)) << "regenerate " << golden << " if the change is intended";
}

INSTANTIATE_TEST_SUITE_P(Presets, CliGolden,
                         ::testing::Values("row-write-column-read", "row-write-column-read-padded",
                                           "kepler-filter-float2-8byte"));

TEST(CliExport, RefusesToOverwriteWithoutForce) {
  std::string out = ::testing::TempDir() + "exists.svg";
  std::ofstream(out) << "keep me";
  int rc = 0;
  std::string log = run(std::string(BANKVIZ_CLI) + " export --svg " + out, &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(log.find("--force"), std::string::npos) << log;
  EXPECT_EQ(slurp(out), "keep me");
  log = run(std::string(BANKVIZ_CLI) + " export --force --svg " + out, &rc);
  EXPECT_EQ(rc, 0) << log;
  EXPECT_EQ(slurp(out).rfind("<svg", 0), 0u);
}
