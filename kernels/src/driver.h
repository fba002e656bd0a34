// driver.h (internal, CUDA builds only): the CUDA driver API, opened at run time.
//
// [SECTION] The entry-point table (dlopen of libcuda.so.1)
// [SECTION] Checked calls: the first failure of a run, in the driver's words
// [SECTION] Owned driver objects: modules, device memory, events, the primary context
// [SECTION] The device
//
// The program links no libcuda: it starts, and the model works, on a machine without a GPU or a
// driver. Every driver call's result is checked; a failure becomes a RunStatus with the driver's
// name and message for it ("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory").
#pragma once

#include <cuda.h>

#include <cstdio>
#include <string>

#include "bankviz/run_types.h"

namespace bankviz::detail {

// [SECTION] The entry-point table (dlopen of libcuda.so.1) =======================================

// Every driver function the runner calls, once. cuda.h maps some names to versioned symbols
// (cuMemAlloc -> cuMemAlloc_v2); the table resolves those, as a program linked to libcuda would.
#define BANKVIZ_DRIVER_FUNCTIONS(X)              \
  X(cuInit)                                      \
  X(cuDriverGetVersion)                          \
  X(cuGetErrorString)                            \
  X(cuGetErrorName)                              \
  X(cuDeviceGetCount)                            \
  X(cuDeviceGet)                                 \
  X(cuDeviceGetName)                             \
  X(cuDeviceGetAttribute)                        \
  X(cuDevicePrimaryCtxRetain)                    \
  X(cuDevicePrimaryCtxRelease)                   \
  X(cuDevicePrimaryCtxReset)                     \
  X(cuCtxSetCurrent)                             \
  X(cuCtxSynchronize)                            \
  X(cuModuleLoadData)                            \
  X(cuModuleUnload)                              \
  X(cuModuleGetFunction)                         \
  X(cuModuleGetGlobal)                           \
  X(cuFuncSetAttribute)                          \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuLaunchKernel)                              \
  X(cuMemAlloc)                                  \
  X(cuMemFree)                                   \
  X(cuMemcpyDtoH)                                \
  X(cuMemcpyHtoD)                                \
  X(cuMemsetD32)                                 \
  X(cuMemsetD8)                                  \
  X(cuEventCreate)                               \
  X(cuEventDestroy)                              \
  X(cuEventRecord)                               \
  X(cuEventQuery)                                \
  X(cuEventElapsedTime)

struct Driver {
  void* handle = nullptr;
  std::string error;  // why the driver could not be opened; empty when every entry point resolved
#define BANKVIZ_DRIVER_MEMBER(fn) decltype(&::fn) fn##_ = nullptr;
  BANKVIZ_DRIVER_FUNCTIONS(BANKVIZ_DRIVER_MEMBER)
#undef BANKVIZ_DRIVER_MEMBER
  // Optional (drivers of CUDA 12.4 and later): a kernel's parameters, which `profile` checks
  // the user's arguments against. Null on an older driver; nothing else needs it.
  decltype(&::cuFuncGetParamInfo) cuFuncGetParamInfo_ = nullptr;

  bool usable() const {
    return handle && error.empty();
  }
  // "CUDA_ERROR_OUT_OF_MEMORY: out of memory" (the driver's name and text for r).
  std::string describe(CUresult r) const;
};

// Opened on first use, once per process (thread-safe).
const Driver& driver();

// Errors after which the context cannot be used again (CUDA's "sticky" errors): the runner then
// resets it, and the next run retains a fresh one.
bool is_sticky(CUresult r);

// [SECTION] Checked calls: the first failure of a run, in the driver's words =====================

// The first driver call of a piece of work that failed, with its result. Later failures are
// usually consequences of the first (after a kernel fault every call fails), so only it is kept.
class DriverStatus {
 public:
  // True when r is CUDA_SUCCESS; otherwise remembers (call, r) unless a failure came first.
  bool check(CUresult r, const char* call);
  bool ok() const { return result_ == CUDA_SUCCESS; }
  CUresult result() const { return result_; }
  const std::string& call() const { return call_; }
  // "cuLaunchKernel failed: CUDA_ERROR_...: ..."; empty when ok().
  std::string message() const;

 private:
  CUresult result_ = CUDA_SUCCESS;
  std::string call_;
};

// [SECTION] Owned driver objects: modules, device memory, events, the primary context ============

// A failed release that nobody can be told of any more (a destructor's): written to stderr.
void report_release_failure(CUresult r, const char* call);

// One driver object this code owns, released exactly once: by release(), whose result the
// caller checks, or, on a path that never got there, by the destructor, which can only report a
// failure on stderr. abandon() forgets it without a call: the context it lived in is being
// reset, which frees everything in it (and a call could wait for a runaway kernel).
template <class H>
class Owned {
 public:
  using Release = CUresult (*)(H);
  Owned() = default;
  Owned(H h, Release release, const char* call) : h_(h), release_(release), call_(call) {}
  Owned(Owned&& o) noexcept : h_(o.h_), release_(o.release_), call_(o.call_) { o.abandon(); }
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      release_or_report();
      h_ = o.h_;
      release_ = o.release_;
      call_ = o.call_;
      o.abandon();
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { release_or_report(); }

  H get() const { return h_; }
  bool held() const { return release_ != nullptr; }
  const char* release_call() const { return call_; }  // "cuMemFree"

  [[nodiscard]] CUresult release() {
    if (!release_) return CUDA_SUCCESS;
    const CUresult r = release_(h_);
    abandon();
    return r;
  }
  void abandon() {
    h_ = H{};
    release_ = nullptr;
  }

 private:
  void release_or_report() {
    const char* call = call_;
    if (const CUresult r = release(); r != CUDA_SUCCESS) report_release_failure(r, call);
  }

  H h_{};
  Release release_ = nullptr;
  const char* call_ = "";
};

using Module = Owned<CUmodule>;           // cuModuleLoadData / cuModuleUnload
using DeviceMemory = Owned<CUdeviceptr>;  // cuMemAlloc / cuMemFree
using Event = Owned<CUevent>;             // cuEventCreate / cuEventDestroy

// Each replaces `out` (releasing what it held) only on success. Every function here that returns
// a CUresult is [[nodiscard]]: an ignored driver result does not compile (-Werror).
[[nodiscard]] CUresult load_module(Module& out, const void* image);
[[nodiscard]] CUresult alloc_device(DeviceMemory& out, size_t bytes);
// `bytes` starting at *at, a multiple of kSourceAlignment: a cp.async source buffer, whose
// absolute address bits enter the L1's set hash (core/access.h copy_source_set()); the model
// counts offsets from a 2 MiB boundary. `out` owns the whole allocation.
inline constexpr size_t kSourceAlignment = size_t{2} << 20;
[[nodiscard]] CUresult alloc_source(DeviceMemory& out, size_t bytes, CUdeviceptr* at);
[[nodiscard]] CUresult create_event(Event& out);

// The device's primary context, retained while held. release() gives it back; reset() also
// destroys it (everything in it, a running kernel's memory included) after a sticky error or a
// timeout, so that the next retain gets a fresh one. Failures go to st.
class PrimaryContext {
 public:
  PrimaryContext() = default;
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  ~PrimaryContext();  // releases it; a failure goes to stderr

  [[nodiscard]] CUresult retain(CUdevice dev);
  [[nodiscard]] CUresult make_current() const;
  bool held() const { return ctx_ != nullptr; }
  CUcontext get() const { return ctx_; }  // for CUPTI (cupti.h)
  void release(DriverStatus& st);
  void reset(DriverStatus& st);
  // Forgets it without a call: a kernel that never ends still runs in it, and releasing or
  // resetting would wait for that kernel forever. The driver frees it when the process ends.
  void abandon() { ctx_ = nullptr; }

 private:
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
};

// [SECTION] The device ===========================================================================

struct OpenedDevice {
  bool ok = false;
  CUdevice dev = 0;
  DeviceInfo info;
  std::string reason;  // when !ok: "no CUDA device: ..." with the driver's words
};
// cuInit, the first device, and what exposed mode and the limits need to know of it.
OpenedDevice open_first_device();

}  // namespace bankviz::detail
