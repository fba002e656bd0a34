// bench_model: the model's speed. Target (issue 2): a 1024-thread block with 4 operations
// analyzes in well under a millisecond.
//   build/bench/bench_model --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "bankviz/access.h"
#include "bankviz/analysis.h"
#include "bankviz/arch.h"

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

void BM_Analyze1024Threads4Ops(benchmark::State& state) {
  const bankviz::Scenario s = block_1024_four_ops();
  for (auto _ : state) {
    auto r = bankviz::analyze(s);
    if (!r.analysis) state.SkipWithError("analysis failed");
    benchmark::DoNotOptimize(r);
  }
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
  const bankviz::Scenario s = largest_legal();
  for (auto _ : state) {
    auto r = bankviz::analyze(s);
    if (!r.analysis) state.SkipWithError(r.errors[0].format().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_AnalyzeLargestLegalScenario)->Unit(benchmark::kMillisecond);

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
