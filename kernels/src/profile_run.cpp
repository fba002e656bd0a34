// profile_run.cpp: Runner::profile() (profile.h): a user's kernel compiled by NVRTC, launched on
// buffers bankviz allocates, timed, and launched once more under CUPTI's SASS metrics, whose
// per-instruction counts go back to source lines through the cubin's line table.
//
// [SECTION] CUPTI's SASS metrics: one collection around one launch
// [SECTION] Runner::profile()
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "bankviz/compiled.h"
#include "bankviz/nvcc.h"
#include "bankviz/profile.h"
#include "bankviz/recording.h"
#include "kernel_params.h"
#include "launcher.h"
#include "record_gpu.h"
#include "runner_impl.h"
#include "timing.h"

namespace bankviz {

namespace detail {

bool make_kernel_params(DriverStatus& st, const std::vector<KernelArg>& args, KernelParams& out,
                        std::string* which) {
  const Driver& d = driver();
  out.storage.assign(args.size(), 0);
  out.params.assign(args.size(), nullptr);
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    if (a.kind == KernelArg::Kind::Buffer) {
      DeviceMemory m;
      if (!st.check(alloc_device(m, a.bytes), "cuMemAlloc") ||
          !st.check(d.cuMemsetD8_(m.get(), 0, a.bytes), "cuMemsetD8")) {
        *which = a.text;
        return false;
      }
      out.storage[i] = m.get();
      out.buffers.push_back(std::move(m));
    } else {
      out.storage[i] = a.bits;  // little-endian: a 4-byte value is the first 4 bytes
    }
    out.params[i] = &out.storage[i];
  }
  return true;
}
}  // namespace detail

using namespace detail;

namespace {

// [SECTION] CUPTI's SASS metrics: one collection around one launch ===============================

// The metrics read for every instruction. The op metrics say what kind of shared access an
// instruction is (the one that counts it), the last three what it cost.
struct SassMetric {
  const char* name;
  const char* op;  // the op it marks, or null
};
constexpr SassMetric kSassMetrics[] = {
    {"smsp__sass_inst_executed_op_shared_ld", "ld"},
    {"smsp__sass_inst_executed_op_shared_st", "st"},
    {"smsp__sass_inst_executed_op_shared_atom", "atom"},
    {"smsp__sass_inst_executed_op_ldsm", "ldsm"},
    {"smsp__sass_inst_executed_op_shared_stsm", "stsm"},
    {"smsp__sass_inst_executed_op_ldgsts", "ldgsts"},
    {"smsp__sass_inst_executed_op_shared_gmma", "gmma"},
    {"smsp__sass_inst_executed", nullptr},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", nullptr},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", nullptr},
};
constexpr size_t kExecuted = 7, kWavefronts = 8, kIdeal = 9;

// The SASS metrics' configuration for the device, set once per process and kept: measured on an
// H100 (CUDA 13.0), a second cuptiSassMetricsSetConfig after cuptiSassMetricsUnsetConfig in one
// process fails with CUPTI_ERROR_OUT_OF_MEMORY, so every profile after the first lost its
// counters. Thread-safe; a failure is kept and reported to every later profile.
//
// And a process collects them once: measured on an H100 (CUDA 13.0, lazy patching or not, a
// fresh module or not), a second enable/disable range in one process reports no instruction at
// all. A second collection is refused in words instead of reporting a kernel without shared
// memory; bankviz-cli runs one profile per process, and the app runs each in a bankviz-cli.
struct SassConfig {
  std::map<uint64_t, size_t> ids;  // metric id -> index in kSassMetrics
  std::vector<std::string> missing;
  CounterStatus status = CounterStatus::Ok;
  std::string message;
  std::atomic<bool> collected{false};  // a collection was made in this process
};

SassConfig& sass_config(int device_index) {
  static std::mutex m;
  static std::optional<SassConfig> config;
  std::lock_guard<std::mutex> lock(m);
  if (config) return *config;
  SassConfig& c = config.emplace();
  const Cupti& cu = cupti();
  auto check = [&](CUptiResult r, const char* call) {
    if (r == CUPTI_SUCCESS) return true;
    c.status = classify_cupti_result(r);
    c.message = std::string(call) + " failed: " + cu.describe(r);
    return false;
  };
  if (!cu.usable()) {
    c.status = CounterStatus::NoCupti;
    c.message = cu.error;
    return c;
  }
  CUpti_Profiler_Initialize_Params init{};
  init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
  if (!check(cu.cuptiProfilerInitialize_(&init), "cuptiProfilerInitialize")) return c;
  CUpti_Device_GetChipName_Params chip{};
  chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  chip.deviceIndex = static_cast<size_t>(device_index);
  if (!check(cu.cuptiDeviceGetChipName_(&chip), "cuptiDeviceGetChipName")) return c;
  std::vector<CUpti_SassMetrics_Config> configs;
  for (size_t i = 0; i < std::size(kSassMetrics); ++i) {
    CUpti_SassMetrics_GetProperties_Params p{};
    p.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
    p.pChipName = chip.pChipName;
    p.pMetricName = kSassMetrics[i].name;
    if (cu.cuptiSassMetricsGetProperties_(&p) != CUPTI_SUCCESS) {
      c.missing.push_back(kSassMetrics[i].name);  // read as 0
      continue;
    }
    c.ids[p.metric.metricId] = i;
    configs.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  auto has = [&](size_t index) {
    for (const auto& [id, i] : c.ids)
      if (i == index) return true;
    return false;
  };
  if (!has(kWavefronts) || !has(kIdeal) || !has(kExecuted)) {
    c.status = CounterStatus::Unsupported;
    c.message = "this GPU's CUPTI lacks the SASS metrics for shared-memory wavefronts (" +
                c.missing.front() + ")";
    return c;
  }
  CUpti_SassMetricsSetConfig_Params set{};
  set.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = static_cast<uint32_t>(device_index);
  check(cu.cuptiSassMetricsSetConfig_(&set), "cuptiSassMetricsSetConfig");
  return c;
}

// Collects the SASS metrics of the launches made between start() and finish() on one context.
// Every CUPTI call is checked; the first failure is kept with its CounterStatus. The destructor
// disables what was enabled, so a failure halfway leaves CUPTI as it was.
class SassCollection {
 public:
  SassCollection(CUcontext ctx, int device_index) : ctx_(ctx), config_(sass_config(device_index)) {}
  ~SassCollection() {
    if (enabled_) disable();
  }

  bool start() {
    if (config_.status != CounterStatus::Ok) {
      status_ = config_.status;
      message_ = config_.message;
      return false;
    }
    if (config_.collected.exchange(true)) {
      status_ = CounterStatus::Failed;
      message_ =
          "CUPTI's SASS metrics count one profile per process (CUDA 13.0: a second reports no "
          "instruction); run bankviz-cli profile again, a new process";
      return false;
    }
    const Cupti& c = cupti();
    CUpti_SassMetricsEnable_Params en{};
    en.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
    en.ctx = ctx_;
    en.enableLazyPatching = 1;  // patch the functions that run, when they first run
    if (!check(c.cuptiSassMetricsEnable_(&en), "cuptiSassMetricsEnable")) return false;
    enabled_ = true;
    return true;
  }

  // After the launches completed: every instruction's values, by (function, pc).
  bool finish(const std::vector<char>& cubin, std::vector<ProfileInstruction>& out) {
    const Cupti& c = cupti();
    CUpti_SassMetricsGetDataProperties_Params dp{};
    dp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
    dp.ctx = ctx_;
    if (!check(c.cuptiSassMetricsGetDataProperties_(&dp), "cuptiSassMetricsGetDataProperties"))
      return false;
    // One record per instruction and metric, each with numOfInstances values (one at GPU
    // granularity). Bounded by the cubin's instructions times the metrics.
    const size_t n = dp.numOfPatchedInstructionRecords;
    const size_t inst = dp.numOfInstances;
    std::vector<CUpti_SassMetrics_Data> data(n);
    std::vector<CUpti_SassMetrics_InstanceValue> values(n * inst);
    for (size_t i = 0; i < n; ++i) {
      data[i].structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;  // as cupti says
      data[i].pInstanceValues = values.data() + i * inst;
    }
    if (n > 0) {
      CUpti_SassMetricsFlushData_Params fp{};
      fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
      fp.ctx = ctx_;
      fp.numOfPatchedInstructionRecords = n;
      fp.numOfInstances = inst;
      fp.pMetricsData = data.data();
      if (!check(c.cuptiSassMetricsFlushData_(&fp), "cuptiSassMetricsFlushData")) return false;
    }
    // (function, pc) -> the metrics' sums.
    std::map<std::pair<std::string, uint32_t>, std::vector<int64_t>> sums;
    for (const CUpti_SassMetrics_Data& d : data) {
      std::vector<int64_t>& v = sums[{d.functionName ? d.functionName : "", d.pcOffset}];
      v.resize(std::size(kSassMetrics));
      for (size_t k = 0; k < inst; ++k) {
        const CUpti_SassMetrics_InstanceValue& iv = d.pInstanceValues[k];
        auto it = config_.ids.find(iv.metricId);
        if (it != config_.ids.end()) v[it->second] += static_cast<int64_t>(iv.value);
      }
    }
    for (auto& [key, v] : sums) {
      ProfileInstruction in;
      in.function = key.first;
      in.pc = key.second;
      for (size_t i = 0; i < kExecuted; ++i)
        if (v[i] > 0 && in.op.empty()) in.op = kSassMetrics[i].op;
      in.executed = v[kExecuted];
      in.wavefronts = v[kWavefronts];
      in.ideal = v[kIdeal];
      // No op counted and no wavefront: not a shared-memory instruction, or one that only warps
      // with no active lane issued (keep_shared() tells them apart by its opcode).
      if (in.op.empty() && in.wavefronts == 0 && in.executed == 0) continue;
      if (in.op.empty() && in.wavefronts > 0) in.op = "shared";
      source_line(c, cubin, in);
      out.push_back(std::move(in));
    }
    return true;
  }

  // Disables now (the data were flushed), keeping the first failure.
  void end() {
    if (enabled_) disable();
  }

  CounterStatus status() const { return status_; }
  const std::string& message() const { return message_; }
  const std::vector<std::string>& missing() const { return config_.missing; }

 private:
  // The cubin's line table (-lineinfo): the instruction's file and line, when it has one.
  static void source_line(const Cupti& c, const std::vector<char>& cubin, ProfileInstruction& in) {
    CUpti_GetSassToSourceCorrelationParams p{};
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = cubin.data();
    p.cubinSize = cubin.size();
    p.functionName = in.function.c_str();
    p.pcOffset = in.pc;
    if (c.cuptiGetSassToSourceCorrelation_(&p) == CUPTI_SUCCESS) {
      in.line = p.lineNumber;
      // The line table keeps the name NVRTC was given split into a directory and a file.
      if (p.fileName) in.file = p.fileName;
      if (p.fileName && p.dirName && p.dirName[0] && p.fileName[0] != '/')
        in.file = std::string(p.dirName) + '/' + p.fileName;
    }
    std::free(p.fileName);  // CUPTI allocates them for the caller
    std::free(p.dirName);
  }

  bool check(CUptiResult r, const char* call) {
    if (r == CUPTI_SUCCESS) return true;
    if (status_ == CounterStatus::Ok) {
      status_ = classify_cupti_result(r);
      message_ = std::string(call) + " failed: " + cupti().describe(r);
    }
    return false;
  }
  void disable() {
    CUpti_SassMetricsDisable_Params p{};
    p.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
    p.ctx = ctx_;
    check(cupti().cuptiSassMetricsDisable_(&p), "cuptiSassMetricsDisable");
    enabled_ = false;
  }
  CUcontext ctx_;
  SassConfig& config_;
  bool enabled_ = false;
  CounterStatus status_ = CounterStatus::Ok;
  std::string message_;
};

// "identifier "foo" is undefined" for the name expression: the kernel is not in the file.
bool names_missing_kernel(const std::string& log, const std::string& kernel) {
  return log.find("identifier \"" + kernel + "\" is undefined") != std::string::npos ||
         log.find("\"" + kernel + "\" is not a") != std::string::npos;
}

std::string arg_type_name(KernelArg::Kind k) {
  switch (k) {
    case KernelArg::Kind::Buffer:
      return "buffer";
    case KernelArg::Kind::Int:
      return "int";
    case KernelArg::Kind::Uint:
      return "uint";
    case KernelArg::Kind::Long:
      return "long";
    case KernelArg::Kind::Ulong:
      return "ulong";
    case KernelArg::Kind::Float:
      return "float";
    case KernelArg::Kind::Double:
      return "double";
  }
  return "?";
}

}  // namespace

// [SECTION] Runner::profile() ====================================================================

namespace {

// The SASS opcode's op in profile's words ("" for an instruction that is not a shared one).
const char* op_of_opcode(const SassInstruction& i) {
  if (!i.shared()) return "";
  const std::string b = i.opcode.substr(0, i.opcode.find('.'));
  return b == "LDS"     ? "ld"
         : b == "STS"   ? "st"
         : b == "ATOMS" ? "atom"
         : b == "LDSM"  ? "ldsm"
         : b == "STSM"  ? "stsm"
                        : "ldgsts";
}

// Keeps the shared-memory instructions among what the SASS metrics counted: those with an op
// counted or wavefronts, and those the compiled code's SASS names a shared-memory instruction
// that only warps with no active lane issued (executed, no op counted, 0 wavefronts: Nsight
// Compute's source page counts them too). And an instruction whose line is in a header (CUDA's
// atomicAdd, __half2's operators, inlined from cuda_fp16.hpp or sm_20_atomic_functions.hpp by
// nvcc's line table) is counted on the innermost line of `file_name` that calls it, among the
// call sites nvdisasm names: the user's line that made it (a helper's atomicCAS on the helper's
// line, where the recordings put it, not on the kernel's call of the helper). Without the SASS (no
// nvdisasm) neither can be done: those instructions keep CUPTI's line or are left out, and *note
// says so.
void keep_shared(std::vector<ProfileInstruction>& all, const std::vector<char>& cubin,
                 const std::string& file_name, std::string* note) {
  std::vector<ProfileInstruction> kept;
  std::map<std::pair<std::string, uint32_t>, const SassInstruction*> at;
  std::string why;
  std::vector<SassInstruction> sass;
  const bool need = std::any_of(all.begin(), all.end(), [&](const ProfileInstruction& i) {
    return i.op.empty() || (!i.file.empty() && !same_file(i.file, file_name));
  });
  if (need) {
    const std::string listing = disassemble(cubin, &why);
    if (!listing.empty()) sass = parse_nvdisasm(listing);
    for (const SassInstruction& i : sass) at[{i.function, i.pc}] = &i;
  }
  for (ProfileInstruction& in : all) {
    const auto s = at.find({in.function, in.pc});
    const SassInstruction* x = s == at.end() ? nullptr : s->second;
    if (in.op.empty()) {
      // ptxas's `@!PT LDS RZ, [RZ]` pads beside an LDGSTS are issued and never executed: not the
      // line's instructions (compiled.h never_executes(); the model counts them apart).
      if (!x || !x->shared() || x->never_executes()) continue;
      in.op = op_of_opcode(*x);
    }
    if (x && !in.file.empty() && !same_file(in.file, file_name)) {
      if (const uint32_t line = x->line_in(file_name); line > 0) {
        in.file = file_name;
        in.line = line;
      }
    }
    kept.push_back(std::move(in));
  }
  if (sass.empty() && !why.empty())
    *note =
        "instructions that only warps with no active lane issued are not listed, and those "
        "of CUDA's headers stay on the header's line (both need the SASS: " +
        why + ")";
  all = std::move(kept);
}

// What the device cannot launch: a block of more threads, or more dynamic shared memory, than
// it allows ("" when it can).
std::string device_limit_problem(const ProfileRequest& req, const DeviceInfo& dev) {
  if (req.block.product() > static_cast<uint64_t>(dev.max_threads_per_block))
    return "a block of " + std::to_string(req.block.product()) + " threads; this GPU allows " +
           std::to_string(dev.max_threads_per_block);
  if (req.dynamic_shared > dev.shared_per_block_optin)
    return std::to_string(req.dynamic_shared) +
           " bytes of dynamic shared memory; this GPU allows at most " +
           std::to_string(dev.shared_per_block_optin) + " per block";
  return {};
}

// The kernel's parameters against the --arg given, where the driver can tell their sizes
// (cuFuncGetParamInfo): "" when they match; *count gets the kernel's parameter count.
std::string parameter_problem(CUfunction fn, const ProfileRequest& req, size_t* count) {
  const Driver& d = driver();
  if (!d.cuFuncGetParamInfo_) return {};
  std::vector<size_t> sizes;
  for (size_t i = 0; i < 4096; ++i) {
    size_t offset = 0, size = 0;
    if (d.cuFuncGetParamInfo_(fn, i, &offset, &size) != CUDA_SUCCESS) break;
    sizes.push_back(size);
  }
  *count = sizes.size();
  if (sizes.size() != req.args.size())
    return req.kernel + " takes " + std::to_string(sizes.size()) + " parameter" +
           (sizes.size() == 1 ? "" : "s") + "; " + std::to_string(req.args.size()) +
           " --arg given (one per parameter, in order)";
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != req.args[i].size())
      return "parameter " + std::to_string(i + 1) + " of " + req.kernel + " is " +
             std::to_string(sizes[i]) + " bytes; --arg " + req.args[i].text + " gives a " +
             arg_type_name(req.args[i].kind) + " of " + std::to_string(req.args[i].size());
  return {};
}

// One more launch under the SASS metrics: each instruction's counters into res.instructions and
// how they were read into res.counters (and its message). False if the launch failed.
template <class Launch>
bool launch_counted(CUcontext ctx, const std::vector<char>& cubin, Launch&& launch,
                    ProfileResult& res) {
  SassCollection sass(ctx, 0);
  if (sass.start()) {
    if (!launch()) return false;
    if (sass.finish(cubin, res.instructions)) sass.end();
  }
  res.counters = sass.status();
  if (sass.status() != CounterStatus::Ok)
    res.counters_message = counter_problem(sass.status(), sass.message());
  else if (!sass.missing().empty())
    res.counters_message = "this GPU lacks " + sass.missing().front() + " (read as 0)";
  return true;
}

// Why the user's source did not compile, in words that say what to do.
std::string compile_failure(const ProfileRequest& req, const CompileOutcome& comp) {
  // A template named without its instance: NVRTC's words about the name expression would not
  // say what to do; the GPU recording's refusal does (recording.h, one home).
  if (std::string t = template_without_instance(req.source, req.kernel); !t.empty()) return t;
  if (names_missing_kernel(comp.log, req.kernel))
    return "no __global__ function named \"" + req.kernel + "\" in " + req.file_name;
  return comp.error;
}

// The user's kernel compiled as the user compiles it (nvcc.h): nvcc with the user's flags where
// profile_nvcc() finds it, else NVRTC with line info (compiler.h, the generated kernels' caches).
// Fills res's cubin, lowered name, log, time and compiled_by; "" when compiled, else why not.
std::string compile_user_kernel(const ProfileRequest& req, const std::string& sm,
                                ProfileResult& res) {
  std::string no_nvcc, nvcc_error;
  if (const std::string nvcc = profile_nvcc(req, &no_nvcc); !nvcc.empty()) {
    UserBuild b = nvcc_build(req, nvcc, sm);
    if (b.error.empty() || !nvrtc_may_stand_in(req)) {
      res.compiled_by = b.compiled_by;
      res.compile_log = b.log;
      res.compile_ms = b.ms;
      res.cubin = std::move(b.cubin);
      res.lowered = b.lowered;
      return b.error;
    }
    no_nvcc = nvcc_failed(b.error);  // NVRTC may compile it (nvcc's host compiler missing...)
    nvcc_error = b.error;
  }
  if (!nvrtc_may_stand_in(req))
    return user_build(req, sm).error;  // nvcc was asked for: why it cannot compile
  KernelSource k;
  k.text = req.source;
  k.kernel_name = req.kernel;
  k.file_name = req.file_name;
  const CompileOutcome comp = compile(k, sm);
  res.compile_log = comp.log;
  res.compile_ms = comp.ms;
  res.compiled_by = "NVRTC (-lineinfo; " + no_nvcc + ")";
  if (!comp.compiled) return nvcc_error.empty() ? compile_failure(req, comp) : nvcc_error;
  res.cubin = comp.compiled->cubin;
  res.lowered = comp.compiled->lowered;
  return {};
}

std::string timeout_message(double timeout_ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f ms", timeout_ms);
  return "the kernel did not finish within " + std::string(buf) +
         " (timeout). CUDA cannot stop a running kernel; it stops when this program ends. A "
         "loop that never ends, or --timeout too short for the kernel?";
}

}  // namespace

ProfileResult Runner::profile(const ProfileRequest& req) {
  ProfileResult res;
  auto refuse = [&](RunStatus s, std::string m) {
    res.status = s;
    res.message = std::move(m);
    return res;
  };
  if (auto problems = check_request(req); !problems.empty()) {
    std::string m;
    for (const std::string& p : problems) m += (m.empty() ? "" : "; ") + p;
    return refuse(RunStatus::BadArguments, m);
  }
  std::string reason;
  if (!impl_->ensure(&reason)) return refuse(RunStatus::NoCuda, reason);
  const DeviceInfo& dev = impl_->opened.info;
  res.device = dev;
  if (std::string why = device_limit_problem(req, dev); !why.empty())
    return refuse(RunStatus::TooLarge, why);

  // 1. Compiled as the user compiles it: nvcc with the user's flags, else NVRTC (nvcc.h).
  if (std::string why = compile_user_kernel(req, dev.sm, res); !why.empty())
    return refuse(RunStatus::CompileError, why);

  // 2. The module and the function; its parameters against the arguments.
  const Driver& d = driver();
  DriverStatus st;
  // A module of its own, loaded for this profile and unloaded after it: CUPTI patches a
  // function for the SASS metrics at its first launch after enabling them, and measured on an
  // H100 (CUDA 13) a function of a module kept loaded from an earlier profile reported nothing.
  // (The generated kernels' module cache is not the place for a user's kernels either.)
  Module module;
  if (!st.check(load_module(module, res.cubin.data()), "cuModuleLoadData"))
    return refuse(RunStatus::LaunchError, st.message());
  CUmodule mod = module.get();
  CUfunction fn = nullptr;
  if (!st.check(d.cuModuleGetFunction_(&fn, mod, res.lowered.c_str()), "cuModuleGetFunction"))
    return refuse(RunStatus::CompileError, "\"" + req.kernel +
                                               "\" is not a __global__ function of " +
                                               req.file_name + " (" + st.message() + ")");
  if (std::string why = parameter_problem(fn, req, &res.parameters); !why.empty())
    return refuse(RunStatus::BadArguments, why);
  if (req.dynamic_shared > 48 * 1024 &&
      !st.check(d.cuFuncSetAttribute_(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(req.dynamic_shared)),
                "cuFuncSetAttribute"))
    return refuse(RunStatus::TooLarge, st.message());

  // 3. Buffers (zeroed) and the parameter values.
  KernelParams kp;
  std::string which;
  if (!make_kernel_params(st, req.args, kp, &which))
    return refuse(RunStatus::LaunchError, "buffer " + which + ": " + st.message());
  std::vector<DeviceMemory>& buffers = kp.buffers;

  // 4. Launch: once to see that it runs, once timed, once under the SASS metrics.
  Event e0, e1;
  bool timed_out = false;
  auto launch = [&]() {
    return st.check(d.cuEventRecord_(e0.get(), nullptr), "cuEventRecord") &&
           st.check(
               d.cuLaunchKernel_(fn, req.grid.x, req.grid.y, req.grid.z, req.block.x, req.block.y,
                                 req.block.z, req.dynamic_shared, nullptr, kp.data(), nullptr),
               "cuLaunchKernel") &&
           st.check(d.cuEventRecord_(e1.get(), nullptr), "cuEventRecord") &&
           wait_for_event(st, e1, req.timeout_ms, &timed_out);
  };
  bool ok = st.check(create_event(e0), "cuEventCreate") &&
            st.check(create_event(e1), "cuEventCreate") && launch() && launch();
  if (ok) {
    float ms = 0;
    ok = st.check(d.cuEventElapsedTime_(&ms, e0.get(), e1.get()), "cuEventElapsedTime");
    res.kernel_ms = ms;
  }
  if (ok && req.counters) {
    impl_->counters.reset();  // the range profiler and SASS patching: one at a time
    ok = launch_counted(impl_->ctx.get(), res.cubin, launch, res);
  }
  if (ok && req.record) {
    // 5. The recording: one more launch of the kernel compiled with recording proxies.
    DriverStatus rst;
    GpuRecording g = record_block_on_gpu(req, dev.sm, rst);
    res.recording = std::move(g.recording);
    res.recording_message = g.why;
    if (g.timed_out)
      timed_out = true;
    else if (!rst.ok() && is_sticky(rst.result()))
      st = rst;
    ok = !timed_out && st.ok();
  }
  // What this launch holds, left to the driver when the context cannot be used again.
  auto abandon = [&] {
    for (DeviceMemory& m : buffers) m.abandon();
    module.abandon();
    e0.abandon();
    e1.abandon();
  };
  if (timed_out) {
    // A user's kernel has no bound the model could give (a generated kernel's estimate bounds
    // the wait a context reset makes): it may never end, and releasing or resetting its context
    // would wait for it. The context is abandoned; the driver stops the kernel when the process
    // ends (the app profiles in a process of its own).
    abandon();
    impl_->wedge(
        "a kernel profiled earlier did not finish and still runs on the GPU; CUDA "
        "cannot stop a running kernel: it stops when this program ends");
    res.wedged = true;
    return refuse(RunStatus::Timeout, timeout_message(req.timeout_ms));
  }
  if (!ok) {
    res.status = RunStatus::LaunchError;
    res.message = "the kernel failed: " + st.message();
    if (is_sticky(st.result())) {
      abandon();
      impl_->wedge(Runner::Impl::sticky_reason(driver().describe(st.result())));
      res.wedged = true;
      res.message +=
          ". CUDA cannot recover from this error in the same process: it ends now "
          "(the next bankviz-cli command, and the app's next profile, start fresh)";
    }
    return res;
  }
  for (DeviceMemory& m : buffers) st.check(m.release(), "cuMemFree");
  st.check(e0.release(), "cuEventDestroy");
  st.check(e1.release(), "cuEventDestroy");
  st.check(module.release(), "cuModuleUnload");
  if (!st.ok()) return refuse(RunStatus::LaunchError, st.message());

  std::string note;
  keep_shared(res.instructions, res.cubin, req.file_name, &note);
  if (!note.empty()) res.counters_message += (res.counters_message.empty() ? "" : "; ") + note;
  res.lines = lines_of(res.instructions, req.source, req.file_name);
  for (const ProfileInstruction& in : res.instructions) {
    res.executed += in.executed;
    res.wavefronts += in.wavefronts;
    res.ideal += in.ideal;
  }
  res.status = RunStatus::Ok;
  return res;
}

}  // namespace bankviz
