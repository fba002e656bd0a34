// cupti.cpp: CUPTI opened at run time, and counter sessions (cupti.h).
//
// [SECTION] The entry-point table (dlopen of libcupti.so.13)
// [SECTION] A counter session: the metric configuration
// [SECTION] A counter session: one batch of launches
#include "cupti.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace bankviz::detail {

// [SECTION] The entry-point table (dlopen of libcupti.so.13) =====================================

namespace {

Cupti open_cupti() {
  Cupti c;
  const std::string beside = std::string(BANKVIZ_CUPTI_DIR) + "/libcupti.so.13";
  std::string tried;
  for (const std::string& name : {std::string("libcupti.so.13"), beside}) {
    c.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (c.handle) break;
    const char* e = dlerror();
    if (!tried.empty()) tried += "; ";
    tried += e ? e : name + " not found";
  }
  if (!c.handle) {
    c.error = "no CUPTI: " + tried;
    return c;
  }
#define BANKVIZ_CUPTI_LOAD(fn)                                       \
  c.fn##_ = reinterpret_cast<decltype(&::fn)>(dlsym(c.handle, #fn)); \
  if (!c.fn##_ && c.error.empty())                                   \
    c.error = std::string("CUPTI lacks ") + #fn + " (older than CUDA 12.6?)";
  BANKVIZ_CUPTI_FUNCTIONS(BANKVIZ_CUPTI_LOAD)
#undef BANKVIZ_CUPTI_LOAD
  return c;
}

}  // namespace

std::string Cupti::describe(CUptiResult r) const {
  const char* text = nullptr;
  if (!cuptiGetResultString_ || cuptiGetResultString_(r, &text) != CUPTI_SUCCESS) text = nullptr;
  return text ? std::string(text) : "CUPTI error " + std::to_string(static_cast<int>(r));
}

const Cupti& cupti() {
  static std::once_flag once;
  static Cupti c;
  std::call_once(once, [] { c = open_cupti(); });
  return c;
}

CounterStatus classify_cupti_result(CUptiResult r) {
  switch (r) {
    case CUPTI_SUCCESS:
      return CounterStatus::Ok;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return CounterStatus::NotPermitted;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return CounterStatus::Unsupported;
    default:
      return CounterStatus::Failed;
  }
}

// [SECTION] A counter session: the metric configuration ==========================================

bool CounterSession::check(CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return true;
  if (status_ == CounterStatus::Ok) {
    status_ = classify_cupti_result(r);
    message_ = std::string(call) + " failed: " + cupti().describe(r);
  }
  return false;
}

CounterSession::CounterSession(CUcontext ctx, int device_index, bool keep_enabled,
                               const std::vector<std::string>* only)
    : ctx_(ctx), keep_enabled_(keep_enabled) {
  const Cupti& c = cupti();
  if (!c.usable()) {
    status_ = CounterStatus::NoCupti;
    message_ = c.error;
    return;
  }
  // Once per process; later calls are cheap and succeed.
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE, nullptr};
  if (!check(c.cuptiProfilerInitialize_(&init), "cuptiProfilerInitialize")) return;

  CUpti_Profiler_DeviceSupported_Params sup{};
  sup.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
  sup.cuDevice = device_index;
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (!check(c.cuptiProfilerDeviceSupported_(&sup), "cuptiProfilerDeviceSupported")) return;
  if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    status_ = CounterStatus::Unsupported;
    message_ = sup.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                   ? "the GPU is older than compute capability 7.0"
               : sup.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                   ? "a virtual GPU without profiling enabled"
               : sup.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                   ? "confidential computing is on"
                   : "CUPTI says the device does not support profiling";
    return;
  }

  CUpti_Device_GetChipName_Params chip{};
  chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  chip.deviceIndex = static_cast<size_t>(device_index);
  if (!check(c.cuptiDeviceGetChipName_(&chip), "cuptiDeviceGetChipName")) return;

  CUpti_Profiler_GetCounterAvailability_Params avail{};
  avail.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
  avail.ctx = ctx_;
  if (!check(c.cuptiProfilerGetCounterAvailability_(&avail), "cuptiProfilerGetCounterAvailability"))
    return;
  std::vector<uint8_t> image(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = image.data();
  if (!check(c.cuptiProfilerGetCounterAvailability_(&avail), "cuptiProfilerGetCounterAvailability"))
    return;

  CUpti_Profiler_Host_Initialize_Params hi{};
  hi.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = chip.pChipName;
  hi.pCounterAvailabilityImage = image.data();
  if (!check(c.cuptiProfilerHostInitialize_(&hi), "cuptiProfilerHostInitialize")) return;
  host_ = hi.pHostObject;

  // Each metric this chip knows; the others are named in missing().
  for (const CounterMetric& m : counter_metrics()) {
    if (only && std::find(only->begin(), only->end(), m.name) == only->end()) continue;
    CUpti_Profiler_Host_GetMetricProperties_Params prop{};
    prop.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
    prop.pHostObject = host_;
    prop.pMetricName = m.name;
    if (c.cuptiProfilerHostGetMetricProperties_(&prop) == CUPTI_SUCCESS) {
      names_.push_back(m.name);
      fields_.push_back(m.field);
    } else {
      missing_.push_back(m.name);
    }
  }
  if (names_.empty()) {
    status_ = CounterStatus::Unsupported;
    message_ = "this GPU knows none of the shared-memory metrics";
    return;
  }
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{};
  add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
  add.pHostObject = host_;
  add.ppMetricNames = names_.data();
  add.numMetrics = names_.size();
  if (!check(c.cuptiProfilerHostConfigAddMetrics_(&add), "cuptiProfilerHostConfigAddMetrics"))
    return;
  CUpti_Profiler_Host_GetConfigImageSize_Params size{};
  size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
  size.pHostObject = host_;
  if (!check(c.cuptiProfilerHostGetConfigImageSize_(&size), "cuptiProfilerHostGetConfigImageSize"))
    return;
  config_.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{};
  get.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
  get.pHostObject = host_;
  get.configImageSize = config_.size();
  get.pConfigImage = config_.data();
  if (!check(c.cuptiProfilerHostGetConfigImage_(&get), "cuptiProfilerHostGetConfigImage")) return;
  CUpti_Profiler_Host_GetNumOfPasses_Params np{};
  np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
  np.configImageSize = config_.size();
  np.pConfigImage = config_.data();
  if (!check(c.cuptiProfilerHostGetNumOfPasses_(&np), "cuptiProfilerHostGetNumOfPasses")) return;
  passes_ = np.numOfPasses;
}

CounterSession::~CounterSession() {
  disable();
  if (!host_) return;
  CUpti_Profiler_Host_Deinitialize_Params d{};
  d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  d.pHostObject = host_;
  if (CUptiResult r = cupti().cuptiProfilerHostDeinitialize_(&d); r != CUPTI_SUCCESS)
    std::fprintf(stderr, "bankviz: cuptiProfilerHostDeinitialize failed while cleaning up: %s\n",
                 cupti().describe(r).c_str());
}

// [SECTION] A counter session: one batch of launches =============================================

bool CounterSession::enable() {
  if (rp_) return true;
  CUpti_RangeProfiler_Enable_Params en{};
  en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
  en.ctx = ctx_;
  if (!check(cupti().cuptiRangeProfilerEnable_(&en), "cuptiRangeProfilerEnable")) return false;
  rp_ = en.pRangeProfilerObject;
  return true;
}

void CounterSession::disable() {
  if (!rp_) return;
  CUpti_RangeProfiler_Disable_Params dis{};
  dis.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
  dis.pRangeProfilerObject = rp_;
  rp_ = nullptr;
  check(cupti().cuptiRangeProfilerDisable_(&dis), "cuptiRangeProfilerDisable");
}

bool CounterSession::collect(size_t count, const std::function<bool(size_t)>& launch,
                             const std::function<bool()>& sync, std::vector<SharedCounters>& out) {
  if (!ok() || count == 0) return ok();
  const Cupti& c = cupti();
  using clock = std::chrono::steady_clock;
  auto t = clock::now();
  std::string timing;
  auto lap = [&](const char* what) {
    const auto now = clock::now();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s %.1f ms", timing.empty() ? "" : ", ", what,
                  std::chrono::duration<double, std::milli>(now - t).count());
    timing += buf;
    t = now;
  };
  // Enabled for this batch only unless kept: launches outside collect() (the timed ones) then
  // never run under the profiler.
  // A profiler kept enabled is reused only for a batch of the same size (a reused one was seen
  // to return too few ranges for a larger batch).
  if (rp_ && count != enabled_count_) disable();
  if (!enable()) return false;
  enabled_count_ = count;
  lap("enable");
  std::vector<uint8_t> data;
  std::vector<std::string> names(count);
  for (size_t i = 0; i < count; ++i) names[i] = std::to_string(i);
  bool launched = true;
  size_t passes = 0;
  [&] {
    CUpti_RangeProfiler_GetCounterDataSize_Params ds{};
    ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    ds.pRangeProfilerObject = rp_;
    ds.pMetricNames = names_.data();
    ds.numMetrics = names_.size();
    ds.maxNumOfRanges = count;
    ds.maxNumRangeTreeNodes = static_cast<uint32_t>(count);
    if (!check(c.cuptiRangeProfilerGetCounterDataSize_(&ds),
               "cuptiRangeProfilerGetCounterDataSize"))
      return;
    data.resize(ds.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{};
    di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    di.pRangeProfilerObject = rp_;
    di.counterDataSize = data.size();
    di.pCounterData = data.data();
    if (!check(c.cuptiRangeProfilerCounterDataImageInitialize_(&di),
               "cuptiRangeProfilerCounterDataImageInitialize"))
      return;
    CUpti_RangeProfiler_SetConfig_Params sc{};
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = rp_;
    sc.configSize = config_.size();
    sc.pConfig = config_.data();
    sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data();
    sc.range = CUPTI_UserRange;
    sc.replayMode = CUPTI_UserReplay;
    sc.maxRangesPerPass = count;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    if (!check(c.cuptiRangeProfilerSetConfig_(&sc), "cuptiRangeProfilerSetConfig")) return;
    lap("config");
    // One pass per loop; CUPTI says when every pass the metrics need has been submitted.
    for (bool all = false; !all && launched && passes < 64; ++passes) {
      CUpti_RangeProfiler_Start_Params st{};
      st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
      st.pRangeProfilerObject = rp_;
      if (!check(c.cuptiRangeProfilerStart_(&st), "cuptiRangeProfilerStart")) return;
      for (size_t i = 0; i < count && launched && ok(); ++i) {
        CUpti_RangeProfiler_PushRange_Params push{};
        push.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
        push.pRangeProfilerObject = rp_;
        push.pRangeName = names[i].c_str();
        if (!check(c.cuptiRangeProfilerPushRange_(&push), "cuptiRangeProfilerPushRange")) break;
        launched = launch(i) && sync();
        CUpti_RangeProfiler_PopRange_Params pop{};
        pop.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
        pop.pRangeProfilerObject = rp_;
        check(c.cuptiRangeProfilerPopRange_(&pop), "cuptiRangeProfilerPopRange");
      }
      CUpti_RangeProfiler_Stop_Params sp{};
      sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
      sp.pRangeProfilerObject = rp_;
      if (!check(c.cuptiRangeProfilerStop_(&sp), "cuptiRangeProfilerStop")) return;
      all = sp.isAllPassSubmitted != 0;
      if (!ok()) return;
    }
    lap((std::to_string(passes) + " passes").c_str());
    CUpti_RangeProfiler_DecodeData_Params dd{};
    dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dd.pRangeProfilerObject = rp_;
    if (!check(c.cuptiRangeProfilerDecodeData_(&dd), "cuptiRangeProfilerDecodeData")) return;
    if (dd.numOfRangeDropped > 0 && status_ == CounterStatus::Ok) {
      status_ = CounterStatus::Failed;
      message_ = std::to_string(dd.numOfRangeDropped) + " launches' counters were dropped";
    }
    lap("decode");
  }();
  if (!keep_enabled_ || !ok() || !launched) disable();
  lap("disable");
  if (!ok() || !launched) {
    timing_ = timing;
    return false;
  }

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
  info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if (!check(c.cuptiRangeProfilerGetCounterDataInfo_(&info),
             "cuptiRangeProfilerGetCounterDataInfo"))
    return false;
  if (info.numTotalRanges != count) {
    status_ = CounterStatus::Failed;
    message_ = "CUPTI returned " + std::to_string(info.numTotalRanges) + " ranges for " +
               std::to_string(count) + " launches";
    return false;
  }
  std::vector<SharedCounters> batch(info.numTotalRanges);
  std::vector<double> values(names_.size());
  for (size_t i = 0; i < info.numTotalRanges; ++i) {
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{};
    ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    ev.pHostObject = host_;
    ev.pCounterDataImage = data.data();
    ev.counterDataImageSize = data.size();
    ev.rangeIndex = i;
    ev.ppMetricNames = names_.data();
    ev.numMetrics = names_.size();
    ev.pMetricValues = values.data();
    if (!check(c.cuptiProfilerHostEvaluateToGpuValues_(&ev),
               "cuptiProfilerHostEvaluateToGpuValues"))
      return false;
    for (size_t m = 0; m < names_.size(); ++m)
      batch[i].*fields_[m] = static_cast<int64_t>(std::llround(values[m]));
  }
  lap("evaluate");
  timing_ = timing;
  out.insert(out.end(), batch.begin(), batch.end());
  return true;
}

}  // namespace bankviz::detail
