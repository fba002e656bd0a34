// The advisor: which paddings and swizzles make each memory step conflict-free, their cost in
// shared memory, the ranking, the bound, and that every claim is what analyze() says of the
// scenario with the fix applied.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "../test_support.h"
#include "bankviz/advise.h"
#include "bankviz/analysis.h"
#include "helpers.h"

using bankviz::test::preset_scenario;

using namespace bankviz;

namespace {

const Fix* find_fix(const Advice& a, const std::vector<int>& list, const std::string& name) {
  for (int i : list)
    if (a.fixes[static_cast<size_t>(i)].name == name) return &a.fixes[static_cast<size_t>(i)];
  return nullptr;
}

const StepAdvice& step_of(const Advice& a, int step) {
  for (const StepAdvice& s : a.steps)
    if (s.step == step) return s;
  ADD_FAILURE() << "no step " << step;
  return a.steps.front();
}

}  // namespace

// The textbook case: tile[32][32] of int read down a column is 32-way; a padding of one element
// per row (32 rows x 4 bytes = 128 bytes more) or Swizzle<5,0,5> (no bytes) fixes it, and the
// swizzle ranks first because it costs nothing.
TEST(Advise, ColumnReadOfIntTileIsFixedByPadOneOrSwizzle505AndTheSwizzleIsFree) {
  const Scenario s = preset_scenario("row-write-column-read");
  const Advice a = advise(s);
  ASSERT_TRUE(a.errors.empty());
  const StepAdvice& load_step = step_of(a, 2);
  EXPECT_FALSE(load_step.conflict_free_now());
  const Fix* pad1 = find_fix(a, load_step.best, "pad 1");
  const Fix* sw = find_fix(a, load_step.best, "Sw<5,0,5>");
  ASSERT_TRUE(pad1);
  ASSERT_TRUE(sw);
  EXPECT_EQ(pad1->extra_bytes, 32 * 1 * 4);
  EXPECT_EQ(sw->extra_bytes, 0);
  EXPECT_TRUE(pad1->all_conflict_free());
  EXPECT_EQ(a.fixes[static_cast<size_t>(load_step.best.front())].name, "Sw<5,0,5>");
  ASSERT_EQ(a.tiles.size(), 1u);
  EXPECT_EQ(a.fixes[static_cast<size_t>(a.tiles[0].ranked.front())].name, "Sw<5,0,5>");
  // pad 2 keeps a 2-way conflict: rows 16 apart share a bank. It is not among the best.
  EXPECT_FALSE(find_fix(a, load_step.best, "pad 2"));
}

// Every listed fix, applied and analyzed, has the wavefronts the advice gives it.
TEST(Advise, EveryFixAppliedAndAnalyzedGivesTheWavefrontsClaimed) {
  const Scenario s = preset_scenario("rect-row-write-column-read");
  const Advice a = advise(s);
  ASSERT_FALSE(a.fixes.empty());
  for (size_t i = 0; i < a.fixes.size(); i += 7) {  // a sample across pads and swizzles
    const Fix& f = a.fixes[i];
    Scenario c = s;
    apply_fix(c, f);
    AnalysisResult r = analyze(c);
    ASSERT_TRUE(r.analysis) << f.name;
    EXPECT_EQ(r.analysis->total_wavefronts(), f.total_wavefronts) << f.name;
    EXPECT_EQ(c.tiles[0].bytes() - s.tiles[0].elements() * 4, f.extra_bytes) << f.name;
  }
}

TEST(Advise, ConflictFreeScenarioKeepsItsLayoutFirst) {
  const Advice a = advise(preset_scenario("row-write-row-read"));
  ASSERT_EQ(a.tiles.size(), 1u);
  const Fix& first = a.fixes[static_cast<size_t>(a.tiles[0].ranked.front())];
  EXPECT_EQ(first.kind, FixKind::Baseline);
  for (const StepAdvice& st : a.steps) EXPECT_TRUE(st.conflict_free_now()) << st.label;
}

// The TMA/GMMA modes are offered in the element's units: on half, SW128 is Sw<3,3,3>.
TEST(Advise, NamedTmaSwizzlesAreOfferedInElementUnits) {
  Scenario s = preset_scenario("half-tile-swizzle-3-3-3");
  s.tiles[0].swizzle = {};  // as the baseline, Sw<3,3,3> would not be a candidate
  const Advice a = advise(s);
  ASSERT_EQ(a.tiles.size(), 1u);
  EXPECT_TRUE(find_fix(a, a.tiles[0].ranked, "Sw<3,3,3> = SW128"));
  EXPECT_TRUE(find_fix(a, a.tiles[0].ranked, "Sw<2,3,3> = SW64"));
  EXPECT_TRUE(find_fix(a, a.tiles[0].ranked, "Sw<1,3,3> = SW32"));
}

// A CuTe-laid-out tile has no padding to offer; a swizzle composes with its layout.
TEST(Advise, CuteTileGetsSwizzlesComposedWithItsLayoutAndNoPadding) {
  Scenario s = preset_scenario("row-write-column-read");
  ASSERT_EQ(s.tiles[0].set_layout("(32,32):(32,1)"), "");
  const Advice a = advise(s);
  ASSERT_EQ(a.tiles.size(), 1u);
  for (int i : a.tiles[0].ranked) EXPECT_NE(a.fixes[static_cast<size_t>(i)].kind, FixKind::Pad);
  const Fix* sw = find_fix(a, step_of(a, 2).best, "Sw<5,0,5>");
  ASSERT_TRUE(sw);
  Scenario c = s;
  apply_fix(c, *sw);
  EXPECT_TRUE(c.tiles[0].cute);
  EXPECT_EQ(c.tiles[0].layout_text(), "Sw<5,0,5> o (32,32):(32,1)");
}

TEST(Advise, StopsAtItsBoundOfAnalysesAndSaysSo) {
  Scenario s = preset_scenario("row-write-column-read");
  // Eight tiles, each read down a column: 8 x ~180 candidates is more than the bound.
  for (int k = 1; k < 8; ++k) {
    TileDecl t = s.tiles[0];
    t.name = std::string(1, 't') + std::to_string(k);
    t.base = k * 16384;
    s.tiles.push_back(t);
    Step st = test::step(StepKind::Load, t.name + "[threadIdx.x][threadIdx.y]");
    st.tile = t.name;
    s.steps.push_back(st);
  }
  const Advice a = advise(s);
  EXPECT_TRUE(a.truncated);
  EXPECT_LE(a.analyses, a.bound);
  EXPECT_LE(a.bound, kMaxAdviseAnalyses);
  EXPECT_TRUE(render_advice(s, a).find("stopped at the bound") != std::string::npos);
}

TEST(Advise, ScenarioThatDoesNotAnalyzeGivesItsErrors) {
  Scenario s = preset_scenario("row-write-column-read");
  s.steps[2].index = "tile[threadIdx.x / 0][0]";
  const Advice a = advise(s);
  EXPECT_FALSE(a.errors.empty());
  EXPECT_TRUE(a.fixes.empty());
}

TEST(Advise, JsonListsStepsAndRankedFixesWithBothSwizzleUnits) {
  Scenario s = preset_scenario("half-tile-swizzle-3-3-3");
  s.tiles[0].swizzle = {};
  const nlohmann::json j = nlohmann::json::parse(advice_json(s, advise(s)));
  ASSERT_EQ(j["tiles"].size(), 1u);
  bool found = false;
  for (const auto& f : j["tiles"][0]["ranked"]) {
    if (f["name"] != "Sw<3,3,3> = SW128") continue;
    found = true;
    EXPECT_EQ(f["swizzle_elements"], nlohmann::json({3, 3, 3}));
    EXPECT_EQ(f["swizzle_bytes"], nlohmann::json({3, 4, 3}));
    EXPECT_EQ(f["extra_bytes"], 0);
  }
  EXPECT_TRUE(found);
  EXPECT_FALSE(j["steps"].empty());
}

// A large scenario gets fewer analyses: 1024 threads x 512 iterations = 2^19 lane-steps, so
// kMaxAdviseWork (2^25) allows 64.
TEST(Advise, LargeScenarioGetsABoundScaledToItsSize) {
  Scenario s = preset_scenario("row-write-column-read");
  s.steps = {test::step(StepKind::Load, "tile[threadIdx.x][(threadIdx.y + i) % 32]")};
  s.steps[0].loop_var = "i";
  s.steps[0].loop_from = 0, s.steps[0].loop_to = 512, s.steps[0].loop_step = 1;
  const Advice a = advise(s);
  ASSERT_TRUE(a.errors.empty()) << (a.errors.empty() ? "" : a.errors[0].format());
  EXPECT_EQ(a.bound, static_cast<int>(kMaxAdviseWork / (int64_t{1} << 19)));
  EXPECT_LE(a.analyses, a.bound);
  EXPECT_TRUE(a.truncated);
  // The likeliest fixes ran before the bound: pad 1 and Sw<5,0,5> are both there.
  ASSERT_FALSE(a.steps.empty());
  EXPECT_TRUE(find_fix(a, a.steps[0].best, "pad 1"));
  EXPECT_TRUE(find_fix(a, a.steps[0].best, "Sw<5,0,5>"));
}

// advise() re-places one trace per candidate (trace.h relayout()) where it can: its answers are
// what each candidate analyzed whole says. For every preset (and two tiles out of bounds, where
// relayout() declines), every fix's per-step wavefronts and ideal are its scenario's, analyzed.
TEST(Advise, EveryFixOfEveryPresetIsItsScenarioAnalyzedWhole) {
  std::vector<Scenario> scenarios;
  const std::string dir = std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets";
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json")
      scenarios.push_back(preset_scenario(e.path().stem().string()));
  Scenario oob = preset_scenario("row-write-column-read");
  oob.tiles[0].dims = {32, 31};  // the column load's last lanes fall outside, until padded
  scenarios.push_back(oob);
  int checked = 0;
  for (const Scenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    const Advice a = advise(s);
    ASSERT_TRUE(a.errors.empty());
    for (size_t i = 0; i < a.fixes.size(); i += 3) {  // a third of them: the suite's time
      const Fix& f = a.fixes[i];
      if (f.kind == FixKind::Baseline) continue;
      SCOPED_TRACE(f.name);
      Scenario c = s;
      apply_fix(c, f);
      const AnalysisResult r = analyze(c);
      ASSERT_TRUE(r.analysis);
      const TileAdvice* ta = nullptr;
      for (const TileAdvice& t : a.tiles)
        if (t.tile == f.tile) ta = &t;
      ASSERT_TRUE(ta);
      for (size_t k = 0; k < ta->steps.size(); ++k) {
        const int step = a.steps[static_cast<size_t>(ta->steps[k])].step;
        int64_t wf = 0, ideal = 0;
        for (size_t e = 0; e < r.analysis->steps.size(); ++e) {
          if (r.analysis->steps[e].step != step) continue;
          wf += r.analysis->step_wavefronts(static_cast<int>(e));
          ideal += r.analysis->step_ideal(static_cast<int>(e));
        }
        EXPECT_EQ(f.wavefronts[k], wf) << "step " << step;
        EXPECT_EQ(f.ideal[k], ideal) << "step " << step;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}
