// runner.cpp: Runner::run(), one real run from a scenario to a RunResult (runner.h). Built with
// the CUDA toolkit; runner_without_cuda.cpp stands in for it otherwise.
//
// [SECTION] Runner::Impl: the device, its context and its modules
// [SECTION] Runner::run()
// [SECTION] The end of a run: releasing, and the status in words
//
// A run is a sequence: the kernel's text (codegen.h) and the limits no GPU can lift; the device
// and its limits; the CPU's evaluation (reference.h), so an out-of-bounds access never reaches
// the GPU; NVRTC and the module (compiler.h); the measurement (measure.h, planned by plan.h);
// the end, where the watchdog's timeout or a sticky error resets the context.
#include <chrono>
#include <cstdio>

#include "bankviz/runner.h"
#include "compiler.h"
#include "driver.h"
#include "explain.h"
#include "measure.h"
#include "plan.h"
#include "run_counters.h"
#include "runner_impl.h"
#include "timing.h"

namespace bankviz {

using namespace detail;

bool built_with_cuda() {
  return true;
}

// [SECTION] Runner::Impl: the device, its context and its modules ================================

Runner::Runner() : impl_(std::make_unique<Impl>()) {}
Runner::~Runner() = default;

DeviceInfo Runner::device(std::string* reason) {
  std::string why;
  if (!impl_->ensure(&why)) {
    if (reason) *reason = why;
    return {};
  }
  return impl_->opened.info;
}

// [SECTION] Runner::run() ========================================================================

namespace {

RunResult refused(RunResult res, RunStatus status, std::string message) {
  res.status = status;
  res.message = std::move(message);
  return res;
}

// NVRTC and the module: false (and res says why) when either fails.
bool load_scenario_kernel(Session& run, const KernelSource& k) {
  RunResult& res = run.res;
  const CompileOutcome comp = compile(k, run.dev.sm);
  res.compile_log = comp.log;
  res.compile_ms = comp.ms;
  res.cache_hit = comp.cache_hit;
  if (!comp.compiled) {
    res.status = RunStatus::CompileError;
    res.message = comp.error;
    return false;
  }
  run.t_run = std::chrono::steady_clock::now();  // run_ms: everything after the compiler
  run.kernel = run.load(k, *comp.compiled);
  res.cache_hit = res.cache_hit && run.kernel.cached;
  if (run.kernel.fn) return true;
  const std::string driver_says = driver().describe(run.kernel.result);
  if (run.kernel.opt_in_refused) {
    res.status = RunStatus::TooLarge;
    res.message = "cannot opt in to " + std::to_string(k.dynamic_shared_bytes) +
                  " bytes of dynamic shared memory (device limit " +
                  std::to_string(run.dev.shared_per_block_optin) + "): " + driver_says;
  } else {
    res.status = RunStatus::LaunchError;
    res.message = std::string(run.kernel.call) + ": " + driver_says;
  }
  return false;
}

void finish(Runner::Impl& im, Session& run);

}  // namespace

RunResult Runner::run(const Scenario& s, const RunOptions& o) {
  RunResult res;
  res.mode = o.mode;
  res.scenario_arch = s.arch;

  // 1. The kernel, and the limit no GPU lifts.
  const GenerateResult gen = generate_kernel(s, o.mode);
  if (!gen.kernel)
    return refused(res, RunStatus::BadScenario,
                   "the scenario cannot become a kernel:\n" + format_errors(gen.errors));
  const KernelSource& k = *gen.kernel;
  res.source = k.text;
  if (auto why = static_shared_too_large(k)) return refused(res, RunStatus::TooLarge, *why);

  // 2. The device, and its limits, named before the compiler or the launch says it less clearly.
  std::string reason;
  if (!impl_->ensure(&reason))
    return refused(res, RunStatus::NoCuda, reason + "; the model still works");
  const DeviceInfo& dev = impl_->opened.info;
  res.device = dev;
  res.arch_note = arch_note(s, dev);
  if (auto why = too_large_for(s, k, dev)) return refused(res, RunStatus::TooLarge, *why);

  // 3. The CPU's evaluation first: out-of-bounds accesses are refused before the GPU runs any.
  ReferenceOptions ro;
  ro.grid = o.mode == RunMode::Written ? s.grid : 1;
  const ReferenceResult base = evaluate_reference(s, ro);
  if (!base.ref) return refused(res, RunStatus::BadScenario, format_errors(base.errors));
  res.races = base.ref->races;

  // 4. Compile, load, launch, verify, time.
  Session run(impl_->modules, impl_->models, s, o, res, dev);
  if (load_scenario_kernel(run, k)) {
    if (o.mode == RunMode::Written)
      measure_written(run, *base.ref);
    else
      measure_exposed(run);
    // 5. The hardware counters, in launches of their own after the timed ones.
    if (o.counters && run.launcher.ok() && res.status == RunStatus::NotRun)
      read_run_counters(run, impl_->ctx.get(), impl_->counters);
  }
  finish(*impl_, run);
  return res;
}

// [SECTION] The end of a run: releasing, and the status in words =================================

namespace {

// Releases what the run holds and turns its outcome into res.status and res.message.
void finish(Runner::Impl& im, Session& run) {
  RunResult& res = run.res;
  Launcher& L = run.launcher;
  if (L.timed_out()) {
    // The kernel may still be running. Resetting the context frees everything, but the driver
    // lets a running kernel end first (measured on an H200: a 2.2 s kernel with a 300 ms
    // timeout returned after 2.4 s); the model estimate (max_launch_ms) bounds that wait.
    L.abandon();
    DriverStatus reset;
    im.reset_context(reset);
    res.run_ms = ms_since(run.t_run);
    res.status = RunStatus::Timeout;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.0f ms", run.o.timeout_ms);
    res.message = "the kernel did not finish within " + std::string(buf) +
                  " (timeout). The CUDA context was reset (the driver lets the kernel end "
                  "first); the next run starts a fresh one. A kernel this long is usually a "
                  "loop or repeat count far larger than intended";
    if (!reset.ok()) res.message += " (" + reset.message() + ")";
    return;
  }
  L.release();
  // The module cache's bound applies between runs; a broken context is reset below instead.
  if (!is_sticky(L.status().result())) im.modules.trim(L.status());
  if (!run.kernel.fn) return;  // not compiled or not loaded: res says why
  res.run_ms = ms_since(run.t_run);
  if (res.status == RunStatus::Timeout) return;  // refused by the estimate, nothing ran
  if (!L.ok()) {
    res.status = RunStatus::LaunchError;
    res.message = L.status().message();
    if (is_sticky(L.status().result())) {
      L.abandon();
      im.wedge(Runner::Impl::sticky_reason(driver().describe(L.status().result())));
      res.message +=
          ". CUDA cannot recover from this error in the same process: restart bankviz "
          "to run kernels again (each bankviz-cli command is a new process)";
    }
  } else if (res.status == RunStatus::NotRun) {  // nothing refused it on the way
    res.status = RunStatus::Ok;
  }
}

}  // namespace

}  // namespace bankviz
