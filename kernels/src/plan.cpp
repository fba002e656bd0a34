// plan.cpp: the exposed-mode plan (plan.h): pure arithmetic, no CUDA.
//
// [SECTION] The model's numbers for one step
// [SECTION] Limits a kernel must meet before it is compiled
// [SECTION] One launch per warp mask
// [SECTION] One measured step
// [SECTION] The prediction: cycles per warp instruction
#include "plan.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "bankviz/arch.h"
#include "explain.h"

namespace bankviz {

// The arch.h id whose rules describe a GPU of this compute capability (run_types.h).
std::string model_arch_for(int cc_major, int cc_minor) {
  (void)cc_minor;
  if (cc_major == 9) return "hopper";
  if (cc_major >= 5) return "maxwell";  // Maxwell to Ada, and newer chips by the published rules
  if (cc_major == 3) return "kepler4";  // the default bank size
  if (cc_major == 2) return "fermi";
  return "cc1x";
}

double estimate_exposed_launch_ms(const Scenario& s, int measure, int64_t reps, int blocks_per_sm,
                                  int clock_khz) {
  AnalysisResult a = analyze(s);
  if (!a.analysis || clock_khz <= 0) return -1;
  return detail::launch_ms(detail::block_cycles(s, *a.analysis, measure, reps), blocks_per_sm,
                           clock_khz);
}

namespace detail {

// [SECTION] The model's numbers for one step ====================================================

StepModel model_of_step(const Analysis& a, int step) {
  StepModel m;
  for (size_t e = 0; e < a.steps.size(); ++e) {
    if (a.steps[e].step != step) continue;
    for (const WarpStep& ws : a.warps[e]) {
      if (ws.access.mask == 0) continue;
      m.wavefronts += ws.result.wavefronts;
      m.ideal += ws.result.ideal;
      ++m.instructions;
      if (std::find(m.active_warps.begin(), m.active_warps.end(), ws.warp) == m.active_warps.end())
        m.active_warps.push_back(ws.warp);
      m.bytes += int64_t{std::popcount(ws.access.mask)} * ws.access.width;
    }
  }
  return m;
}

LaunchModel model_of_launch(const Scenario& s, const Arch* arch, int64_t grid) {
  LaunchModel lm;
  lm.grid = grid;
  if (grid <= 0 || grid > kMaxLaunchModelThreads / std::max<int64_t>(1, s.threads())) {
    lm.why = "the launch (" + std::to_string(grid) + " blocks of " + std::to_string(s.threads()) +
             " threads) is too large to model block by block";
    return lm;
  }
  std::vector<StepModel> sum(s.steps.size());
  for (int64_t b = 0; b < grid; ++b) {
    TraceOptions o;
    o.block_index = b;
    o.grid = grid;
    const AnalysisResult a = analyze(s, arch, o);
    if (!a.analysis) {
      lm.why = "block " + std::to_string(b) + ": " + format_errors(a.errors);
      return lm;
    }
    for (size_t i = 0; i < s.steps.size(); ++i) {
      if (!s.steps[i].is_memory()) continue;
      const StepModel m = model_of_step(*a.analysis, static_cast<int>(i));
      sum[i].wavefronts += m.wavefronts;
      sum[i].ideal += m.ideal;
      sum[i].instructions += m.instructions;
    }
  }
  lm.steps = std::move(sum);
  return lm;
}

double block_cycles(const Scenario& s, const Analysis& a, int measure, int64_t reps) {
  double cycles = 0;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    if (!s.steps[i].is_memory()) continue;
    const StepModel m = model_of_step(a, static_cast<int>(i));
    cycles += double(std::max(m.wavefronts, m.instructions)) *
              (static_cast<int>(i) == measure ? double(reps) : 1.0);
  }
  return cycles;
}

double launch_ms(double block_cycles, int64_t blocks_per_sm, int clock_khz) {
  return block_cycles * double(std::max<int64_t>(blocks_per_sm, 1)) / clock_khz;
}

// [SECTION] Limits a kernel must meet before it is compiled ======================================

std::optional<std::string> static_shared_too_large(const KernelSource& k) {
  if (k.static_shared_bytes <= kStaticSharedLimit) return std::nullopt;
  return "the static __shared__ tiles take " + std::to_string(k.static_shared_bytes) +
         " bytes; static shared memory is limited to 48 KB (49152 bytes) per block. "
         "Declare the tile extern __shared__ (dynamic) to go beyond it, up to the "
         "device's opt-in limit (232448 bytes on an H100/H200)";
}

std::optional<std::string> too_large_for(const Scenario& s, const KernelSource& k,
                                         const DeviceInfo& dev) {
  if (s.threads() > dev.max_threads_per_block)
    return "the block has " + std::to_string(s.threads()) + " threads; " + dev.name +
           " allows at most " + std::to_string(dev.max_threads_per_block);
  const int64_t total_shared = k.static_shared_bytes + k.dynamic_shared_bytes;
  if (total_shared > dev.shared_per_block_optin)
    return "the tiles need " + std::to_string(total_shared) + " bytes of shared memory; " +
           dev.name + " allows at most " + std::to_string(dev.shared_per_block_optin) +
           " bytes per block (" + std::to_string(dev.shared_per_block_optin / 1024) +
           " KB, with cudaFuncAttributeMaxDynamicSharedMemorySize)";
  return std::nullopt;
}

// [SECTION] One launch per warp mask =============================================================

uint32_t all_warps_mask(int64_t warps) {
  return warps >= 32 ? ~0u : (1u << warps) - 1u;
}

int64_t lanes_in(uint32_t mask, int64_t threads) {
  int64_t n = 0;
  for (int64_t t = 0; t < threads; ++t) n += (mask >> (t / 32)) & 1u;
  return n;
}

MaskLaunch plan_mask_launch(uint32_t mask, int64_t lesson_threads, const DeviceInfo& dev,
                            const BlocksPerSm& blocks_per_sm) {
  MaskLaunch l;
  l.lesson_warps = mask;
  l.lanes = lanes_in(mask, lesson_threads);
  l.block_threads = l.lanes;
  l.blocks_per_sm = std::max(blocks_per_sm(1, l.lanes), 1);
  const int w = std::popcount(mask);
  if (l.lanes == int64_t{32} * w && l.blocks_per_sm * w < kFullWarps) {
    for (int copies = 2; int64_t{32} * w * copies <= dev.max_threads_per_block &&
                         l.blocks_per_sm * l.replicas * w < kFullWarps;
         ++copies) {
      const int per = blocks_per_sm(copies, l.lanes * copies);
      if (per <= 0) break;  // no kernel with that many copies: more need even more shared memory
      if (per * copies <= l.blocks_per_sm * l.replicas) break;  // shared memory or threads bind
      l.replicas = copies;
      l.blocks_per_sm = per;
      l.block_threads = l.lanes * copies;
    }
  }
  l.grid = int64_t{l.blocks_per_sm} * dev.sm_count;
  return l;
}

int schedulers_covered(const std::vector<int>& active, int warps_per_block, int blocks) {
  unsigned seen = 0;
  for (int b = 0; b < std::max(blocks, 1); ++b)
    for (int w : active) seen |= 1u << ((int64_t{b} * warps_per_block + w) % 4);
  return std::popcount(seen);
}

// [SECTION] One measured step ====================================================================

StepPlan plan_step(const StepPlanInput& in, int step, const MaskLaunch& launch) {
  StepPlan p;
  p.step = step;
  p.instructions_per_block = in.ref.step_instructions[static_cast<size_t>(step)];
  p.launch = launch;
  if (p.instructions_per_block == 0) return p;
  const int per_sm = launch.blocks_per_sm;
  const int k = launch.replicas;
  const double clock_khz = in.dev.clock_khz;
  const StepModel m = model_of_step(in.here, step);
  // At most 2^24 (the CLI's limit): the exposed ldmatrix's opaque zero needs reps < 2^30.
  int64_t reps = std::min<int64_t>(in.requested_reps, int64_t{1} << 24);
  if (reps <= 0) {
    // About 2 ms of shared-pipe time by the model: long against the launch overhead.
    const double per_rep =
        std::max<double>(double(m.wavefronts), double(p.instructions_per_block)) * per_sm * k;
    reps =
        std::clamp<int64_t>(static_cast<int64_t>(2e-3 * clock_khz * 1000.0 / per_rep), 16, 1 << 20);
    // Within half the watchdog's limit even where the other steps' loops are long.
    const double other = block_cycles(in.s, in.here, -1, 1) * per_sm * k;
    const double fit = (in.max_launch_ms * 0.5 * clock_khz - other) / std::max(per_rep, 1.0);
    reps = static_cast<int64_t>(std::clamp(std::min(double(reps), fit), 16.0, double(1 << 20)));
  }
  p.reps = (reps + kExposedLoadBatch - 1) / kExposedLoadBatch * kExposedLoadBatch;
  // Warps of the SM that execute the step: every launched warp of every resident block.
  const int launched_warps = std::popcount(launch.lesson_warps) * k;
  std::vector<int> launched(static_cast<size_t>(launched_warps));
  for (int w = 0; w < launched_warps; ++w) launched[static_cast<size_t>(w)] = w;
  p.active_warps_per_sm = launched_warps * per_sm;
  p.schedulers = schedulers_covered(launched, launched_warps, per_sm);
  p.shared_bound = p.active_warps_per_sm >= kSharedBoundWarps;
  p.estimate_ms =
      launch_ms(block_cycles(in.s, in.here, step, p.reps), int64_t{per_sm} * k, in.dev.clock_khz);
  return p;
}

double baseline_estimate_ms(const StepPlanInput& in, const MaskLaunch& launch) {
  return launch_ms(block_cycles(in.s, in.here, -1, 1),
                   int64_t{launch.blocks_per_sm} * launch.replicas, in.dev.clock_khz);
}

std::optional<std::string> over_launch_limit(double estimate_ms, double max_launch_ms, int measure,
                                             int64_t reps) {
  if (estimate_ms <= max_launch_ms) return std::nullopt;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "%.0f ms per launch by the model, over the %.0f ms limit",
                estimate_ms, max_launch_ms);
  return std::string("not run: ") +
         (measure < 0 ? "every step once (its loops included)"
                      : "step " + std::to_string(measure) + " repeated " + std::to_string(reps) +
                            " times") +
         " would take about " + buf + "; use fewer repeats or a smaller loop";
}

StepRate step_rate(double step_ms, double baseline_ms, const StepPlan& p, const StepModel& m,
                   double predicted_cycles, int clock_khz) {
  const int per_sm = p.launch.blocks_per_sm;
  const int k = p.launch.replicas;
  StepRate r;
  const double cycles = (step_ms - baseline_ms) * 1e-3 * (double(clock_khz) * 1000.0);
  const double issued = double(p.reps - 1) * double(p.instructions_per_block) * k * per_sm;
  r.cycles_per_instruction = cycles / issued;
  r.ratio = predicted_cycles > 0 ? r.cycles_per_instruction / predicted_cycles : 0;
  r.bytes_per_clock_per_sm = double(p.reps - 1) * double(m.bytes) * k * per_sm / cycles;
  return r;
}

// [SECTION] The prediction: cycles per warp instruction =========================================

double copy_cycles(const WarpAccess& a, const AccessResult& r) {
  // Below 4 wavefronts, measured (cpcost-4/8/16, floor-*: tests/data/cost/cpasync.txt).
  constexpr double kFloor[] = {0, 2.22, 3.29, 3.41};
  constexpr double kSpreadFloor = 3.09;  // W = 1 over more than kSpreadRows rows
  constexpr int kSpreadRows = 16;
  constexpr double kPerInstruction = 0.45, kPerPass = 0.15;
  const int w = r.wavefronts;
  if (w <= 0) return 0;
  if (w == 1) {
    uint32_t rows[kWarpSize];
    int n = 0;
    for (uint32_t rest = a.mask; rest; rest &= rest - 1) {
      const uint32_t row = a.addr[static_cast<size_t>(std::countr_zero(rest))] / 128;
      if (std::find(rows, rows + n, row) == rows + n) rows[n++] = row;
    }
    return n > kSpreadRows ? kSpreadFloor : kFloor[1];
  }
  if (w < 4) return kFloor[w];
  return w + kPerInstruction + kPerPass * std::max(0, copy_global_passes(a) - 1);
}

StepCost predict_step_cost(const Analysis& a, int step, const CompiledStep* compiled) {
  StepCost c;
  double sum = 0;
  int64_t n = 0;
  bool copy = false, partial = false;
  for (size_t e = 0; e < a.steps.size(); ++e) {
    if (a.steps[e].step != step) continue;
    for (const WarpStep& ws : a.warps[e]) {
      if (ws.access.mask == 0) continue;
      ++n;
      if (a.steps[e].kind == StepKind::CpAsync) {
        copy = true;
        sum += copy_cycles(ws.access, ws.result);
      } else if (a.step_op(static_cast<int>(e)).op == Op::Load && ws.access.mask != ~0u) {
        partial = true;
        sum += ws.result.wavefronts + kPartialLoadCycles;
      } else {
        sum += ws.result.wavefronts;
      }
    }
  }
  if (n == 0) return c;
  if (compiled && compiled->cas_loop && compiled->written_instructions > 0) {
    c.cycles = double(compiled->wavefronts) / double(compiled->written_instructions);
    c.rule = std::string("as compiled: ") + compiled->reason;
    return c;
  }
  c.cycles = sum / double(n);
  const bool guarded = !copy && !partial && static_cast<size_t>(step) < a.scenario.steps.size() &&
                       !a.scenario.steps[static_cast<size_t>(step)].guard.empty();
  if (guarded) {
    c.cycles += kGuardedCycles;
    c.rule = "a step under a guard: 0.019 cycles more per instruction";
  }
  if (copy)
    c.rule =
        "cp.async: the copy's cost per instruction (paced by its global side below 4 "
        "wavefronts)";
  else if (partial)
    c.rule = "a load with inactive lanes: 0.026 cycles more per instruction";
  return c;
}

}  // namespace detail
}  // namespace bankviz
