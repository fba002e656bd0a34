// SVG of the tile and bank views: well-formed, marks the conflict, and matches the CLI goldens.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "../core/helpers.h"
#include "../test_support.h"
#include "bankviz/svg.h"
#include "bankviz/text.h"
#include "scratch_dir.h"

using bankviz::test::occurrences;
using bankviz::test::preset_analysis;
using bankviz::test::slurp;

using namespace bankviz;

namespace {

std::string run(const std::string& cmd, int* rc) {
  std::string out;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), f)) out += buf.data();
  *rc = pclose(f);
  return out;
}

}  // namespace

TEST(Svg, ColumnReadOutlinesThirtyTwoConflictingWordsInRed) {
  Analysis a = preset_analysis("row-write-column-read");
  Playback p;
  int load = 2;
  ASSERT_EQ(a.steps[load].kind, StepKind::Load);
  std::string svg = render_svg(a, frame_at(a, time_of(a, p, load, 0, 0), p), SvgOptions{});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  std::string red = "stroke=\"" + light_palette().conflict.hex() + "\"";
  EXPECT_EQ(occurrences(svg, red), 32);
  EXPECT_NE(svg.find("32-way"), std::string::npos);
}

// In both themes: the 31 words waiting for a later wavefront ringed in the background inside
// their red, the lit one (lane 0's, bank 0) in black or white, whichever its lane digit is not;
// every lane digit (tile view and bank view) in the ink that stands out on its bright chip
// (ink_on: at least 4.5:1), where the dark theme's light text on a bright chip was not.
TEST(Svg, ALitConflictIsRingedAndItsLaneDigitStandsOutOnItsChip) {
  Analysis a = preset_analysis("row-write-column-read");
  Playback p;
  for (bool light : {true, false}) {
    SvgOptions o;
    o.light = light;
    const std::string svg = render_svg(a, frame_at(a, time_of(a, p, 2, 0, 0), p), o);
    const Palette pal = light ? light_palette() : dark_palette();
    const Rgba chip = pal.bank(0, 32, true);
    ASSERT_GE(contrast_ratio(ink_on(chip), chip), 4.5);
    auto rings = [&svg](Rgba c) {
      return occurrences(svg, "fill=\"none\" stroke=\"" + c.hex() + "\" stroke-width=\"1.5\"");
    };
    // (The light theme's background is white, as the lit ring on its pale chip is.)
    const bool same = lit_ring_on(chip).hex() == pal.background.hex();
    EXPECT_EQ(rings(pal.background), same ? 32 : 31) << light;
    EXPECT_EQ(rings(lit_ring_on(chip)), same ? 32 : 1) << light;
    const std::string digit = "fill=\"" + ink_on(chip).hex() + "\" text-anchor=\"middle\"";
    EXPECT_EQ(occurrences(svg, digit + " font-weight=\"bold\">0</text>"), 2) << light;
  }
}

TEST(Svg, PaddingColumnIsHatchedAndNoWordConflicts) {
  Analysis a = preset_analysis("row-write-column-read-padded");
  Playback p;
  std::string svg = render_svg(a, frame_at(a, time_of(a, p, 2, 0, 0), p), SvgOptions{});
  // 32 padding elements in the tile view, 32 padding words in the bank view.
  EXPECT_EQ(occurrences(svg, "url(#hatch)"), 64);
  EXPECT_EQ(occurrences(svg, "stroke=\"" + light_palette().conflict.hex() + "\""), 0);
}

TEST(Svg, TextIsEscaped) {
  Analysis a = preset_analysis("row-write-column-read");
  a.scenario.title = "a < b & c";
  std::string svg = render_svg(a, Frame{}, SvgOptions{});
  EXPECT_NE(svg.find("a &lt; b &amp; c"), std::string::npos);
}

namespace {

// The viewBox's width and height ("0 0 W H").
std::pair<double, double> view_box(const std::string& svg) {
  const size_t at = svg.find("viewBox=\"0 0 ");
  if (at == std::string::npos) return {0, 0};
  std::istringstream in(svg.substr(at + 13));
  double w = 0, h = 0;
  in >> w >> h;
  return {w, h};
}

// The x of the first <text> holding `head`.
double text_x(const std::string& svg, const std::string& head) {
  const size_t at = svg.find(">" + head);
  if (at == std::string::npos) return -1;
  const size_t x = svg.rfind(" x=\"", at);
  return std::stod(svg.substr(x + 4));
}

}  // namespace

TEST(SvgSlide, LandscapeViewBoxIsSixteenByNineAndHoldsTheCaption) {
  Analysis a = preset_analysis("row-write-column-read");
  Playback p;
  const Frame f = frame_at(a, time_of(a, p, 2, 0, 0), p);
  SlideSvgOptions o;
  o.caption = "Reading a column: all 32 lanes land in bank 0 & wait <in turn>";
  const std::string svg = render_slide_svg(a, f, o);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  auto [w, h] = view_box(svg);
  ASSERT_GT(h, 0);
  EXPECT_DOUBLE_EQ(w * 9, h * 16);
  // The caption, escaped, and the same picture as the portrait page: 32 conflicting words and the
  // verdict.
  EXPECT_NE(svg.find("bank 0 &amp; wait &lt;in turn&gt;"), std::string::npos);
  EXPECT_EQ(occurrences(svg, "stroke=\"" + light_palette().conflict.hex() + "\""), 32);
  EXPECT_NE(svg.find("32-way"), std::string::npos);
  // Landscape: the bank view beside the tile view (in the right half), not under it.
  EXPECT_LT(text_x(svg, "Logical tile"), w / 2);
  EXPECT_GT(text_x(svg, "Physical banks"), w / 2);
  // The portrait page is kept as it was: taller than wide, no caption.
  const std::string portrait = render_svg(a, f, SvgOptions{});
  EXPECT_EQ(portrait.find("bank 0 &amp; wait"), std::string::npos);
  auto [pw, ph] = view_box(portrait);
  EXPECT_GT(ph, pw);
}

// The font-size of the <text> holding `needle`, -1 without one.
double font_size_of(const std::string& svg, const std::string& needle) {
  const size_t at = svg.find(needle);
  if (at == std::string::npos) return -1;
  const size_t fs = svg.rfind("font-size=\"", at);
  return fs == std::string::npos ? -1 : std::stod(svg.substr(fs + 11));
}

TEST(SvgSlide, TheQuestionThenItsAnswerAndTheVerdictInTypeARoomReads) {
  Analysis a = preset_analysis("row-write-column-read");
  Playback p;
  const Frame f = frame_at(a, time_of(a, p, 2, 0, 0), p);
  SlideSvgOptions o;
  o.width = 1920;  // a 1080 px slide
  o.caption = "The transpose: the load walks a column.";
  o.question = "How many wavefronts does the column load need?";
  o.conceal = true;
  const std::string before = render_slide_svg(a, f, o);
  EXPECT_NE(before.find("Q: How many wavefronts does the column load need?"), std::string::npos)
      << before;
  EXPECT_EQ(before.find("A: "), std::string::npos);
  EXPECT_EQ(before.find("32-way"), std::string::npos);
  o.conceal = false;
  o.answer = "32 (the model)";
  const std::string after = render_slide_svg(a, f, o);
  EXPECT_NE(after.find("A: 32 (the model)"), std::string::npos) << after;
  // Presenter type: the verdict at least 24 px on the 1080 px slide, the words at least 27.
  EXPECT_GE(font_size_of(after, "32-way"), 24.0);
  EXPECT_GE(font_size_of(after, "The transpose"), 27.0);
  EXPECT_GE(font_size_of(after, "A: 32"), 27.0);
  EXPECT_EQ(occurrences(after, "32-way"), 1);  // once, not also small inside the bank view
}

TEST(SvgSlide, ALongCaptionWrapsInsideTheSlide) {
  Analysis a = preset_analysis("row-write-column-read");
  SlideSvgOptions o;
  o.width = 1280;
  for (int i = 0; i < 60; ++i) o.caption += "word" + std::to_string(i) + " ";
  const std::string svg = render_slide_svg(a, Frame{}, o);
  auto [w, h] = view_box(svg);
  EXPECT_EQ(w, 1280);
  EXPECT_EQ(h, 720);
  // Several lines, all of it there, and every line starts inside the slide.
  EXPECT_GE(occurrences(svg, ">word"), 3);
  EXPECT_NE(svg.find("word59"), std::string::npos);
  for (size_t p = svg.find(">word"); p != std::string::npos; p = svg.find(">word", p + 1)) {
    const size_t y = svg.rfind(" y=\"", p);
    EXPECT_LT(std::stod(svg.substr(y + 4)), h);
  }
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
  std::string out = bankviz::test::scratch_dir() + "golden-" + name + ".svg";
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
  std::string out = bankviz::test::scratch_dir() + "exists.svg";
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

// [SECTION] Every view of one scenario tells the same story
// The text verdict, the text bank picture, the SVG and the frame cells all say which banks
// conflict; they must name the same banks, and the same ones serve() recorded.

namespace {

struct Named {
  const char* name;
  Scenario scenario;
  int step = 0;  // executed step to look at (warp 0, first wavefront)
};

Scenario one_step(const char* arch, const char* elem, std::vector<int64_t> dims, int block_x,
                  StepKind kind, const char* index) {
  Scenario s;
  s.arch = arch;
  s.tiles[0].elem = elem;
  s.tiles[0].dims = std::move(dims);
  s.block[0] = block_x, s.block[1] = 1, s.block[2] = 1;
  s.steps = {test::step(kind, index)};
  return s;
}

std::vector<Named> agreement_scenarios() {
  std::vector<Named> out;
  for (int64_t pad : {0, 1}) {
    Scenario s;
    s.tiles[0].pad = pad;
    s.steps = {test::step(StepKind::Store, "tile[threadIdx.y][threadIdx.x]"),
               test::step(StepKind::Sync),
               test::step(StepKind::Load, "tile[threadIdx.x][threadIdx.y]")};
    out.push_back({pad ? "padded column read" : "column read", s, 2});
  }
  out.push_back(
      {"atomic to one word", one_step("hopper", "int", {32}, 32, StepKind::Atomic, "tile[0]")});
  out.push_back({"broadcast", one_step("hopper", "int", {32}, 32, StepKind::Load, "tile[0]")});
  for (const char* arch : {"hopper", "kepler8", "kepler4", "fermi", "maxwell", "cc1x"}) {
    for (const char* elem : {"float2", "float4"}) {
      out.push_back({"", one_step(arch, elem, {32}, 32, StepKind::Load, "tile[threadIdx.x]")});
      out.push_back({"", one_step(arch, elem, {32, 8}, 32, StepKind::Store,
                                  "tile[threadIdx.x][threadIdx.x % 8]")});
    }
  }
  out.push_back(
      {"", one_step("kepler4", "float2", {64}, 32, StepKind::Load, "tile[threadIdx.x + 10]")});
  out.push_back({"", one_step("cc1x", "char", {128}, 32, StepKind::Load, "tile[threadIdx.x]")});
  out.push_back({"", one_step("cc1x", "char", {128}, 32, StepKind::Load, "tile[threadIdx.x / 8]")});
  out.push_back({"", one_step("cc1x", "double", {32}, 32, StepKind::Load, "tile[threadIdx.x]")});
  return out;
}

// Banks marked '!' in the text bank picture's "conflict" row.
uint32_t text_conflict_banks(const std::string& picture) {
  uint32_t banks = 0;
  std::istringstream in(picture);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("conflict", 0) == 0)
      for (size_t p = 10; p < l.size(); ++p)
        if (l[p] == '!') banks |= 1u << ((p - 10) / 3);
  return banks;
}

// The SVG's per-bank load row: (number, drawn in the conflict colour) per bank.
std::vector<std::pair<int, bool>> svg_load_row(const std::string& svg, int banks) {
  std::vector<std::pair<int, bool>> out;
  const size_t at = svg.find(">load</text>");
  if (at == std::string::npos) return out;
  std::istringstream in(svg.substr(svg.find('\n', at) + 1));
  const std::string red = "fill=\"" + light_palette().conflict.hex() + "\"";
  for (std::string l; static_cast<int>(out.size()) < banks && std::getline(in, l);) {
    const size_t gt = l.find('>'), lt = l.find("</text>");
    if (l.rfind("<text", 0) != 0 || gt == std::string::npos || lt == std::string::npos) break;
    out.push_back({std::stoi(l.substr(gt + 1, lt - gt - 1)), l.find(red) != std::string::npos});
  }
  return out;
}

}  // namespace

TEST(ViewsAgree, TextSvgAndFrameCellsNameTheSameConflictingBanks) {
  int conflicted = 0, clean = 0;
  for (const Named& n : agreement_scenarios()) {
    AnalysisResult ar = analyze(n.scenario);
    ASSERT_TRUE(ar.analysis) << n.name << " " << n.scenario.steps[0].index;
    const Analysis& a = *ar.analysis;
    const WarpStep& ws = a.warps[static_cast<size_t>(n.step)][0];
    const AccessResult& r = ws.result;
    SCOPED_TRACE(std::string(n.name) + " | " + a.arch->id.data() + " " + n.scenario.tiles[0].elem +
                 " " + a.steps[static_cast<size_t>(n.step)].label + " | " +
                 verdict(r, ws.access.width));
    const bool says_conflict =
        verdict(r, ws.access.width).find("bank conflict") != std::string::npos;
    EXPECT_EQ(says_conflict, r.conflict_banks != 0);
    (says_conflict ? conflicted : clean) += 1;

    const std::string picture = render_banks(a, n.step, 0);
    EXPECT_EQ(text_conflict_banks(picture), r.conflict_banks) << picture;

    Playback p;
    const Frame f = frame_at(a, time_of(a, p, n.step, 0, 0), p);
    const FrameCells fc = frame_cells(a, f);
    EXPECT_EQ(fc.conflict_banks, r.conflict_banks);
    uint32_t word_banks = 0;
    int red_words = 0;
    for (const LitWord& w : fc.words) {
      EXPECT_EQ(w.conflict, r.conflicted(w.bank)) << "word " << w.word;
      if (w.conflict) word_banks |= 1u << w.bank, ++red_words;
    }
    EXPECT_EQ(word_banks, r.conflict_banks);

    const std::string svg = render_svg(a, f, SvgOptions{});
    const auto row = svg_load_row(svg, a.arch->banks);
    ASSERT_EQ(static_cast<int>(row.size()), a.arch->banks) << svg;
    uint32_t svg_banks = 0;
    for (int b = 0; b < a.arch->banks; ++b) {
      EXPECT_EQ(row[static_cast<size_t>(b)].first, fc.bank_load[static_cast<size_t>(b)]) << b;
      if (row[static_cast<size_t>(b)].second) svg_banks |= 1u << b;
    }
    EXPECT_EQ(svg_banks, r.conflict_banks);
    EXPECT_EQ(occurrences(svg, "stroke=\"" + light_palette().conflict.hex() + "\""), red_words);
  }
  // The set covers both stories.
  EXPECT_GE(conflicted, 5);
  EXPECT_GE(clean, 5);
}
