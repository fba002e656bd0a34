// profile_run.cpp: Runner::profile() (profile.h): a user's kernel compiled by NVRTC, launched on
// buffers bankviz allocates, timed, and launched once more under CUPTI's SASS metrics, whose
// per-instruction counts go back to source lines through the cubin's line table.
//
// [SECTION] CUPTI's SASS metrics: one collection around one launch
// [SECTION] Runner::profile()
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

#include "bankviz/profile.h"
#include "launcher.h"
#include "runner_impl.h"
#include "timing.h"

namespace bankviz {

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

// Collects the SASS metrics of the launches made between start() and finish() on one context.
// Every CUPTI call is checked; the first failure is kept with its CounterStatus. The destructor
// disables and unsets what was enabled and set, so a failure halfway leaves CUPTI as it was.
class SassCollection {
 public:
  SassCollection(CUcontext ctx, int device_index) : ctx_(ctx), device_(device_index) {}
  ~SassCollection() {
    if (enabled_) disable();
    if (configured_) unset();
  }

  bool start() {
    const Cupti& c = cupti();
    if (!c.usable()) {
      status_ = CounterStatus::NoCupti;
      message_ = c.error;
      return false;
    }
    CUpti_Profiler_Initialize_Params init{};
    init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    if (!check(c.cuptiProfilerInitialize_(&init), "cuptiProfilerInitialize")) return false;
    CUpti_Device_GetChipName_Params chip{};
    chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    chip.deviceIndex = static_cast<size_t>(device_);
    if (!check(c.cuptiDeviceGetChipName_(&chip), "cuptiDeviceGetChipName")) return false;
    std::vector<CUpti_SassMetrics_Config> configs;
    for (size_t i = 0; i < std::size(kSassMetrics); ++i) {
      CUpti_SassMetrics_GetProperties_Params p{};
      p.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
      p.pChipName = chip.pChipName;
      p.pMetricName = kSassMetrics[i].name;
      if (c.cuptiSassMetricsGetProperties_(&p) != CUPTI_SUCCESS) {
        missing_.push_back(kSassMetrics[i].name);  // read as 0
        continue;
      }
      ids_[p.metric.metricId] = i;
      configs.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
    }
    if (!has(kWavefronts) || !has(kIdeal) || !has(kExecuted)) {
      status_ = CounterStatus::Unsupported;
      message_ = "this GPU's CUPTI lacks the SASS metrics for shared-memory wavefronts (" +
                 missing_.front() + ")";
      return false;
    }
    CUpti_SassMetricsSetConfig_Params set{};
    set.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
    set.numOfMetricConfig = configs.size();
    set.pConfigs = configs.data();
    set.deviceIndex = static_cast<uint32_t>(device_);
    if (!check(c.cuptiSassMetricsSetConfig_(&set), "cuptiSassMetricsSetConfig")) return false;
    configured_ = true;
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
        auto it = ids_.find(iv.metricId);
        if (it != ids_.end()) v[it->second] += static_cast<int64_t>(iv.value);
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
      if (in.op.empty() && in.wavefronts == 0) continue;  // not a shared-memory instruction
      if (in.op.empty()) in.op = "shared";
      source_line(c, cubin, in);
      out.push_back(std::move(in));
    }
    return true;
  }

  // Disables and unsets now (the data were flushed), keeping the first failure.
  void end() {
    if (enabled_) disable();
    if (configured_) unset();
  }

  CounterStatus status() const { return status_; }
  const std::string& message() const { return message_; }
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  bool has(size_t index) const {
    for (const auto& [id, i] : ids_)
      if (i == index) return true;
    return false;
  }

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
      if (p.fileName) in.file = p.fileName;
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
  void unset() {
    CUpti_SassMetricsUnsetConfig_Params p{};
    p.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
    p.deviceIndex = static_cast<uint32_t>(device_);
    check(cupti().cuptiSassMetricsUnsetConfig_(&p), "cuptiSassMetricsUnsetConfig");
    configured_ = false;
  }

  CUcontext ctx_;
  int device_;
  bool configured_ = false, enabled_ = false;
  std::map<uint64_t, size_t> ids_;  // metric id -> index in kSassMetrics
  std::vector<std::string> missing_;
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
    return refuse(RunStatus::BadScenario, m);
  }
  std::string reason;
  if (!impl_->ensure(&reason)) return refuse(RunStatus::NoCuda, reason);
  const DeviceInfo& dev = impl_->opened.info;
  res.device = dev;
  if (req.block.product() > static_cast<uint64_t>(dev.max_threads_per_block))
    return refuse(RunStatus::TooLarge, "a block of " + std::to_string(req.block.product()) +
                                           " threads; this GPU allows " +
                                           std::to_string(dev.max_threads_per_block));
  if (req.dynamic_shared > dev.shared_per_block_optin)
    return refuse(RunStatus::TooLarge,
                  std::to_string(req.dynamic_shared) +
                      " bytes of dynamic shared memory; this GPU allows at most " +
                      std::to_string(dev.shared_per_block_optin) + " per block");

  // 1. NVRTC with line info (compiler.h), the same caches as the generated kernels.
  KernelSource k;
  k.text = req.source;
  k.kernel_name = req.kernel;
  k.file_name = req.file_name;
  const CompileOutcome comp = compile(k, dev.sm);
  res.compile_log = comp.log;
  res.compile_ms = comp.ms;
  if (!comp.compiled) {
    if (names_missing_kernel(comp.log, req.kernel))
      return refuse(RunStatus::CompileError,
                    "no __global__ function named \"" + req.kernel + "\" in " + req.file_name);
    return refuse(RunStatus::CompileError, comp.error);
  }
  res.lowered = comp.compiled->lowered;

  // 2. The module and the function; its parameters against the arguments.
  const Driver& d = driver();
  DriverStatus st;
  CUmodule mod = nullptr;
  bool hit = false;
  if (!st.check(impl_->modules.get(cache_key(dev.sm, k), *comp.compiled, &mod, &hit),
                "cuModuleLoadData"))
    return refuse(RunStatus::LaunchError, st.message());
  CUfunction fn = nullptr;
  if (!st.check(d.cuModuleGetFunction_(&fn, mod, res.lowered.c_str()), "cuModuleGetFunction"))
    return refuse(RunStatus::CompileError, "\"" + req.kernel +
                                               "\" is not a __global__ function of " +
                                               req.file_name + " (" + st.message() + ")");
  if (d.cuFuncGetParamInfo_) {
    std::vector<size_t> sizes;
    for (size_t i = 0; i < 4096; ++i) {
      size_t offset = 0, size = 0;
      if (d.cuFuncGetParamInfo_(fn, i, &offset, &size) != CUDA_SUCCESS) break;
      sizes.push_back(size);
    }
    res.parameters = sizes.size();
    if (sizes.size() != req.args.size())
      return refuse(RunStatus::BadScenario, req.kernel + " takes " + std::to_string(sizes.size()) +
                                                " parameter" + (sizes.size() == 1 ? "" : "s") +
                                                "; " + std::to_string(req.args.size()) +
                                                " --arg given (one per parameter, in order)");
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] != req.args[i].size())
        return refuse(RunStatus::BadScenario, "parameter " + std::to_string(i + 1) + " of " +
                                                  req.kernel + " is " + std::to_string(sizes[i]) +
                                                  " bytes; --arg " + req.args[i].text +
                                                  " gives a " + arg_type_name(req.args[i].kind) +
                                                  " of " + std::to_string(req.args[i].size()));
  }
  if (req.dynamic_shared > 48 * 1024 &&
      !st.check(d.cuFuncSetAttribute_(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(req.dynamic_shared)),
                "cuFuncSetAttribute"))
    return refuse(RunStatus::TooLarge, st.message());

  // 3. Buffers (zeroed) and the parameter values.
  std::vector<DeviceMemory> buffers;
  std::vector<uint64_t> storage(req.args.size());
  std::vector<void*> params(req.args.size());
  for (size_t i = 0; i < req.args.size(); ++i) {
    const KernelArg& a = req.args[i];
    if (a.kind == KernelArg::Kind::Buffer) {
      DeviceMemory m;
      if (!st.check(alloc_device(m, a.bytes), "cuMemAlloc") ||
          !st.check(d.cuMemsetD8_(m.get(), 0, a.bytes), "cuMemsetD8"))
        return refuse(RunStatus::LaunchError, "buffer " + a.text + ": " + st.message());
      storage[i] = m.get();
      buffers.push_back(std::move(m));
    } else {
      storage[i] = a.bits;  // little-endian: a 4-byte value is the first 4 bytes
    }
    params[i] = &storage[i];
  }

  // 4. Launch: once to see that it runs, once timed, once under the SASS metrics.
  Event e0, e1;
  bool timed_out = false;
  auto launch = [&]() {
    return st.check(d.cuEventRecord_(e0.get(), nullptr), "cuEventRecord") &&
           st.check(d.cuLaunchKernel_(fn, req.grid.x, req.grid.y, req.grid.z, req.block.x,
                                      req.block.y, req.block.z, req.dynamic_shared, nullptr,
                                      params.empty() ? nullptr : params.data(), nullptr),
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
    SassCollection sass(impl_->ctx.get(), 0);
    if (sass.start()) {
      ok = launch();
      if (ok && sass.finish(comp.compiled->cubin, res.instructions)) sass.end();
    }
    if (ok) {
      res.counters = sass.status();
      if (sass.status() != CounterStatus::Ok)
        res.counters_message = counter_problem(sass.status(), sass.message());
      else if (!sass.missing().empty())
        res.counters_message = "this GPU lacks " + sass.missing().front() + " (read as 0)";
    }
  }
  if (timed_out) {
    for (DeviceMemory& m : buffers) m.abandon();
    e0.abandon();
    e1.abandon();
    DriverStatus reset;
    impl_->reset_context(reset);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f ms", req.timeout_ms);
    return refuse(RunStatus::Timeout,
                  "the kernel did not finish within " + std::string(buf) +
                      " (timeout). The CUDA context was reset; the app and the next run go on");
  }
  if (!ok) {
    res.status = RunStatus::LaunchError;
    res.message = "the kernel failed: " + st.message();
    if (is_sticky(st.result())) {
      for (DeviceMemory& m : buffers) m.abandon();
      e0.abandon();
      e1.abandon();
      DriverStatus reset;
      impl_->reset_context(reset);
      res.message += reset.ok()
                         ? " (the CUDA context was reset; the next run starts a fresh one)"
                         : " (resetting the CUDA context failed too: " + reset.message() + ")";
    }
    return res;
  }
  for (DeviceMemory& m : buffers) st.check(m.release(), "cuMemFree");
  st.check(e0.release(), "cuEventDestroy");
  st.check(e1.release(), "cuEventDestroy");
  impl_->modules.trim(st);
  if (!st.ok()) return refuse(RunStatus::LaunchError, st.message());

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
