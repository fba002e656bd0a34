// Limits on what one scenario may hold (issue 11): counts, text lengths, JSON shape, the
// evaluation budget and the number of problems listed. Each limit is reported with its path and
// value; nothing over a limit is read, checked pair by pair, or evaluated. Their speed is measured
// by bench/bench_model.cpp (BENCHMARKS.md, "Worst legal scenarios"), not timed here.
#include <gtest/gtest.h>

#include <string>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"
#include "bankviz/trace.h"
#include "helpers.h"

using namespace bankviz;
using test::step;

namespace {

std::string errors_text(const std::vector<Diagnostic>& ds) {
  std::string all;
  for (const Diagnostic& d : ds) all += d.format() + "\n";
  return all;
}

// {"tiles": [...n char tiles...], "steps": [one store]} with tile i at byte `base(i)`.
std::string char_tiles_json(int n, int stride) {
  std::string j = R"({"tiles":[)";
  for (int i = 0; i < n; ++i) {
    if (i) j += ',';
    j += R"({"name":"t)";
    j += std::to_string(i);
    j += R"(","elem":"char","dims":[4],"base":)";
    j += std::to_string(i * stride);
    j += '}';
  }
  j += R"(],"block":[32],"steps":[{"kind":"store","index":"t0[0]"}]})";
  return j;
}

}  // namespace

TEST(Limits, ADuplicateKeyIsAnErrorWithItsPathNotALastValueWins) {
  ScenarioLoad l = scenario_from_json(R"({"tiles":[{"name":"a","dims":[4],"dims":[8]}]})");
  ASSERT_FALSE(l.scenario);
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_EQ(l.errors[0].path, "tiles[0].dims");
  EXPECT_NE(l.errors[0].message.find("written twice"), std::string::npos) << l.errors[0].message;
  // The same key in two different objects is fine.
  EXPECT_TRUE(scenario_from_json(R"({"tiles":[{"name":"a"},{"name":"b","base":4096}],)"
                                 R"("steps":[{"kind":"load","index":"a[ty][tx]"}]})")
                  .scenario)
      << errors_text(
             scenario_from_json(R"({"tiles":[{"name":"a"},{"name":"b","base":4096}]})").errors);
}

TEST(Limits, DeepNestingAndHugeJsonStopWithoutReadingOn) {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  ScenarioLoad l = scenario_from_json(deep);
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_NE(l.errors[0].message.find("nested more than 32"), std::string::npos);
  std::string many = R"({"description":[)";
  for (int i = 0; i < 1'100'000; ++i) many += "0,";
  many += "0]}";
  l = scenario_from_json(many);
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_NE(l.errors[0].message.find("more than 1000000 JSON values"), std::string::npos);
  EXPECT_EQ(l.errors[0].path, "description[1000000]");
}

TEST(Limits, CountsOverTheLimitAreOneErrorEach) {
  std::string steps;
  for (size_t i = 0; i <= kMaxSteps; ++i) steps += R"({"kind":"sync"},)";
  steps.pop_back();
  ScenarioLoad l = scenario_from_json(R"({"steps":[)" + steps + "]}");
  ASSERT_EQ(l.errors.size(), 1u) << errors_text(l.errors);
  EXPECT_EQ(l.errors[0].format(), "steps: 4097 steps; a scenario holds at most 4096");

  Scenario s;
  s.steps = {step(StepKind::Load, "tile[threadIdx.y][threadIdx.x]")};
  s.lets.assign(kMaxLets + 1, Let{"x", "1"});  // also 1024 duplicate names: not listed
  const auto ds = check(s);
  ASSERT_EQ(ds.size(), 1u) << errors_text(ds);
  EXPECT_EQ(ds[0].format(), "lets: 1025 lets; a scenario holds at most 1024");
}

TEST(Limits, LongExpressionsAndTextsAreRefusedByLength) {
  Scenario s;
  s.steps = {step(StepKind::Load, "tile[threadIdx.y][threadIdx.x]")};
  s.steps[0].guard = "1" + std::string(kMaxExprChars, ' ');
  s.title = std::string(kMaxTextChars + 1, 't');
  auto ds = check(s);
  ASSERT_EQ(ds.size(), 1u) << errors_text(ds);  // the title first; the steps wait for it
  EXPECT_EQ(ds[0].path, "title");
  s.title.clear();
  ds = check(s);
  ASSERT_EQ(ds.size(), 1u) << errors_text(ds);
  EXPECT_EQ(ds[0].format(), "steps[0].guard: the guard is 4097 characters long; at most 4096");
}

TEST(Limits, OverlappingTilesAreOneMessagePerTileNotPerPair) {
  // 256 one-word tiles all at base 0: 255 overlaps (not 32640 pairs), listed up to the limit.
  ScenarioLoad l = scenario_from_json(char_tiles_json(static_cast<int>(kMaxTiles), 0));
  ASSERT_FALSE(l.scenario);
  ASSERT_EQ(l.errors.size(), kMaxDiagnostics);
  EXPECT_EQ(l.errors.back().message, "156 more problems not listed");
  EXPECT_EQ(l.errors[0].path, "tiles[1].base");
  EXPECT_NE(l.errors[0].message.find("overlaps tile 't0'"), std::string::npos);
  // Side by side they are legal; a tile declared later but placed lower is compared by address.
  EXPECT_TRUE(scenario_from_json(char_tiles_json(static_cast<int>(kMaxTiles), 4)).scenario);
  l = scenario_from_json(
      R"({"tiles":[{"name":"a","elem":"int","dims":[8],"base":64},{"name":"b","elem":"int",)"
      R"("dims":[32],"base":0}],"steps":[{"kind":"load","index":"a[0]"}]})");
  ASSERT_EQ(l.errors.size(), 1u) << errors_text(l.errors);
  EXPECT_EQ(l.errors[0].format(),
            "tiles[0].base: tile 'a' (bytes 64..96) overlaps tile 'b' (bytes 0..128); set base "
            "to 128 or more");
}

TEST(Limits, AnEvaluationBudgetRefusesLongGuardsOnManyThreadStepsBeforeEvaluating) {
  // 1024 threads x 256 executions x a 1000-node guard: 2.6e8 evaluations, over the budget.
  Scenario s;
  Step st = step(StepKind::Load, "tile[threadIdx.y][threadIdx.x]");
  std::string guard = "(int)threadIdx.x";
  for (int i = 0; i < 500; ++i) guard += "+1";
  st.guard = guard + " > 0";
  st.loop_var = "i";
  st.loop_to = 256;
  s.steps = {st};
  TraceResult r = trace(s);
  ASSERT_FALSE(r.trace);
  ASSERT_EQ(r.errors.size(), 1u) << errors_text(r.errors);
  EXPECT_NE(r.errors[0].message.find("expression evaluations"), std::string::npos);
  EXPECT_NE(r.errors[0].message.find("at most 67108864"), std::string::npos);
  s.steps[0].loop_to = 8;  // 1024 x 8 x ~1000: within it, and traced
  EXPECT_TRUE(trace(s).trace);
}

TEST(Limits, ManyLetsCostOnlyWhatEachStepReads) {
  // 1024 lets (the most), 512 executions of a step that reads one: only that one is copied into
  // each thread-step, and the lets are typed in one pass (codegen once bound them 1024 times).
  Scenario s;
  for (int i = 0; i < 1024; ++i)
    s.lets.push_back(
        {'v' + std::to_string(i), i ? 'v' + std::to_string(i - 1) + " + 1" : "threadIdx.x"});
  Step st = step(StepKind::Load, "tile[threadIdx.y][v1023 % 32]");
  st.loop_var = "i";
  st.loop_to = 512;
  s.steps = {st};
  AnalysisResult a = analyze(s);
  ASSERT_TRUE(a.errors.empty()) << errors_text(a.errors);
  EXPECT_EQ(let_types(s).size(), 1024u);
}
