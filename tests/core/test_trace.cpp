// The one per-thread trace and the one hazard model: what each lane touches, with CUDA C's
// meaning, and which accesses race.
//
// [SECTION] Helpers
// [SECTION] C semantics in the trace (the issue's examples)
// [SECTION] Loops and limits
// [SECTION] Hazards

#include <gtest/gtest.h>

#include <filesystem>

#include "bankviz/analysis.h"
#include "bankviz/hazard.h"
#include "bankviz/trace.h"
#include "helpers.h"

using namespace bankviz;
using bankviz::test::step;

// [SECTION] Helpers ==============================================================================

namespace {

Scenario trace_scenario(int64_t threads, int64_t elements, std::vector<Step> steps) {
  Scenario s;
  s.tiles[0].dims = {elements};
  s.block[0] = threads, s.block[1] = 1, s.block[2] = 1;
  s.steps = std::move(steps);
  return s;
}

Step guarded(StepKind kind, std::string index, std::string guard) {
  Step st = step(kind, std::move(index));
  st.guard = std::move(guard);
  return st;
}

Trace trace_of(const Scenario& s) {
  TraceResult r = trace(s);
  if (!r.trace) {
    ADD_FAILURE() << r.errors[0].format();
    return {};
  }
  return *r.trace;
}

std::string trace_error(const Scenario& s) {
  TraceResult r = trace(s);
  EXPECT_FALSE(r.trace);
  return r.errors.empty() ? std::string() : r.errors[0].format();
}

}  // namespace

// [SECTION] C semantics in the trace =============================================================

TEST(Trace, UnsignedThreadIdxWrapsAsInCuda) {
  // threadIdx.x is unsigned int: for thread 0, threadIdx.x - 1 is 4294967295, and % 32 gives 31.
  Trace t =
      trace_of(trace_scenario(32, 32, {step(StepKind::Store, "tile[(threadIdx.x - 1) % 32]")}));
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.out_of_bounds, 0);
  EXPECT_EQ(t.steps[0].warps[0].mask, 0xFFFFFFFFu);
  EXPECT_EQ(t.steps[0].warps[0].element[0], 31);
  EXPECT_EQ(t.steps[0].warps[0].element[5], 4);
}

TEST(Trace, SignedCastMakesTheSameIndexOutOfBounds) {
  Trace t = trace_of(
      trace_scenario(32, 32, {step(StepKind::Store, "tile[((int)threadIdx.x - 1) % 32]")}));
  EXPECT_EQ(t.out_of_bounds, 1);  // lane 0: -1 % 32 == -1 in C
  EXPECT_EQ(t.steps[0].warps[0].mask, 0xFFFFFFFEu);
  ASSERT_FALSE(t.issues.empty());
  EXPECT_NE(t.issues[0].message.find("tile[-1]"), std::string::npos) << t.issues[0].message;
}

TEST(Trace, GuardComparesUnsignedAsTheGpuDoes) {
  // threadIdx.x - 16 wraps for lanes 0-15, so only lanes 16-23 pass `< 8`.
  Trace t = trace_of(trace_scenario(
      32, 32, {guarded(StepKind::Store, "tile[threadIdx.x]", "threadIdx.x - 16 < 8")}));
  EXPECT_EQ(t.steps[0].warps[0].mask, 0x00FF0000u);
  Trace s = trace_of(trace_scenario(
      32, 32, {guarded(StepKind::Store, "tile[threadIdx.x]", "(int)threadIdx.x - 16 < 8")}));
  EXPECT_EQ(s.steps[0].warps[0].mask, 0x00FFFFFFu);
}

TEST(Trace, LetsTakeTheirDeclaredType) {
  Scenario s = trace_scenario(32, 32, {step(StepKind::Store, "tile[row + 1]")});
  s.lets.push_back({"row", "threadIdx.x - 1", "int"});
  Trace t = trace_of(s);
  EXPECT_EQ(t.steps[0].warps[0].element[0], 0);  // int row = -1 for thread 0
  EXPECT_EQ(let_types(s), std::vector<CType>{CType::Int});
  s.lets[0].type.clear();  // the expression's type: unsigned int, wrapping back to 0
  EXPECT_EQ(let_types(s), std::vector<CType>{CType::UInt});
  s.lets.push_back({"late", "nowhere + 1"});  // does not bind: the list stops before it
  s.lets.push_back({"after", "row"});
  EXPECT_EQ(let_types(s).size(), 1u);
  s.lets.resize(1);
  EXPECT_EQ(trace_of(s).steps[0].warps[0].element[0], 0);
  s.lets[0].type = "char";
  EXPECT_NE(trace_error(s).find("lets[0].type"), std::string::npos);
}

TEST(Trace, StoredValuesKeepTheirCType) {
  Step st = step(StepKind::Store, "tile[threadIdx.x]");
  st.value = "threadIdx.x - 1";
  Trace t = trace_of(trace_scenario(32, 32, {st}));
  EXPECT_EQ(t.steps[0].value(0, 0), (Value{CType::UInt, 4294967295u}));
  Step dflt = step(StepKind::Store, "tile[threadIdx.x]");  // default: the linear thread index
  EXPECT_EQ(trace_of(trace_scenario(32, 32, {dflt})).steps[0].value(0, 7), (Value{CType::UInt, 7}));
}

TEST(Trace, UndefinedBehaviourNamesTheThreadAndColumn) {
  Scenario s =
      trace_scenario(32, 32, {step(StepKind::Store, "tile[2147483647 + (int)threadIdx.x]")});
  const std::string e = trace_error(s);
  EXPECT_NE(e.find("steps[0].index col 17"), std::string::npos) << e;
  EXPECT_NE(e.find("thread (1,0,0)"), std::string::npos) << e;  // thread 0 adds 0: defined
  EXPECT_NE(e.find("signed overflow"), std::string::npos) << e;
}

TEST(Trace, AVectorsLastComponentMustNotOverflow) {
  Scenario s = trace_scenario(32, 32, {step(StepKind::Store, "tile[threadIdx.x]")});
  s.tiles[0].elem = "int4";
  s.steps[0].value = "2147483645";  // components 2147483645 .. 2147483648: the last overflows
  EXPECT_NE(trace_error(s).find("overflows int"), std::string::npos);
  s.steps[0].value = "2147483644";
  EXPECT_TRUE(trace(s).trace);
}

TEST(Trace, UnknownNamesAreBindErrorsBeforeAnyThreadRuns) {
  Scenario s = trace_scenario(32, 32, {step(StepKind::Store, "tile[tidx]")});
  const std::string e = trace_error(s);
  EXPECT_NE(e.find("unknown name 'tidx' (did you mean threadIdx.x?)"), std::string::npos) << e;
}

TEST(Trace, ALoopVariableExistsOnlyInItsOwnStep) {
  Step looped = step(StepKind::Store, "tile[i]");
  looped.loop_var = "i", looped.loop_from = 0, looped.loop_to = 2;
  Scenario s = trace_scenario(32, 32, {looped, step(StepKind::Load, "tile[i]")});
  EXPECT_NE(trace_error(s).find("steps[1].index"), std::string::npos);
}

// [SECTION] Loops and limits =====================================================================

TEST(TraceLoops, BoundsOutsideIntAreErrorsNotSilentlyEmpty) {
  Step huge = step(StepKind::Store, "tile[0]");
  huge.loop_var = "i", huge.loop_from = -9223372036854775807, huge.loop_to = 9223372036854775807;
  EXPECT_NE(
      trace_error(trace_scenario(32, 32, {huge})).find("does not fit the loop variable's type int"),
      std::string::npos);
  Step big = step(StepKind::Store, "tile[0]");
  big.loop_var = "i", big.loop_from = 3000000000, big.loop_to = 3000000002;
  EXPECT_NE(trace_error(trace_scenario(32, 32, {big})).find("steps[0].loop.from"),
            std::string::npos);
}

TEST(TraceLoops, TheValueThatEndsTheLoopMustFitInt) {
  Step st = step(StepKind::Store, "tile[0]");
  st.loop_var = "i", st.loop_from = 2147483600, st.loop_to = 2147483647, st.loop_step = 40;
  EXPECT_NE(trace_error(trace_scenario(32, 32, {st})).find("overflows int"), std::string::npos);
  st.loop_step = 1;  // ends at 2147483647: fine
  st.loop_from = 2147483640;
  EXPECT_TRUE(trace(trace_scenario(32, 32, {st})).trace);
}

TEST(TraceLoops, TheLoopVariableIsAnInt) {
  Step st = step(StepKind::Store, "tile[i - 1 < 0 ? 0 : 1]");
  st.loop_var = "i", st.loop_from = 0, st.loop_to = 1;
  EXPECT_EQ(trace_of(trace_scenario(32, 32, {st})).steps[0].warps[0].element[0],
            0);  // signed: -1 < 0
}

TEST(TraceLoops, ThreadStepsAreBounded) {
  Step st = step(StepKind::Load, "tile[threadIdx.x]");
  st.loop_var = "i", st.loop_from = 0, st.loop_to = 513;
  Scenario s = trace_scenario(1024, 1024, {st});
  EXPECT_NE(trace_error(s).find("thread-steps"), std::string::npos);
  s.steps[0].loop_to = 512;  // 512 x 1024 = 2^19: the largest legal amount of work
  EXPECT_TRUE(trace(s).trace);
}

// [SECTION] Hazards ==============================================================================

TEST(Hazards, StoreAfterAnotherWarpsLoadInOneIntervalIsWriteAfterRead) {
  // The issue's example: store tile[tx]; sync; load tile[(tx+32)%64]; store tile[tx].
  Scenario s = trace_scenario(64, 64,
                              {step(StepKind::Store, "tile[threadIdx.x]"), step(StepKind::Sync),
                               step(StepKind::Load, "tile[(threadIdx.x + 32) % 64]"),
                               step(StepKind::Store, "tile[threadIdx.x]")});
  AnalysisResult r = analyze(s);
  ASSERT_TRUE(r.analysis);
  const Hazards& h = r.analysis->hazards;
  EXPECT_EQ(h.count(HazardKind::WriteAfterRead), 64);  // every load races with a later store
  EXPECT_EQ(h.racing_accesses, 64);
  ASSERT_EQ(h.examples.size(), 1u);
  EXPECT_EQ(h.examples[0].kind, HazardKind::WriteAfterRead);
  EXPECT_EQ(h.examples[0].first.step, 2);
  EXPECT_EQ(h.examples[0].second.step, 3);
  ASSERT_FALSE(r.analysis->issues.empty());
  EXPECT_NE(r.analysis->issues[0].message.find("race: write after read"), std::string::npos);
  // A barrier between the load and the store orders them.
  s.steps.insert(s.steps.begin() + 3, step(StepKind::Sync));
  EXPECT_EQ(analyze(s).analysis->hazards.racing_accesses, 0);
}

TEST(Hazards, PlainStoreAgainstAnotherWarpsAtomicIsARace) {
  Scenario s = trace_scenario(64, 64,
                              {step(StepKind::Store, "tile[threadIdx.x]"), step(StepKind::Sync),
                               step(StepKind::Atomic, "tile[0]"),
                               guarded(StepKind::Store, "tile[0]", "threadIdx.x == 40")});
  const Hazards h = analyze(s).analysis->hazards;
  // Warp 0's 32 atomics race with warp 1's store, and the store with them; warp 1's own atomics
  // come before its store in program order.
  EXPECT_EQ(h.count(HazardKind::AtomicVsPlain), 33);
  EXPECT_EQ(h.racing_accesses, 33);
  ASSERT_EQ(h.examples.size(), 1u);
  EXPECT_NE(h.examples[0].message.find("adds to tile[0]"), std::string::npos);
}

TEST(Hazards, AtomicsAmongThemselvesAndOneWarpsOwnAccessesDoNotRace) {
  Scenario s = trace_scenario(
      64, 64,
      {step(StepKind::Store, "tile[threadIdx.x]"), step(StepKind::Sync),
       step(StepKind::Atomic, "tile[threadIdx.x % 4]"), step(StepKind::Sync),
       step(StepKind::Load, "tile[threadIdx.x / 32 * 32]"),
       step(StepKind::Load, "tile[threadIdx.x]"), step(StepKind::Store, "tile[threadIdx.x]")});
  EXPECT_EQ(analyze(s).analysis->hazards.racing_accesses, 0);
}

TEST(Hazards, WhatAnEarlierIntervalWroteDoesNotRaceWithTheLoadsOfALaterOne) {
  // Interval 1 loads what another warp stored in interval 0, and stores elsewhere: the loads'
  // elements were written only before the barrier, so nothing races; interval 2 is loads alone.
  Scenario s =
      trace_scenario(64, 128,
                     {step(StepKind::Store, "tile[threadIdx.x]"), step(StepKind::Sync),
                      step(StepKind::Load, "tile[(threadIdx.x + 32) % 64]"),
                      step(StepKind::Store, "tile[64 + threadIdx.x]"), step(StepKind::Sync),
                      step(StepKind::Load, "tile[127 - threadIdx.x]")});
  const Trace t = trace_of(s);
  EXPECT_TRUE(can_race(t));
  EXPECT_EQ(find_hazards(s, t).racing_accesses, 0);
  // A load in interval 1 of what another warp stores there before it races (read after write).
  s.steps[2] = step(StepKind::Store, "tile[threadIdx.x]");
  s.steps[3] = step(StepKind::Load, "tile[(threadIdx.x + 32) % 64]");
  EXPECT_EQ(find_hazards(s, trace_of(s)).count(HazardKind::ReadAfterWrite), 64);
  // Loads alone never race, and a trace of them says so.
  const Scenario loads = trace_scenario(64, 64, {step(StepKind::Load, "tile[0]")});
  EXPECT_FALSE(can_race(trace_of(loads)));
  EXPECT_EQ(find_hazards(loads, trace_of(loads)).racing_accesses, 0);
}

TEST(Hazards, TwoWarpsStoringOneElementIsWriteAfterWrite) {
  Scenario s = trace_scenario(64, 64, {step(StepKind::Store, "tile[threadIdx.x % 32]")});
  const Hazards h = analyze(s).analysis->hazards;
  EXPECT_EQ(h.count(HazardKind::WriteAfterWrite), 64);
}

TEST(Hazards, OnlyTheWarpsThatRanCanRace) {
  Scenario s = trace_scenario(64, 64, {step(StepKind::Store, "tile[threadIdx.x % 32]")});
  Trace t = trace_of(s);
  EXPECT_EQ(find_hazards(s, t, 0b01).racing_accesses, 0);  // warp 0 alone
  EXPECT_EQ(find_hazards(s, t, 0b11).racing_accesses, 64);
}

TEST(Hazards, EveryRacingPairIsNamedEachWithAnExample) {
  // The issue's example: the load races with the store before it (read after write) and with the
  // store after it (write after read); each racing access used to name only its first partner.
  Scenario s = trace_scenario(64, 64,
                              {step(StepKind::Store, "tile[threadIdx.x]"),
                               step(StepKind::Load, "tile[(threadIdx.x + 32) % 64]"),
                               step(StepKind::Store, "tile[threadIdx.x]")});
  AnalysisResult r = analyze(s);
  ASSERT_TRUE(r.analysis);
  const Hazards& h = r.analysis->hazards;
  EXPECT_EQ(h.racing_accesses, 64);  // each load lane races (once, whatever its partners)
  EXPECT_EQ(h.pairs, 2);
  ASSERT_EQ(h.examples.size(), 2u);
  EXPECT_EQ(h.examples[0].kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(h.examples[0].first.step, 0);
  EXPECT_EQ(h.examples[0].second.step, 1);
  EXPECT_EQ(h.examples[0].lanes, 64);
  EXPECT_EQ(h.examples[1].kind, HazardKind::WriteAfterRead);
  EXPECT_EQ(h.examples[1].first.step, 1);
  EXPECT_EQ(h.examples[1].second.step, 2);
  EXPECT_EQ(h.examples[1].lanes, 64);
  // Both are in the analysis's issues, in words.
  int named = 0;
  for (const Issue& i : r.analysis->issues)
    named += i.message.find("race: read after write") != std::string::npos ||
             i.message.find("race: write after read") != std::string::npos;
  EXPECT_EQ(named, 2);
  // Fixing the first (a barrier after the first store) leaves the second named.
  s.steps.insert(s.steps.begin() + 1, step(StepKind::Sync));
  const Hazards fixed = analyze(s).analysis->hazards;
  ASSERT_EQ(fixed.examples.size(), 1u);
  EXPECT_EQ(fixed.examples[0].kind, HazardKind::WriteAfterRead);
}

TEST(Hazards, ALoadRacingWithSeveralStoresOfOneIntervalNamesEach) {
  // Warp 0 loads what warp 1 stores in steps 0, 2 and 3 (the same element: a wide range of
  // partners behind one slot); warp 1 never loads. Three pairs, one per store.
  Scenario s = trace_scenario(64, 64,
                              {guarded(StepKind::Store, "tile[5]", "threadIdx.x == 40"),
                               guarded(StepKind::Load, "tile[5]", "threadIdx.x == 0"),
                               guarded(StepKind::Store, "tile[5]", "threadIdx.x == 41"),
                               guarded(StepKind::Store, "tile[5]", "threadIdx.x == 42")});
  const Hazards h = analyze(s).analysis->hazards;
  EXPECT_EQ(h.pairs, 3);
  ASSERT_EQ(h.examples.size(), 3u);
  EXPECT_EQ(h.examples[0].kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(h.examples[1].kind, HazardKind::WriteAfterRead);
  EXPECT_EQ(h.examples[2].kind, HazardKind::WriteAfterRead);
  EXPECT_EQ(h.examples[2].second.step, 3);
}

TEST(Hazards, RacingPairsAreCountedExactlyHoweverManyStepsWriteOneElement) {
  // Two warps store the same 32 words in each of 20 steps, then warp 0 reads them: every pair of
  // stores races (write after write: 20 * 19 / 2 between steps and 20 of a step with itself) and
  // the load reads after each of the 20 (its own warp's stores do not race, warp 1's do). Only 16
  // writers of one element used to be kept: 136 + 16 pairs were counted.
  std::vector<Step> steps;
  for (int i = 0; i < 20; ++i) steps.push_back(step(StepKind::Store, "tile[threadIdx.x % 32]"));
  steps.push_back(guarded(StepKind::Load, "tile[threadIdx.x]", "threadIdx.x < 32"));
  Scenario s = trace_scenario(64, 64, steps);
  AnalysisResult r = analyze(s);
  ASSERT_TRUE(r.analysis);
  const Hazards& h = r.analysis->hazards;
  EXPECT_FALSE(h.unnamed_writers);
  EXPECT_EQ(h.pairs, 20 * 19 / 2 + 20 + 20);
  EXPECT_EQ(h.examples.size(), 32u);
  // 40 steps writing one element: still exact (820 + 40 pairs).
  for (int i = 0; i < 20; ++i)
    s.steps.insert(s.steps.begin(), step(StepKind::Store, "tile[threadIdx.x % 32]"));
  const Hazards more = analyze(s).analysis->hazards;
  EXPECT_FALSE(more.unnamed_writers);
  EXPECT_EQ(more.pairs, 40 * 39 / 2 + 40 + 40);
}

// [SECTION] relayout(): one tile's geometry changed, the trace re-placed =========================

namespace {

// The geometry changes advise() and a sweep try on a tile: paddings, extents, swizzles on the
// offset and on the address.
std::vector<Scenario> geometry_variants(const Scenario& s, size_t tile) {
  std::vector<Scenario> out;
  auto add = [&](auto change) {
    Scenario c = s;
    change(c.tiles[tile]);
    if (check(c).empty()) out.push_back(std::move(c));
  };
  for (int64_t pad : {0, 1, 2, 3, 4, 8, 33})
    add([&](TileDecl& t) {
      if (!t.cute) t.pad = pad;
      t.swizzle = {};
    });
  for (Swizzle z : {Swizzle{5, 0, 5}, Swizzle{3, 3, 3}, Swizzle{2, 1, 4}, Swizzle{1, 0, 1}})
    for (bool on_address : {false, true})
      add([&](TileDecl& t) {
        if (!t.cute) t.pad = 0;
        t.swizzle = z;
        t.swizzle_on_address = on_address;
      });
  add([](TileDecl& t) {
    if (!t.cute) t.dims.back() += 7;
  });
  add([](TileDecl& t) {
    if (!t.cute && t.dims.size() > 1) t.dims.front() += 3;
  });
  add([](TileDecl& t) {
    if (!t.cute && !t.dims.empty() && t.dims.back() > 1) t.dims.back() -= 1;
  });
  return out;
}

}  // namespace

// relayout() of every preset's trace, for each geometry change of each tile, is the changed
// scenario's own trace, lane by lane; where it declines, the trace it was given had a lane out of
// bounds or the change puts one out of bounds, past the end or off its alignment.
TEST(Relayout, EveryPresetsTraceReplacedIsTheChangedScenariosTrace) {
  int relaid = 0, declined = 0, grouped = 0;
  const std::string dir = std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    const ScenarioLoad l = load_scenario_file(e.path().string());
    ASSERT_TRUE(l.scenario) << e.path();
    const Scenario& s = *l.scenario;
    const TraceResult base = trace(s);
    ASSERT_TRUE(base.trace) << e.path();
    const Arch& arch = *find_arch(s.arch);
    const TraceVariants variants(s, arch, *base.trace);
    size_t warps = 0;
    for (const TraceStep& ts : base.trace->steps) warps += ts.warps.size();
    grouped += variants.distinct() < warps ? 1 : 0;
    for (size_t tile = 0; tile < s.tiles.size(); ++tile) {
      for (const Scenario& c : geometry_variants(s, tile)) {
        SCOPED_TRACE(s.name + ", tile " + c.tiles[tile].name + " " + c.tiles[tile].declaration() +
                     " " + c.tiles[tile].layout_text());
        const std::optional<Trace> r =
            relayout(c, static_cast<int>(tile), s.tiles[tile], *base.trace);
        const TraceResult full = trace(c);
        // relayout_step(), step by step into one reused buffer, is relayout() step by step: it
        // declines a step of the tile exactly where relayout() declines, else gives its step.
        TraceStep one;
        bool every_step = true;
        for (size_t e = 0; e < base.trace->steps.size(); ++e) {
          const bool ok =
              relayout_step(c, static_cast<int>(tile), s.tiles[tile], *base.trace, e, one);
          every_step = every_step && ok;
          if (!ok || !r) continue;
          EXPECT_EQ(one.info.label, r->steps[e].info.label);
          ASSERT_EQ(one.warps.size(), r->steps[e].warps.size());
          for (size_t w = 0; w < one.warps.size(); ++w) {
            ASSERT_EQ(one.warps[w].mask, r->steps[e].warps[w].mask) << e << " " << w;
            ASSERT_EQ(one.warps[w].element, r->steps[e].warps[w].element) << e << " " << w;
            ASSERT_EQ(one.warps[w].byte, r->steps[e].warps[w].byte) << e << " " << w;
          }
        }
        EXPECT_EQ(every_step, r.has_value());
        // relayout_warp(), warp by warp, declines exactly where relayout() does, else gives its
        // warp; TraceVariants' figures (each distinct warp access placed and served once) are
        // each re-placed step served whole, and absent where relayout() declines.
        WarpTrace warp;
        bool every_warp = true;
        for (size_t e = 0; e < base.trace->steps.size(); ++e) {
          for (size_t w = 0; w < base.trace->steps[e].warps.size(); ++w) {
            const bool ok =
                relayout_warp(c, static_cast<int>(tile), s.tiles[tile], *base.trace, e, w, warp);
            every_warp = every_warp && ok;
            if (!ok || !r) continue;
            ASSERT_EQ(warp.mask, r->steps[e].warps[w].mask) << e << " " << w;
            ASSERT_EQ(warp.element, r->steps[e].warps[w].element) << e << " " << w;
            ASSERT_EQ(warp.byte, r->steps[e].warps[w].byte) << e << " " << w;
          }
        }
        EXPECT_EQ(every_warp, r.has_value());
        const std::optional<std::vector<StepFigures>> figures =
            variants.figures(c, static_cast<int>(tile));
        EXPECT_EQ(figures.has_value(), r.has_value());
        if (figures && r) {
          ASSERT_EQ(figures->size(), r->steps.size());
          for (size_t e = 0; e < r->steps.size(); ++e) {
            const StepFigures want = serve_step(c, arch, r->steps[e]);
            EXPECT_EQ((*figures)[e].wavefronts, want.wavefronts) << e;
            EXPECT_EQ((*figures)[e].ideal, want.ideal) << e;
            EXPECT_EQ((*figures)[e].instructions, want.instructions) << e;
          }
        }
        if (!r) {
          ++declined;
          EXPECT_TRUE(base.trace->out_of_bounds > 0 || !full.trace ||
                      full.trace->out_of_bounds > 0);
          continue;
        }
        ++relaid;
        ASSERT_TRUE(full.trace);
        const Trace& f = *full.trace;
        EXPECT_EQ(r->out_of_bounds, f.out_of_bounds);
        EXPECT_EQ(r->issues.size(), f.issues.size());
        ASSERT_EQ(r->steps.size(), f.steps.size());
        for (size_t i = 0; i < f.steps.size(); ++i) {
          EXPECT_EQ(r->steps[i].info.label, f.steps[i].info.label);
          ASSERT_EQ(r->steps[i].warps.size(), f.steps[i].warps.size());
          for (size_t w = 0; w < f.steps[i].warps.size(); ++w) {
            const WarpTrace &x = r->steps[i].warps[w], &y = f.steps[i].warps[w];
            ASSERT_EQ(x.mask, y.mask) << "step " << i << " warp " << w;
            ASSERT_EQ(x.element, y.element) << "step " << i << " warp " << w;
            ASSERT_EQ(x.byte, y.byte) << "step " << i << " warp " << w;
            ASSERT_EQ(x.value, y.value) << "step " << i << " warp " << w;
          }
        }
      }
    }
  }
  // Both paths are exercised: most changes re-place, some cannot.
  EXPECT_GT(relaid, 500);
  EXPECT_GT(grouped, 0);  // some preset's warps repeat an access: fewer groups than warps
  EXPECT_GT(declined, 0);
}
