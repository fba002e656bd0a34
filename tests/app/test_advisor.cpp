// The advisor window's worker: advice runs off the UI thread over the analyzed scenario, and
// applying a fix makes it the draft, re-analyzed.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "advisor/advisor.h"
#include "shell/app_state.h"

using namespace bankviz;
using namespace bankviz::gui;

namespace {

// tile[32][32] of int read down a column: 32-way.
Scenario column_read() {
  Scenario s;
  s.name = "column";
  s.tiles[0].dims = {32, 32};
  Step st;
  st.kind = StepKind::Load;
  st.index = "[threadIdx.x][threadIdx.y]";
  s.steps.push_back(st);
  return s;
}

void wait_for_advice(AdvisorState& a) {
  for (int i = 0; i < 3000 && !poll_advice(a); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

TEST(Advisor, AdviceRunsOnTheAnalyzedScenarioAndApplyingTheFirstFixMakesItConflictFree) {
  AppState s;
  set_draft(s, column_read());
  ASSERT_TRUE(s.analysis);
  EXPECT_GT(s.analysis->total_wavefronts(), s.analysis->total_ideal());
  start_advice(s);
  wait_for_advice(s.advisor);
  ASSERT_TRUE(s.advisor.advice);
  const Advice& adv = *s.advisor.advice;
  ASSERT_EQ(adv.tiles.size(), 1u);
  const Fix& best = adv.fixes[static_cast<size_t>(adv.tiles[0].ranked.front())];
  EXPECT_EQ(best.name, "Sw<5,0,5>");
  apply_advice(s, best, /*wait=*/true);
  EXPECT_EQ(s.draft.tiles[0].swizzle, (Swizzle{5, 0, 5}));
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->total_wavefronts(), s.analysis->total_ideal());
}

TEST(Advisor, AFixIsAppliedToTheScenarioItWasAskedAboutNotToLaterEdits) {
  AppState s;
  set_draft(s, column_read());
  start_advice(s);
  wait_for_advice(s.advisor);
  ASSERT_TRUE(s.advisor.advice);
  Scenario edited = column_read();
  edited.tiles[0].dims = {32, 16};  // the user edits after asking
  set_draft(s, edited);
  const Advice& adv = *s.advisor.advice;
  const Fix* pad1 = nullptr;
  for (const Fix& f : adv.fixes)
    if (f.name == "pad 1") pad1 = &f;
  ASSERT_TRUE(pad1);
  apply_advice(s, *pad1, true);
  EXPECT_EQ(s.draft.tiles[0].dims, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(s.draft.tiles[0].pad, 1);
}
