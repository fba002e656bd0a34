// Real runs. Without a GPU only the failure paths run; the device tests skip with a message.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/experiments.h"
#include "bankviz/profile.h"
#include "bankviz/runner.h"
#include "helpers.h"

using namespace bankviz;
using bankviz::test::have_gpu;
using bankviz::test::preset;
using bankviz::test::runner;

TEST(Runner, NoDeviceIsAValueCarryingTheDriversReason) {
  std::string why;
  if (have_gpu(&why)) GTEST_SKIP() << "a GPU is present; this test covers machines without one";
  const RunResult r = runner().run(preset("row-write-column-read"));
  EXPECT_EQ(r.status, RunStatus::NoCuda);
  EXPECT_NE(r.message.find("no CUDA"), std::string::npos) << r.message;
  EXPECT_FALSE(r.source.empty());  // the kernel is still shown
  // And again: nothing is left half-initialized.
  EXPECT_EQ(runner().run(preset("row-write-column-read")).status, RunStatus::NoCuda);
}

// A result nothing has decided yet is its own state, not a failure: "no CUDA" is only ever a
// run's answer (above), and each of a run's outcomes has a name of its own.
TEST(Runner, AResultNotYetRunIsNeitherOkNorNoCuda) {
  EXPECT_EQ(RunResult{}.status, RunStatus::NotRun);
  EXPECT_EQ(ProfileResult{}.status, RunStatus::NotRun);
  EXPECT_EQ(ExperimentRun{}.status, RunStatus::NotRun);
  const std::vector<RunStatus> all = {
      RunStatus::Ok,          RunStatus::NotRun,       RunStatus::NoCuda,
      RunStatus::BadScenario, RunStatus::CompileError, RunStatus::TooLarge,
      RunStatus::LaunchError, RunStatus::BadArguments, RunStatus::Timeout};
  std::set<std::string> names;
  for (RunStatus s : all) names.insert(run_status_name(s));
  EXPECT_EQ(names.size(), all.size());
  EXPECT_EQ(names.count("?"), 0u);
  EXPECT_STREQ(run_status_name(RunStatus::NotRun), "not run");
}

TEST(Runner, StaticTileAbove48KBNamesTheLimitWithOrWithoutAGpu) {
  Scenario s = preset("row-write-column-read");
  s.tiles[0].dims = {128, 128};  // 64 KB static
  const RunResult r = runner().run(s);
  EXPECT_EQ(r.status, RunStatus::TooLarge);
  EXPECT_NE(r.message.find("48 KB (49152 bytes)"), std::string::npos) << r.message;
}

TEST(Runner, BadScenarioIsReportedBeforeTheDevice) {
  Scenario s = preset("row-write-column-read");
  s.steps[0].index = "tile[";
  const RunResult r = runner().run(s);
  EXPECT_EQ(r.status, RunStatus::BadScenario);
  EXPECT_FALSE(r.message.empty());
}

TEST(DeviceRun, EveryPresetVerifiesInBothModes) {
  REQUIRE_GPU();
  for (const std::string& name : test::preset_names()) {
    for (RunMode mode : {RunMode::Written, RunMode::Exposed}) {
      RunOptions o;
      o.mode = mode;
      o.timing_runs = 2;
      o.written_launches = 20;
      const RunResult r = runner().run(preset(name), o);
      ASSERT_EQ(r.status, RunStatus::Ok) << name << ": " << r.message;
      const VerifyStatus v = r.verification.status;
      // A preset the race model flags (histogram-missing-sync, vector-add-shared-temp3-race)
      // must come back as a race; every other one verifies.
      const AnalysisResult model = analyze(preset(name));
      ASSERT_TRUE(model.analysis) << name;
      const bool racy = model.analysis->hazards.racing_accesses > 0;
      EXPECT_EQ(v, racy ? VerifyStatus::Race : VerifyStatus::Verified)
          << name << " (" << run_mode_name(mode) << "): " << r.verification.summary;
      std::printf("[ preset  ] %-44s %-8s %s: %s\n", name.c_str(), run_mode_name(mode),
                  verify_status_name(v), r.verification.summary.c_str());
    }
  }
}

// The performance bar: exposed cycles per warp instruction within 5% of the model's wavefronts,
// for every load and store step of every preset. Each step is launched with only the lesson's
// warps that execute it, in blocks that small, so even a step of one warp per lesson block (the
// dot product's `cacheIndex < 32`, the Kepler filter's halo) has kSharedBoundWarps warps per SM,
// and a block holds 2 replicas of such a warp, each on its own copy of the tiles (so copies
// never interact), so the SM holds kFullWarps.
// (Launched in the lesson's block shape they had 8-16 and measured 1.07-1.74x: warp-bound;
// padding that block with an idle warp made them worse, BENCHMARKS.md.) Atomics are held to it
// too: the histogram's data-dependent ATOMS.POPC.INC took 1.077 while every launched block played
// its own lesson block (the slowest SM's warps over the mean); every launched block now plays
// the lesson's block 0 (codegen.h). The steps within 2% are counted per instruction kind.
TEST(DeviceRun, ExposedCyclesPerInstructionWithinFivePercentOfTheModel) {
  REQUIRE_GPU();
  std::map<std::string, std::pair<int, int>> within2;  // kind -> (within 2%, steps)
  std::printf("%-44s %-4s %-6s %8s %9s %7s %9s %8s %s\n", "preset", "step", "kind", "model",
              "measured", "ratio", "B/clk/SM", "warps/SM", "replicas");
  for (const std::string& name : test::preset_names()) {
    RunOptions o;
    o.mode = RunMode::Exposed;
    const RunResult r = runner().run(preset(name), o);
    ASSERT_EQ(r.status, RunStatus::Ok) << name << ": " << r.message;
    for (const StepTiming& t : r.exposed.steps) {
      std::printf("%-44s %-4d %-6s %8.3f %9.3f %7.3f %9.1f %8d %d\n", name.c_str(), t.step,
                  t.kind.c_str(), t.model_wavefronts, t.cycles_per_instruction, t.ratio,
                  t.bytes_per_clock_per_sm, t.active_warps_per_sm, t.replicas);
      if (t.instructions_per_block == 0) continue;
      auto& [close, steps] = within2[t.kind];
      close += std::abs(t.ratio - 1.0) <= 0.02;
      ++steps;
      EXPECT_TRUE(t.shared_bound) << name << " step " << t.step << ": " << t.active_warps_per_sm
                                  << " warps per SM";
      if (name == "kepler-filter-float" && t.step == 1) {
        // The halo store (one warp of the lesson) ran as 2 replicas per block: 64 warps/SM.
        EXPECT_EQ(t.replicas, 2);
        EXPECT_EQ(t.active_warps_per_sm, kFullWarps);
      }
      if (name == "dot-product-reduction" && t.lesson_warps == 0x1) {
        // The `cacheIndex < i` steps for i <= 32 (warp 0 alone): 2 replicas, 64 warps/SM.
        EXPECT_EQ(t.replicas, 2) << "step " << t.step;
        EXPECT_EQ(t.active_warps_per_sm, kFullWarps) << "step " << t.step;
      }
      // The ratio is against the prediction (plan.h predict_step_cost()): a copy-bound cp.async
      // is predicted by its copy's cost, not marked (an H100 measured 3.09 cycles for 1 wavefront).
      if (t.copy_bound) {
        EXPECT_FALSE(t.prediction.empty()) << name << " step " << t.step << " (" << t.label << ")";
      }
      EXPECT_NEAR(t.ratio, 1.0, 0.05) << name << " step " << t.step << " (" << t.label << ")";
    }
  }
  for (const auto& [kind, n] : within2)
    std::printf("[ exposed ] %-9s %d of %d steps within 2%% of the prediction\n", kind.c_str(),
                n.first, n.second);
}

TEST(DeviceRun, ConflictFreeFourByteLoadsReach95PercentOf128BytesPerClock) {
  REQUIRE_GPU();
  RunOptions o;
  o.mode = RunMode::Exposed;
  const RunResult r = runner().run(preset("row-write-row-read"), o);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  bool seen = false;
  for (const StepTiming& t : r.exposed.steps) {
    if (t.kind != "load") continue;
    seen = true;
    std::printf("row-write-row-read load: %.1f B/clk/SM (%.1f%% of 128)\n",
                t.bytes_per_clock_per_sm, t.bytes_per_clock_per_sm / 1.28);
    EXPECT_GE(t.bytes_per_clock_per_sm, 0.95 * 128.0);
  }
  EXPECT_TRUE(seen);
}

TEST(DeviceRun, TileBeyondTheDeviceLimitNamesIt) {
  REQUIRE_GPU();
  Scenario s = preset("row-write-column-read-dynamic");
  s.tiles[0].dims = {240 * 1024 / 4};  // 240 KB: more than any GPU allows one block
  const RunResult r = runner().run(s);
  EXPECT_NE(r.status, RunStatus::Ok);
  EXPECT_NE(r.message.find(std::to_string(runner().device().shared_per_block_optin)),
            std::string::npos)
      << r.message;
}

TEST(DeviceRun, DynamicTileAbove48KBOptsIn) {
  REQUIRE_GPU();
  Scenario s = preset("row-write-column-read-dynamic");
  s.tiles[0].dims = {64 * 1024 / 4};  // 64 KB dynamic; the steps use the first 4 KB
  const RunResult r = runner().run(s);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_EQ(r.verification.status, VerifyStatus::Verified) << r.verification.summary;
}

// Watchdog on the GPU: a kernel that runs far longer than the timeout is stopped, the run
// reports a timeout, and the next run works on a fresh context.
TEST(DeviceRun, KernelPastTheTimeoutIsStoppedAndTheNextRunWorks) {
  REQUIRE_GPU();
  const Scenario s = preset("row-write-column-read");
  RunOptions o;
  o.mode = RunMode::Exposed;
  o.timing_runs = 1;
  o.warmup = false;
  o.reps = int64_t{1} << 21;  // step 2: ~2 s per launch on an H200 (1024 cycles x 2 blocks)
  o.max_launch_ms = 60000;    // let the estimate pass: the timeout must catch it
  o.timeout_ms = 300;
  auto t0 = std::chrono::steady_clock::now();
  const RunResult r = runner().run(s, o);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("timeout run: %s after %.0f ms: %s\n", run_status_name(r.status), ms,
              r.message.c_str());
  EXPECT_EQ(r.status, RunStatus::Timeout) << r.message;
  EXPECT_NE(r.message.find("300 ms (timeout)"), std::string::npos) << r.message;
  // The estimate alone refuses it when the limit is the default.
  o.max_launch_ms = 2000;
  const RunResult refused = runner().run(s, o);
  EXPECT_EQ(refused.status, RunStatus::Timeout) << refused.message;
  EXPECT_NE(refused.message.find("by the model"), std::string::npos) << refused.message;
  // And the context works again.
  RunOptions w;
  w.timing_runs = 1;
  w.written_launches = 5;
  const RunResult again = runner().run(s, w);
  ASSERT_EQ(again.status, RunStatus::Ok) << again.message;
  EXPECT_EQ(again.verification.status, VerifyStatus::Verified) << again.verification.summary;
}

// The kernel evaluates a matrix instruction's index on the lanes the model does (lanes 0-7 of an
// ldmatrix.x1): the index divides by zero on every other lane, and the run verifies.
// Exposed, ldmatrix.x1 runs at the model's wavefronts per instruction like .x2 and .x4.
TEST(DeviceRun, MatrixIndexRunsOnlyOnTheLanesTheModelEvaluatesOnGpu) {
  REQUIRE_GPU();
  Scenario s;
  s.tiles[0].elem = "half";
  s.tiles[0].dims = {8, 32};
  s.block[0] = 32, s.block[1] = 1;
  Step st;
  ASSERT_TRUE(parse_step_op("ldmatrix.x1", st));
  st.index = "tile[threadIdx.x < 8 ? threadIdx.x : 1 / 0][0]";
  s.steps = {st};
  for (RunMode mode : {RunMode::Written, RunMode::Exposed}) {
    RunOptions o;
    o.mode = mode;
    o.timing_runs = 2;
    const RunResult r = runner().run(s, o);
    ASSERT_EQ(r.status, RunStatus::Ok) << run_mode_name(mode) << ": " << r.message;
    EXPECT_EQ(r.verification.status, VerifyStatus::Verified)
        << run_mode_name(mode) << ": " << r.verification.summary;
  }
  for (const char* kind : {"ldmatrix.x1", "ldmatrix.x2", "ldmatrix.x4", "stmatrix.x1"}) {
    ASSERT_TRUE(parse_step_op(kind, s.steps[0]));
    s.tiles[0].dims = {32, 32};
    s.steps[0].index = "tile[threadIdx.x % 8][0]";
    RunOptions o;
    o.mode = RunMode::Exposed;
    const RunResult r = runner().run(s, o);
    ASSERT_EQ(r.status, RunStatus::Ok) << kind << ": " << r.message;
    ASSERT_EQ(r.exposed.steps.size(), 1u);
    const StepTiming& t = r.exposed.steps[0];
    std::printf(
        "[ matrix  ] %-12s model %.3f measured %.3f ratio %.3f hw instructions %.3f of "
        "the model's %.3f, wavefronts %.3f of %.3f\n",
        kind, t.model_wavefronts, t.cycles_per_instruction, t.ratio, t.hw.hw_instructions,
        t.hw.model_instructions, t.hw.hw_wavefronts, t.hw.model_wavefronts);
    EXPECT_EQ(r.verification.status, VerifyStatus::Verified) << kind;
    EXPECT_NEAR(t.ratio, 1.0, 0.05) << kind;
  }
}

// Swizzles on the address (TMA's SW128, CuTe's swizzle pointer): the kernel swizzles the real
// shared-memory address of each element (__cvta_generic_to_shared), so the hardware's counters
// equal the model only if the model puts the tile's base into the swizzle as the GPU does. Bases
// 0..896 in steps of 128 (the SW128 period is 1024 bytes), loads, stores and ldmatrix.x4, both
// modes; the model with the swizzle on the offset is printed beside it for the ones that differ.
TEST(DeviceRun, SwizzleOnTheAddressAtBasesOffItsPeriodOnGpu) {
  REQUIRE_GPU();
  const std::pair<const char*, const char*> patterns[] = {
      {"load", "tile[threadIdx.x % 8][threadIdx.x % 8 * 8]"},
      {"load", "tile[threadIdx.x][threadIdx.x % 8 * 8]"},
      {"load", "tile[threadIdx.x / 2 * 4][threadIdx.x % 2 * 8]"},
      {"load", "tile[threadIdx.x % 8 * 8][threadIdx.x / 8 * 8]"},
      {"store", "tile[threadIdx.x % 16][threadIdx.x % 16 / 2 * 8]"},
      {"store", "tile[threadIdx.x / 4][(threadIdx.x + threadIdx.x / 4) % 8 * 8]"},
      {"ldmatrix.x4", "tile[threadIdx.x % 8 + threadIdx.x / 8 * 8][threadIdx.x % 8 * 8]"},
      {"ldmatrix.x4", "tile[threadIdx.x][0]"},
  };
  int runs = 0, agree = 0, models_differ = 0, hw_follows_offset_model = 0;
  for (RunMode mode : {RunMode::Written, RunMode::Exposed}) {
    for (const auto& [kind, index] : patterns) {
      for (int64_t base = 0; base < 1024; base += 128) {
        Scenario s;
        s.tiles[0].elem = "half";
        ASSERT_EQ(s.tiles[0].set_layout("SW128 o (64,64):(64,1)"), "");
        s.tiles[0].base = base;
        s.block[0] = 32, s.block[1] = 1;
        Step st;
        ASSERT_TRUE(parse_step_op(kind, st));
        st.index = index;
        s.steps = {st};
        Scenario on_offset = s;
        on_offset.tiles[0].swizzle_on_address = false;
        const AnalysisResult m = analyze(on_offset);
        ASSERT_TRUE(m.analysis);
        RunOptions o;
        o.mode = mode;
        o.timing_runs = 1;
        o.written_launches = 2;
        const RunResult r = runner().run(s, o);
        ASSERT_EQ(r.status, RunStatus::Ok) << kind << " " << index << ": " << r.message;
        EXPECT_EQ(r.verification.status, VerifyStatus::Verified) << r.verification.summary;
        if (r.counters != CounterStatus::Ok) GTEST_SKIP() << "no counters: " << r.counters_message;
        const CounterComparison& c =
            mode == RunMode::Written ? r.written.hw : r.exposed.steps.at(0).hw;
        const double per_instruction =
            c.model_instructions > 0 ? c.model_wavefronts / c.model_instructions : 0.0;
        const double offset_model = m.analysis->step_per_request(0);
        ++runs;
        agree += c.agrees();
        const bool differ = std::abs(offset_model - per_instruction) > 1e-9;
        models_differ += differ;
        if (differ && c.model_instructions > 0 &&
            std::abs(c.hw_wavefronts / c.hw_instructions - offset_model) < 1e-9)
          ++hw_follows_offset_model;
        std::printf(
            "[ address ] %-8s base %4lld %-12s %-70s hw %8.2f model %8.2f (%.2f per "
            "instruction; on the offset %.2f)%s\n",
            run_mode_name(mode), static_cast<long long>(base), kind, index, c.hw_wavefronts,
            c.model_wavefronts, per_instruction, offset_model, c.agrees() ? "" : "  DIFFERS");
        EXPECT_TRUE(c.agrees()) << kind << " " << index << " at " << base;
      }
    }
  }
  std::printf(
      "[ address ] %d runs: hardware = the model on the address in %d; the model on the "
      "offset differs in %d of them, the hardware following it in %d\n",
      runs, agree, models_differ, hw_follows_offset_model);
  EXPECT_GT(models_differ, 0);
  EXPECT_EQ(hw_follows_offset_model, 0);
}

TEST(DeviceRun, NewModuleUnder300msCachedUnder30ms) {
  REQUIRE_GPU();
  Scenario s = preset("row-write-column-read-padded");
  s.tiles[0].pad = 3;  // a padding no other test compiles
  RunOptions o;
  o.mode = RunMode::Written;
  o.timing_runs = 1;
  o.written_launches = 10;
  o.counters = false;  // this is the caches' cost; the counters' is test_counters.cpp's
  auto t0 = std::chrono::steady_clock::now();
  const RunResult first = runner().run(s, o);
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  const RunResult again = runner().run(s, o);
  const double again_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(first.status, RunStatus::Ok) << first.message;
  EXPECT_FALSE(first.cache_hit);
  EXPECT_TRUE(again.cache_hit);
  std::printf("new module: %.1f ms (NVRTC %.1f ms, run %.1f ms); cached: %.1f ms (run %.1f ms)\n",
              first_ms, first.compile_ms, first.run_ms, again_ms, again.run_ms);
  EXPECT_LT(first_ms, 300.0);
  EXPECT_LT(again_ms, 30.0);
}

// [SECTION] Watchdog and explanations: no GPU needed.

TEST(Watchdog, ModelEstimateOfAHugeRepeatCountIsSecondsAndOfTheDefaultIsMilliseconds) {
  const Scenario s = preset("row-write-column-read");  // step 2: 32 warps x 32 wavefronts
  // 2^24 repeats x 1024 cycles x 2 blocks per SM at 1980 MHz: ~17 s.
  const double huge = estimate_exposed_launch_ms(s, 2, int64_t{1} << 24, 2, 1980000);
  EXPECT_NEAR(huge, 17353.0, 100.0);
  EXPECT_LT(estimate_exposed_launch_ms(s, 2, 1936, 2, 1980000), 5.0);
  EXPECT_LT(estimate_exposed_launch_ms(s, -1, 1, 2, 1980000), 0.01);
  Scenario bad = s;
  bad.steps[0].index = "tile[";
  EXPECT_LT(estimate_exposed_launch_ms(bad, -1, 1, 2, 1980000), 0.0);
}

TEST(Watchdog, WaitGivesUpAfterTheTimeoutAndReportsDoneOrFailedOtherwise) {
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_with_timeout([] { return 1; }, 50.0), WaitOutcome::TimedOut);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(ms, 50.0);
  EXPECT_LT(ms, 1000.0);
  int calls = 0;
  EXPECT_EQ(wait_with_timeout([&] { return ++calls < 3 ? 1 : 0; }, 1000.0), WaitOutcome::Done);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(wait_with_timeout([] { return 2; }, 1000.0), WaitOutcome::Failed);
}

namespace {
RunResult fake_result(RunMode mode, const std::string& scenario_arch) {
  RunResult r;
  r.status = RunStatus::Ok;
  r.mode = mode;
  r.scenario_arch = scenario_arch;
  r.device.present = true;
  r.device.name = "NVIDIA H200";
  r.device.sm = "sm_90";
  r.device.model_arch = "hopper";
  return r;
}
}  // namespace

TEST(Explain, EachModeSaysWhatItMeasures) {
  const Scenario s = preset("row-write-column-read");
  const std::string w = explain_result(s, fake_result(RunMode::Written, "hopper"));
  EXPECT_NE(w.find("launch overhead"), std::string::npos) << w;
  const std::string e = explain_result(s, fake_result(RunMode::Exposed, "hopper"));
  EXPECT_NE(e.find("shared memory is the bottleneck"), std::string::npos) << e;
  EXPECT_EQ(w.find("simulates"), std::string::npos) << w;  // same arch: nothing to compare
  RunResult failed = fake_result(RunMode::Written, "hopper");
  failed.status = RunStatus::NoCuda;
  EXPECT_EQ(explain_result(s, failed), "");
}

TEST(Explain, KeplerEightByteBanksNameTheGpuThatRanAndWhyTheModelsDiffer) {
  const Scenario s = preset("kepler-filter-float2-8byte");
  // Written mode: the explanation computes both models itself.
  const std::string w = explain_result(s, fake_result(RunMode::Written, "kepler8"));
  EXPECT_NE(w.find("Measured on NVIDIA H200 (sm_90)"), std::string::npos) << w;
  EXPECT_NE(w.find("ignores"), std::string::npos) << w;
  EXPECT_NE(w.find("predicts 1 wavefronts per warp instruction, Hopper (sm_90) 2"),
            std::string::npos)
      << w;
  // Exposed mode: from the measured rows.
  RunResult r = fake_result(RunMode::Exposed, "kepler8");
  StepTiming t;
  t.step = 3;
  t.label = "load taps";
  t.kind = "load";
  t.instructions_per_block = 4;
  t.model_wavefronts = 2;
  t.scenario_wavefronts = 1;
  t.shared_bound = true;
  r.exposed.steps.push_back(t);
  const std::string e = explain_result(s, r);
  EXPECT_NE(e.find("step 3 (load taps)"), std::string::npos) << e;
}

TEST(Explain, CcOneXNamesTheHalfWarp) {
  Scenario s = preset("row-write-column-read");
  s.arch = "cc1x";
  const std::string w = explain_result(s, fake_result(RunMode::Written, "cc1x"));
  EXPECT_NE(w.find("half-warp"), std::string::npos) << w;
}
