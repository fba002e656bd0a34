// The CPU evaluation the GPU's output is checked against, and the comparison itself.
#include <gtest/gtest.h>

#include <bit>

#include "../core/helpers.h"
#include "bankviz/analysis.h"
#include "bankviz/reference.h"
#include "helpers.h"
#include "types.h"

using namespace bankviz;
using bankviz::test::preset;

namespace {

Reference reference_of(const Scenario& s, ReferenceOptions o = {}) {
  ReferenceResult r = evaluate_reference(s, o);
  if (!r.ref) {
    ADD_FAILURE() << (r.errors.empty() ? "?" : r.errors[0].format());
    return {};
  }
  return *r.ref;
}

}  // namespace

TEST(Reference, ColumnReadReturnsTheTransposedThreadsIndex) {
  const Reference r = reference_of(preset("row-write-column-read"));
  ASSERT_EQ(r.out.size(), 1024u);
  // Thread (x, y) reads tile[x][y], which thread (y, x) stored: its index x * 32 + y.
  for (uint32_t y = 0; y < 32; ++y)
    for (uint32_t x = 0; x < 32; ++x) EXPECT_EQ(r.out[y * 32 + x], x * 32 + y);
  EXPECT_EQ(r.race_count, 0);
  EXPECT_EQ(r.step_instructions[0], 32);  // one store per warp
  EXPECT_EQ(r.step_instructions[2], 32);
}

TEST(Reference, MissingSyncThreadsIsARace) {
  const Reference r = reference_of(preset("histogram-missing-sync"));
  EXPECT_GT(r.race_count, 0);
  ASSERT_FALSE(r.races.empty());
  EXPECT_NE(r.races[0].find("missing __syncthreads()"), std::string::npos) << r.races[0];
}

TEST(Reference, HistogramCountsEveryThreadOnce) {
  ReferenceOptions o;
  o.grid = 2;
  const Reference r = reference_of(preset("histogram-shared-atomics"), o);
  EXPECT_EQ(r.race_count, 0);
  for (int64_t b = 0; b < 2; ++b) {
    uint64_t total = 0;
    for (int64_t t = 0; t < 256; ++t) total += r.out[static_cast<size_t>(b * 256 + t)];
    EXPECT_EQ(total, 256u);  // 256 atomicAdd(..., 1) per block, one bin read per thread
  }
}

TEST(Reference, ExposedRepeatsMultiplyTheLoadedSum) {
  ReferenceOptions o;
  o.measure = 2;
  o.reps = 7;
  const Reference r = reference_of(preset("row-write-column-read"), o);
  EXPECT_EQ(r.out[1], 7u * 32u);  // thread (1,0) loads tile[1][0] = 32, seven times
  EXPECT_EQ(r.step_instructions[2], 32 * 7);
  EXPECT_EQ(r.step_instructions[0], 32);
}

TEST(Reference, GuardedStepsCountOnlyWarpsWithAnActiveLane) {
  const Scenario s = preset("dot-product-reduction");
  const Reference r = reference_of(s);
  for (size_t i = 0; i < s.steps.size(); ++i) {
    if (s.steps[i].guard == "cacheIndex < 1") {
      EXPECT_EQ(r.step_instructions[i], 1) << i;
    }
    if (s.steps[i].guard == "cacheIndex < 128") {
      EXPECT_EQ(r.step_instructions[i], 4) << i;
    }
  }
}

TEST(Reference, StepWarpsNameTheLessonsWarpsWithAnActiveLane) {
  const Scenario s = preset("dot-product-reduction");
  const Reference r = reference_of(s);
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const std::string& g = s.steps[i].guard;
    if (!s.steps[i].is_memory()) continue;
    const uint32_t expect = g.empty()                 ? 0xFFu
                            : g == "cacheIndex < 128" ? 0xFu
                            : g == "cacheIndex < 64"  ? 0x3u
                                                      : 0x1u;
    EXPECT_EQ(r.step_warps[i], expect) << i << " " << g;
  }
}

TEST(Reference, OnlyTheMaskedWarpsRunAndAbsentWarpsStoresAreNotCompared) {
  // Exposed mode's launch of warp 0 alone of the dot product's 256-thread block: 32 outputs per
  // block; warp 0 reads cache[cacheIndex + 128] (stored by warp 4, absent): not compared.
  ReferenceOptions o;
  o.grid = 3;
  o.warps = 0x1;
  const Reference r = reference_of(preset("dot-product-reduction"), o);
  EXPECT_EQ(r.threads, 32);
  ASSERT_EQ(r.out.size(), 96u);
  ASSERT_EQ(r.lesson_thread.size(), 32u);
  EXPECT_EQ(r.lesson_thread[31], 31);
  EXPECT_EQ(r.determined[0], 0);
  // Row-write/column-read with warps 1 and 3: thread (x, 1) of warp 1 reads tile[x][1], which
  // thread (1, x) of warp x stored: determined only where warp x ran (x = 1 or 3).
  ReferenceOptions t;
  t.warps = 0xA;
  const Reference q = reference_of(preset("row-write-column-read"), t);
  ASSERT_EQ(q.threads, 64);
  EXPECT_EQ(q.lesson_thread[0], 32);
  EXPECT_EQ(q.lesson_thread[32], 96);
  for (int x = 0; x < 32; ++x) {
    const bool known = x == 1 || x == 3;
    EXPECT_EQ(q.determined[static_cast<size_t>(x)], known ? 1 : 0) << x;
    if (known) {
      EXPECT_EQ(q.out[static_cast<size_t>(x)], static_cast<uint32_t>(x * 32 + 1));
    }
  }
  EXPECT_EQ(q.step_instructions[2], 2);  // two warps ran the load
  ReferenceOptions bad;
  bad.warps = 1u << 31;  // a 32x32 block has warps 0-31: fine; a 256-thread block has 8
  EXPECT_FALSE(evaluate_reference(preset("dot-product-reduction"), bad).ref);
}

TEST(Reference, ReplicasRepeatTheLanesEachExpectingWhatOneCopyAloneComputes) {
  // Two copies of the Kepler filter's warp 0 (its halo step): 64 outputs per block, lane 32 + i
  // plays lesson thread i and expects what lane i expects.
  ReferenceOptions o;
  o.grid = 2;
  o.warps = 0x1;
  o.replicas = 2;
  const Reference k = reference_of(preset("kepler-filter-float"), o);
  ASSERT_EQ(k.threads, 64);
  ASSERT_EQ(k.out.size(), 128u);
  EXPECT_EQ(k.lesson_thread[32], 0);
  EXPECT_EQ(k.lesson_thread[63], 31);
  for (size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(k.out[i + 32], k.out[i]) << i;
    EXPECT_EQ(k.determined[i + 32], k.determined[i]) << i;
    EXPECT_EQ(k.out[64 + i], k.out[i]) << i;  // block 1 too
  }
}

TEST(Reference, ReplicasHaveTheirOwnTilesSoLoadThenStoreAndAtomicsMatchOneCopy) {
  // Each copy works on its own tiles (codegen.h): the dot product's warp 0 loads cache[i] and
  // then stores a new value to it, the histogram adds with atomicAdd; with shared tiles a second
  // copy would see the first's new values or adds, with its own it computes what one copy does.
  for (const char* name : {"dot-product-reduction", "histogram-shared-atomics"}) {
    ReferenceOptions one;
    one.warps = 0x1;
    const Reference a = reference_of(preset(name), one);
    ReferenceOptions two = one;
    two.replicas = 2;
    const Reference b = reference_of(preset(name), two);
    ASSERT_EQ(b.threads, 2 * a.threads) << name;
    EXPECT_EQ(b.race_count, a.race_count) << name;
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t i = 0; i < a.threads; ++i) {
        EXPECT_EQ(b.out[static_cast<size_t>(r * a.threads + i)], a.out[static_cast<size_t>(i)])
            << name << " copy " << r << " lane " << i;
        EXPECT_EQ(b.determined[static_cast<size_t>(r * a.threads + i)],
                  a.determined[static_cast<size_t>(i)])
            << name;
      }
  }
  ReferenceOptions bad;
  bad.replicas = 0;
  EXPECT_FALSE(evaluate_reference(preset("row-write-row-read"), bad).ref);
}

TEST(Reference, OutOfBoundsIsRefusedBeforeAnythingRuns) {
  Scenario s = preset("row-write-column-read");
  s.steps[2].index = "tile[threadIdx.x + 1][threadIdx.y]";
  ReferenceResult r = evaluate_reference(s, {});
  EXPECT_FALSE(r.ref);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].message.find("out of bounds"), std::string::npos);
}

TEST(Reference, ReadingUninitializedSharedMemoryIsNotCompared) {
  Scenario s = preset("row-write-column-read");
  s.steps.erase(s.steps.begin());  // no store: the load reads garbage
  const Reference r = reference_of(s);
  EXPECT_EQ(std::count(r.determined.begin(), r.determined.end(), 0), 1024);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("uninitialized"), std::string::npos);
}

TEST(Reference, BlockIndexedScenariosAreEvaluatedPerBlock) {
  Scenario s = preset("row-write-column-read");
  s.steps[0].value = "blockIdx.x * 1000";
  ReferenceOptions o;
  o.grid = 3;
  const Reference r = reference_of(s, o);
  EXPECT_EQ(r.out[0], 0u);
  EXPECT_EQ(r.out[1024], 1000u);
  EXPECT_EQ(r.out[2048], 2000u);
}

TEST(Conversions, IntegersRoundToNearestEvenLikeTheGpu) {
  const ElemType& f = *bankviz::find_elem_type("float");
  EXPECT_EQ(detail::component_bits(f, Value::of(CType::Int, 16777217)),
            std::bit_cast<uint32_t>(16777216.0f));
  const ElemType& h = *bankviz::find_elem_type("half");
  EXPECT_EQ(detail::component_bits(h, Value::of(CType::Int, 1)), 0x3C00u);
  EXPECT_EQ(detail::component_bits(h, Value::of(CType::Int, 2049)),
            0x6800u);  // 2049 -> 2048 (ties to even)
  EXPECT_EQ(detail::component_bits(h, Value::of(CType::Int, 2051)), 0x6802u);  // 2051 -> 2052
  EXPECT_EQ(detail::component_bits(h, Value::of(CType::Int, 70000)),
            0x7C00u);  // beyond 65504: infinity
  const ElemType& b = *bankviz::find_elem_type("__nv_bfloat16");
  EXPECT_EQ(detail::component_bits(b, Value::of(CType::Int, 1)), 0x3F80u);
  EXPECT_EQ(detail::component_bits(b, Value::of(CType::Int, 257)), 0x4380u);  // 257 -> 256
  const ElemType& c = *bankviz::find_elem_type("char");
  EXPECT_EQ(detail::component_checksum(c, detail::component_bits(c, Value::of(CType::Int, 255))),
            0xFFFFFFFFu);
}

TEST(Verify, MismatchNamesTheFirstDifferingThread) {
  const Scenario s = preset("row-write-column-read");
  const Reference r = reference_of(s);
  std::vector<uint32_t> got = r.out;
  got[33] ^= 1;  // thread (1, 1)
  const Verification v = verify_output(r, got, s.block);
  EXPECT_EQ(v.status, VerifyStatus::Mismatch);
  EXPECT_EQ(v.mismatches, 1);
  ASSERT_EQ(v.first.size(), 1u);
  EXPECT_EQ(v.first[0].x, 1);
  EXPECT_EQ(v.first[0].y, 1);
  EXPECT_NE(v.summary.find("thread (1,1,0)"), std::string::npos) << v.summary;
}

TEST(Verify, ARaceIsReportedAsARaceNotAMismatch) {
  const Scenario s = preset("histogram-missing-sync");
  const Reference r = reference_of(s);
  std::vector<uint32_t> got(r.out.size(), 12345u);  // whatever the timing gave
  for (size_t i = 0; i < got.size(); ++i)
    if (r.determined[i]) got[i] = r.out[i];
  const Verification v = verify_output(r, got, s.block);
  EXPECT_EQ(v.status, VerifyStatus::Race);
  EXPECT_GT(v.unchecked, 0);
}

TEST(Verify, MatchingOutputIsVerified) {
  const Scenario s = preset("matmul-tile32");
  const Reference r = reference_of(s);
  const Verification v = verify_output(r, r.out, s.block);
  EXPECT_EQ(v.status, VerifyStatus::Verified);
  EXPECT_EQ(v.checked, 1024);
}

TEST(Verify, RaceSummaryDoesNotRepeatTheStatusNameTheCliPrintsBeforeIt) {
  // The CLI prints "check: <status>: <summary>"; a summary starting with "race: " read
  // "race: race: ..." there.
  const Scenario s = preset("histogram-missing-sync");
  const Reference r = reference_of(s);
  const Verification v = verify_output(r, r.out, s.block);
  ASSERT_EQ(v.status, VerifyStatus::Race);
  const std::string line = std::string(verify_status_name(v.status)) + ": " + v.summary;
  EXPECT_EQ(line.find("race: race"), std::string::npos) << line;
  EXPECT_NE(v.summary.rfind("race", 0), 0u) << v.summary;
  // On its own (the desktop app shows the summary alone) it still says what happened.
  EXPECT_NE(v.summary.find("missing __syncthreads()"), std::string::npos) << v.summary;
  EXPECT_NE(v.summary.find("race"), std::string::npos) << v.summary;
}

namespace {

// The example on 64 threads: store tile[tx]; sync; load tile[(tx+32)%64]; store tile[tx].
// Each warp loads what the other warp then stores, with no barrier between: write after read.
Scenario write_after_read() {
  Scenario s = preset("row-write-row-read");
  s.block[0] = 64, s.block[1] = 1;
  s.tiles[0].dims = {64};
  s.lets.clear();
  s.steps = {test::step(StepKind::Store, "tile[threadIdx.x]"), test::step(StepKind::Sync),
             test::step(StepKind::Load, "tile[(threadIdx.x + 32) % 64]"),
             test::step(StepKind::Store, "tile[threadIdx.x]")};
  return s;
}

}  // namespace

TEST(Reference, ReportsExactlyTheRacesTheAnalysisReports) {
  // One hazard model: the CPU reference and analyze() count the same racing accesses, for the
  // racing preset and for the write-after-read and atomic-against-store examples.
  const Scenario war = write_after_read();
  Scenario atomic = war;
  atomic.steps[2] = test::step(StepKind::Atomic, "tile[0]");
  atomic.steps[3].index = "tile[0]";
  atomic.steps[3].guard = "threadIdx.x == 40";
  for (const Scenario& s : {preset("histogram-missing-sync"), war, atomic}) {
    SCOPED_TRACE(s.name);
    AnalysisResult a = analyze(s);
    ASSERT_TRUE(a.analysis);
    const Reference r = reference_of(s);
    EXPECT_GT(r.race_count, 0);
    EXPECT_EQ(r.race_count, a.analysis->hazards.racing_accesses);
    // Every racing pair the model names, in its words.
    ASSERT_EQ(r.races.size(), a.analysis->hazards.examples.size());
    for (size_t i = 0; i < r.races.size(); ++i)
      EXPECT_EQ(r.races[i], a.analysis->hazards.examples[i].message);
  }
  // The example: a read after write and a write after read, both named.
  Scenario both = war;
  both.steps = {test::step(StepKind::Store, "tile[threadIdx.x]"),
                test::step(StepKind::Load, "tile[(threadIdx.x + 32) % 64]"),
                test::step(StepKind::Store, "tile[threadIdx.x]")};
  const Reference r = reference_of(both);
  ASSERT_EQ(r.races.size(), 2u);
  EXPECT_NE(r.races[0].find("race: read after write"), std::string::npos) << r.races[0];
  EXPECT_NE(r.races[1].find("race: write after read"), std::string::npos) << r.races[1];
}

TEST(Reference, RacingLoadsAreNotCompared) {
  const Reference r = reference_of(write_after_read());
  for (size_t t = 0; t < 64; ++t) EXPECT_EQ(r.determined[t], 0) << t;  // each load may see either
}

TEST(Reference, SemanticsScenariosAreDeterminedUnlessTheyRace) {
  // tests/data/semantics: the scenarios kernels/tools/semantics_check.sh runs on the GPU. On the
  // CPU, every thread's result is determined (so the GPU run checks every thread) except in the
  // files named *race*, where the hazard model and the analysis find the same races.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(BANKVIZ_SOURCE_DIR) +
                                                           "/tests/data/semantics")) {
    ++files;
    SCOPED_TRACE(e.path().filename().string());
    ScenarioLoad l = load_scenario_file(e.path().string());
    ASSERT_TRUE(l.scenario) << l.errors[0].format();
    const Reference r = reference_of(*l.scenario);
    const bool races = e.path().stem().string().find("race") != std::string::npos;
    EXPECT_EQ(r.race_count > 0, races);
    EXPECT_EQ(r.race_count, analyze(*l.scenario).analysis->hazards.racing_accesses);
    if (!races) {
      for (size_t t = 0; t < r.determined.size(); ++t) EXPECT_EQ(r.determined[t], 1) << t;
    }
  }
  EXPECT_GE(files, 10);
}

// [SECTION] CuTe layouts

// A laid-out tile holds the same logical elements as the plain array: the CPU reference of a
// transpose through a column-major, padded or swizzled CuTe layout gives every thread the sums
// the row-major tile gives.
TEST(Reference, LaidOutTileLoadsWhatThePlainTileLoads) {
  const Scenario plain = preset("row-write-column-read");
  ReferenceResult want = evaluate_reference(plain, {});
  ASSERT_TRUE(want.ref);
  for (const char* layout : {"(32,32):(1,32)", "(32,32):(33,1)", "Sw<5,0,5> o (32,32):(32,1)",
                             "((8,4),(4,8)):((4,256),(1,32))"}) {
    SCOPED_TRACE(layout);
    Scenario s = plain;
    ASSERT_EQ(s.tiles[0].set_layout(layout), "");
    ReferenceResult got = evaluate_reference(s, {});
    ASSERT_TRUE(got.ref);
    EXPECT_EQ(got.ref->out, want.ref->out);
    EXPECT_EQ(got.ref->determined, want.ref->determined);
  }
}

// A broadcast layout maps two coordinates to one element: lanes of one warp storing different
// values to them leave an undefined winner, so what is read back is not compared.
TEST(Reference, BroadcastLayoutStoresToOneElementLeaveAnUndefinedWinner) {
  Scenario s = preset("row-write-column-read");
  ASSERT_EQ(s.tiles[0].set_layout("(32,32):(0,1)"), "");  // every row is the same 32 elements
  ReferenceResult r = evaluate_reference(s, {});
  ASSERT_TRUE(r.ref);
  EXPECT_FALSE(r.ref->notes.empty() && r.ref->race_count == 0);
  int64_t determined = 0;
  for (uint8_t d : r.ref->determined) determined += d;
  EXPECT_EQ(determined, 0);
}

// ldmatrix's fragments as the PTX ISA lays them out for .m8n8.b16: lane t holds row t/4,
// columns 2(t%4) and 2(t%4)+1 of each matrix; with .trans, rows 2(t%4) and 2(t%4)+1 of column
// t/4. An 8 x 8 tile holding r * 8 + c at [r][c] makes every lane's sum tell which it got.
TEST(Reference, LdmatrixGivesEveryLaneItsFragment) {
  for (bool trans : {false, true}) {
    Scenario s;
    s.tiles[0].elem = "unsigned short";
    s.tiles[0].dims = {8, 8};
    s.block[0] = 64;
    s.block[1] = 1;
    Step store;
    store.kind = StepKind::Store;
    store.index = "tile[threadIdx.x / 8][threadIdx.x % 8]";
    store.value = "threadIdx.x";
    Step sync;
    sync.kind = StepKind::Sync;
    Step ld;
    ASSERT_TRUE(parse_step_op(trans ? "ldmatrix.x1.trans" : "ldmatrix.x1", ld));
    ld.index = "tile[threadIdx.x % 8][0]";
    s.steps = {store, sync, ld};
    const Reference r = reference_of(s);
    ASSERT_EQ(r.out.size(), 64u);
    for (uint32_t t = 0; t < 64; ++t) {
      const uint32_t lane = t % 32;
      const uint32_t expect =
          trans ? (8 * (2 * (lane % 4)) + lane / 4) + (8 * (2 * (lane % 4) + 1) + lane / 4)
                : (8 * (lane / 4) + 2 * (lane % 4)) + (8 * (lane / 4) + 2 * (lane % 4) + 1);
      EXPECT_EQ(r.out[t], expect) << "trans " << trans << " thread " << t;
    }
    EXPECT_EQ(r.load_instructions, 2);
  }
}

// stmatrix puts register m's halves (value + 2m, value + 2m + 1) where ldmatrix would have read
// them: a later plain load of each element sees exactly that.
TEST(Reference, StmatrixStoresEachLanesHalvesWhereItsFragmentLies) {
  for (bool trans : {false, true}) {
    Scenario s;
    s.tiles[0].elem = "short";
    s.tiles[0].dims = {8, 8};
    s.block[0] = 32;
    s.block[1] = 1;
    Step st;
    ASSERT_TRUE(parse_step_op(trans ? "stmatrix.x1.trans" : "stmatrix.x1", st));
    st.index = "tile[threadIdx.x % 8][0]";
    st.value = "(int)threadIdx.x % 32 * 2 - 5";
    st.guard = "";
    Step sync;
    sync.kind = StepKind::Sync;
    Step load;
    load.kind = StepKind::Load;
    load.index = "tile[threadIdx.x / 8 + 4 * i][threadIdx.x % 8]";
    load.loop_var = "i";
    load.loop_to = 2;
    s.steps = {st, sync, load};
    const Reference r = reference_of(s);
    ASSERT_EQ(r.out.size(), 32u);
    // The value the fragment layout puts at [row][col]: which lane holds it, and which half.
    auto at = [&](int row, int col) {
      const int lane = trans ? col * 4 + row / 2 : row * 4 + col / 2;
      const int half = trans ? row % 2 : col % 2;
      return static_cast<uint32_t>(lane * 2 - 5 + half);  // a short, sign-extended when loaded
    };
    for (uint32_t t = 0; t < 32; ++t) {
      const int row = static_cast<int>(t / 8), col = static_cast<int>(t % 8);
      EXPECT_EQ(r.out[t], at(row, col) + at(row + 4, col)) << "trans " << trans << " thread " << t;
    }
  }
}

// cp.async of B bytes copies the thread's B bytes at byte t * B of the input, little-endian.
TEST(Reference, CpAsyncCopiesTheThreadsInputSlot) {
  Scenario s;
  s.tiles[0].elem = "unsigned int";
  s.tiles[0].dims = {32, 4};
  s.block[0] = 32;
  s.block[1] = 1;
  Step cp;
  ASSERT_TRUE(parse_step_op("cp.async.8", cp));
  cp.index = "tile[threadIdx.x][0]";
  Step sync;
  sync.kind = StepKind::Sync;
  Step load;
  load.kind = StepKind::Load;
  load.index = "tile[threadIdx.x][1]";
  s.steps = {cp, sync, load};
  const Reference r = reference_of(s);
  ASSERT_EQ(r.out.size(), 32u);
  for (int t = 0; t < 32; ++t)
    EXPECT_EQ(r.out[static_cast<size_t>(t)], input_word(2 * t + 1)) << t;  // 8 bytes: 2 words
  const std::vector<uint32_t> in = kernel_input(s);
  ASSERT_EQ(in.size(), 128u);
  EXPECT_EQ(in[4 * 7 + 2], input_word(30));
  s.steps = {load};
  EXPECT_TRUE(kernel_input(s).empty());
}

// Exposed mode's measured load of a signed char adds its bits as loaded (the kernel's
// ld_volatile_bits(): no sign extension, docs/COST.md); every other execution, and written mode,
// adds its value as C does.
TEST(Reference, ExposedMeasuredSignedCharAddsItsBitsOthersItsValue) {
  Scenario s;
  s.tiles[0].elem = "char";
  s.tiles[0].dims = {32};
  s.block[0] = 32;
  s.block[1] = 1;
  Step store;
  store.kind = StepKind::Store;
  store.index = "tile[threadIdx.x]";
  store.value = "0 - 1 - threadIdx.x";  // -1 .. -32: 0xff .. 0xe0
  Step sync;
  sync.kind = StepKind::Sync;
  Step load;
  load.kind = StepKind::Load;
  load.index = "tile[threadIdx.x]";
  s.steps = {store, sync, load, load};
  const Reference written = reference_of(s);
  ASSERT_EQ(written.out.size(), 32u);
  EXPECT_EQ(written.out[3], static_cast<uint32_t>(-8));  // -4 twice, sign-extended
  ReferenceOptions o;
  o.measure = 2;
  o.reps = 16;
  const Reference exposed = reference_of(s, o);
  EXPECT_EQ(exposed.out[3], 16u * 0xfcu + static_cast<uint32_t>(-4));
}
