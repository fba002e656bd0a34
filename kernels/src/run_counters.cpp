// run_counters.cpp: a run's hardware counters beside the model (run_counters.h).
#include "run_counters.h"

#include "bankviz/analysis.h"
#include "bankviz/arch.h"
#include "bankviz/trace.h"
#include "plan.h"
#include "timing.h"

namespace bankviz::detail {

namespace {

// The measured step repeated kRepsHigh and kRepsLow times: the difference is the step
// kRepsHigh - kRepsLow times, whatever the rest of the kernel does (loads repeat in groups of 16,
// codegen.h). The L1 unit's wavefront counters (what Nsight Compute's tables show) also count
// wavefronts that no instruction of the kernel asked for, a different number in every launch
// (ncu on an H100, 2026-11-23: 17 to 2,346 in six launches of the same 1056-block kernel, whose
// per-instruction counts had none), so the difference must be large enough to drown them:
// with 16 repeats float4-rows-and-broadcasts' broadcast counted 16.19 wavefronts for the
// model's 16 (1.2%); with 256 every step of every preset is within 0.13% (docs/COUNTERS.md),
// for no measurable cost (the counters of a cached exposed run of matmul-tile32 took 59-132 ms
// either way, the analysis then included).
constexpr int kRepsLow = 16, kRepsHigh = 16 + 256;

// Whether the range profiler stays enabled on the runner's context between runs. Measured on an
// H100 (2026-11-22, matmul-tile32 written, cached): 14 ms of counters per run kept enabled,
// 150 ms when it is disabled after each read (re-enabling makes the next passes slow again);
// the next run's timing was not disturbed (4.20 us per launch before, 4.04 after). Reused only
// for batches of the same size (CounterSession::collect): the app, which alternates exposed
// and written runs, re-enables it each time.
constexpr bool kKeepProfilerEnabled = true;

}  // namespace

void read_run_counters(Session& run, CUcontext ctx, std::unique_ptr<CounterSession>& session) {
  RunResult& res = run.res;
  const auto t0 = std::chrono::steady_clock::now();
  const Scenario& s = run.s;
  Launcher& L = run.launcher;
  if (!session) {
    // Wavefronts and instructions only: two replay passes on an H100, where all fourteen take
    // three.
    static const std::vector<std::string> kRunMetrics = {
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
        "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
        "smsp__inst_executed_op_shared_atom.sum",
        // ldmatrix / stmatrix / cp.async steps (their wavefronts are in op_ld and op_st; a
        // cp.async is compared by its bank conflicts, CounterComparison::conflicts)
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
        "smsp__inst_executed_op_ldsm.sum", "smsp__inst_executed_op_shared_stsm.sum",
        "smsp__inst_executed_op_ldgsts.sum"};
    session = std::make_unique<CounterSession>(ctx, 0, kKeepProfilerEnabled, &kRunMetrics);
  }
  auto failed = [&](CounterStatus st, const std::string& why) {
    res.counters = st;
    res.counters_message = counter_problem(st, why);
    res.counters_ms = ms_since(t0);
  };
  if (!session->ok()) {
    failed(session->status(), session->message());
    session.reset();  // tried again next run (the permission may have changed)
    return;
  }
  const AnalysisResult& here = run.model_here();
  if (!here.analysis) return failed(CounterStatus::Failed, "the model could not analyze it");
  const Analysis& a = *here.analysis;
  // The analysis is block 0's; where blocks differ, the counters are compared with the model of
  // every block of the launch (model_of_launch) where that is not too large.
  // Exposed mode: every launched block plays the lesson's block 0 (codegen.h), so block 0's model.
  const bool blocks_differ = uses_block_index(s) && res.mode == RunMode::Written;

  // The launches, each a range: (shape, grid, measure, reps).
  struct Shot {
    LaunchShape shape;
    int64_t grid;
    int measure, reps;
  };
  std::vector<Shot> shots;
  if (res.mode == RunMode::Written) {
    shots.push_back({{run.kernel.fn,
                      {s.block[0], s.block[1], s.block[2]},
                      static_cast<unsigned>(run.kernel.dyn),
                      0},
                     s.grid,
                     -1,
                     1});
  } else {
    for (const StepTiming& row : res.exposed.steps) {
      if (row.reps == 0 || row.grid == 0) continue;
      const KernelFunction& f = run.replica_kernel(row.replicas);
      if (!f.fn) continue;
      const LaunchShape shape{
          f.fn, {row.block_threads, 1, 1}, static_cast<unsigned>(f.dyn), row.lesson_warps};
      shots.push_back({shape, row.grid, row.step, kRepsLow});
      shots.push_back({shape, row.grid, row.step, kRepsHigh});
    }
  }
  if (shots.empty()) return failed(CounterStatus::Failed, "no launch to read");
  std::vector<SharedCounters> got;
  const bool ok = session->collect(
      shots.size(),
      [&](size_t i) {
        L.set_shape(shots[i].shape);
        return L.timed(shots[i].grid, shots[i].measure, shots[i].reps, 1) >= 0;
      },
      [] { return true; },  // timed() waited for the launch's event
      got);
  if (!ok || got.size() != shots.size()) {
    if (!L.ok()) return;  // the launch failed: the run's status says so
    const CounterStatus st = session->ok() ? CounterStatus::Failed : session->status();
    const std::string why = session->ok()
                                ? "CUPTI returned " + std::to_string(got.size()) + " ranges for " +
                                      std::to_string(shots.size()) + " launches"
                                : session->message();
    session.reset();
    return failed(st, why);
  }

  if (res.mode == RunMode::Written) {
    const SharedCounters& c = got[0];
    CounterComparison& hw = res.written.hw;
    const double blocks = static_cast<double>(std::max<int64_t>(1, s.grid));
    hw.read = true;
    // cp.async's shared write is in no op_ counter (kinds.h, wavefront_counter): the kernel's
    // wavefronts are the other steps' (the model's below leave those steps out too; their
    // instructions count).
    hw.hw_wavefronts = double(c.wavefronts_ld + c.wavefronts_st + c.wavefronts_atom) / blocks;
    hw.hw_instructions =
        double(c.inst_ld + c.inst_st + c.inst_atom + c.inst_ldsm + c.inst_stsm + c.inst_ldgsts) /
        blocks;
    // Blocks that differ: the model of every block of the launch, averaged like the counters.
    const LaunchModel* lm = blocks_differ ? &run.launch_model_here(s.grid) : nullptr;
    if (lm && lm->steps.empty()) lm = nullptr;  // too large to model block by block
    for (size_t si = 0; si < s.steps.size(); ++si) {
      if (!s.steps[si].is_memory()) continue;
      const StepModel m = lm ? lm->steps[si] : model_of_step(a, static_cast<int>(si));
      const double per = lm ? blocks : 1.0;
      if (!s.steps[si].info().wavefront_counter.empty())
        hw.model_wavefronts += double(m.wavefronts) / per;
      hw.model_instructions += double(m.instructions) / per;
    }
    hw.model_block0_only = blocks_differ && !lm;
    hw.model_blocks = lm ? lm->grid : 0;
    hw.launch_blocks = std::max<int64_t>(1, s.grid);
  } else {
    size_t k = 0;
    for (StepTiming& row : res.exposed.steps) {
      if (row.reps == 0 || row.grid == 0 || !run.replica_kernel(row.replicas).fn) continue;
      const SharedCounters c = got[k + 1] - got[k];
      k += 2;
      const Op op = compiled_op(s, row.step, *a.arch).op;
      const double copies = double(row.grid) * row.replicas * (kRepsHigh - kRepsLow);
      // Blocks that differ: the model of every block of this step's launch (its blockIdx and
      // gridDim are the launch's), averaged like the counters.
      const LaunchModel* lm = blocks_differ ? &run.launch_model_here(row.grid) : nullptr;
      if (lm && lm->steps.empty()) lm = nullptr;  // too large to model block by block
      const StepModel m =
          lm ? lm->steps[static_cast<size_t>(row.step)] : model_of_step(a, row.step);
      const double per = lm ? double(row.grid) : 1.0;
      row.hw.read = true;
      row.hw.conflicts = op == Op::CpAsync;
      row.hw.hw_wavefronts =
          double(row.hw.conflicts ? op_conflicts(c, op) : op_wavefronts(c, op)) / copies;
      row.hw.hw_instructions = double(op_instructions(c, op)) / copies;
      row.hw.model_wavefronts =
          double(row.hw.conflicts ? m.wavefronts - m.ideal : m.wavefronts) / per;
      row.hw.model_instructions = double(m.instructions) / per;
      row.hw.model_block0_only = blocks_differ && !lm;
      row.hw.model_blocks = lm ? lm->grid : 0;
    }
  }
  res.counters = CounterStatus::Ok;
  res.counters_ms = ms_since(t0);
  res.counters_timing = session->timing() + ", " + std::to_string(session->passes()) + " pass(es)";
}

}  // namespace bankviz::detail
