// measure.cpp: loading kernels, and the written and exposed measurements (measure.h).
//
// [SECTION] Loading kernels into the context
// [SECTION] Written mode: the lesson's launch
// [SECTION] Exposed mode: shared memory as the bottleneck
//
// Measurement (exposed mode): every SM holds as many blocks as fit (the occupancy API says how
// many), all launched in one wave, so each SM does the same work. The measured step repeats R
// times; a baseline launch runs every step once. SM cycles per warp-wide instruction are
//   (t_step - t_baseline) * clock / ((R - 1) * instructions of the step per block * blocks per SM)
// which cancels launch overhead and the other steps (plan.h, step_rate()). Time is the best of
// several runs, as HARDWARE.md measured it (1.006 cycles per wavefront on an H200).
#include "measure.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <optional>

#include "bankviz/analysis.h"
#include "bankviz/arch.h"
#include "bankviz/compiled.h"
#include "explain.h"
#include "plan.h"
#include "timing.h"

namespace bankviz::detail {

// [SECTION] Loading kernels into the context =====================================================

void ModelCache::key(const Scenario& s, const std::string& arch_id) {
  std::string key = arch_id + '\n';
  key += scenario_to_json(s);
  if (key == key_) return;
  key_ = std::move(key);
  value_.reset();
  launches_.clear();
}

const AnalysisResult& ModelCache::get(const Scenario& s, const std::string& arch_id) {
  key(s, arch_id);
  if (!value_) value_ = analyze(s, find_arch(arch_id));
  return *value_;
}

const LaunchModel& ModelCache::launch(const Scenario& s, const std::string& arch_id, int64_t grid) {
  key(s, arch_id);
  auto it = launches_.find(grid);
  if (it == launches_.end())
    it = launches_.emplace(grid, model_of_launch(s, find_arch(arch_id), grid)).first;
  return it->second;
}

KernelFunction Session::load(const KernelSource& k, const Compiled& c) {
  const Driver& d = driver();
  KernelFunction f;
  f.dyn = k.dynamic_shared_bytes;
  auto failed = [&](CUresult r, const char* call) {
    f.fn = nullptr;
    f.result = r;
    f.call = call;
    return f;
  };
  CUmodule m = nullptr;
  if (CUresult r = modules.get(cache_key(dev.sm, k), c, &m, &f.cached); r != CUDA_SUCCESS)
    return failed(r, "cuModuleLoadData");
  CUfunction fn = nullptr;
  if (CUresult r = d.cuModuleGetFunction_(&fn, m, c.lowered.c_str()); r != CUDA_SUCCESS)
    return failed(r, "cuModuleGetFunction");
  if (k.dynamic_shared_bytes > dev.shared_per_block) {
    // Above 48 KB a block must opt in to more dynamic shared memory.
    if (CUresult r = d.cuFuncSetAttribute_(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(k.dynamic_shared_bytes));
        r != CUDA_SUCCESS) {
      f.opt_in_refused = true;
      return failed(r, "cuFuncSetAttribute");
    }
  }
  f.fn = fn;
  return f;
}

const KernelFunction& Session::replica_kernel(int copies) {
  if (copies == 1) return kernel;
  if (auto it = replicas_.find(copies); it != replicas_.end()) return it->second;
  KernelFunction& f = replicas_[copies];
  const GenerateResult g = generate_kernel(s, RunMode::Exposed, copies);
  // Static __shared__ is limited to 48 KB per block; all of it to the opt-in limit.
  if (!g.kernel || static_shared_too_large(*g.kernel) ||
      g.kernel->static_shared_bytes + g.kernel->dynamic_shared_bytes > dev.shared_per_block_optin)
    return f;
  const auto t0 = std::chrono::steady_clock::now();
  const CompileOutcome c = compile(*g.kernel, dev.sm);
  res.compile_ms += c.ms;
  t_run += std::chrono::steady_clock::now() - t0;  // run_ms leaves the compiler out
  // A replica that cannot be loaded is one the plan does without (fewer copies per block).
  if (c.compiled) f = load(*g.kernel, *c.compiled);
  return f;
}

// [SECTION] Written mode: the lesson's launch ====================================================

void measure_written(Session& run, const Reference& ref) {
  const Scenario& s = run.s;
  Launcher& L = run.launcher;
  const int64_t grid = s.grid;
  std::vector<uint32_t> host(static_cast<size_t>(grid * s.threads()));
  L.set_shape({run.kernel.fn,
               {s.block[0], s.block[1], s.block[2]},
               static_cast<unsigned>(run.kernel.dyn),
               0});
  if (!L.prepare(host.size(), kernel_input(s))) return;
  if (!L.run_once(grid, -1, 1, host)) return;
  RunResult& res = run.res;
  res.verification = verify_output(ref, host, s.block);
  res.written.grid = grid;
  res.written.launches = std::max(1, run.o.written_launches);
  if (run.o.warmup) L.timed(grid, -1, 1, res.written.launches);
  std::vector<double> per_launch, single;
  for (int r = 0; r < std::max(1, run.o.timing_runs) && L.ok(); ++r) {
    per_launch.push_back(L.timed(grid, -1, 1, res.written.launches) * 1000.0 /
                         res.written.launches);
    single.push_back(L.timed(grid, -1, 1, 1) * 1000.0);
  }
  res.written.us_per_launch = median(per_launch);
  res.written.us_single = median(single);
}

// [SECTION] Exposed mode: shared memory as the bottleneck ========================================

namespace {

// One warp mask's launch as carried out: the plan, the kernel with its replicas, the baseline.
struct MaskRun {
  MaskLaunch launch;
  KernelFunction kernel;
  double base_ms = 0;
  int base_launch = -1;
};

// The first mismatch of a run is the one it reports, named by the launch that found it.
void note_mismatch(Verification& all, const Verification& v, const std::string& what) {
  if (v.status == VerifyStatus::Mismatch && all.status != VerifyStatus::Mismatch) {
    all = v;
    all.summary = what + ": " + v.summary;
  }
}

// The best of `runs` timings (after one untimed warm-up launch when asked); `last` gets the
// index of the last timed launch (for matching ncu's counters).
double best_time(Launcher& L, int64_t grid, int measure, int reps, const RunOptions& o, int* last) {
  if (o.warmup) L.timed(grid, measure, reps, 1);
  double best = 1e30;
  for (int r = 0; r < std::max(1, o.timing_runs) && L.ok(); ++r) {
    best = std::min(best, L.timed(grid, measure, reps, 1));
    *last = L.launches() - 1;
  }
  return best;
}

// A step's plan and its mask's baseline, as the result's row shows them.
void plan_into_row(StepTiming& row, const StepPlan& p, const MaskRun& c) {
  row.reps = p.reps;
  row.grid = p.launch.grid;
  row.blocks_per_sm = p.launch.blocks_per_sm;
  row.block_threads = static_cast<int>(p.launch.block_threads);
  row.lesson_warps = p.launch.lesson_warps;
  row.replicas = p.launch.replicas;
  row.baseline_ms = c.base_ms;
  row.baseline_launch = c.base_launch;
  row.active_warps_per_sm = p.active_warps_per_sm;
  row.schedulers = p.schedulers;
  row.shared_bound = p.shared_bound;
}

// Exposed mode's prediction for every step (plan.h predict_step_cost()). Where the scenario has
// an atomic, the model as compiled (compiled.h) says which steps the compiler made a
// compare-and-swap loop of; without the toolkit's nvdisasm the prediction stays as written and
// the row says why.
std::vector<StepCost> predictions(const Scenario& s, const Analysis& here, const DeviceInfo& dev) {
  bool atomic = false;
  for (const Step& st : s.steps) atomic |= st.kind == StepKind::Atomic;
  AsCompiled compiled;
  if (atomic) compiled = as_compiled(s, find_arch(dev.model_arch));
  std::vector<StepCost> out(s.steps.size());
  for (size_t i = 0; i < s.steps.size(); ++i) {
    if (!s.steps[i].is_memory()) continue;
    const CompiledStep* c = nullptr;
    for (const CompiledStep& x : compiled.steps)
      if (x.step == static_cast<int>(i)) c = &x;
    out[i] = predict_step_cost(here, static_cast<int>(i), c);
    if (atomic && !compiled.error.empty() && s.steps[i].kind == StepKind::Atomic)
      out[i].rule =
          std::string("as written (the model as compiled is unavailable: ") + compiled.error + ')';
  }
  return out;
}

}  // namespace

void measure_exposed(Session& run) {
  const Scenario& s = run.s;
  const RunOptions& o = run.o;
  const DeviceInfo& dev = run.dev;
  RunResult& res = run.res;
  Launcher& L = run.launcher;
  const int64_t threads = s.threads();
  const uint32_t all_warps = all_warps_mask(s.warps());
  const int64_t lesson_grid = uses_block_index(s) ? std::max<int64_t>(1, s.grid) : 0;

  // The lesson's block, as many per SM as fit, on every SM.
  const int per_sm = L.blocks_per_sm(run.kernel.fn, threads, run.kernel.dyn);
  const int64_t grid = int64_t{per_sm} * dev.sm_count;
  res.exposed.blocks_per_sm = per_sm;
  res.exposed.grid = grid;
  // Launches of fewer warps hold more blocks; none holds more threads than an SM can.
  std::vector<uint32_t> host(
      static_cast<size_t>(std::max<int64_t>(grid * threads, dev.sm_count * kMaxThreadsPerSm)));
  L.prepare(host.size(), kernel_input(s));
  if (!L.ok()) return;

  // The model for the GPU that runs it, the scenario's own, and the CPU's outputs of a launch of
  // every warp (its step warps and instructions are the plan's input).
  const AnalysisResult& here = run.model_here();
  std::optional<AnalysisResult> other;  // the scenario's own rules, where they are not the GPU's
  if (s.arch != dev.model_arch) other = analyze(s);
  const AnalysisResult& own = other ? *other : here;
  if (!here.analysis || !own.analysis) {
    res.status = RunStatus::BadScenario;
    res.message = format_errors(here.analysis ? own.errors : here.errors);
    return;
  }
  ReferenceOptions bo;
  bo.grid = grid;
  bo.lesson_grid = lesson_grid;
  const ReferenceResult bref = evaluate_reference(s, bo);
  if (!bref.ref) {
    res.status = RunStatus::BadScenario;
    res.message = format_errors(bref.errors);
    return;
  }
  const StepPlanInput in{s, *here.analysis, *bref.ref, dev, o.reps, o.max_launch_ms};
  const std::vector<StepCost> cost = predictions(s, *here.analysis, dev);

  // One launch per warp mask, set up on first use: planned, verified, its baseline timed.
  std::map<uint32_t, MaskRun> masks;
  Verification all;
  auto use = [&](const MaskRun& m) {
    L.set_shape({m.kernel.fn,
                 {m.launch.block_threads, 1, 1},
                 static_cast<unsigned>(m.kernel.dyn),
                 m.launch.lesson_warps});
    host.resize(static_cast<size_t>(m.launch.grid * m.launch.block_threads));
  };
  auto mask_run = [&](uint32_t mask) -> const MaskRun* {
    if (auto it = masks.find(mask); it != masks.end()) {
      use(it->second);
      return &it->second;
    }
    MaskRun& c = masks[mask];
    c.launch = plan_mask_launch(mask, threads, dev, [&](int copies, int64_t block_threads) {
      if (copies == 1 && mask == all_warps) return per_sm;
      const KernelFunction& f = run.replica_kernel(copies);
      return f.fn ? L.blocks_per_sm(f.fn, block_threads, f.dyn) : 0;
    });
    c.kernel = run.replica_kernel(c.launch.replicas);
    use(c);
    if (!L.ok()) return nullptr;
    if (auto why = over_launch_limit(baseline_estimate_ms(in, c.launch), o.max_launch_ms, -1, 1)) {
      res.status = RunStatus::Timeout;
      res.message = *why;
      return nullptr;
    }
    if (!L.run_once(c.launch.grid, -1, 1, host)) return nullptr;
    if (mask == all_warps && c.launch.replicas == 1) {
      all = verify_output(*bref.ref, host, s.block);
    } else {
      ReferenceOptions ro;
      ro.grid = c.launch.grid;
      ro.lesson_grid = lesson_grid;
      ro.warps = mask;
      ro.replicas = c.launch.replicas;
      if (ReferenceResult r = evaluate_reference(s, ro); r.ref) {
        char what[80];
        std::snprintf(what, sizeof(what), "warps 0x%x x %d, every step once", mask,
                      c.launch.replicas);
        const Verification v = verify_output(*r.ref, host, s.block);
        if (mask == all_warps) all = v;
        note_mismatch(all, v, what);
      }
    }
    c.base_ms = best_time(L, c.launch.grid, -1, 1, o, &c.base_launch);
    return &c;
  };
  const MaskRun* full = mask_run(all_warps);
  if (!full) return;
  res.exposed.baseline_ms = full->base_ms;
  res.exposed.grid = full->launch.grid;  // with replicas when the lesson has only one or two warps
  res.exposed.blocks_per_sm = full->launch.blocks_per_sm;

  for (size_t si = 0; si < s.steps.size() && L.ok(); ++si) {
    const Step& st = s.steps[si];
    if (!st.is_memory()) continue;
    const int step = static_cast<int>(si);
    const StepModel m = model_of_step(*here.analysis, step);
    const StepModel mine = model_of_step(*own.analysis, step);
    StepTiming row;
    row.step = step;
    row.label = step_label(st);
    row.kind = step_kind_name(st.kind);
    row.instructions_per_block = bref.ref->step_instructions[si];
    row.model_wavefronts = m.instructions ? double(m.wavefronts) / m.instructions : 0;
    row.scenario_wavefronts = mine.instructions ? double(mine.wavefronts) / mine.instructions : 0;
    if (row.instructions_per_block == 0) {
      res.exposed.steps.push_back(row);
      continue;
    }
    const MaskRun* c = mask_run(bref.ref->step_warps[si]);
    if (!c) break;
    const StepPlan p = plan_step(in, step, c->launch);
    plan_into_row(row, p, *c);
    row.copy_bound = st.info().from_global && row.model_wavefronts < kCopyCycles;
    row.predicted_cycles = cost[si].cycles;
    row.prediction = cost[si].rule;
    if (auto why = over_launch_limit(p.estimate_ms, o.max_launch_ms, step, p.reps)) {
      res.status = RunStatus::Timeout;
      res.message = *why;
      break;
    }
    ReferenceOptions mo;
    mo.grid = p.launch.grid;
    mo.lesson_grid = lesson_grid;
    mo.measure = step;
    mo.reps = p.reps;
    mo.warps = p.launch.lesson_warps;
    mo.replicas = p.launch.replicas;
    const ReferenceResult mref = evaluate_reference(s, mo);
    if (!L.run_once(p.launch.grid, step, static_cast<int>(p.reps), host)) break;
    if (mref.ref)
      note_mismatch(all, verify_output(*mref.ref, host, s.block),
                    "step " + std::to_string(step) + " repeated");
    row.ms = best_time(L, p.launch.grid, step, static_cast<int>(p.reps), o, &row.measured_launch);
    const StepRate rate = step_rate(row.ms, c->base_ms, p, m, row.predicted_cycles, dev.clock_khz);
    row.cycles_per_instruction = rate.cycles_per_instruction;
    row.ratio = rate.ratio;
    row.bytes_per_clock_per_sm = rate.bytes_per_clock_per_sm;
    res.exposed.steps.push_back(row);
  }
  res.verification = all;
}

}  // namespace bankviz::detail
