// ldmatrix, stmatrix and cp.async as scenario steps: JSON, checks, the trace's address lanes and
// alignment, the bank model through analyze(), and races over whole rows.
#include <gtest/gtest.h>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"
#include "bankviz/text.h"
#include "bankviz/trace.h"
#include "helpers.h"

using namespace bankviz;
using bankviz::test::step;

namespace {

// A 16 x 64 half tile (128-byte rows), one warp unless told.
Scenario half_tile(std::vector<Step> steps, int64_t threads = 32) {
  Scenario s;
  s.tiles[0].elem = "half";
  s.tiles[0].dims = {16, 64};
  s.block[0] = threads;
  s.block[1] = 1;
  s.steps = std::move(steps);
  return s;
}

Step op(const char* kind, std::string index) {
  Step st;
  EXPECT_TRUE(parse_step_op(kind, st)) << kind;
  st.index = std::move(index);
  return st;
}

bool mentions(const std::vector<Diagnostic>& errors, const std::string& path,
              const std::string& words) {
  for (const Diagnostic& d : errors)
    if (d.path == path && d.message.find(words) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(MatrixSteps, KindsParseAsPtxNamesThemAndRoundTripThroughJson) {
  Step st;
  ASSERT_TRUE(parse_step_op("ldmatrix.x2.trans", st));
  EXPECT_EQ(st.kind, StepKind::LdMatrix);
  EXPECT_EQ(st.matrices, 2);
  EXPECT_TRUE(st.trans);
  ASSERT_TRUE(parse_step_op("cp.async.8", st));
  EXPECT_EQ(st.kind, StepKind::CpAsync);
  EXPECT_EQ(st.copy_bytes, 8);
  EXPECT_FALSE(parse_step_op("ldmatrix.x3", st));
  EXPECT_FALSE(parse_step_op("cp.async.32", st));

  Scenario s = half_tile({op("stmatrix.x4.trans", "tile[threadIdx.x % 16][threadIdx.x / 16 * 8]"),
                          op("cp.async.16", "tile[threadIdx.x][0]")});
  s.steps[0].value = "threadIdx.x";
  const std::string json = scenario_to_json(s);
  EXPECT_NE(json.find("\"stmatrix.x4.trans\""), std::string::npos);
  EXPECT_NE(json.find("\"cp.async.16\""), std::string::npos);
  ScenarioLoad back = scenario_from_json(json);
  ASSERT_TRUE(back.scenario) << back.errors[0].format();
  EXPECT_EQ(back.scenario->steps[0].kind, StepKind::StMatrix);
  EXPECT_EQ(back.scenario->steps[0].matrices, 4);
  EXPECT_TRUE(back.scenario->steps[0].trans);
  EXPECT_EQ(back.scenario->steps[1].copy_bytes, 16);
  EXPECT_EQ(scenario_to_json(*back.scenario), json);
}

TEST(MatrixSteps, UnknownKindNamesTheInstructionsItAccepts) {
  ScenarioLoad l =
      scenario_from_json(R"({"steps": [{"kind": "ldmatrix.x8", "index": "tile[0][0]"}]})");
  ASSERT_FALSE(l.scenario);
  EXPECT_TRUE(mentions(l.errors, "steps[0].kind", "ldmatrix.x1|x2|x4[.trans]"));
}

TEST(MatrixSteps, ChecksSayWhatTheInstructionsRequire) {
  Scenario s = half_tile({op("ldmatrix.x4", "tile[threadIdx.x % 16][0]")});
  EXPECT_TRUE(check(s).empty());

  Scenario wide = s;
  wide.tiles[0].elem = "int";
  EXPECT_TRUE(mentions(check(wide), "steps[0].tile", "16-bit elements"));

  Scenario guarded = s;
  guarded.steps[0].guard = "threadIdx.x < 16";
  EXPECT_TRUE(mentions(check(guarded), "steps[0].guard", ".sync.aligned"));

  Scenario valued = s;
  valued.steps[0].value = "1";
  EXPECT_TRUE(mentions(check(valued), "steps[0].value", "no stored value"));

  Scenario partial = s;
  partial.block[0] = 48;
  EXPECT_TRUE(mentions(check(partial), "steps[0].kind", "not a multiple of 32"));

  Scenario kepler = s;
  kepler.arch = "kepler4";
  EXPECT_TRUE(mentions(check(kepler), "arch", "hopper only"));

  Scenario copy = half_tile({op("cp.async.4", "tile[0][threadIdx.x * 2]")});
  EXPECT_TRUE(check(copy).empty());
  copy.steps[0].value = "threadIdx.x";
  EXPECT_TRUE(mentions(check(copy), "steps[0].value", "copies from global memory"));
  Scenario doubles = half_tile({op("cp.async.4", "tile[0][threadIdx.x]")});
  doubles.tiles[0].elem = "double";
  EXPECT_TRUE(mentions(check(doubles), "steps[0].kind", "less than one element"));
}

TEST(MatrixSteps, OnlyTheAddressLanesOfEachMatrixAccessMemory) {
  for (int n : {1, 2, 4}) {
    const std::string kind = "ldmatrix.x" + std::to_string(n);
    TraceResult t = trace(half_tile({op(kind.c_str(), "tile[threadIdx.x % 16][0]")}));
    ASSERT_TRUE(t.trace) << t.errors[0].format();
    const WarpTrace& w = t.trace->steps[0].warps[0];
    EXPECT_EQ(w.mask, n == 4 ? 0xFFFFFFFFu : (1u << (8 * n)) - 1u) << kind;
    EXPECT_EQ(w.element[8 * n - 1], ((8 * n - 1) % 16) * 64) << kind;
    if (n < 4) {
      EXPECT_EQ(w.element[8 * n], -1) << kind;
    }
  }
}

TEST(MatrixSteps, AMisalignedRowIsAnErrorNamingTheThread) {
  TraceResult t = trace(half_tile({op("ldmatrix.x1", "tile[threadIdx.x % 8][4]")}));
  ASSERT_FALSE(t.trace);
  EXPECT_EQ(t.errors[0].path, "steps[0].index");
  EXPECT_NE(t.errors[0].message.find("not 16-byte aligned"), std::string::npos)
      << t.errors[0].message;
  EXPECT_NE(t.errors[0].message.find("thread (0,0,0)"), std::string::npos);
}

TEST(MatrixSteps, ARowPastTheTileIsOutOfBoundsNotModelled) {
  // tile[14][58] is in bounds and 16-byte aligned (element 912 of 915), but its 16 bytes are not.
  Scenario s = half_tile({op("cp.async.16", "tile[14][58]")});
  s.tiles[0].dims = {15, 61};
  AnalysisResult a = analyze(s);
  ASSERT_TRUE(a.analysis);
  EXPECT_EQ(a.analysis->out_of_bounds, 32);
  ASSERT_FALSE(a.analysis->issues.empty());
  EXPECT_NE(a.analysis->issues[0].message.find("run past the end"), std::string::npos);
}

TEST(MatrixSteps, RowMajorFragmentLoadConflictsAndTheSwizzleRemovesIt) {
  // The 8 rows of each matrix start 128 bytes apart: all in banks 0-3 (8 wavefronts a matrix).
  Scenario s = half_tile({op("ldmatrix.x4", "tile[threadIdx.x % 16][threadIdx.x / 16 * 8]")});
  AnalysisResult a = analyze(s);
  ASSERT_TRUE(a.analysis);
  EXPECT_EQ(a.analysis->step_wavefronts(0), 32);
  EXPECT_EQ(a.analysis->step_ideal(0), 4);
  EXPECT_EQ(verdict(a.analysis->warps[0][0].result, a.analysis->step_op(0)),
            "ldmatrix.x4: 8-way bank conflict: 32 wavefronts where 4 would do");
  s.tiles[0].swizzle = {3, 3, 3};
  a = analyze(s);
  ASSERT_TRUE(a.analysis);
  EXPECT_EQ(a.analysis->step_wavefronts(0), 4);
}

TEST(MatrixSteps, ARowAnotherWarpStoresWithoutABarrierIsARace) {
  // Warp 1 stores into row 9, warp 0's ldmatrix.x2 reads rows 0-15: a race over the row, found
  // even though the element warp 0 names (tile[9][0]) is not the one warp 1 stores (tile[9][3]).
  Step store = step(StepKind::Store, "tile[9][3]");
  store.guard = "threadIdx.x == 32";
  Scenario s = half_tile({store, op("ldmatrix.x2", "tile[threadIdx.x % 16][0]")}, 64);
  AnalysisResult a = analyze(s);
  ASSERT_TRUE(a.analysis);
  // Warp 0's lane 9 gives row 9 (warp 1 reads its own store: no race).
  EXPECT_EQ(a.analysis->hazards.count(HazardKind::ReadAfterWrite), 1);
  ASSERT_FALSE(a.analysis->hazards.examples.empty());
  EXPECT_NE(a.analysis->hazards.examples[0].message.find("reads the 16 bytes at tile[9][0]"),
            std::string::npos)
      << a.analysis->hazards.examples[0].message;
  s.steps.insert(s.steps.begin() + 1, step(StepKind::Sync));
  a = analyze(s);
  ASSERT_TRUE(a.analysis);
  EXPECT_EQ(a.analysis->hazards.racing_accesses, 0);
}
