// cupti.h (internal, CUDA builds only): CUPTI's Range Profiler and Profiler Host API, opened at
// run time, and a session that reads counters.h's metrics for every kernel launched in it.
//
// [SECTION] The entry-point table (dlopen of libcupti.so.13)
// [SECTION] A counter session
//
// Like the driver (driver.h), CUPTI is opened with dlopen: a machine without it still runs and
// times kernels. Every CUPTI call is checked; the first failure of a session is kept in CUPTI's
// words ("cuptiRangeProfilerEnable failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ...") with its
// CounterStatus (counters.h), so the caller can say what to do about it.
#pragma once

#include <cuda.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bankviz/counters.h"

namespace bankviz::detail {

// [SECTION] The entry-point table (dlopen of libcupti.so.13) =====================================

#define BANKVIZ_CUPTI_FUNCTIONS(X)                \
  X(cuptiGetResultString)                         \
  X(cuptiRangeProfilerPushRange)                  \
  X(cuptiRangeProfilerPopRange)                   \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeviceSupported)                 \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)         \
  X(cuptiSassMetricsGetProperties)                \
  X(cuptiSassMetricsSetConfig)                    \
  X(cuptiSassMetricsUnsetConfig)                  \
  X(cuptiSassMetricsEnable)                       \
  X(cuptiSassMetricsDisable)                      \
  X(cuptiSassMetricsGetDataProperties)            \
  X(cuptiSassMetricsFlushData)                    \
  X(cuptiGetSassToSourceCorrelation)

struct Cupti {
  void* handle = nullptr;
  std::string error;  // why CUPTI could not be opened; empty when every entry point resolved
#define BANKVIZ_CUPTI_MEMBER(fn) decltype(&::fn) fn##_ = nullptr;
  BANKVIZ_CUPTI_FUNCTIONS(BANKVIZ_CUPTI_MEMBER)
#undef BANKVIZ_CUPTI_MEMBER

  bool usable() const {
    return handle && error.empty();
  }
  // "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: ..." (CUPTI's text for r).
  std::string describe(CUptiResult r) const;
};

// Opened on first use, once per process (thread-safe): libcupti.so.13 from the library path,
// else from the toolkit this program was built with.
const Cupti& cupti();

// What a failed CUPTI call means for the user: not permitted, unsupported, or failed.
CounterStatus classify_cupti_result(CUptiResult r);

// [SECTION] A counter session ====================================================================

// The metric configuration for one device, built once (the Profiler Host API), and the reading
// of counters for batches of launches (the Range Profiler: one user range around each launch,
// user replay: the whole batch is launched once per pass the metrics need; launches that write
// the same outputs each time replay without saving and restoring memory, which kernel replay
// would do for every launch). Not thread-safe; the context must be current on the calling
// thread.
class CounterSession {
 public:
  // device_index: the device's ordinal (CUPTI names chips by it). keep_enabled: the range
  // profiler stays enabled on the context between collect()s (enabling it costs tens of ms).
  // only: the metrics to read (names from counter_metrics()); all of them when null.
  CounterSession(CUcontext ctx, int device_index, bool keep_enabled = false,
                 const std::vector<std::string>* only = nullptr);
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  bool ok() const { return status_ == CounterStatus::Ok; }
  CounterStatus status() const { return status_; }
  const std::string& message() const { return message_; }  // CUPTI's words for the failure
  // Metrics of counters.h this GPU does not know (read as 0).
  const std::vector<std::string>& missing() const { return missing_; }
  size_t passes() const { return passes_; }  // replay passes per launch

  // Calls launch(i) for i in 0..count-1 once per pass, each in a range of its own followed by
  // sync() (both return false on their own failure), and appends each launch's counters to out,
  // in order. False when CUPTI failed (status() says why) or a launch did; out is then unchanged.
  bool collect(size_t count, const std::function<bool(size_t)>& launch,
               const std::function<bool()>& sync, std::vector<SharedCounters>& out);
  // Where the last collect()'s time went ("enable 1.0 ms, config 2.0 ms, 3 passes 4.0 ms, ...").
  const std::string& timing() const { return timing_; }

 private:
  bool check(CUptiResult r, const char* call);
  bool enable();
  void disable();

  CUcontext ctx_ = nullptr;
  bool keep_enabled_ = false;
  CUpti_RangeProfiler_Object* rp_ = nullptr;  // enabled on ctx_ while set
  size_t enabled_count_ = 0;                  // the batch size rp_ was last configured for
  std::string timing_;
  CounterStatus status_ = CounterStatus::Ok;
  std::string message_;
  std::vector<std::string> missing_;
  std::vector<const char*> names_;  // the metrics read (static strings of counter_metrics())
  std::vector<int64_t SharedCounters::*> fields_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::vector<uint8_t> config_;
  size_t passes_ = 0;
};

}  // namespace bankviz::detail
