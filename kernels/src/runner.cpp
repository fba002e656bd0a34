// runner.cpp: NVRTC compile, driver-API launch, verification and timing (runner.h).
//
// [SECTION] Shared helpers (no CUDA needed)
// [SECTION] Driver API, opened at run time
// [SECTION] NVRTC and the compiled-module cache
// [SECTION] Runner::Impl: context, device, modules
// [SECTION] Written mode: the lesson's launch
// [SECTION] Exposed mode: shared memory as the bottleneck
// [SECTION] Runner::run()
//
// Measurement (exposed mode): every SM holds as many blocks as fit (the occupancy API says how
// many), all launched in one wave, so each SM does the same work. The measured step repeats R
// times; a baseline launch runs every step once. SM cycles per warp-wide instruction are
//   (t_step - t_baseline) * clock / ((R - 1) * instructions of the step per block * blocks per SM)
// which cancels launch overhead and the other steps. Time is the best of several runs, as
// HARDWARE.md measured it (1.006 cycles per wavefront on an H200).
#include "bankviz/runner.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "bankviz/analysis.h"
#include "bankviz/arch.h"

#if BANKVIZ_HAVE_CUDA
#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#endif

namespace bankviz {

// [SECTION] Shared helpers (no CUDA needed) ======================================================

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::Ok:
      return "ok";
    case RunStatus::NoCuda:
      return "no CUDA";
    case RunStatus::BadScenario:
      return "bad scenario";
    case RunStatus::CompileError:
      return "compile error";
    case RunStatus::TooLarge:
      return "too large";
    case RunStatus::LaunchError:
      return "launch error";
    case RunStatus::Timeout:
      return "timeout";
  }
  return "?";
}

std::string model_arch_for(int cc_major, int cc_minor) {
  (void)cc_minor;
  if (cc_major == 9) return "hopper";
  if (cc_major >= 5) return "maxwell";  // Maxwell to Ada, and newer chips by the published rules
  if (cc_major == 3) return "kepler4";  // the default bank size
  if (cc_major == 2) return "fermi";
  return "cc1x";
}

namespace {

[[maybe_unused]] double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string format_errors(const std::vector<Diagnostic>& errors) {
  std::string out;
  for (const Diagnostic& d : errors) out += (out.empty() ? "" : "\n") + d.format();
  return out;
}

// The model's wavefronts for one scenario step (all its loop iterations), summed over warps, and
// the number of warp instructions (warps with an active lane) they came from.
struct StepModel {
  int64_t wavefronts = 0, instructions = 0, bytes = 0;
  std::vector<int> active_warps;  // warps of the block with an active lane in the step
};
StepModel model_of_step(const Analysis& a, int step) {
  StepModel m;
  for (size_t e = 0; e < a.steps.size(); ++e) {
    if (a.steps[e].step != step) continue;
    for (const WarpStep& ws : a.warps[e]) {
      if (ws.access.mask == 0) continue;
      m.wavefronts += ws.result.wavefronts;
      ++m.instructions;
      if (std::find(m.active_warps.begin(), m.active_warps.end(), ws.warp) == m.active_warps.end())
        m.active_warps.push_back(ws.warp);
      m.bytes += int64_t{std::popcount(ws.access.mask)} * ws.access.width;
    }
  }
  return m;
}

// Block b's warp w sits in warp slot b * W + w of the SM and runs on scheduler slot % 4
// (consistent with the H200 timings: 1- and 2-warp blocks spread over all 4 schedulers).
int schedulers_covered(const std::vector<int>& active, int warps_per_block, int blocks) {
  unsigned seen = 0;
  for (int b = 0; b < std::max(blocks, 1); ++b)
    for (int w : active) seen |= 1u << ((int64_t{b} * warps_per_block + w) % 4);
  return std::popcount(seen);
}

// Shared-pipe cycles one block needs for one launch, by the model (see
// estimate_exposed_launch_ms()).
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

}  // namespace

double estimate_exposed_launch_ms(const Scenario& s, int measure, int64_t reps, int blocks_per_sm,
                                  int clock_khz) {
  AnalysisResult a = analyze(s);
  if (!a.analysis || clock_khz <= 0) return -1;
  return block_cycles(s, *a.analysis, measure, reps) * std::max(blocks_per_sm, 1) / clock_khz;
}

WaitOutcome wait_with_timeout(const std::function<int()>& query, double timeout_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int polls = 0;; ++polls) {
    const int q = query();
    if (q == 0) return WaitOutcome::Done;
    if (q != 1) return WaitOutcome::Failed;
    if (ms_since(t0) > timeout_ms) return WaitOutcome::TimedOut;
    // Spin briefly (most waits are microseconds), then sleep: events time the GPU, not this loop.
    if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// [SECTION] Explanations (words for the student) ================================================

std::string explain_mode(RunMode m) {
  if (m == RunMode::Written)
    return "As written: the lesson's own launch, timed over back-to-back launches. Such a kernel "
           "is tiny,\nso launch overhead and global memory dominate and bank conflicts change the "
           "time only a\nlittle (the seeds' 1.2x-1.8x). Use --mode exposed to see what the "
           "conflicts really cost.";
  return "Exposed: each shared-memory step repeated many times inside the kernel, on every SM at "
         "once,\nso shared memory is the bottleneck. Then each wavefront costs one cycle of the "
         "SM's shared\npipe, and cycles per instruction should equal the model's wavefronts per "
         "instruction.";
}

namespace {

// Why a simulated architecture's banks serve the same kernel differently from the present GPU's.
std::string why_archs_differ(const Arch& sim, const Arch& here) {
  if (sim.half_warp_unit && !here.half_warp_unit)
    return "Compute capability 1.x GPUs had " + std::to_string(sim.banks) +
           " banks and served each half-warp (16 threads) on its own, so threads in different "
           "halves never conflicted. Since Fermi every GPU has " +
           std::to_string(here.banks) +
           " banks and looks at the whole warp at once: two half-warps that each were "
           "conflict-free can now collide in one bank, and a pattern that filled 16 banks "
           "now may use all 32.";
  if (sim.bank_bytes != here.bank_bytes)
    return "Kepler could make its banks " + std::to_string(sim.bank_bytes) +
           " bytes wide (cudaDeviceSetSharedMemConfig): two neighbouring 4-byte values, or one "
           "8-byte value, then sat in one bank and never conflicted. Since Maxwell every GPU "
           "has " +
           std::to_string(here.bank_bytes) +
           "-byte banks and accepts that setting but ignores it, so the kernel cannot run with "
           "Kepler's banks here: an 8-byte access is served in half-warps and neighbours "
           "that shared a bank on Kepler fall into two.";
  return std::string(sim.name) + " arranges shared memory as " + std::to_string(sim.banks) +
         " banks of " + std::to_string(sim.bank_bytes) + " bytes, the present GPU (" +
         std::string(here.name) + ") as " + std::to_string(here.banks) + " banks of " +
         std::to_string(here.bank_bytes) + " bytes with its own rules for wide accesses.";
}

std::string per_step_line(int step, const std::string& label, double sim_wf, double here_wf,
                          const Arch& sim, const Arch& here) {
  char buf[320];
  std::snprintf(buf, sizeof(buf),
                "step %d (%s): %s predicts %.3g wavefronts per warp instruction, %s %.3g.", step,
                label.c_str(), std::string(sim.name).c_str(), sim_wf,
                std::string(here.name).c_str(), here_wf);
  return buf;
}

}  // namespace

std::string explain_result(const Scenario& s, const RunResult& r) {
  if (r.status != RunStatus::Ok) return {};
  std::string out = explain_mode(r.mode);
  const Arch* sim = find_arch(r.scenario_arch);
  const Arch* here = find_arch(r.device.model_arch);
  if (sim && here && sim != here) {
    out += "\n\nMeasured on " + r.device.name + " (" + r.device.sm + "), whose banks follow the " +
           std::string(here->name) + " model; the scenario simulates " + std::string(sim->name) +
           ". The table shows the model for the GPU that ran it next to the scenario's. " +
           why_archs_differ(*sim, *here);
    // Where the two predictions differ, step by step.
    std::vector<std::string> lines;
    if (r.mode == RunMode::Exposed) {
      for (const StepTiming& t : r.exposed.steps)
        if (t.instructions_per_block > 0 &&
            std::fabs(t.scenario_wavefronts - t.model_wavefronts) > 1e-9)
          lines.push_back(per_step_line(t.step, t.label, t.scenario_wavefronts, t.model_wavefronts,
                                        *sim, *here));
    } else {
      AnalysisResult a = analyze(s, sim), b = analyze(s, here);
      if (a.analysis && b.analysis) {
        for (size_t i = 0; i < s.steps.size(); ++i) {
          if (!s.steps[i].is_memory()) continue;
          const StepModel ma = model_of_step(*a.analysis, static_cast<int>(i));
          const StepModel mb = model_of_step(*b.analysis, static_cast<int>(i));
          if (ma.wavefronts == mb.wavefronts || ma.instructions == 0) continue;
          lines.push_back(per_step_line(
              static_cast<int>(i),
              s.steps[i].label.empty()
                  ? std::string(step_kind_name(s.steps[i].kind)) + " " + s.steps[i].index
                  : s.steps[i].label,
              double(ma.wavefronts) / ma.instructions, double(mb.wavefronts) / mb.instructions,
              *sim, *here));
        }
      }
    }
    if (lines.empty()) out += " For this kernel both models happen to predict the same wavefronts.";
    for (const std::string& l : lines) out += "\n  " + l;
  }
  if (r.mode == RunMode::Exposed) {
    std::string issue;
    for (const StepTiming& t : r.exposed.steps)
      if (t.instructions_per_block > 0 && !t.shared_bound && t.kind != "atomic")
        issue += (issue.empty() ? "" : ", ") + std::to_string(t.step);
    if (!issue.empty())
      out += "\n\nStep(s) " + issue +
             ": only a few warps per SM take part (a guard such as `cacheIndex < 32` leaves "
             "most of the block idle), and each warp can push a shared-memory instruction only "
             "every ~10-14 cycles. With fewer than " +
             std::to_string(kSharedBoundWarps) +
             " such warps per SM the warps, not the banks, set the pace, so the measured cycles "
             "exceed the model's wavefronts there even without a conflict.";
    bool atomic = false;
    for (const StepTiming& t : r.exposed.steps) atomic |= t.kind == "atomic";
    if (atomic)
      out +=
          "\n\natomicAdd reads, adds and writes in the shared-memory unit: every lane takes its "
          "own pass through its bank, even lanes adding to the same bin (the model counts "
          "it so, as measured on Hopper). Where the bins depend on the data (a histogram), "
          "the model shows block 0 while the exposed run spreads over many blocks, so the two "
          "agree only on average.";
  }
  return out;
}

// [SECTION] Driver API, opened at run time =======================================================

#if BANKVIZ_HAVE_CUDA

namespace {
#define BV_STR2(x) #x
#define BV_STR(x) BV_STR2(x)

// Function pointers resolved with dlsym under the versioned names cuda.h maps each call to
// (cuMemAlloc -> cuMemAlloc_v2), so the program needs no libcuda.so.1 to start.
struct Driver {
  void* handle = nullptr;
  std::string error;  // why the driver could not be opened
#define BV_FN(fn) decltype(&::fn) fn##_ = nullptr;
  BV_FN(cuInit)
  BV_FN(cuGetErrorString)
  BV_FN(cuGetErrorName)
  BV_FN(cuDriverGetVersion)
  BV_FN(cuDeviceGetCount)
  BV_FN(cuDeviceGet)
  BV_FN(cuDeviceGetName)
  BV_FN(cuDeviceGetAttribute)
  BV_FN(cuDevicePrimaryCtxRetain)
  BV_FN(cuDevicePrimaryCtxRelease)
  BV_FN(cuDevicePrimaryCtxReset)
  BV_FN(cuCtxSetCurrent)
  BV_FN(cuCtxSynchronize)
  BV_FN(cuModuleLoadData)
  BV_FN(cuModuleUnload)
  BV_FN(cuModuleGetFunction)
  BV_FN(cuFuncSetAttribute)
  BV_FN(cuOccupancyMaxActiveBlocksPerMultiprocessor)
  BV_FN(cuLaunchKernel)
  BV_FN(cuMemAlloc)
  BV_FN(cuMemFree)
  BV_FN(cuMemcpyDtoH)
  BV_FN(cuMemsetD32)
  BV_FN(cuEventCreate)
  BV_FN(cuEventDestroy)
  BV_FN(cuEventRecord)
  BV_FN(cuEventSynchronize)
  BV_FN(cuEventQuery)
  BV_FN(cuEventElapsedTime)
#undef BV_FN

  bool open() {
    handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = dlerror();
      error = std::string("no CUDA driver: ") + (e ? e : "libcuda.so.1 not found");
      return false;
    }
    bool ok = true;
#define BV_LOAD(fn)                                                                         \
  fn##_ = reinterpret_cast<decltype(&::fn)>(dlsym(handle, BV_STR(fn)));                     \
  if (!fn##_) {                                                                             \
    ok = false;                                                                             \
    error = std::string("the CUDA driver lacks ") + BV_STR(fn) + " (too old for CUDA 13?)"; \
  }
    BV_LOAD(cuInit)
    BV_LOAD(cuGetErrorString)
    BV_LOAD(cuGetErrorName)
    BV_LOAD(cuDriverGetVersion)
    BV_LOAD(cuDeviceGetCount)
    BV_LOAD(cuDeviceGet)
    BV_LOAD(cuDeviceGetName)
    BV_LOAD(cuDeviceGetAttribute)
    BV_LOAD(cuDevicePrimaryCtxRetain)
    BV_LOAD(cuDevicePrimaryCtxRelease)
    BV_LOAD(cuDevicePrimaryCtxReset)
    BV_LOAD(cuCtxSetCurrent)
    BV_LOAD(cuCtxSynchronize)
    BV_LOAD(cuModuleLoadData)
    BV_LOAD(cuModuleUnload)
    BV_LOAD(cuModuleGetFunction)
    BV_LOAD(cuFuncSetAttribute)
    BV_LOAD(cuOccupancyMaxActiveBlocksPerMultiprocessor)
    BV_LOAD(cuLaunchKernel)
    BV_LOAD(cuMemAlloc)
    BV_LOAD(cuMemFree)
    BV_LOAD(cuMemcpyDtoH)
    BV_LOAD(cuMemsetD32)
    BV_LOAD(cuEventCreate)
    BV_LOAD(cuEventDestroy)
    BV_LOAD(cuEventRecord)
    BV_LOAD(cuEventSynchronize)
    BV_LOAD(cuEventQuery)
    BV_LOAD(cuEventElapsedTime)
#undef BV_LOAD
    return ok;
  }

  std::string describe(CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuGetErrorName_) cuGetErrorName_(r, &name);
    if (cuGetErrorString_) cuGetErrorString_(r, &text);
    std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
    if (text) out += std::string(": ") + text;
    return out;
  }
};

Driver& driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] { d.open(); });
  return d;
}

// Errors after which the context cannot be used again (CUDA's "sticky" errors).
bool is_sticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_UNKNOWN:
      return true;
    default:
      return false;
  }
}

// [SECTION] NVRTC and the compiled-module cache ==================================================

struct Compiled {
  std::vector<char> cubin;
  std::string lowered;  // the kernel's mangled name
  std::string log;
};

// Compiled code outlives contexts (a sticky error resets the context, not the compiler's work).
std::mutex g_cache_mutex;
std::map<std::string, Compiled> g_cubins;  // key: sm + '\n' + source

std::string cuda_include_dir() {
#ifdef BANKVIZ_CUDA_INCLUDE_DIR
  return BANKVIZ_CUDA_INCLUDE_DIR;
#else
  return "/usr/local/cuda/include";
#endif
}

// "k.cu(12): error: ..." -> the message, and the generated line it points at.
std::string explain_log(const std::string& log, const KernelSource& k) {
  std::string out;
  size_t pos = 0;
  while ((pos = log.find(k.file_name + "(", pos)) != std::string::npos) {
    const size_t open = pos + k.file_name.size();
    const size_t close = log.find(')', open);
    const size_t eol = log.find('\n', pos);
    const std::string line_text =
        log.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? log.size() : eol;
    if (line_text.find("error") == std::string::npos) continue;
    const int line =
        close == std::string::npos ? 0 : std::atoi(log.substr(open + 1, close - open - 1).c_str());
    out += line_text + "\n  at " + source_line(k.text, line) + "\n";
    if (out.size() > 2000) break;
  }
  if (out.empty()) out = log;
  return out;
}

struct CompileOutcome {
  const Compiled* compiled = nullptr;
  bool cache_hit = false;
  double ms = 0;
  std::string error;
  std::string log;
};

CompileOutcome compile(const KernelSource& k, const std::string& sm) {
  CompileOutcome out;
  const std::string key = sm + "\n" + k.text;
  {
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    auto it = g_cubins.find(key);
    if (it != g_cubins.end()) {
      out.compiled = &it->second;
      out.cache_hit = true;
      out.log = it->second.log;
      return out;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, k.text.c_str(), k.file_name.c_str(), 0, nullptr, nullptr) !=
      NVRTC_SUCCESS) {
    out.error = "NVRTC could not create a program";
    return out;
  }
  nvrtcAddNameExpression(prog, k.kernel_name.c_str());
  const std::string arch = "--gpu-architecture=" + sm;
  const std::string include = "-I" + cuda_include_dir();
  const char* opts[] = {arch.c_str(), "-std=c++17", include.c_str(), "-lineinfo"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 4, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) nvrtcGetProgramLog(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  out.log = log;
  if (r != NVRTC_SUCCESS) {
    out.error = std::string("NVRTC: ") + nvrtcGetErrorString(r) + "\n" + explain_log(log, k);
    nvrtcDestroyProgram(&prog);
    out.ms = ms_since(t0);
    return out;
  }
  Compiled c;
  size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  c.cubin.resize(size);
  nvrtcGetCUBIN(prog, c.cubin.data());
  const char* lowered = nullptr;
  nvrtcGetLoweredName(prog, k.kernel_name.c_str(), &lowered);
  c.lowered = lowered ? lowered : k.kernel_name;
  c.log = log;
  nvrtcDestroyProgram(&prog);
  out.ms = ms_since(t0);
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  out.compiled = &g_cubins.emplace(key, std::move(c)).first->second;  // std::map: stable address
  return out;
}

}  // namespace

#endif  // BANKVIZ_HAVE_CUDA

bool built_with_cuda() {
  return BANKVIZ_HAVE_CUDA != 0;
}

CompileCheck compile_only(const KernelSource& k, const std::string& sm) {
  CompileCheck c;
#if BANKVIZ_HAVE_CUDA
  CompileOutcome o = compile(k, sm);
  c.ok = o.compiled != nullptr;
  c.message = o.error;
  c.log = o.log;
  c.ms = o.ms;
  c.cubin_bytes = o.compiled ? o.compiled->cubin.size() : 0;
#else
  (void)k;
  (void)sm;
  c.message = "this build of bankviz has no CUDA toolkit (NVRTC)";
#endif
  return c;
}

// [SECTION] Runner::Impl: context, device, modules ===============================================

#if BANKVIZ_HAVE_CUDA

struct Runner::Impl {
  bool tried = false;
  std::string reason;  // why there is no device
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  DeviceInfo info;
  std::map<std::string, CUmodule> modules;  // key as g_cubins; valid in ctx only

  ~Impl() { drop_context(false); }

  bool ensure() {
    Driver& d = driver();
    if (!d.handle || !d.error.empty()) {
      reason = d.error;
      return false;
    }
    if (ctx) {
      d.cuCtxSetCurrent_(ctx);
      return true;
    }
    if (!tried) {
      tried = true;
      if (CUresult r = d.cuInit_(0); r != CUDA_SUCCESS) {
        reason = "no CUDA device: cuInit failed: " + d.describe(r);
        return false;
      }
      int count = 0;
      if (CUresult r = d.cuDeviceGetCount_(&count); r != CUDA_SUCCESS || count == 0) {
        reason =
            "no CUDA device: " + (r != CUDA_SUCCESS ? d.describe(r) : "the driver sees no GPU");
        return false;
      }
      d.cuDeviceGet_(&dev, 0);
      char name[256] = {0};
      d.cuDeviceGetName_(name, sizeof(name), dev);
      auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        d.cuDeviceGetAttribute_(&v, a, dev);
        return v;
      };
      info.present = true;
      info.name = name;
      info.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
      info.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
      info.sm = "sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor);
      info.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
      info.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
      info.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
      info.shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
      info.shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
      info.shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
      info.model_arch = model_arch_for(info.cc_major, info.cc_minor);
    }
    if (!info.present) return false;
    if (CUresult r = d.cuDevicePrimaryCtxRetain_(&ctx, dev); r != CUDA_SUCCESS) {
      reason = "could not create a CUDA context: " + d.describe(r);
      ctx = nullptr;
      return false;
    }
    d.cuCtxSetCurrent_(ctx);
    return true;
  }

  // After a sticky error the context is unusable: unload, release and reset it; the next run
  // retains a fresh one (modules are reloaded from the cached cubins).
  void drop_context(bool reset) {
    if (!ctx) return;
    Driver& d = driver();
    if (!reset)
      for (auto& [key, m] : modules) d.cuModuleUnload_(m);
    modules.clear();
    d.cuDevicePrimaryCtxRelease_(dev);
    if (reset) d.cuDevicePrimaryCtxReset_(dev);
    ctx = nullptr;
  }
};

#else

struct Runner::Impl {};

#endif

Runner::Runner() : impl_(std::make_unique<Impl>()) {}
Runner::~Runner() = default;

DeviceInfo Runner::device(std::string* reason) {
#if BANKVIZ_HAVE_CUDA
  if (!impl_->ensure()) {
    if (reason) *reason = impl_->reason;
    return {};
  }
  return impl_->info;
#else
  if (reason) *reason = "this build of bankviz has no CUDA toolkit: real kernels are disabled";
  return {};
#endif
}

#if BANKVIZ_HAVE_CUDA

namespace {

// [SECTION] Written mode / exposed mode share one launch helper ==================================

struct Launcher {
  Driver& d;
  CUfunction fn;
  int64_t block[3];
  unsigned dyn_bytes;
  CUdeviceptr out = 0;
  CUevent e0 = nullptr, e1 = nullptr;
  CUresult status = CUDA_SUCCESS;
  std::string what;  // the call that failed
  double timeout_ms = 10000;
  bool timed_out = false;  // a wait gave up: the kernel may still run (the context must go)

  bool check(CUresult r, const char* call) {
    if (r == CUDA_SUCCESS) return true;
    if (status == CUDA_SUCCESS) {
      status = r;
      what = call;
    }
    return false;
  }
  unsigned warps = 0;  // exposed mode: the lesson's warps that run (kernel argument)
  int launches = 0;    // kernels launched so far (ncu numbers them in this order)
  bool launch(int64_t grid, int measure, int reps) {
    void* args3[] = {&out, &measure, &reps, &warps};
    ++launches;
    return check(
        d.cuLaunchKernel_(fn, static_cast<unsigned>(grid), 1, 1, static_cast<unsigned>(block[0]),
                          static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2]),
                          dyn_bytes, nullptr, args3, nullptr),
        "cuLaunchKernel");
  }
  // Watchdog: waits for event e (recorded after the launches) at most timeout_ms.
  bool wait(CUevent e) {
    CUresult failed = CUDA_SUCCESS;
    const WaitOutcome w = wait_with_timeout(
        [&] {
          const CUresult r = d.cuEventQuery_(e);
          if (r == CUDA_SUCCESS) return 0;
          if (r == CUDA_ERROR_NOT_READY) return 1;
          failed = r;
          return 2;
        },
        timeout_ms);
    if (w == WaitOutcome::TimedOut) {
      timed_out = true;
      return check(CUDA_ERROR_LAUNCH_TIMEOUT, "the kernel");
    }
    return w == WaitOutcome::Done || check(failed, "the kernel");
  }
  // Events around `count` launches; milliseconds, or -1 on error.
  double timed(int64_t grid, int measure, int reps, int count) {
    if (!check(d.cuEventRecord_(e0, nullptr), "cuEventRecord")) return -1;
    for (int i = 0; i < count; ++i)
      if (!launch(grid, measure, reps)) return -1;
    if (!check(d.cuEventRecord_(e1, nullptr), "cuEventRecord")) return -1;
    if (!wait(e1)) return -1;
    float ms = 0;
    if (!check(d.cuEventElapsedTime_(&ms, e0, e1), "cuEventElapsedTime")) return -1;
    return ms;
  }
  // Poisons the output, runs once, copies back.
  bool run_once(int64_t grid, int measure, int reps, std::vector<uint32_t>& host) {
    const size_t n = host.size();
    if (!check(d.cuMemsetD32_(out, 0xDEADBEEFu, n), "cuMemsetD32")) return false;
    if (!launch(grid, measure, reps)) return false;
    if (!check(d.cuEventRecord_(e1, nullptr), "cuEventRecord") || !wait(e1)) return false;
    return check(d.cuMemcpyDtoH_(host.data(), out, n * sizeof(uint32_t)), "cuMemcpyDtoH");
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string arch_note(const Scenario& s, const DeviceInfo& dev) {
  const Arch* sa = find_arch(s.arch);
  const Arch* ma = find_arch(dev.model_arch);
  if (!sa || !ma || sa == ma) return {};
  std::string note = "The scenario simulates " + std::string(sa->name) + " (" +
                     std::to_string(sa->banks) + " banks of " + std::to_string(sa->bank_bytes) +
                     " bytes). It ran on " + dev.name + " (" + dev.sm + "), which always serves " +
                     "shared memory with " + std::to_string(ma->banks) + " banks of " +
                     std::to_string(ma->bank_bytes) + " bytes";
  if (sa->bank_bytes == 8)
    note += " (since Maxwell the 8-byte bank setting is accepted and ignored)";
  note += ": the measurement follows the " + std::string(ma->name) + " model, shown next to the " +
          std::string(sa->name) + " prediction.";
  return note;
}

}  // namespace

#endif

// [SECTION] Runner::run() ========================================================================

RunResult Runner::run(const Scenario& s, const RunOptions& o) {
  RunResult res;
  res.mode = o.mode;
  res.scenario_arch = s.arch;
  GenerateResult gen = generate_kernel(s, o.mode);
  if (!gen.kernel) {
    res.status = RunStatus::BadScenario;
    res.message = "the scenario cannot become a kernel:\n" + format_errors(gen.errors);
    return res;
  }
  const KernelSource& k = *gen.kernel;
  res.source = k.text;
  if (k.static_shared_bytes > 48 * 1024) {
    // A hardware-independent rule: static __shared__ arrays are limited to 48 KB per block.
    res.status = RunStatus::TooLarge;
    res.message = "the static __shared__ tiles take " + std::to_string(k.static_shared_bytes) +
                  " bytes; static shared memory is limited to 48 KB (49152 bytes) per block. "
                  "Declare the tile extern __shared__ (dynamic) to go beyond it, up to the "
                  "device's opt-in limit (232448 bytes on an H100/H200)";
    return res;
  }
#if !BANKVIZ_HAVE_CUDA
  res.status = RunStatus::NoCuda;
  res.message = "this build of bankviz has no CUDA toolkit; the model still works";
  return res;
#else
  Impl& im = *impl_;
  if (!im.ensure()) {
    res.status = RunStatus::NoCuda;
    res.message = im.reason + "; the model still works";
    return res;
  }
  Driver& d = driver();
  const DeviceInfo& dev = im.info;
  res.device = dev;
  res.arch_note = arch_note(s, dev);

  // Limits, named before the compiler or the launch says it less clearly.
  if (s.threads() > dev.max_threads_per_block) {
    res.status = RunStatus::TooLarge;
    res.message = "the block has " + std::to_string(s.threads()) + " threads; " + dev.name +
                  " allows at most " + std::to_string(dev.max_threads_per_block);
    return res;
  }
  const int64_t total_shared = k.static_shared_bytes + k.dynamic_shared_bytes;
  if (total_shared > dev.shared_per_block_optin) {
    res.status = RunStatus::TooLarge;
    res.message = "the tiles need " + std::to_string(total_shared) + " bytes of shared memory; " +
                  dev.name + " allows at most " + std::to_string(dev.shared_per_block_optin) +
                  " bytes per block (" + std::to_string(dev.shared_per_block_optin / 1024) +
                  " KB, with cudaFuncAttributeMaxDynamicSharedMemorySize)";
    return res;
  }

  // CPU evaluation first: out-of-bounds accesses are refused before anything touches the GPU.
  auto t_run = std::chrono::steady_clock::now();
  ReferenceOptions ro;
  ro.grid = o.mode == RunMode::Written ? s.grid : 1;
  ReferenceResult base = evaluate_reference(s, ro);
  if (!base.ref) {
    res.status = RunStatus::BadScenario;
    res.message = format_errors(base.errors);
    return res;
  }
  res.races = base.ref->races;

  CompileOutcome comp = compile(k, dev.sm);
  res.compile_log = comp.log;
  res.compile_ms = comp.ms;
  res.cache_hit = comp.cache_hit;
  if (!comp.compiled) {
    res.status = RunStatus::CompileError;
    res.message = comp.error;
    return res;
  }
  t_run = std::chrono::steady_clock::now();  // run_ms: everything after the compiler
  const std::string key = dev.sm + "\n" + k.text;
  CUmodule mod = nullptr;
  if (auto it = im.modules.find(key); it != im.modules.end()) {
    mod = it->second;
  } else {
    if (CUresult r = d.cuModuleLoadData_(&mod, comp.compiled->cubin.data()); r != CUDA_SUCCESS) {
      res.status = RunStatus::LaunchError;
      res.message = "cuModuleLoadData: " + d.describe(r);
      return res;
    }
    im.modules[key] = mod;
    res.cache_hit = false;
  }
  CUfunction fn = nullptr;
  d.cuModuleGetFunction_(&fn, mod, comp.compiled->lowered.c_str());
  if (k.dynamic_shared_bytes > dev.shared_per_block) {
    // Above 48 KB a block must opt in to more dynamic shared memory.
    if (CUresult r = d.cuFuncSetAttribute_(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(k.dynamic_shared_bytes));
        r != CUDA_SUCCESS) {
      res.status = RunStatus::TooLarge;
      res.message = "cannot opt in to " + std::to_string(k.dynamic_shared_bytes) +
                    " bytes of dynamic shared memory (device limit " +
                    std::to_string(dev.shared_per_block_optin) + "): " + d.describe(r);
      return res;
    }
  }

  Launcher L{d,
             fn,
             {s.block[0], s.block[1], s.block[2]},
             static_cast<unsigned>(k.dynamic_shared_bytes),
             0,
             nullptr,
             nullptr,
             CUDA_SUCCESS,
             {},
             o.timeout_ms,
             false};
  const int64_t threads = s.threads();
  int64_t grid = o.mode == RunMode::Written ? s.grid : 0;
  // Exposed mode launches 1-D blocks of only the lesson's warps in a mask (codegen.h); every SM
  // holds as many of them as fit.
  const int lesson_warps = static_cast<int>(s.warps());
  const uint32_t all_warps = lesson_warps >= 32 ? ~0u : (1u << lesson_warps) - 1u;
  auto launch_threads = [&](uint32_t mask) {
    int64_t n = 0;
    for (int64_t t = 0; t < threads; ++t) n += (mask >> (t / 32)) & 1u;
    return n;
  };
  auto blocks_per_sm_of = [&](CUfunction f, int64_t dyn, int64_t block_threads) {
    int per_sm = 0;
    L.check(d.cuOccupancyMaxActiveBlocksPerMultiprocessor_(
                &per_sm, f, static_cast<int>(block_threads), static_cast<size_t>(dyn)),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return std::max(per_sm, 1);
  };
  auto blocks_per_sm = [&](int64_t block_threads) {
    return blocks_per_sm_of(fn, k.dynamic_shared_bytes, block_threads);
  };
  // Exposed mode with `reps` replicas per block: the kernel with that many tile copies
  // (codegen.h), compiled (cached) and loaded; nullptr where it would exceed the device's
  // shared-memory limits or fails to build (the caller then keeps one copy).
  struct ReplicaKernel {
    CUfunction fn = nullptr;
    int64_t dyn = 0;
  };
  std::map<int, ReplicaKernel> replica_kernels;
  replica_kernels[1] = {fn, k.dynamic_shared_bytes};
  auto replica_kernel = [&](int copies) -> ReplicaKernel {
    if (auto it = replica_kernels.find(copies); it != replica_kernels.end()) return it->second;
    ReplicaKernel rk;
    GenerateResult g = generate_kernel(s, RunMode::Exposed, copies);
    // Static __shared__ is limited to 48 KB per block; all of it to the opt-in limit.
    if (g.kernel && g.kernel->static_shared_bytes <= 48 * 1024 &&
        g.kernel->static_shared_bytes + g.kernel->dynamic_shared_bytes <=
            dev.shared_per_block_optin) {
      const auto t0 = std::chrono::steady_clock::now();
      CompileOutcome c = compile(*g.kernel, dev.sm);
      res.compile_ms += c.ms;
      t_run += std::chrono::steady_clock::now() - t0;  // run_ms leaves the compiler out
      const std::string key2 = dev.sm + "\n" + g.kernel->text;
      CUmodule m = nullptr;
      if (auto it = im.modules.find(key2); it != im.modules.end()) {
        m = it->second;
      } else if (c.compiled && d.cuModuleLoadData_(&m, c.compiled->cubin.data()) == CUDA_SUCCESS) {
        im.modules[key2] = m;
      }
      CUfunction f = nullptr;
      if (m && d.cuModuleGetFunction_(&f, m, c.compiled->lowered.c_str()) == CUDA_SUCCESS &&
          (g.kernel->dynamic_shared_bytes <= dev.shared_per_block ||
           d.cuFuncSetAttribute_(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 static_cast<int>(g.kernel->dynamic_shared_bytes)) == CUDA_SUCCESS))
        rk = {f, g.kernel->dynamic_shared_bytes};
    }
    replica_kernels[copies] = rk;
    return rk;
  };
  if (o.mode == RunMode::Exposed) {
    const int per_sm = blocks_per_sm(threads);
    grid = int64_t{per_sm} * dev.sm_count;
    res.exposed.blocks_per_sm = per_sm;
    res.exposed.grid = grid;
  }
  // Exposed launches of fewer warps hold more blocks; none holds more threads than an SM can.
  const size_t n_out = static_cast<size_t>(
      o.mode == RunMode::Written ? grid * threads
                                 : std::max<int64_t>(grid * threads, int64_t{dev.sm_count} * 2048));
  L.check(d.cuMemAlloc_(&L.out, n_out * sizeof(uint32_t)), "cuMemAlloc");
  L.check(d.cuEventCreate_(&L.e0, CU_EVENT_DEFAULT), "cuEventCreate");
  L.check(d.cuEventCreate_(&L.e1, CU_EVENT_DEFAULT), "cuEventCreate");
  std::vector<uint32_t> host(n_out);
  const int runs = std::max(1, o.timing_runs);

  auto finish = [&]() {
    if (L.timed_out) {
      // The kernel may still be running. Resetting the context frees everything, but the driver
      // lets a running kernel end first (measured on an H200: a 2.2 s kernel with a 300 ms
      // timeout returned after 2.4 s); the model estimate (max_launch_ms) bounds that wait.
      im.drop_context(true);
      res.run_ms = ms_since(t_run);
      res.status = RunStatus::Timeout;
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.0f ms", o.timeout_ms);
      res.message = "the kernel did not finish within " + std::string(buf) +
                    " (timeout). The CUDA context was reset (the driver lets the kernel end "
                    "first); the next run starts a fresh one. A kernel this long is usually a "
                    "loop or repeat count far larger than intended";
      return res;
    }
    if (L.e0) d.cuEventDestroy_(L.e0);
    if (L.e1) d.cuEventDestroy_(L.e1);
    if (L.out) d.cuMemFree_(L.out);
    res.run_ms = ms_since(t_run);
    if (res.status == RunStatus::Timeout) return res;  // refused by the estimate, nothing ran
    if (L.status != CUDA_SUCCESS) {
      res.status = RunStatus::LaunchError;
      res.message = L.what + " failed: " + d.describe(L.status);
      if (is_sticky(L.status)) {
        im.drop_context(true);
        res.message += " (the CUDA context was reset; the next run starts a fresh one)";
      }
    } else if (res.status == RunStatus::NoCuda) {  // nothing refused it on the way
      res.status = RunStatus::Ok;
    }
    return res;
  };
  if (L.status != CUDA_SUCCESS) return finish();

  if (o.mode == RunMode::Written) {
    // [SECTION] Written mode: the lesson's launch
    if (!L.run_once(grid, -1, 1, host)) return finish();
    res.verification = verify_output(*base.ref, host, s.block);
    res.written.grid = grid;
    res.written.launches = std::max(1, o.written_launches);
    if (o.warmup) L.timed(grid, -1, 1, res.written.launches);
    std::vector<double> per_launch, single;
    for (int r = 0; r < runs && L.status == CUDA_SUCCESS; ++r) {
      per_launch.push_back(L.timed(grid, -1, 1, res.written.launches) * 1000.0 /
                           res.written.launches);
      single.push_back(L.timed(grid, -1, 1, 1) * 1000.0);
    }
    res.written.us_per_launch = median(per_launch);
    res.written.us_single = median(single);
    return finish();
  }

  // [SECTION] Exposed mode: shared memory as the bottleneck
  // Each memory step is measured in a launch of only the lesson's warps that execute it (its
  // warp mask), as 1-D blocks of that many warps, as many per SM as fit: a warp's shared cost
  // depends only on its own lane addresses, and small blocks keep enough warps on every SM to
  // make shared memory the bottleneck even for a step that one warp of the lesson runs. Each
  // mask has its own baseline launch (every step once, the same warps), differenced away. Where
  // the SM's 32-block limit would still leave it under kFullWarps warps, a block holds several
  // replicas of the mask's warps (see config()).
  const Arch* model_arch = find_arch(dev.model_arch);
  AnalysisResult here = analyze(s, model_arch);
  AnalysisResult own = analyze(s);
  if (!here.analysis || !own.analysis) {
    res.status = RunStatus::BadScenario;
    res.message = format_errors(here.analysis ? own.errors : here.errors);
    return finish();
  }
  ReferenceOptions bo;
  bo.grid = grid;
  ReferenceResult bref = evaluate_reference(s, bo);
  if (!bref.ref) {
    res.status = RunStatus::BadScenario;
    res.message = format_errors(bref.errors);
    return finish();
  }
  const double clock_khz = dev.clock_khz;
  const double clock_hz = clock_khz * 1000.0;
  // Watchdog, before anything is launched: the model's time for one launch (all the lesson's
  // warps' wavefronts: an upper bound for a launch of fewer warps).
  auto too_long = [&](int measure, int64_t reps, int per_sm) {
    const double est = block_cycles(s, *here.analysis, measure, reps) * per_sm / clock_khz;
    if (est <= o.max_launch_ms) return false;
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%.0f ms per launch by the model, over the %.0f ms limit", est,
                  o.max_launch_ms);
    res.status = RunStatus::Timeout;
    res.message = std::string("not run: ") +
                  (measure < 0 ? "every step once (its loops included)"
                               : "step " + std::to_string(measure) + " repeated " +
                                     std::to_string(reps) + " times") +
                  " would take about " + buf + "; use fewer repeats or a smaller loop";
    return true;
  };

  // One launch configuration per warp mask: replicas per block, blocks per SM, grid, baseline.
  struct Config {
    int64_t block_threads = 0, grid = 0;
    int per_sm = 0;
    int replicas = 1;
    CUfunction fn = nullptr;  // the kernel with `replicas` tile copies
    int64_t dyn = 0;          // its dynamic shared memory
    double base_ms = 0;
    int base_launch = -1;
  };
  std::map<uint32_t, Config> configs;
  Verification all;
  auto use = [&](uint32_t mask) {
    const int64_t bt = configs[mask].block_threads;
    L.fn = configs[mask].fn;
    L.dyn_bytes = static_cast<unsigned>(configs[mask].dyn);
    L.block[0] = bt;
    L.block[1] = L.block[2] = 1;
    L.warps = mask;
    host.resize(static_cast<size_t>(configs[mask].grid * bt));
  };
  auto note_mismatch = [&](const Verification& v, const std::string& what) {
    if (v.status == VerifyStatus::Mismatch && all.status != VerifyStatus::Mismatch) {
      all = v;
      all.summary = what + ": " + v.summary;
    }
  };
  // Sets up (and on first use verifies and times the baseline of) the launch for a mask.
  auto config = [&](uint32_t mask) -> const Config* {
    if (auto it = configs.find(mask); it != configs.end()) {
      use(mask);
      return &it->second;
    }
    Config c;
    const int64_t lanes = launch_threads(mask);
    c.block_threads = lanes;
    c.fn = fn;
    c.dyn = k.dynamic_shared_bytes;
    c.per_sm = mask == all_warps ? res.exposed.blocks_per_sm : blocks_per_sm(lanes);
    // Replicas: an SM holds at most 32 blocks, so blocks of one or two warps leave it with 32
    // or 64 warps at most; the shared pipe needs about kFullWarps warps in flight to stay busy
    // (measured, BENCHMARKS.md: one-warp blocks at 32 warps/SM ran 1.035-1.057x the model).
    // k copies of the mask's warps per block (full warps only: the copies must line up on
    // warp boundaries) raise that, within the thread, register and shared-memory limits the
    // occupancy API applies. Each copy has its own copy of every tile (codegen.h), so copies
    // never interact and are always safe; a big tile needs k times its shared memory, so the
    // occupancy API then gives fewer blocks and k is kept only where it adds warps per SM.
    const int w = std::popcount(mask);
    if (lanes == int64_t{32} * w && c.per_sm * w < kFullWarps) {
      for (int copies = 2; int64_t{32} * w * copies <= dev.max_threads_per_block &&
                           c.per_sm * c.replicas * w < kFullWarps;
           ++copies) {
        const ReplicaKernel rk = replica_kernel(copies);
        if (!rk.fn) break;  // more copies need even more shared memory
        const int per = blocks_per_sm_of(rk.fn, rk.dyn, lanes * copies);
        if (per * copies <= c.per_sm * c.replicas) break;  // shared memory or threads bind
        c.replicas = copies;
        c.per_sm = per;
        c.block_threads = lanes * copies;
        c.fn = rk.fn;
        c.dyn = rk.dyn;
      }
    }
    c.grid = int64_t{c.per_sm} * dev.sm_count;
    configs[mask] = c;
    use(mask);
    if (L.status != CUDA_SUCCESS || too_long(-1, 1, c.per_sm * c.replicas)) return nullptr;
    if (!L.run_once(c.grid, -1, 1, host)) return nullptr;
    if (mask == all_warps && c.replicas == 1) {
      all = verify_output(*bref.ref, host, s.block);
    } else {
      ReferenceOptions ro2;
      ro2.grid = c.grid;
      ro2.warps = mask;
      ro2.replicas = c.replicas;
      if (ReferenceResult r2 = evaluate_reference(s, ro2); r2.ref) {
        char what[80];
        std::snprintf(what, sizeof(what), "warps 0x%x x %d, every step once", mask, c.replicas);
        const Verification v = verify_output(*r2.ref, host, s.block);
        if (mask == all_warps) all = v;
        note_mismatch(v, what);
      }
    }
    if (o.warmup) L.timed(c.grid, -1, 1, 1);
    double best = 1e30;
    for (int r = 0; r < runs && L.status == CUDA_SUCCESS; ++r) {
      best = std::min(best, L.timed(c.grid, -1, 1, 1));
      c.base_launch = L.launches - 1;
    }
    c.base_ms = best;
    configs[mask] = c;
    return &configs[mask];
  };
  const Config* full = config(all_warps);
  if (!full) return finish();
  res.exposed.baseline_ms = full->base_ms;
  res.exposed.grid = full->grid;  // with replicas when the lesson has only one or two warps
  res.exposed.blocks_per_sm = full->per_sm;

  for (size_t si = 0; si < s.steps.size() && L.status == CUDA_SUCCESS; ++si) {
    const Step& st = s.steps[si];
    if (!st.is_memory()) continue;
    const int step = static_cast<int>(si);
    const StepModel m = model_of_step(*here.analysis, step);
    const StepModel sm_own = model_of_step(*own.analysis, step);
    const int64_t instr = bref.ref->step_instructions[si];
    StepTiming row;
    row.step = step;
    row.label = st.label.empty() ? std::string(step_kind_name(st.kind)) + " " + st.index : st.label;
    row.kind = step_kind_name(st.kind);
    row.instructions_per_block = instr;
    row.model_wavefronts = m.instructions ? double(m.wavefronts) / m.instructions : 0;
    row.scenario_wavefronts =
        sm_own.instructions ? double(sm_own.wavefronts) / sm_own.instructions : 0;
    if (instr == 0) {
      res.exposed.steps.push_back(row);
      continue;
    }
    const uint32_t mask = bref.ref->step_warps[si];
    const Config* c = config(mask);
    if (!c) break;
    const int per_sm = c->per_sm;
    const int k = c->replicas;  // copies of the lesson's warps per launched block
    // About 2 ms of shared-memory time by the model: long against launch overhead.
    int64_t reps = o.reps;
    if (reps <= 0) {
      const double per_rep = std::max<double>(double(m.wavefronts), double(instr)) * per_sm * k;
      reps = std::clamp<int64_t>(static_cast<int64_t>(2e-3 * clock_hz / per_rep), 16, 1 << 20);
      // Within the watchdog's limit even where the other steps' loops are long.
      const double other = block_cycles(s, *here.analysis, -1, 1) * per_sm * k;
      const double fit = (o.max_launch_ms * 0.5 * clock_khz - other) / std::max(per_rep, 1.0);
      reps = std::clamp<int64_t>(std::min<int64_t>(reps, static_cast<int64_t>(fit)), 16, 1 << 20);
    }
    reps = (reps + kExposedLoadBatch - 1) / kExposedLoadBatch * kExposedLoadBatch;
    row.reps = reps;
    row.grid = c->grid;
    row.blocks_per_sm = per_sm;
    row.block_threads = static_cast<int>(c->block_threads);
    row.lesson_warps = mask;
    row.replicas = k;
    row.baseline_ms = c->base_ms;
    row.baseline_launch = c->base_launch;
    const int launched_warps = std::popcount(mask) * k;
    std::vector<int> launched(static_cast<size_t>(launched_warps));
    for (int w = 0; w < launched_warps; ++w) launched[static_cast<size_t>(w)] = w;
    row.active_warps_per_sm = launched_warps * per_sm;
    row.schedulers = schedulers_covered(launched, launched_warps, per_sm);
    row.shared_bound = row.active_warps_per_sm >= kSharedBoundWarps;
    if (too_long(step, reps, per_sm * k)) break;
    ReferenceOptions mo;
    mo.grid = c->grid;
    mo.measure = step;
    mo.reps = reps;
    mo.warps = mask;
    mo.replicas = k;
    ReferenceResult mref = evaluate_reference(s, mo);
    if (!L.run_once(c->grid, step, static_cast<int>(reps), host)) break;
    if (mref.ref)
      note_mismatch(verify_output(*mref.ref, host, s.block),
                    "step " + std::to_string(step) + " repeated");
    if (o.warmup) L.timed(c->grid, step, static_cast<int>(reps), 1);
    double best = 1e30;
    for (int r = 0; r < runs && L.status == CUDA_SUCCESS; ++r) {
      best = std::min(best, L.timed(c->grid, step, static_cast<int>(reps), 1));
      row.measured_launch = L.launches - 1;
    }
    row.ms = best;
    const double cycles = (best - c->base_ms) * 1e-3 * clock_hz;
    const double issued = double(reps - 1) * double(instr) * k * per_sm;
    row.cycles_per_instruction = cycles / issued;
    row.ratio = row.model_wavefronts > 0 ? row.cycles_per_instruction / row.model_wavefronts : 0;
    row.bytes_per_clock_per_sm = double(reps - 1) * double(m.bytes) * k * per_sm / cycles;
    res.exposed.steps.push_back(row);
  }
  res.verification = all;
  return finish();
#endif
}

}  // namespace bankviz
