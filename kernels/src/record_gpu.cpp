// record_gpu.cpp: one block recorded on the GPU (record_gpu.h).
#include "record_gpu.h"

#include <algorithm>
#include <cstring>

#include "compiler.h"
#include "kernel_params.h"
#include "launcher.h"

namespace bankviz::detail {

namespace {

struct Rec {  // bankviz_record_gpu.h's bv::Rec
  uint32_t thread, line, addr, phase;
  uint64_t value;
  uint32_t kind, width;
};
static_assert(sizeof(Rec) == 32);

constexpr uint64_t kCapacity = uint64_t{1} << 21;  // records (64 MB), as the CPU recording's bound

// Where the GPU recording stopped a thread's access out of bounds: the line, the thread, the
// array and the index (oob: flag, line, thread or ~0u for another block, declarator; at: index,
// the array's elements).
std::string out_of_bounds_reason(const uint32_t (&oob)[4], const int64_t (&at)[2],
                                 const std::vector<RecordedArray>& declared) {
  const std::string name = oob[3] < declared.size() ? declared[oob[3]].name : "an array";
  return "line " + std::to_string(oob[1]) + ": " +
         (oob[2] == 0xffffffffu ? std::string("a thread of another block")
                                : "thread " + std::to_string(oob[2])) +
         " indexes " + name + '[' + std::to_string(at[0]) + "], out of bounds (" +
         std::to_string(at[1]) + " elements there); the GPU recording did not make that access";
}

// The device's records in the one recording format (recording.h): phases in order, each
// thread's accesses in the order it made them (the records' order is the order of their atomic
// counter); the arrays the kernel touched (arrays[declarator]: base + 1 and bytes, 0: untouched).
std::string recording_text(const Dim3& block, const std::vector<RecordedArray>& declared,
                           std::vector<Rec>& recs, const uint32_t (&phase)[1024],
                           const uint32_t (&arrays)[256][2]) {
  const uint64_t threads = block.product();
  uint32_t phases = 0;
  for (uint64_t t = 0; t < threads && t < 1024; ++t) phases = std::max(phases, phase[t]);
  std::stable_sort(recs.begin(), recs.end(),
                   [](const Rec& a, const Rec& b) { return a.phase < b.phase; });
  std::string t = "block " + std::to_string(block.x) + ' ' + std::to_string(block.y) + ' ' +
                  std::to_string(block.z) + '\n';
  std::vector<int> listed(declared.size(), -1);  // [declarator]: its `array` line's index
  int n_listed = 0;
  for (size_t i = 0; i < declared.size() && i < 256; ++i)
    if (arrays[i][0] != 0) {
      listed[i] = n_listed++;
      t += "array " + declared[i].name + ' ' + std::to_string(declared[i].line) + ' ' +
           std::to_string(arrays[i][0] - 1) + ' ' + std::to_string(arrays[i][1]) +
           (declared[i].dynamic ? " extern\n" : "\n");
    }
  uint32_t at = 0;
  for (const Rec& r : recs) {
    for (; at < r.phase && at < phases; ++at) t += "sync\n";
    // The kind's low byte, and above it the declarator whose name the access used, plus 1.
    const char kind = static_cast<char>(r.kind & 0xffu);
    const uint32_t decl = (r.kind >> 8) - 1;  // ~0u: not said
    const int array = decl < listed.size() ? listed[decl] : -1;
    // The width's low byte, and above it the subscript's site (0: not said).
    const uint32_t site = r.width >> 8;
    t += std::to_string(r.thread) + ' ' + std::to_string(r.line) + ' ' +
         (kind == 'L' || kind == 'S' || kind == 'A' || kind == 'X' || kind == 'C' ? kind : '?') +
         ' ' + std::to_string(r.width & 0xffu) + ' ' + std::to_string(r.addr) + ' ' +
         std::to_string(r.value) + (array >= 0 ? ' ' + std::to_string(array) : std::string()) +
         (array >= 0 && site != 0 ? ' ' + std::to_string(site) : std::string()) + '\n';
  }
  for (; at < phases; ++at) t += "sync\n";
  t += "end " + std::to_string(recs.size()) + '\n';
  return t;
}

}  // namespace

GpuRecording record_block_on_gpu(const ProfileRequest& req, const std::string& sm,
                                 DriverStatus& st) {
  GpuRecording out;
  std::vector<RecordedArray> declared;
  std::string why;
  const std::string text =
      gpu_recording_text(req.source, req.kernel, req.file_name, &why, &declared);
  if (text.empty()) {
    out.why = why;
    return out;
  }
  KernelSource k;
  k.text = text;
  k.kernel_name = req.kernel;
  k.file_name = req.file_name;
  const CompileOutcome comp = compile(k, sm);
  if (!comp.compiled) {
    out.why =
        "the recording does not compile (NVRTC, the __shared__ arrays as recording "
        "proxies): " +
        comp.error;
    return out;
  }
  const Driver& d = driver();
  Module module;
  DeviceMemory records;
  KernelParams kp;
  Event done;
  auto abandon = [&] {
    module.abandon();
    records.abandon();
    for (DeviceMemory& m : kp.buffers) m.abandon();
    done.abandon();
  };
  auto fail = [&](std::string m) {
    out.why = std::move(m);
    abandon();
    return out;
  };
  if (!st.check(load_module(module, comp.compiled->cubin.data()), "cuModuleLoadData"))
    return fail("the recording: " + st.message());
  CUfunction fn = nullptr;
  if (!st.check(d.cuModuleGetFunction_(&fn, module.get(), comp.compiled->lowered.c_str()),
                "cuModuleGetFunction"))
    return fail("the recording: " + st.message());
  if (req.dynamic_shared > 48 * 1024 &&
      !st.check(d.cuFuncSetAttribute_(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(req.dynamic_shared)),
                "cuFuncSetAttribute"))
    return fail("the recording: " + st.message());
  auto global = [&](const char* name, size_t bytes, CUdeviceptr* p) {
    size_t size = 0;
    return st.check(d.cuModuleGetGlobal_(p, &size, module.get(), name), "cuModuleGetGlobal") &&
           (size == bytes || (st.check(CUDA_ERROR_INVALID_VALUE, name), false));
  };
  CUdeviceptr g_records = 0, g_capacity = 0, g_count = 0, g_dynamic = 0, g_phase = 0, g_arrays = 0,
              g_oob = 0, g_oob_at = 0;
  if (!global("bv_records", 8, &g_records) || !global("bv_capacity", 8, &g_capacity) ||
      !global("bv_count", 8, &g_count) || !global("bv_dynamic_bytes", 8, &g_dynamic) ||
      !global("bv_phase", 4 * 1024, &g_phase) || !global("bv_arrays", 8 * 256, &g_arrays) ||
      !global("bv_out_of_bounds", 16, &g_oob) || !global("bv_out_of_bounds_at", 16, &g_oob_at))
    return fail("the recording's state: " + st.message());
  const uint64_t capacity = kCapacity, dynamic = req.dynamic_shared;
  if (!st.check(alloc_device(records, capacity * sizeof(Rec)), "cuMemAlloc"))
    return fail("the recording's buffer: " + st.message());
  const uint64_t rec_ptr = records.get();
  if (!st.check(d.cuMemcpyHtoD_(g_records, &rec_ptr, 8), "cuMemcpyHtoD") ||
      !st.check(d.cuMemcpyHtoD_(g_capacity, &capacity, 8), "cuMemcpyHtoD") ||
      !st.check(d.cuMemcpyHtoD_(g_dynamic, &dynamic, 8), "cuMemcpyHtoD"))
    return fail("the recording's state: " + st.message());
  // The kernel's parameters: fresh zeroed buffers (the data the profile's first launch saw).
  std::string which;
  if (!make_kernel_params(st, req.args, kp, &which))
    return fail("the recording: buffer " + which + ": " + st.message());
  if (!st.check(create_event(done), "cuEventCreate") ||
      !st.check(d.cuLaunchKernel_(fn, req.grid.x, req.grid.y, req.grid.z, req.block.x, req.block.y,
                                  req.block.z, req.dynamic_shared, nullptr, kp.data(), nullptr),
                "cuLaunchKernel") ||
      !st.check(d.cuEventRecord_(done.get(), nullptr), "cuEventRecord") ||
      !wait_for_event(st, done, req.timeout_ms, &out.timed_out))
    return fail(out.timed_out ? "the recording's launch did not finish in time"
                              : "the recording's launch failed: " + st.message());
  uint64_t count = 0;
  uint32_t oob[4] = {}, phase[1024] = {}, arrays[256][2] = {};
  int64_t oob_at[2] = {};
  if (!st.check(d.cuMemcpyDtoH_(&count, g_count, 8), "cuMemcpyDtoH") ||
      !st.check(d.cuMemcpyDtoH_(oob, g_oob, sizeof oob), "cuMemcpyDtoH") ||
      !st.check(d.cuMemcpyDtoH_(oob_at, g_oob_at, sizeof oob_at), "cuMemcpyDtoH") ||
      !st.check(d.cuMemcpyDtoH_(phase, g_phase, sizeof phase), "cuMemcpyDtoH") ||
      !st.check(d.cuMemcpyDtoH_(arrays, g_arrays, sizeof arrays), "cuMemcpyDtoH"))
    return fail("the recording's results: " + st.message());
  std::vector<Rec> recs(std::min(count, capacity));
  if (!recs.empty() &&
      !st.check(d.cuMemcpyDtoH_(recs.data(), records.get(), recs.size() * sizeof(Rec)),
                "cuMemcpyDtoH"))
    return fail("the recording's results: " + st.message());
  for (DeviceMemory& m : kp.buffers) st.check(m.release(), "cuMemFree");
  st.check(records.release(), "cuMemFree");
  st.check(done.release(), "cuEventDestroy");
  st.check(module.release(), "cuModuleUnload");
  if (!st.ok()) {
    out.why = "the recording: " + st.message();
    return out;
  }
  if (oob[0]) {
    out.why = out_of_bounds_reason(oob, oob_at, declared);
    return out;
  }
  if (count > capacity) {
    out.why = "the block makes more than " + std::to_string(capacity) +
              " shared-memory accesses, more than the GPU recording keeps";
    return out;
  }

  const std::string t = recording_text(req.block, declared, recs, phase, arrays);
  out.recording = parse_recording(t, &why);
  if (!out.recording) out.why = "the GPU's recording: " + why;
  return out;
}

}  // namespace bankviz::detail
