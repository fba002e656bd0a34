// plan.h (internal): how exposed mode launches each memory step, as pure arithmetic over the
// model, the CPU reference and the device's numbers. No CUDA: tests/kernels/test_plan.cpp checks
// it on any machine; the runner only carries it out.
//
// [SECTION] The model's numbers for one step
// [SECTION] Limits a kernel must meet before it is compiled
// [SECTION] One launch per warp mask: replicas, blocks per SM, grid
// [SECTION] One measured step: repeats, warps per SM, the watchdog's estimate
// [SECTION] The prediction: cycles per warp instruction
//
// Exposed mode measures each memory step in a launch of only the lesson's warps that execute it
// (its warp mask), as 1-D blocks of those warps, as many blocks per SM as fit, on every SM: a
// warp's shared-memory cost depends only on its own lane addresses, and small blocks keep enough
// warps on each SM for the banks, not the warps, to set the pace. Where the SM's limit on blocks
// would still leave it short of kFullWarps warps (a step one warp of the lesson runs), a block
// holds several replicas of the mask's warps, each on its own copy of every tile (codegen.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/compiled.h"
#include "bankviz/reference.h"
#include "bankviz/run_types.h"

namespace bankviz::detail {

// [SECTION] The model's numbers for one step ====================================================

// One scenario step (all its loop iterations) by the model, over the warps of one block.
struct StepModel {
  int64_t wavefronts = 0;         // summed over warp instructions
  int64_t ideal = 0;              // the same, without bank conflicts (AccessResult::ideal)
  int64_t instructions = 0;       // warp instructions with an active lane
  int64_t bytes = 0;              // bytes the active lanes ask for
  std::vector<int> active_warps;  // warps of the block with an active lane in the step
};
StepModel model_of_step(const Analysis& a, int step);

// Where the scenario's blocks differ (uses_block_index), the model of every block of a launch of
// `grid` blocks, each traced alone: per scenario step, the wavefronts, ideal and instructions
// summed over the blocks (the hardware's counters are that sum). Empty (and `why` set) when the
// launch is too large to model block by block (kMaxLaunchModelThreads) or a block fails to.
struct LaunchModel {
  std::vector<StepModel> steps;  // [scenario step]; active_warps and bytes left empty
  int64_t grid = 0;
  std::string why;
};
// Threads modelled at most for one launch model (grid x block threads).
inline constexpr int64_t kMaxLaunchModelThreads = int64_t{1} << 21;
LaunchModel model_of_launch(const Scenario& s, const Arch* arch, int64_t grid);

// Shared-pipe cycles one lesson block needs for one exposed launch, by the model: every memory
// step once and the measured one `reps` times (measure = -1: none), each costing its wavefronts,
// or its warp instructions where there are more (the pipe takes one instruction per cycle).
double block_cycles(const Scenario& s, const Analysis& a, int measure, int64_t reps);

// (cycles of one block, blocks one after the other on each SM, all SMs at once) -> ms.
double launch_ms(double block_cycles, int64_t blocks_per_sm, int clock_khz);

// [SECTION] Limits a kernel must meet before it is compiled ======================================

// Static __shared__ arrays are limited to 48 KB per block on every GPU.
inline constexpr int64_t kStaticSharedLimit = 48 * 1024;
// Why the kernel cannot run anywhere (its static tiles exceed 48 KB); nullopt when it can.
std::optional<std::string> static_shared_too_large(const KernelSource& k);
// Why the kernel cannot run on this device (block or shared memory too large); nullopt if it can.
std::optional<std::string> too_large_for(const Scenario& s, const KernelSource& k,
                                         const DeviceInfo& dev);

// [SECTION] One launch per warp mask: replicas, blocks per SM, grid ==============================

// Threads an SM holds at once on every GPU exposed mode targets (Volta to Hopper): the output
// buffer is sized for that many values per SM, whatever block shape a mask's launch takes.
inline constexpr int64_t kMaxThreadsPerSm = 2048;

// Bit w set for each of the lesson's `warps` warps.
uint32_t all_warps_mask(int64_t warps);
// Threads of a lesson block of `threads` threads that lie in the masked warps.
int64_t lanes_in(uint32_t mask, int64_t threads);

// How many blocks of the exposed kernel with `replicas` copies of the masked warps, in blocks of
// `block_threads` threads, one SM holds at once (the occupancy API's answer, at least 1); 0 when
// that kernel cannot be had (its tiles exceed a block's shared memory, or it failed to build).
using BlocksPerSm = std::function<int(int replicas, int64_t block_threads)>;

struct MaskLaunch {
  uint32_t lesson_warps = 0;  // bit w: the lesson's warp w runs
  int64_t lanes = 0;          // lesson threads in those warps (the last warp may be partial)
  int replicas = 1;           // copies of those warps per launched block
  int64_t block_threads = 0;  // replicas x lanes
  int blocks_per_sm = 0;
  int64_t grid = 0;  // blocks_per_sm blocks on every SM, all in one wave
};

// The launch for the lesson warps in `mask` of a lesson block of `lesson_threads` threads.
// Replicas: an SM holds at most 32 blocks, so blocks of one or two warps leave it with 32 or 64
// warps at most; the shared pipe needs about kFullWarps warps in flight to stay busy (measured,
// BENCHMARKS.md: one-warp blocks at 32 warps/SM ran 1.035-1.057x the model). k copies of the
// mask's warps per block (full warps only: the copies must line up on warp boundaries) raise
// that, within the thread, register and shared-memory limits `blocks_per_sm` applies. A big tile
// needs k times its shared memory, so the SM then holds fewer blocks: k is kept only where it
// adds warps per SM.
MaskLaunch plan_mask_launch(uint32_t mask, int64_t lesson_threads, const DeviceInfo& dev,
                            const BlocksPerSm& blocks_per_sm);

// Of the SM's 4 warp schedulers, how many hold one of `active` warps (indices in a block of
// warps_per_block warps) when `blocks` such blocks are resident: block b's warp w sits in warp
// slot b * warps_per_block + w and runs on scheduler slot % 4 (consistent with the H200 timings:
// 1- and 2-warp blocks spread over all 4 schedulers).
int schedulers_covered(const std::vector<int>& active, int warps_per_block, int blocks);

// [SECTION] One measured step: repeats, warps per SM, the watchdog's estimate ===================

struct StepPlan {
  int step = 0;
  int64_t instructions_per_block = 0;  // of the lesson block, once, every warp (0: not launched)
  MaskLaunch launch;                   // of the step's warps (Reference::step_warps)
  int64_t reps = 0;                    // repeats of the step in the measured launch
  int active_warps_per_sm = 0;         // launched warps x blocks per SM
  int schedulers = 0;
  bool shared_bound = false;  // at least kSharedBoundWarps warps per SM (run_types.h)
  double estimate_ms = 0;     // the model's time of the measured launch (the watchdog's test)
};

struct StepPlanInput {
  const Scenario& s;
  const Analysis& here;        // the scenario under the present GPU's model
  const Reference& ref;        // the exposed launch of every warp: step warps and instructions
  const DeviceInfo& dev;       // sm_count, clock_khz
  int64_t requested_reps = 0;  // RunOptions::reps (0: about 2 ms of shared-pipe time)
  double max_launch_ms = 2000;
};

// The measured launch of one memory step, with `launch` the launch of its warp mask
// (ref.step_warps[step]). Repeats: about 2 ms of shared-pipe time by the model (long against the
// launch overhead) and at most half of max_launch_ms with the other steps, 16 to 2^20, then
// rounded up to a multiple of kExposedLoadBatch (codegen.h: a measured load issues that many
// independent loads at a time). The estimate counts every warp of the lesson, an upper bound for
// a launch of fewer warps.
StepPlan plan_step(const StepPlanInput& in, int step, const MaskLaunch& launch);

// The model's time of the baseline launch of a mask (every step once).
double baseline_estimate_ms(const StepPlanInput& in, const MaskLaunch& launch);

// Why a launch would be refused by the watchdog (its estimate exceeds max_launch_ms): "not run:
// step 2 repeated 2097152 times would take about ..."; nullopt when it may run. measure = -1:
// the baseline launch.
std::optional<std::string> over_launch_limit(double estimate_ms, double max_launch_ms, int measure,
                                             int64_t reps);

// What one measured step's time says, against its mask's baseline launch:
//   cycles per instruction = (t_step - t_baseline) * clock
//                            / ((reps - 1) * instructions * replicas * blocks per SM)
// which cancels the launch overhead and the other steps (each ran once in both launches).
struct StepRate {
  double cycles_per_instruction = 0;
  double ratio = 0;  // against the model's wavefronts per instruction (0 when it has none)
  double bytes_per_clock_per_sm = 0;
};
StepRate step_rate(double step_ms, double baseline_ms, const StepPlan& p, const StepModel& m,
                   double predicted_cycles, int clock_khz);

// [SECTION] The prediction: cycles per warp instruction =========================================

// Exposed mode's prediction for one memory step: SM cycles per warp instruction (with an active
// lane) when the shared pipe sets the pace (64 warps per SM). Measured on an H100 (docs/COST.md):
//   - one cycle per wavefront for loads, stores, atomics, ldmatrix and stmatrix (within 1%);
//   - a load with an inactive lane: kPartialLoadCycles more per instruction (not per wavefront);
//   - any other step under a guard (loads, stores, atomics): kGuardedCycles more per instruction
//     (a full-mask guarded one-wavefront step took 1.016-1.031, the same unguarded 1.000-1.010);
//   - cp.async: copy_cycles(), paced by the copy below 4 wavefronts;
//   - a step the compiler made another instruction sequence of (`compiled`: a float atomicAdd's
//     compare-and-swap loop, CompiledStep::cas_loop): its wavefronts as compiled per instruction
//     as written, read from the model as compiled (compiled.h), not computed again here.
struct StepCost {
  double cycles = 0;  // per warp instruction; 0 when the step has none
  std::string rule;   // empty: one cycle per wavefront as written; else the rule it follows
};
StepCost predict_step_cost(const Analysis& a, int step, const CompiledStep* compiled);

// One warp-wide cp.async of `r.wavefronts` wavefronts (W), exposed at 64 warps per SM (H100,
// docs/COST.md): 2.22 cycles at W = 1 (3.09 where its lanes write more than 16 rows of 128
// bytes), 3.29 at W = 2, 3.41 at W = 3; from 4 up W + 0.45, and 0.15 more for each global pass
// after the first (core/access.h copy_global_passes()).
double copy_cycles(const WarpAccess& a, const AccessResult& r);
inline constexpr double kPartialLoadCycles = 0.026;
inline constexpr double kGuardedCycles = 0.019;

}  // namespace bankviz::detail
