// Comparisons and sweeps (compare.h): the figures and ratios of two scenarios, and one parameter
// over a range, each value checked and analyzed on its own.
#include <gtest/gtest.h>

#include <filesystem>

#include "../test_support.h"
#include "bankviz/compare.h"
#include "helpers.h"

using bankviz::test::analyzed;
using bankviz::test::transpose;

using namespace bankviz;
using test::step;

namespace {}  // namespace

TEST(Compare, PaddingByOneTurnsA32WayColumnLoadIntoOneWavefront) {
  const Comparison c = compare(analyzed(transpose(0)), analyzed(transpose(1)));
  EXPECT_EQ(c.a.total_wavefronts, 32 + 32 * 32);
  EXPECT_EQ(c.b.total_wavefronts, 64);
  EXPECT_EQ(c.a.worst_step, 2);
  EXPECT_EQ(c.a.worst_label, "load tile[threadIdx.x][threadIdx.y]");
  EXPECT_EQ(c.a.worst_instructions, 32);
  EXPECT_DOUBLE_EQ(c.a.worst_per_request, 32.0);
  EXPECT_DOUBLE_EQ(c.b.worst_per_request, 1.0);
  EXPECT_DOUBLE_EQ(c.total_ratio, 64.0 / 1056.0);
  EXPECT_DOUBLE_EQ(c.per_request_ratio, 1.0 / 32.0);
}

TEST(Sweep, RangesAndListsParseAndBadOnesSayWhy) {
  SweepParse p = parse_sweep("pad=0..32");
  ASSERT_TRUE(p.spec) << p.error;
  EXPECT_EQ(p.spec->values.size(), 33u);
  EXPECT_EQ(p.spec->values.back(), "32");
  p = parse_sweep("swizzle=none; 3,0,3 ;5,0,5");
  ASSERT_TRUE(p.spec) << p.error;
  EXPECT_EQ(p.spec->values, (std::vector<std::string>{"none", "3,0,3", "5,0,5"}));
  EXPECT_EQ(parse_sweep("depth=1..2").error,
            "unknown parameter 'depth' (pad, rows, cols, elem, swizzle)");
  EXPECT_NE(parse_sweep("pad=5..1").error.find("empty"), std::string::npos);
  EXPECT_NE(parse_sweep("pad=0..9223372036854775807").error.find("at most 257"), std::string::npos);
  EXPECT_NE(parse_sweep("pad=-9223372036854775807..9223372036854775807").error.find("at most"),
            std::string::npos);
  EXPECT_NE(parse_sweep("pad").error.find("expected PARAM=VALUES"), std::string::npos);
  EXPECT_NE(parse_sweep("elem=int,,float").error.find("empty value"), std::string::npos);
  EXPECT_NE(parse_sweep("cols=1,x").error.find("'x' is not an integer"), std::string::npos);
}

TEST(Sweep, EachValueIsAnalyzedAndAnInvalidOneIsAPointWithItsError) {
  const SweepParse p = parse_sweep("pad=0..2");
  const std::vector<SweepPoint> pts = sweep(transpose(0), *p.spec);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_DOUBLE_EQ(pts[0].summary->worst_per_request, 32.0);
  EXPECT_DOUBLE_EQ(pts[1].summary->worst_per_request, 1.0);
  EXPECT_DOUBLE_EQ(pts[2].summary->worst_per_request, 2.0);  // stride 34: 2-way
  const std::vector<SweepPoint> rows = sweep(transpose(1), *parse_sweep("rows=8,32,0").spec);
  EXPECT_GT(rows[0].summary->out_of_bounds, 0);  // 8 rows for a 32x32 block: out of bounds
  EXPECT_EQ(rows[1].summary->out_of_bounds, 0);
  EXPECT_FALSE(rows[2].summary);
  EXPECT_NE(rows[2].error.find("tiles[0].dims"), std::string::npos) << rows[2].error;
  const std::vector<SweepPoint> sw = sweep(transpose(0), *parse_sweep("swizzle=none;5,0,5;x").spec);
  EXPECT_DOUBLE_EQ(sw[1].summary->worst_per_request, 1.0);
  EXPECT_NE(sw[2].error.find("expected B,M,S"), std::string::npos);
}

// A sweep re-places one trace per point where it can (trace.h relayout()) and keeps the counts
// only: every point of every preset, over each parameter, is what the point's scenario analyzed
// whole says, field by field, errors included.
TEST(Sweep, EveryPointIsItsScenarioAnalyzedWhole) {
  const std::string dir = std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets";
  int points = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    const ScenarioLoad l = load_scenario_file(e.path().string());
    ASSERT_TRUE(l.scenario) << e.path();
    for (const char* range : {"pad=0,1,2,3,5,33", "rows=1,8,16,33", "cols=4,16,31,40",
                              "swizzle=none;1,0,1;3,3,3;5,0,5;2,2,3", "elem=int,double,char"}) {
      SCOPED_TRACE(l.scenario->name + " " + range);
      const SweepParse p = parse_sweep(range);
      ASSERT_TRUE(p.spec) << p.error;
      const std::vector<SweepPoint> pts = sweep(*l.scenario, *p.spec);
      ASSERT_EQ(pts.size(), p.spec->values.size());
      for (size_t i = 0; i < pts.size(); ++i) {
        SCOPED_TRACE(pts[i].value);
        ++points;
        const ScenarioLoad c = apply_sweep_value(*l.scenario, p.spec->param, pts[i].value);
        if (!c.scenario) {
          EXPECT_FALSE(pts[i].summary);
          EXPECT_EQ(pts[i].error, c.errors.front().format());
          continue;
        }
        const AnalysisResult r = analyze(*c.scenario);
        if (!r.analysis) {
          EXPECT_FALSE(pts[i].summary);
          EXPECT_EQ(pts[i].error, r.errors.front().format());
          continue;
        }
        ASSERT_TRUE(pts[i].summary) << pts[i].error;
        const Summary want = summarize(*r.analysis), &got = *pts[i].summary;
        EXPECT_EQ(got.total_wavefronts, want.total_wavefronts);
        EXPECT_EQ(got.total_ideal, want.total_ideal);
        EXPECT_EQ(got.worst_step, want.worst_step);
        EXPECT_EQ(got.worst_label, want.worst_label);
        EXPECT_EQ(got.worst_wavefronts, want.worst_wavefronts);
        EXPECT_EQ(got.worst_instructions, want.worst_instructions);
        EXPECT_EQ(got.worst_per_request, want.worst_per_request);
        EXPECT_EQ(got.racing_accesses, want.racing_accesses);
        EXPECT_EQ(got.out_of_bounds, want.out_of_bounds);
      }
    }
  }
  EXPECT_GT(points, 1000);
}
