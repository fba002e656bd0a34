// measure.h (internal, CUDA builds only): one run on the GPU once its kernel is known: loading
// kernels into the context, then the two ways of measuring them.
//
//   written: the lesson's launch, verified, timed over back-to-back launches (median)
//   exposed: each memory step in a launch of only its warps, repeated, against a baseline
//            (plan.h decides the launch; verified against the CPU at every shape, best time)
//
// Both record failures in the session's Launcher (the first failed driver call) or in
// res.status/res.message (a refusal by the watchdog's estimate, a scenario the model rejects);
// Runner::run() turns the outcome into the final status.
#pragma once

#include <cuda.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "bankviz/analysis.h"
#include "bankviz/run_types.h"
#include "compiler.h"
#include "launcher.h"
#include "plan.h"

namespace bankviz::detail {

// The model of the last scenario run, under the running GPU's rules, kept for the next run of
// the same scenario: analyzing the largest presets takes tens of milliseconds (matmul-tile32),
// which a cached run's counters would otherwise pay every time. Keyed by the scenario's JSON.
// Where its blocks differ, the model of every block of a launch too (plan.h's LaunchModel), per
// grid.
class ModelCache {
 public:
  const AnalysisResult& get(const Scenario& s, const std::string& arch_id);
  const LaunchModel& launch(const Scenario& s, const std::string& arch_id, int64_t grid);

 private:
  void key(const Scenario& s, const std::string& arch_id);  // forgets all on a new scenario
  std::string key_;
  std::optional<AnalysisResult> value_;
  std::map<int64_t, LaunchModel> launches_;
};

// A kernel's function in the run's context, with what a launch of it needs to know.
struct KernelFunction {
  CUfunction fn = nullptr;
  int64_t dyn = 0;      // its dynamic shared memory
  bool cached = false;  // the module was loaded before this run
  // On failure: the call that failed and its result (fn stays nullptr); opt_in_refused when it
  // was the opt-in to more dynamic shared memory (the device allows less).
  CUresult result = CUDA_SUCCESS;
  const char* call = "";
  bool opt_in_refused = false;
};

struct Session {
  Session(ModuleCache& modules, ModelCache& models, const Scenario& s, const RunOptions& o,
          RunResult& res, const DeviceInfo& dev)
      : modules(modules), models(models), s(s), o(o), res(res), dev(dev), launcher(o.timeout_ms) {}

  ModuleCache& modules;
  ModelCache& models;
  const Scenario& s;
  const RunOptions& o;
  RunResult& res;
  const DeviceInfo& dev;
  Launcher launcher;
  KernelFunction kernel;  // the scenario's kernel (exposed mode: one replica)
  // Everything after the compiler: RunResult::run_ms (compiling replicas is left out).
  std::chrono::steady_clock::time_point t_run = std::chrono::steady_clock::now();

  // The function of a compiled kernel: its module from the cache or loaded now, and the opt-in
  // to dynamic shared memory above the device's default 48 KB where the kernel needs it.
  KernelFunction load(const KernelSource& k, const Compiled& c);
  // The model of the scenario under the running GPU's rules (dev.model_arch), from the cache.
  const AnalysisResult& model_here() { return models.get(s, dev.model_arch); }
  const LaunchModel& launch_model_here(int64_t grid) {
    return models.launch(s, dev.model_arch, grid);
  }
  // Exposed mode: the kernel with `copies` replicas per block (codegen.h), compiled and loaded;
  // fn = nullptr where its tiles exceed a block's shared memory or it cannot be built.
  const KernelFunction& replica_kernel(int copies);

 private:
  std::map<int, KernelFunction> replicas_;
};

void measure_written(Session& run, const Reference& ref);
void measure_exposed(Session& run);

}  // namespace bankviz::detail
