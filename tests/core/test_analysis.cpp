// Scenario -> Analysis: warps in CUDA's linear order, guards, loops, out-of-bounds and race
// reports, evaluation errors with their field and column, and the cost of a full block.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "../test_support.h"
#include "bankviz/analysis.h"

using bankviz::test::analyzed;

using namespace bankviz;

namespace {

Scenario make(int64_t bx, int64_t by, std::vector<Step> steps,
              std::vector<int64_t> dims = {32, 32}) {
  Scenario s;
  s.block[0] = bx, s.block[1] = by, s.block[2] = 1;
  s.tiles[0].dims = std::move(dims);
  s.steps = std::move(steps);
  return s;
}

Step load_step(std::string index, std::string guard = "") {
  Step st;
  st.kind = StepKind::Load;
  st.index = std::move(index);
  st.guard = std::move(guard);
  return st;
}

Step store_step(std::string index, std::string guard = "") {
  Step st = load_step(std::move(index), std::move(guard));
  st.kind = StepKind::Store;
  return st;
}

Step barrier() {
  Step st;
  st.kind = StepKind::Sync;
  return st;
}

bool has_issue(const Analysis& a, const std::string& text) {
  return std::any_of(a.issues.begin(), a.issues.end(),
                     [&](const Issue& i) { return i.message.find(text) != std::string::npos; });
}

}  // namespace

TEST(Analysis, WarpsFollowCudaLinearThreadOrder) {
  // blockDim (16, 4): warp 0 is rows y=0 and y=1; lane 16 is thread (0,1,0).
  Analysis a = analyzed(make(16, 4, {load_step("tile[threadIdx.y][threadIdx.x]")}));
  ASSERT_EQ(a.warps.size(), 1u);
  ASSERT_EQ(a.warps[0].size(), 2u);
  EXPECT_EQ(a.warps[0][0].element[15], 15);
  EXPECT_EQ(a.warps[0][0].element[16], 32);  // tile[1][0]
  EXPECT_EQ(a.warps[0][1].element[0], 64);   // warp 1 starts at thread (0,2,0)
  EXPECT_EQ(a.warps[0][0].access.addr[16], 128u);
  EXPECT_EQ(a.warps[0][0].access.width, 4);
}

TEST(Analysis, ThreeDimensionalBlocksNumberZSlowest) {
  Scenario s = make(4, 4, {load_step("tile[threadIdx.z][threadIdx.y][threadIdx.x]")}, {4, 4, 4});
  s.block[2] = 4;
  Analysis a = analyzed(s);
  ASSERT_EQ(a.warps[0].size(), 2u);
  EXPECT_EQ(a.warps[0][0].element[31], 31);  // thread (3,3,1)
  EXPECT_EQ(a.warps[0][1].element[0], 32);   // thread (0,0,2)
}

TEST(Analysis, AddressesFollowTheTileDeclaration) {
  // A padded, swizzled, offset 3-D tile: every lane's element and address must be what
  // TileDecl::linear and TileDecl::byte_offset say.
  Scenario s = make(8, 4, {load_step("tile[threadIdx.z][(threadIdx.y * 3) % 4][threadIdx.x ^ 5]")},
                    {2, 4, 8});
  s.block[2] = 2;
  s.tiles[0].elem = "double";
  s.tiles[0].pad = 3;
  s.tiles[0].base = 256;
  s.tiles[0].swizzle = {2, 0, 3};
  Analysis a = analyzed(s);
  const TileDecl& t = a.scenario.tiles[0];
  for (const WarpStep& ws : a.warps[0]) {
    for (int lane = 0; lane < 32; ++lane) {
      const int64_t tid = ws.warp * 32 + lane;
      const int64_t x = tid % 8, y = (tid / 8) % 4, z = tid / 32;
      const std::optional<int64_t> e = t.linear({z, (y * 3) % 4, x ^ 5});
      ASSERT_TRUE(e);
      EXPECT_EQ(ws.element[lane], *e);
      EXPECT_EQ(ws.access.addr[lane], static_cast<uint32_t>(t.byte_offset(*e)));
    }
    EXPECT_EQ(ws.access.width, 8);
  }
}

TEST(Analysis, PartialLastWarpLeavesMissingLanesInactive) {
  Analysis a = analyzed(make(40, 1, {load_step("tile[0][threadIdx.x]")}, {1, 64}));
  ASSERT_EQ(a.warps[0].size(), 2u);
  EXPECT_EQ(a.warps[0][0].access.mask, 0xFFFFFFFFu);
  EXPECT_EQ(a.warps[0][1].access.mask, 0xFFu);
  EXPECT_EQ(a.warps[0][1].element[8], -1);
  EXPECT_EQ(a.warps[0][1].result.wavefronts, 1);
}

TEST(Analysis, GuardTurnsLanesOff) {
  Analysis a = analyzed(make(32, 1, {load_step("tile[threadIdx.x][0]", "threadIdx.x < 4")}));
  EXPECT_EQ(a.warps[0][0].access.mask, 0xFu);
  EXPECT_EQ(a.warps[0][0].result.wavefronts, 4);  // 4 rows of one column: bank 0 four times
  Analysis none = analyzed(make(32, 1, {load_step("tile[0][threadIdx.x]", "threadIdx.x > 99")}));
  EXPECT_EQ(none.warps[0][0].access.mask, 0u);
  EXPECT_EQ(none.warps[0][0].result.wavefronts, 0);
}

TEST(Analysis, ColumnReadOfSquareTileIs32WayAndPaddingFixesIt) {
  Scenario s = make(32, 32, {load_step("tile[threadIdx.x][threadIdx.y]")});
  Analysis a = analyzed(s);
  EXPECT_EQ(a.step_wavefronts(0), 32 * 32);
  EXPECT_EQ(a.step_ideal(0), 32);
  EXPECT_EQ(a.warps[0][5].result.degree(), 32);
  s.tiles[0].pad = 1;
  Analysis p = analyzed(s);
  EXPECT_EQ(p.step_wavefronts(0), 32);
  EXPECT_EQ(p.total_wavefronts(), 32);
  EXPECT_EQ(p.total_ideal(), 32);
}

TEST(Analysis, LetsAndConstantsAreEvaluatedPerThreadInOrder) {
  Scenario s = make(32, 1, {load_step("tile[c]")}, {1024});
  s.constants = {{"W", 33}};
  s.lets = {{"r", "threadIdx.x * W"}, {"c", "r + 1"}};
  Analysis a = analyzed(s);
  EXPECT_EQ(a.warps[0][0].element[2], 67);
  EXPECT_EQ(a.warps[0][0].result.wavefronts, 1);  // stride 33: every bank once
}

TEST(Analysis, LoopsUnrollIntoLabelledSteps) {
  Step st = load_step("tile[0][threadIdx.x + i]");
  st.loop_var = "i", st.loop_from = 6, st.loop_to = 0, st.loop_step = -2;  // 6 4 2
  Analysis a = analyzed(make(32, 1, {st}, {1, 64}));
  ASSERT_EQ(a.steps.size(), 3u);
  EXPECT_EQ(a.steps[1].iteration, 4);
  EXPECT_EQ(a.steps[1].step, 0);
  EXPECT_EQ(a.steps[1].label, "load tile[0][threadIdx.x + i] (i=4)");
  EXPECT_EQ(a.warps[1][0].element[0], 4);
}

TEST(Analysis, SyncStepsAreRecordedWithoutAccess) {
  Analysis a = analyzed(make(
      64, 1, {store_step("tile[0][threadIdx.x]"), barrier(), load_step("tile[0][threadIdx.x]")},
      {1, 64}));
  ASSERT_EQ(a.steps.size(), 3u);
  EXPECT_EQ(a.steps[1].kind, StepKind::Sync);
  EXPECT_EQ(a.steps[1].tile, -1);
  EXPECT_EQ(a.steps[1].label, "__syncthreads()");
  ASSERT_EQ(a.warps[1].size(), 2u);
  EXPECT_EQ(a.warps[1][0].access.mask, 0u);
  EXPECT_EQ(a.step_wavefronts(1), 0);
  EXPECT_TRUE(a.issues.empty());
}

TEST(Analysis, AtomicsTakeOnePassPerLaneWhereStoresShareAWord) {
  // Rows 0-3 of column 0: four words of bank 0, eight lanes on each. A store needs one pass per
  // word (4); an atomicAdd one per lane (32), as measured on Hopper.
  Step at = store_step("tile[threadIdx.x % 4][0]");
  at.kind = StepKind::Atomic;
  Analysis a = analyzed(make(32, 1, {at, store_step("tile[threadIdx.x % 4][0]")}));
  EXPECT_EQ(a.warps[0][0].result.wavefronts, 32);
  EXPECT_EQ(a.warps[1][0].result.wavefronts, 4);
  EXPECT_EQ(a.warps[0][0].result.ideal, 1);
  EXPECT_TRUE(a.issues.empty());
}

TEST(Analysis, ArchOverrideChangesTheBanks) {
  Scenario s = make(32, 1, {load_step("tile[threadIdx.x]")}, {64});
  s.tiles[0].elem = "double";
  const Analysis hopper = analyzed(s);
  const Analysis kepler8 = analyzed(s, find_arch("kepler8"));
  EXPECT_EQ(hopper.warps[0][0].result.wavefronts, 2);   // two half-warps of 4-byte banks
  EXPECT_EQ(kepler8.warps[0][0].result.wavefronts, 1);  // 8-byte banks take all 32 doubles
  EXPECT_EQ(kepler8.arch->id, "kepler8");
}

TEST(Analysis, OutOfBoundsIsReportedAndNotModelled) {
  Analysis a = analyzed(make(32, 2, {load_step("tile[threadIdx.y][threadIdx.x + 1]")}, {2, 32}));
  // Lane 31 of each row asks for column 32 of a 32-wide tile.
  EXPECT_EQ(a.warps[0][0].access.mask, 0x7FFFFFFFu);
  EXPECT_EQ(a.warps[0][0].element[31], -1);
  ASSERT_EQ(a.issues.size(), 2u);
  EXPECT_EQ(a.issues[0].warp, 0);
  EXPECT_EQ(a.issues[0].lane, 31);
  EXPECT_EQ(a.issues[0].message,
            "step 0 (load tile[threadIdx.y][threadIdx.x + 1]): thread (31,0,0): tile[0][32] is out "
            "of bounds: subscript 2 is 32, outside [0,32)");
  EXPECT_NE(a.issues[1].message.find("thread (31,1,0)"), std::string::npos);
}

TEST(Analysis, WritingIntoPaddingIsInBounds) {
  Scenario s = make(32, 1, {store_step("tile[threadIdx.x][32]")});
  s.tiles[0].pad = 1;
  Analysis a = analyzed(s);
  EXPECT_TRUE(a.issues.empty());
  EXPECT_EQ(a.warps[0][0].access.mask, 0xFFFFFFFFu);
}

TEST(Analysis, ManyOutOfBoundsLanesAreSummarised) {
  Analysis a = analyzed(make(64, 1, {load_step("tile[threadIdx.x + 100]")}, {64}));
  ASSERT_EQ(a.issues.size(), 9u);
  EXPECT_NE(a.issues.back().message.find("56 more out-of-bounds accesses"), std::string::npos);
}

TEST(Analysis, LoadOfAnotherWarpsStoreWithoutSyncIsARace) {
  // Thread t stores element t, then reads element 63 - t: warp 0 reads what warp 1 wrote.
  std::vector<Step> steps = {store_step("tile[threadIdx.x]"), load_step("tile[63 - threadIdx.x]")};
  Analysis a = analyzed(make(64, 1, steps, {64}));
  ASSERT_EQ(a.issues.size(), 1u);
  EXPECT_EQ(a.issues[0].step, 1);
  EXPECT_EQ(a.issues[0].warp, 0);
  EXPECT_NE(a.issues[0].message.find("race: read after write"), std::string::npos);
  EXPECT_NE(a.issues[0].message.find("of warp 1 writes tile[63] in step 0"), std::string::npos)
      << a.issues[0].message;
  EXPECT_NE(a.issues[0].message.find("of warp 0 reads tile[63] in step 1"), std::string::npos);
  EXPECT_NE(a.issues[0].message.find("missing __syncthreads()"), std::string::npos);
  EXPECT_NE(a.issues[0].message.find("(64 racing lanes like this)"), std::string::npos);
  EXPECT_EQ(a.hazards.count(HazardKind::ReadAfterWrite), 64);

  steps.insert(steps.begin() + 1, barrier());
  EXPECT_TRUE(analyzed(make(64, 1, steps, {64})).issues.empty());
}

TEST(Analysis, ReadingYourOwnWarpsStoreIsNotARace) {
  // Reverse within each warp: lanes exchange data, but only inside one warp.
  Analysis a = analyzed(make(64, 1,
                             {store_step("tile[threadIdx.x]"),
                              load_step("tile[(threadIdx.x / 32) * 32 + 31 - threadIdx.x % 32]")},
                             {64}));
  EXPECT_FALSE(has_issue(a, "race"));
}

TEST(Analysis, AtomicThenUnsyncedReadIsARace) {
  Step at = store_step("tile[(threadIdx.x * 7) % 64]");
  at.kind = StepKind::Atomic;
  Analysis a = analyzed(make(64, 1, {at, load_step("tile[threadIdx.x]")}, {64}));
  EXPECT_TRUE(has_issue(a, "missing __syncthreads()"));
}

TEST(Analysis, EvaluationErrorsNameFieldColumnAndThread) {
  AnalysisResult r = analyze(make(32, 1, {load_step("tile[0][32 / (threadIdx.x - 3)]")}));
  ASSERT_FALSE(r.analysis);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].path, "steps[0].index");
  EXPECT_EQ(r.errors[0].column, 12);  // the '/'
  EXPECT_EQ(r.errors[0].message, "thread (3,0,0): division by zero");

  Scenario s = make(32, 1, {load_step("tile[0][x]")});
  s.lets = {{"x", "y + 1"}, {"y", "1"}};  // a let may only use earlier ones
  r = analyze(s);
  ASSERT_FALSE(r.analysis);
  EXPECT_EQ(r.errors[0].path, "lets[0].expr");
  EXPECT_EQ(r.errors[0].column, 1);
  EXPECT_NE(r.errors[0].message.find("unknown name 'y'"), std::string::npos);

  Step st = load_step("tile[0][threadIdx.x]", "10 % (i - 2) == 0");
  st.loop_var = "i", st.loop_to = 4;
  r = analyze(make(32, 1, {st}));
  ASSERT_FALSE(r.analysis);
  EXPECT_EQ(r.errors[0].path, "steps[0].guard");
  EXPECT_EQ(r.errors[0].message, "thread (0,0,0), i=2: modulo by zero");
}

TEST(Analysis, CheckErrorsStopTheAnalysis) {
  AnalysisResult r = analyze(make(32, 1, {load_step("tile[")}));
  EXPECT_FALSE(r.analysis);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0].path, "steps[0].index");
}

TEST(Analysis, WorstStepIsTheMostConflictedMemoryStep) {
  Scenario s = make(
      32, 32,
      {store_step("tile[threadIdx.y][threadIdx.x]"), barrier(),
       load_step("tile[threadIdx.y][threadIdx.x]"), load_step("tile[threadIdx.x][threadIdx.y]")});
  EXPECT_EQ(analyzed(s).worst_step(), 3);
  s.tiles[0].pad = 1;  // every step conflict-free: the first memory step
  EXPECT_EQ(analyzed(s).worst_step(), 0);
  EXPECT_EQ(Analysis{}.worst_step(), -1);
}

// [SECTION] The compiler's instruction for an atomic step (compiled_op) =========================

namespace {

Step atomic_add(std::string index, std::string value) {
  Step st;
  st.kind = StepKind::Atomic;
  st.index = std::move(index);
  st.value = std::move(value);
  return st;
}

}  // namespace

TEST(Analysis, AddingTheConstantOneIsAtomsPopcIncOnHopperOnly) {
  // All 32 lanes add 1 to one counter: ATOMS.POPC.INC adds 32 in one request (1 wavefront),
  // where adding each lane's own value (ATOMS.ADD) takes a pass per lane (32).
  Scenario s = make(32, 1, {atomic_add("tile[0][0]", "1")});
  const Arch& hopper = *find_arch("hopper");
  EXPECT_EQ(compiled_op(s, 0, hopper).op, Op::AtomicInc);
  EXPECT_EQ(analyzed(s, &hopper).step_wavefronts(0), 1);
  for (const char* v : {" 1 ", "1u", "1U"}) {
    s.steps[0].value = v;
    EXPECT_EQ(compiled_op(s, 0, hopper).op, Op::AtomicInc) << v;
  }
  s.tiles[0].elem = "unsigned int";
  EXPECT_EQ(compiled_op(s, 0, hopper).op, Op::AtomicInc);
  // Other values, element types and architectures: ATOMS.ADD's rule.
  for (const char* v : {"2", "threadIdx.x", "-1", "11", "threadIdx.x - threadIdx.x + 1"}) {
    s.steps[0].value = v;
    EXPECT_EQ(compiled_op(s, 0, hopper).op, Op::Atomic) << v;
  }
  s.steps[0].value = "threadIdx.x";
  EXPECT_EQ(analyzed(s, &hopper).step_wavefronts(0), 32);
  s.steps[0].value = "1";
  for (const char* e : {"float", "long long", "unsigned long long"}) {
    s.tiles[0].elem = e;
    EXPECT_EQ(compiled_op(s, 0, hopper).op, Op::Atomic) << e;
  }
  s.tiles[0].elem = "int";
  EXPECT_EQ(compiled_op(s, 0, *find_arch("maxwell")).op, Op::Atomic);
  EXPECT_EQ(analyzed(s, find_arch("maxwell")).step_wavefronts(0), 32);
}

TEST(Analysis, AnAtomicsValueIsFoldedAsTheCompilerFoldsIt) {
  // The compiler sees the constant 1 however it is spelled (issue 30: "(1)", "2 - 1", "0x1",
  // "(int)1", "1ll" measured 2 wavefronts on an H200 where ATOMS.ADD's rule gave 16).
  Scenario s = make(32, 1, {atomic_add("tile[0][0]", "1")});
  s.constants.push_back({"ONE", 1});
  s.constants.push_back({"TWO", 2});
  s.lets.push_back({"one", "TWO - ONE"});
  s.lets.push_back({"mine", "threadIdx.x / 64 + 1"});  // 1 for every lane, but a thread's value
  const Arch& hopper = *find_arch("hopper");
  for (const char* v : {"(1)", "2 - 1", "0x1", "(int)1", "1ll", "1 + 0", "ONE", "TWO - 1", "one",
                        "(unsigned char)257", "4294967297ll", "TWO > ONE", "0b1"}) {
    s.steps[0].value = v;
    EXPECT_EQ(compiled_op(s, 0, hopper).op, Op::AtomicInc) << v;
    EXPECT_EQ(analyzed(s, &hopper).step_wavefronts(0), 1) << v;
  }
  for (const char* v : {"(2)", "TWO", "mine", "one + threadIdx.x", "blockDim.x / blockDim.x",
                        "1 / 0", "ONE << 32", "nothing"}) {
    s.steps[0].value = v;
    EXPECT_EQ(compiled_op(s, 0, hopper).op, Op::Atomic) << v;
  }
}

TEST(Analysis, AtomicIncrementsOfDistinctWordsInOneBankStillConflict) {
  // Lanes alternate between tile[0][0] and tile[1][0]: two words of bank 0. Merged per word,
  // that is 2 passes; each lane alone would be 32.
  Scenario s = make(32, 1, {atomic_add("tile[threadIdx.x % 2][0]", "1")});
  const Arch& hopper = *find_arch("hopper");
  const Analysis a = analyzed(s, &hopper);
  EXPECT_EQ(a.step_wavefronts(0), 2);
  EXPECT_EQ(a.step_op(0).op, Op::AtomicInc);
  EXPECT_EQ(serve(hopper, Op::Atomic, a.warps[0][0].access).wavefronts, 32);
}

TEST(ServeMemo, EveryPresetsStepsServedWithAMemoAreTheStepsServedWithout) {
  // One memo across every preset and three archs: an access met again (in this preset or
  // another) gives the figures serving it gives, and a memo of another arch is not read.
  ServeMemo memo;
  size_t steps = 0, warps = 0;
  const std::string dir = std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets";
  for (const char* arch_id : {"hopper", "kepler8", "cc1x"}) {
    const Arch* arch = find_arch(arch_id);
    ASSERT_NE(arch, nullptr);
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".json") continue;
      const ScenarioLoad l = load_scenario_file(e.path().string());
      ASSERT_TRUE(l.scenario) << e.path();
      const TraceResult t = trace(*l.scenario);
      ASSERT_TRUE(t.trace) << e.path();
      for (int pass = 0; pass < 2; ++pass) {  // the second pass: every access met again
        for (const TraceStep& ts : t.trace->steps) {
          const StepFigures with = serve_step(*l.scenario, *arch, ts, &memo);
          const StepFigures without = serve_step(*l.scenario, *arch, ts);
          EXPECT_EQ(with.wavefronts, without.wavefronts) << e.path() << " " << ts.info.label;
          EXPECT_EQ(with.ideal, without.ideal) << e.path() << " " << ts.info.label;
          EXPECT_EQ(with.instructions, without.instructions) << e.path() << " " << ts.info.label;
          ++steps, warps += ts.warps.size();
        }
      }
    }
  }
  EXPECT_GT(steps, 500u);
  // It kept what it served (the last arch's accesses), fewer than it was asked.
  EXPECT_GT(memo.size(), 0u);
  EXPECT_LT(memo.size(), warps / 6);  // one arch, one pass: fewer distinct than served
}
