// The before/after slide (svg.h render_compare_svg): one 16:9 SVG naming both scenarios, both
// verdicts and the ratio, with both sides' pictures.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "../test_support.h"
#include "bankviz/compare.h"
#include "bankviz/svg.h"
#include "recorded.h"

using bankviz::test::occurrences;
using bankviz::test::preset_analysis;
using bankviz::test::slurp;

using namespace bankviz;

namespace {

// The frame on each side's worst step (the step a comparison is about).
Frame worst_frame(const Analysis& a) {
  Playback p;
  return frame_at(a, time_of(a, p, a.worst_step(), 0, 0), p);
}

// Runs bankviz-cli with these arguments; its exit status, and what it wrote to stderr in *err.
int cli(const std::string& args, std::string* err) {
  const std::string log =
      ::testing::TempDir() + "compare-slide-" + std::to_string(::getpid()) + ".log";
  const int raw = std::system(
      (std::string("'") + BANKVIZ_CLI + "' " + args + " > /dev/null 2> " + log).c_str());
  std::ifstream in(log);
  err->assign(std::istreambuf_iterator<char>(in), {});
  std::filesystem::remove(log);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace

TEST(CompareSlide, IsSixteenByNineAndNamesBothScenariosVerdictsAndTheRatio) {
  Analysis a = preset_analysis("row-write-column-read");
  Analysis b = preset_analysis("row-write-column-read-padded");
  const Frame fa = worst_frame(a), fb = worst_frame(b);
  const std::string svg = render_compare_svg(a, fa, b, fb);
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(svg, m, std::regex("<svg[^>]* width=\"([0-9.]+)\" height=\"([0-9.]+)\"")));
  const double w = std::stod(m[1]), h = std::stod(m[2]);
  EXPECT_NEAR(w / h, 16.0 / 9.0, 1e-3);
  EXPECT_NE(svg.find(a.scenario.name), std::string::npos);
  EXPECT_NE(svg.find(b.scenario.name), std::string::npos);
  const FrameCells ca = frame_cells(a, fa), cb = frame_cells(b, fb);
  ASSERT_FALSE(ca.verdict.empty());
  ASSERT_NE(ca.verdict, cb.verdict);  // a conflict against none: the slide must show both
  EXPECT_NE(svg.find(ca.verdict), std::string::npos);
  EXPECT_NE(svg.find(cb.verdict), std::string::npos);
  // The padded column read needs 1 wavefront where the column read needs 32.
  const Comparison c = compare(a, b);
  EXPECT_DOUBLE_EQ(c.per_request_ratio, 1.0 / 32);
  EXPECT_NE(svg.find(ratio_words(c.per_request_ratio)), std::string::npos);
  EXPECT_NE(svg.find("32x fewer"), std::string::npos);
}

TEST(CompareSlide, DrawsBothSidesPicturesWithOnlyTheConflictingSideOutlinedInRed) {
  Analysis a = preset_analysis("row-write-column-read");
  Analysis b = preset_analysis("row-write-column-read-padded");
  const std::string red = "stroke=\"" + light_palette().conflict.hex() + "\"";
  // A's 32 conflicting words are outlined; B's padded read outlines none.
  EXPECT_EQ(occurrences(render_compare_svg(a, worst_frame(a), b, worst_frame(b)), red), 32);
  EXPECT_EQ(occurrences(render_compare_svg(b, worst_frame(b), b, worst_frame(b)), red), 0);
  // Both tiles' declarations are there (each side draws its own tile view).
  const std::string svg = render_compare_svg(a, worst_frame(a), b, worst_frame(b));
  EXPECT_NE(svg.find(a.scenario.tiles[0].declaration()), std::string::npos);
  EXPECT_NE(svg.find(b.scenario.tiles[0].declaration()), std::string::npos);
}

TEST(CompareSlide, MeasuredFiguresAndCaptionAppearWhenGiven) {
  Analysis a = preset_analysis("row-write-column-read");
  Analysis b = preset_analysis("row-write-column-read-padded");
  CompareSlideOptions o;
  o.caption = "padding by one word <moves> each row";
  o.measured_a = "40.1 cycles/instr";
  o.measured_b = "2.2 cycles/instr";
  o.measured_ratio = "B / A = 0.055";
  const std::string svg = render_compare_svg(a, worst_frame(a), b, worst_frame(b), o);
  EXPECT_NE(svg.find("padding by one word &lt;moves&gt; each row"), std::string::npos);
  EXPECT_NE(svg.find("40.1 cycles/instr"), std::string::npos);
  EXPECT_NE(svg.find("2.2 cycles/instr"), std::string::npos);
  EXPECT_NE(svg.find("B / A = 0.055"), std::string::npos);
}

TEST(CompareSlide, RatioWordsSayFewerMoreOrTheSame) {
  EXPECT_EQ(ratio_words(0.25), "B / A = 0.25: 4x fewer");
  EXPECT_EQ(ratio_words(2), "B / A = 2: 2x more");
  EXPECT_EQ(ratio_words(1), "B / A = 1: the same");
  EXPECT_EQ(ratio_words(0), "B / A: no figure (A has none)");
}

TEST(CompareSlide, TheCliExportCarriesBothSidesViewsVerdictsAndTheRatio) {
  // bankviz-cli export --compare A B --svg out.svg --slide: the command wrote A alone.
  const std::string svg =
      ::testing::TempDir() + "cli-compare-" + std::to_string(::getpid()) + ".svg";
  std::filesystem::remove(svg);
  std::string err;
  ASSERT_EQ(cli("export --compare row-write-column-read row-write-column-read-padded --svg " + svg +
                    " --slide",
                &err),
            0)
      << err;
  const std::string text = slurp(svg);
  std::filesystem::remove(svg);
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(text, m, std::regex("<svg[^>]* width=\"([0-9.]+)\" height=\"([0-9.]+)\"")));
  EXPECT_NEAR(std::stod(m[1]) / std::stod(m[2]), 16.0 / 9.0, 1e-3);
  const Analysis a = preset_analysis("row-write-column-read"),
                 b = preset_analysis("row-write-column-read-padded");
  // A on its worst step (the column read), B on the beat that follows it: both verdicts.
  const Frame fa = worst_frame(a);
  const Frame fb = follow_playhead(b, fa, Playback{});
  ASSERT_EQ(fb.step, fa.step);
  const FrameCells ca = frame_cells(a, fa), cb = frame_cells(b, fb);
  ASSERT_NE(ca.verdict, cb.verdict);
  EXPECT_NE(text.find("A: "), std::string::npos);
  EXPECT_NE(text.find("B: "), std::string::npos);
  EXPECT_NE(text.find(ca.verdict), std::string::npos) << ca.verdict;
  EXPECT_NE(text.find(cb.verdict), std::string::npos) << cb.verdict;
  EXPECT_NE(text.find(ratio_words(compare(a, b).per_request_ratio)), std::string::npos);
  EXPECT_NE(text.find("32x fewer"), std::string::npos);
  // Both sides' views: each tile's declaration, and A's 32 conflicting words outlined in red.
  EXPECT_NE(text.find(a.scenario.tiles[0].declaration()), std::string::npos);
  EXPECT_NE(text.find(b.scenario.tiles[0].declaration()), std::string::npos);
  EXPECT_EQ(occurrences(text, "stroke=\"" + light_palette().conflict.hex() + "\""), 32);
  // The same slide as core draws it, with the figures recorded for both sides (assets/recorded;
  // both presets are in the shipped H200 set): the CLI adds nothing else of its own.
  CompareSlideOptions co;
  recorded_compare_figures(shipped_recorded_sets(), a.scenario, b.scenario, co);
  EXPECT_NE(co.measured_a.find("measured on H200, recorded"), std::string::npos) << co.measured_a;
  EXPECT_FALSE(co.measured_ratio.empty());
  EXPECT_EQ(text, render_compare_svg(a, fa, b, fb, co));
}

TEST(CompareSlide, TheCliRefusesFlagsThatDoNotFitASlide) {
  const std::string svg =
      ::testing::TempDir() + "cli-refused-" + std::to_string(::getpid()) + ".svg";
  std::string err;
  EXPECT_EQ(
      cli("export --compare row-write-column-read x --preset reverse-static --svg " + svg, &err),
      2);
  EXPECT_NE(err.find("--compare A B names both scenarios"), std::string::npos) << err;
  EXPECT_EQ(cli("export --compare row-write-column-read row-write-column-read-padded --cell 30 "
                "--svg " +
                    svg,
                &err),
            2);
  EXPECT_NE(err.find("--view and --cell"), std::string::npos) << err;
  EXPECT_EQ(cli("export --preset reverse-static --width 800 --svg " + svg, &err), 2);
  EXPECT_NE(err.find("--width sizes a slide"), std::string::npos) << err;
  EXPECT_EQ(cli("export --compare row-write-column-read no-such-preset --svg " + svg, &err), 2);
  EXPECT_NE(err.find("no-such-preset"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(svg));
}

TEST(CompareSlide, TheCliSlideOfOneScenarioIsCoresSlideAtTheWidthAsked) {
  const std::string svg = ::testing::TempDir() + "cli-slide-" + std::to_string(::getpid()) + ".svg";
  std::filesystem::remove(svg);
  std::string err;
  ASSERT_EQ(
      cli("export --preset row-write-column-read --slide --width 1280 --dark --svg " + svg, &err),
      0)
      << err;
  const Analysis a = preset_analysis("row-write-column-read");
  SlideSvgOptions o;
  o.light = false;
  o.width = 1280;
  // With the figure recorded for its step (assets/recorded), as the CLI adds it.
  const Frame f = worst_frame(a);
  ASSERT_GE(f.step, 0);
  o.measured = recorded_step_words(shipped_recorded_sets(), a.scenario,
                                   a.steps[static_cast<size_t>(f.step)].step);
  EXPECT_NE(o.measured.find("measured on H200, recorded"), std::string::npos) << o.measured;
  EXPECT_EQ(slurp(svg), render_slide_svg(a, f, o));
  std::filesystem::remove(svg);
}
