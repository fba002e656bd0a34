// bench_model: the model's speed. Target (issue 2): a 1024-thread block with 4 operations
// analyzes in well under a millisecond.
//   build/bench/bench_model --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "bankviz/access.h"
#include "bankviz/analysis.h"
#include "bankviz/arch.h"
#include "bankviz/scenario.h"

#include <string>

namespace {

bankviz::Scenario block_1024_four_ops() {
  bankviz::Scenario s;
  s.tiles[0].dims = {32, 32};
  s.tiles[0].pad = 1;
  s.block[0] = 32;
  s.block[1] = 32;
  s.lets = {{"idx", "threadIdx.y * blockDim.x + threadIdx.x"},
            {"irow", "idx / blockDim.y"},
            {"icol", "idx % blockDim.y"}};
  using K = bankviz::StepKind;
  s.steps = {{K::Store, "", "tile[threadIdx.y][threadIdx.x]", "", "", "", "", 0, 0, 1},
             {K::Sync, "", "", "", "", "", "", 0, 0, 1},
             {K::Load, "", "tile[threadIdx.x][threadIdx.y]", "", "", "", "", 0, 0, 1},
             {K::Load, "", "tile[icol][irow]", "", "", "", "", 0, 0, 1},
             {K::Store, "", "tile[irow][icol]", "threadIdx.x < 16", "", "", "", 0, 0, 1}};
  return s;
}

void analyze_bench(benchmark::State& state, const bankviz::Scenario& s) {
  for (auto _ : state) {
    auto r = bankviz::analyze(s);
    if (!r.analysis) {
      state.SkipWithError(r.errors[0].format().c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
}

void BM_Analyze1024Threads4Ops(benchmark::State& state) {
  analyze_bench(state, block_1024_four_ops());
}
BENCHMARK(BM_Analyze1024Threads4Ops)->Unit(benchmark::kMicrosecond);

// The largest scenario the model accepts: executed steps x threads = 2^19 (kMaxThreadSteps), here
// a 1024-thread block storing, syncing and running one looped load 510 times over a padded
// 32 x 33 int tile.
bankviz::Scenario largest_legal() {
  bankviz::Scenario s = block_1024_four_ops();
  using K = bankviz::StepKind;
  s.steps = {{K::Store, "", "tile[threadIdx.y][threadIdx.x]", "", "", "", "", 0, 0, 1},
             {K::Sync, "", "", "", "", "", "", 0, 0, 1},
             {K::Load, "", "tile[(threadIdx.x + i) % 32][icol]", "", "", "", "i", 0, 510, 1}};
  return s;
}

void BM_AnalyzeLargestLegalScenario(benchmark::State& state) {
  analyze_bench(state, largest_legal());
}
BENCHMARK(BM_AnalyzeLargestLegalScenario)->Unit(benchmark::kMillisecond);

// [SECTION] The worst legal scenarios (issue 11): each at one of the limits of scenario.h and
// trace.h, and each must analyze in under a second. Peak memory: run one under
// `/usr/bin/time -f %M` with --benchmark_filter.

// Evaluation budget: 1024 threads x 511 executions of a step whose guard is ~120 nodes long.
bankviz::Scenario worst_evaluations() {
  bankviz::Scenario s = largest_legal();
  std::string guard = "(int)threadIdx.x";
  for (int i = 0; i < 56; ++i) guard += " + 1";
  s.steps[2].guard = guard + " > i";
  return s;
}

// The most lets (1024), each a chain of ~60 nodes, evaluated for each of 1024 threads.
bankviz::Scenario worst_lets() {
  bankviz::Scenario s = block_1024_four_ops();
  s.lets.clear();
  s.lets.push_back({"v0", "threadIdx.x"});
  for (int i = 1; i < 1024; ++i) {
    std::string e = 'v' + std::to_string(i - 1);
    for (int k = 0; k < 30; ++k) e += k % 2 ? " - 1" : " + 1";
    s.lets.push_back({'v' + std::to_string(i), e});
  }
  using K = bankviz::StepKind;
  s.steps = {{K::Load, "", "tile[threadIdx.y][v1023 % 32]", "", "", "", "i", 0, 100, 1}};
  return s;
}

// The most tiles (256) and the most steps (4096), at 128 threads (4096 x 128 = 2^19).
bankviz::Scenario worst_tiles_and_steps() {
  bankviz::Scenario s;
  s.block[0] = 32;
  s.block[1] = 4;
  s.tiles.clear();
  for (int t = 0; t < 256; ++t) {
    bankviz::TileDecl d;
    d.name = 't' + std::to_string(t);
    d.dims = {4, 32};
    d.pad = 1;
    d.base = t * 4 * 33 * 4;
    s.tiles.push_back(d);
  }
  using K = bankviz::StepKind;
  for (int i = 0; i < 4096; ++i) {
    const std::string t = 't' + std::to_string(i % 256);
    s.steps.push_back(
        {i % 2 ? K::Load : K::Store, t,
         t + (i % 2 ? "[threadIdx.x % 4][threadIdx.y]" : "[threadIdx.y][threadIdx.x]"), "", "", "",
         "", 0, 0, 1});
  }
  return s;
}

void BM_WorstEvaluations(benchmark::State& state) {
  analyze_bench(state, worst_evaluations());
}
BENCHMARK(BM_WorstEvaluations)->Unit(benchmark::kMillisecond);
void BM_WorstLets(benchmark::State& state) {
  analyze_bench(state, worst_lets());
}
BENCHMARK(BM_WorstLets)->Unit(benchmark::kMillisecond);
void BM_WorstTilesAndSteps(benchmark::State& state) {
  analyze_bench(state, worst_tiles_and_steps());
}
BENCHMARK(BM_WorstTilesAndSteps)->Unit(benchmark::kMillisecond);

// Reading the largest scenario file (16 MB, kMaxScenarioBytes): the JSON parse with its guard,
// then check(). Here 4096 steps with 3.9 KB labels.
void BM_LoadLargestScenarioFile(benchmark::State& state) {
  bankviz::Scenario s = worst_tiles_and_steps();
  for (bankviz::Step& st : s.steps) st.label = std::string(3900, 'x');
  const std::string text = bankviz::scenario_to_json(s);
  state.counters["MB"] = static_cast<double>(text.size()) / (1 << 20);
  for (auto _ : state) {
    auto l = bankviz::scenario_from_json(text);
    if (!l.scenario) {
      state.SkipWithError(l.errors[0].format().c_str());
      break;
    }
    benchmark::DoNotOptimize(l);
  }
}
BENCHMARK(BM_LoadLargestScenarioFile)->Unit(benchmark::kMillisecond);

void BM_CountWavefrontsFloat4Load(benchmark::State& state) {
  bankviz::WarpAccess a;
  a.width = 16;
  for (int l = 0; l < 32; ++l) a.addr[static_cast<size_t>(l)] = static_cast<uint32_t>(l * 48);
  const bankviz::Arch& hopper = bankviz::default_arch();
  for (auto _ : state)
    benchmark::DoNotOptimize(bankviz::count_wavefronts(hopper, bankviz::Op::Load, a));
}
BENCHMARK(BM_CountWavefrontsFloat4Load);

}  // namespace

BENCHMARK_MAIN();
