// runner_without_cuda.cpp: the Runner of a build without the CUDA toolkit (runner.h). It still
// generates the kernel (so its text is shown) and names the limit no GPU lifts; every run then
// reports RunStatus::NoCuda as a value, and the model works as ever.
#include "bankviz/driver_version.h"
#include "bankviz/experiments.h"
#include "bankviz/profile.h"
#include "bankviz/runner.h"
#include "bankviz/sass.h"
#include "explain.h"
#include "plan.h"

namespace bankviz {

bool built_with_cuda() {
  return false;
}

struct Runner::Impl {};

Runner::Runner() : impl_(std::make_unique<Impl>()) {}
Runner::~Runner() = default;

DeviceInfo Runner::device(std::string* reason) {
  if (reason) *reason = "this build of bankviz has no CUDA toolkit: real kernels are disabled";
  return {};
}

RunResult Runner::run(const Scenario& s, const RunOptions& o) {
  RunResult res;
  res.mode = o.mode;
  res.scenario_arch = s.arch;
  const GenerateResult gen = generate_kernel(s, o.mode);
  if (!gen.kernel) {
    res.status = RunStatus::BadScenario;
    res.message = "the scenario cannot become a kernel:\n" + detail::format_errors(gen.errors);
    return res;
  }
  res.source = gen.kernel->text;
  if (auto why = detail::static_shared_too_large(*gen.kernel)) {
    res.status = RunStatus::TooLarge;
    res.message = *why;
    return res;
  }
  res.status = RunStatus::NoCuda;
  res.message = "this build of bankviz has no CUDA toolkit; the model still works";
  return res;
}

ProfileResult Runner::profile(const ProfileRequest& req) {
  ProfileResult res;
  std::string m;
  for (const std::string& p : check_request(req)) m += (m.empty() ? "" : "; ") + p;
  res.status = m.empty() ? RunStatus::NoCuda : RunStatus::BadArguments;
  res.message =
      m.empty() ? "this build of bankviz has no CUDA toolkit: kernels cannot be profiled" : m;
  return res;
}

std::vector<char> compiled_cubin(const KernelSource& k, const std::string& sm, std::string* error,
                                 std::string* lowered) {
  (void)k;
  (void)sm;
  (void)lowered;
  if (error) *error = "this build of bankviz has no CUDA toolkit (NVRTC)";
  return {};
}

CompileCheck compile_only(const KernelSource& k, const std::string& sm) {
  (void)k;
  (void)sm;
  CompileCheck c;
  c.message = "this build of bankviz has no CUDA toolkit (NVRTC)";
  return c;
}

ExperimentRun run_experiment(const Experiment& e, int timing_runs,
                             const std::vector<Scenario>& scenarios) {
  (void)e;
  (void)timing_runs;
  (void)scenarios;
  ExperimentRun res;
  res.status = RunStatus::NoCuda;
  res.message = "this build of bankviz has no CUDA toolkit: the seeds' experiments need a GPU";
  return res;
}

int cuda_driver_version() {
  return 0;
}

}  // namespace bankviz
