// driver.cpp: the CUDA driver API opened at run time, checked calls, owned objects (driver.h).
#include "driver.h"

#include "bankviz/driver_version.h"

#include <dlfcn.h>

#include <mutex>

namespace bankviz::detail {

// [SECTION] The entry-point table (dlopen of libcuda.so.1) =======================================

namespace {

#define BANKVIZ_STR2(x) #x
#define BANKVIZ_STR(x) BANKVIZ_STR2(x)

Driver open_driver() {
  Driver d;
  d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    const char* e = dlerror();
    d.error = std::string("no CUDA driver: ") + (e ? e : "libcuda.so.1 not found");
    return d;
  }
  // BANKVIZ_STR expands the name first: cuMemAlloc resolves as cuda.h's cuMemAlloc_v2.
#define BANKVIZ_DRIVER_LOAD(fn)                                                  \
  d.fn##_ = reinterpret_cast<decltype(&::fn)>(dlsym(d.handle, BANKVIZ_STR(fn))); \
  if (!d.fn##_ && d.error.empty())                                               \
    d.error = std::string("the CUDA driver lacks ") + BANKVIZ_STR(fn) + " (too old for CUDA 13?)";
  BANKVIZ_DRIVER_FUNCTIONS(BANKVIZ_DRIVER_LOAD)
#undef BANKVIZ_DRIVER_LOAD
  d.cuFuncGetParamInfo_ =
      reinterpret_cast<decltype(&::cuFuncGetParamInfo)>(dlsym(d.handle, "cuFuncGetParamInfo"));
  return d;
}

}  // namespace

std::string Driver::describe(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (!cuGetErrorName_ || cuGetErrorName_(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (!cuGetErrorString_ || cuGetErrorString_(r, &text) != CUDA_SUCCESS) text = nullptr;
  std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  if (text) out += std::string(": ") + text;
  return out;
}

const Driver& driver() {
  static std::once_flag once;
  static Driver d;
  std::call_once(once, [] { d = open_driver(); });
  return d;
}

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

// [SECTION] Checked calls ========================================================================

bool DriverStatus::check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return true;
  if (result_ == CUDA_SUCCESS) {
    result_ = r;
    call_ = call;
  }
  return false;
}

std::string DriverStatus::message() const {
  if (ok()) return {};
  return call_ + " failed: " + driver().describe(result_);
}

// [SECTION] Owned driver objects =================================================================

void report_release_failure(CUresult r, const char* call) {
  // At program exit the driver may shut down before our static caches release their modules:
  // it has freed them with their context, so there is nothing to report.
  if (r == CUDA_ERROR_DEINITIALIZED) return;
  std::fprintf(stderr, "bankviz: %s failed while cleaning up: %s\n", call,
               driver().describe(r).c_str());
}

CUresult load_module(Module& out, const void* image) {
  const Driver& d = driver();
  CUmodule m = nullptr;
  const CUresult r = d.cuModuleLoadData_(&m, image);
  if (r == CUDA_SUCCESS) out = Module(m, d.cuModuleUnload_, "cuModuleUnload");
  return r;
}

CUresult alloc_device(DeviceMemory& out, size_t bytes) {
  const Driver& d = driver();
  CUdeviceptr p = 0;
  const CUresult r = d.cuMemAlloc_(&p, bytes);
  if (r == CUDA_SUCCESS) out = DeviceMemory(p, d.cuMemFree_, "cuMemFree");
  return r;
}

CUresult alloc_source(DeviceMemory& out, size_t bytes, CUdeviceptr* at) {
  const CUresult r = alloc_device(out, bytes + kSourceAlignment);
  if (r == CUDA_SUCCESS)
    *at = (out.get() + kSourceAlignment - 1) / kSourceAlignment * kSourceAlignment;
  return r;
}

CUresult create_event(Event& out) {
  const Driver& d = driver();
  CUevent e = nullptr;
  const CUresult r = d.cuEventCreate_(&e, CU_EVENT_DEFAULT);
  if (r == CUDA_SUCCESS) out = Event(e, d.cuEventDestroy_, "cuEventDestroy");
  return r;
}

PrimaryContext::~PrimaryContext() {
  DriverStatus st;
  release(st);
  if (!st.ok()) report_release_failure(st.result(), st.call().c_str());
}

CUresult PrimaryContext::retain(CUdevice dev) {
  CUcontext c = nullptr;
  const CUresult r = driver().cuDevicePrimaryCtxRetain_(&c, dev);
  if (r != CUDA_SUCCESS) return r;
  dev_ = dev;
  ctx_ = c;
  return r;
}

CUresult PrimaryContext::make_current() const {
  return driver().cuCtxSetCurrent_(ctx_);
}

void PrimaryContext::release(DriverStatus& st) {
  if (!ctx_) return;
  ctx_ = nullptr;
  st.check(driver().cuDevicePrimaryCtxRelease_(dev_), "cuDevicePrimaryCtxRelease");
}

void PrimaryContext::reset(DriverStatus& st) {
  if (!ctx_) return;
  release(st);
  st.check(driver().cuDevicePrimaryCtxReset_(dev_), "cuDevicePrimaryCtxReset");
}

// [SECTION] The device ===========================================================================

OpenedDevice open_first_device() {
  OpenedDevice o;
  const Driver& d = driver();
  if (!d.usable()) {
    o.reason = d.error;
    return o;
  }
  if (CUresult r = d.cuInit_(0); r != CUDA_SUCCESS) {
    o.reason = "no CUDA device: cuInit failed: " + d.describe(r);
    return o;
  }
  int count = 0;
  if (CUresult r = d.cuDeviceGetCount_(&count); r != CUDA_SUCCESS || count == 0) {
    o.reason = "no CUDA device: " + (r != CUDA_SUCCESS ? d.describe(r) : "the driver sees no GPU");
    return o;
  }
  DriverStatus st;
  char name[256] = {0};
  if (st.check(d.cuDeviceGet_(&o.dev, 0), "cuDeviceGet"))
    st.check(d.cuDeviceGetName_(name, sizeof(name), o.dev), "cuDeviceGetName");
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    if (st.ok()) st.check(d.cuDeviceGetAttribute_(&v, a, o.dev), "cuDeviceGetAttribute");
    return v;
  };
  DeviceInfo& info = o.info;
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
  if (!st.ok()) {
    o.reason = "no CUDA device: " + st.message();
    o.info = {};
    return o;
  }
  info.present = true;
  o.ok = true;
  return o;
}

}  // namespace bankviz::detail

namespace bankviz {

int cuda_driver_version() {
  const detail::Driver& d = detail::driver();
  int v = 0;
  if (!d.usable() || d.cuDriverGetVersion_(&v) != CUDA_SUCCESS) return 0;
  return v;
}

}  // namespace bankviz
