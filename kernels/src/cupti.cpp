// cupti.cpp: CUPTI opened at run time, and counter sessions (cupti.h).
//
// [SECTION] The entry-point table (dlopen of libcupti.so.13)
// [SECTION] A counter session: the metric configuration
// [SECTION] A counter session: one batch of launches
#include "cupti.h"

#include <dlfcn.h>

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

CounterSession::CounterSession(CUcontext ctx, int device_index) : ctx_(ctx) {
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
  if (!host_) return;
  CUpti_Profiler_Host_Deinitialize_Params d{};
  d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  d.pHostObject = host_;
  if (CUptiResult r = cupti().cuptiProfilerHostDeinitialize_(&d); r != CUPTI_SUCCESS)
    std::fprintf(stderr, "bankviz: cuptiProfilerHostDeinitialize failed while cleaning up: %s\n",
                 cupti().describe(r).c_str());
}

// [SECTION] A counter session: one batch of launches =============================================

bool CounterSession::collect(const std::function<bool()>& launches, size_t max_launches,
                             std::vector<SharedCounters>& out) {
  if (!ok() || max_launches == 0) return ok();
  const Cupti& c = cupti();
  // The profiler is on only for this batch: enabled, configured, started, stopped, decoded,
  // disabled. Launches outside collect() (the timed ones) never see it.
  CUpti_RangeProfiler_Enable_Params en{};
  en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
  en.ctx = ctx_;
  if (!check(c.cuptiRangeProfilerEnable_(&en), "cuptiRangeProfilerEnable")) return false;
  CUpti_RangeProfiler_Object* rp = en.pRangeProfilerObject;
  bool launched = true;
  std::vector<uint8_t> data;
  [&] {
    CUpti_RangeProfiler_GetCounterDataSize_Params ds{};
    ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    ds.pRangeProfilerObject = rp;
    ds.pMetricNames = names_.data();
    ds.numMetrics = names_.size();
    ds.maxNumOfRanges = max_launches;
    ds.maxNumRangeTreeNodes = static_cast<uint32_t>(max_launches);
    if (!check(c.cuptiRangeProfilerGetCounterDataSize_(&ds),
               "cuptiRangeProfilerGetCounterDataSize"))
      return;
    data.resize(ds.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{};
    di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    di.pRangeProfilerObject = rp;
    di.counterDataSize = data.size();
    di.pCounterData = data.data();
    if (!check(c.cuptiRangeProfilerCounterDataImageInitialize_(&di),
               "cuptiRangeProfilerCounterDataImageInitialize"))
      return;
    CUpti_RangeProfiler_SetConfig_Params sc{};
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = rp;
    sc.configSize = config_.size();
    sc.pConfig = config_.data();
    sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = max_launches;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    if (!check(c.cuptiRangeProfilerSetConfig_(&sc), "cuptiRangeProfilerSetConfig")) return;
    CUpti_RangeProfiler_Start_Params st{};
    st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    st.pRangeProfilerObject = rp;
    if (!check(c.cuptiRangeProfilerStart_(&st), "cuptiRangeProfilerStart")) return;
    launched = launches();
    CUpti_RangeProfiler_Stop_Params sp{};
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = rp;
    if (!check(c.cuptiRangeProfilerStop_(&sp), "cuptiRangeProfilerStop")) return;
    CUpti_RangeProfiler_DecodeData_Params dd{};
    dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dd.pRangeProfilerObject = rp;
    if (!check(c.cuptiRangeProfilerDecodeData_(&dd), "cuptiRangeProfilerDecodeData")) return;
    if (dd.numOfRangeDropped > 0 && status_ == CounterStatus::Ok) {
      status_ = CounterStatus::Failed;
      message_ = std::to_string(dd.numOfRangeDropped) + " launches' counters were dropped";
    }
  }();
  CUpti_RangeProfiler_Disable_Params dis{};
  dis.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
  dis.pRangeProfilerObject = rp;
  check(c.cuptiRangeProfilerDisable_(&dis), "cuptiRangeProfilerDisable");
  if (!ok() || !launched) return false;

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
  info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if (!check(c.cuptiRangeProfilerGetCounterDataInfo_(&info),
             "cuptiRangeProfilerGetCounterDataInfo"))
    return false;
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
  out.insert(out.end(), batch.begin(), batch.end());
  return true;
}

}  // namespace bankviz::detail
