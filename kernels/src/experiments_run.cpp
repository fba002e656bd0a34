// experiments_run.cpp: running the seeds' comparisons on the GPU (experiments.h). CUDA builds.
//
// The data-layout kernels are the presets' written-mode kernels: Runner::run() already launches
// them as the seed did (one 32 x 32 block) and times back-to-back launches. The histogram and the
// filter are whole programs over 2^25 and 2^24 elements, written here as the seeds wrote them
// (fixed text), compiled with NVRTC, checked against the CPU and timed with events around each
// launch (median).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <tuple>

#include "bankviz/experiments.h"
#include "bankviz/runner.h"
#include "compiler.h"
#include "driver.h"
#include "launcher.h"
#include "timing.h"

namespace bankviz {

using namespace detail;

namespace {

constexpr int kBins = 256, kThreads = 256, kRadius = 10, kTaps = 2 * kRadius + 1;
constexpr int64_t kHistogramItems = int64_t{1} << 25, kFilterPoints = int64_t{1} << 24;
constexpr double kTimeoutMs = 10000;

// The filter's coefficients (the seed does not give them): a fixed, uneven set.
float coefficient(int i) {
  return static_cast<float>(i + 1) / 256.0f;
}

std::string coefficients_source() {
  std::string s = "__constant__ float FilterCoeffs[21] = {";
  for (int i = 0; i < kTaps; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.9gf", i ? ", " : "", static_cast<double>(coefficient(i)));
    s += buf;
  }
  return s + "};\n";
}

// The seeds' kernels. The histogram's are the lesson's, verbatim but for the second's name.
const char* kHistogramGlobal =
    "__global__ void histogram(const int * input, int * output)\n"
    "{\n"
    "    int item = (blockIdx.x * blockDim.x) + threadIdx.x;\n"
    "    atomicAdd(&(output[input[item]]), 1);\n"
    "}\n";
const char* kHistogramShared =
    "__global__ void histogram_shared(const int * input, int * output)\n"
    "{\n"
    "    int item = (blockIdx.x * blockDim.x) + threadIdx.x;\n"
    "    __shared__ int temp_histogram[256];\n"
    "    temp_histogram[threadIdx.x] = 0;\n"
    "    __syncthreads();\n"
    "    atomicAdd(&(temp_histogram[input[item]]), 1);\n"
    "    __syncthreads();\n"
    "    atomicAdd(&(output[threadIdx.x]), temp_histogram[threadIdx.x]);\n"
    "}\n";
// The filter as the Kepler seed describes it: a block of N threads loads N + 20 inputs into
// shared memory, each thread computes one output (float) or two, blockDim.x * gridDim.x apart,
// from float2 pairs (float2). Outside the input counts as 0.
const char* kFilterFloat =
    "__global__ void filter_float(const float* input, float* filtered, int n)\n"
    "{\n"
    "    __shared__ float inputS[256 + 20];\n"
    "    const int gIdx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const int sIdx = threadIdx.x + 10;\n"
    "    inputS[sIdx] = input[gIdx];\n"
    "    if (threadIdx.x < 10) {\n"
    "        const int lo = gIdx - 10, hi = gIdx + blockDim.x;\n"
    "        inputS[threadIdx.x] = lo >= 0 ? input[lo] : 0.0f;\n"
    "        inputS[sIdx + blockDim.x] = hi < n ? input[hi] : 0.0f;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    float sum = 0.0f;\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < 21; i++) sum += inputS[sIdx - 10 + i] * FilterCoeffs[i];\n"
    "    filtered[gIdx] = sum;\n"
    "}\n";
const char* kFilterFloat2 =
    "__device__ float2 pair(const float* input, int g, int shift, int n)\n"
    "{\n"
    "    return make_float2(g >= 0 && g < n ? input[g] : 0.0f,\n"
    "                       g + shift >= 0 && g + shift < n ? input[g + shift] : 0.0f);\n"
    "}\n"
    "__global__ void filter_float2(const float* input, float* filtered, int n)\n"
    "{\n"
    "    __shared__ float2 inputS[256 + 20];\n"
    "    const int shift = blockDim.x * gridDim.x;\n"
    "    const int gIdx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const int sIdxShift = threadIdx.x + 10;\n"
    "    inputS[sIdxShift] = pair(input, gIdx, shift, n);\n"
    "    if (threadIdx.x < 10) {\n"
    "        inputS[threadIdx.x] = pair(input, gIdx - 10, shift, n);\n"
    "        inputS[sIdxShift + blockDim.x] = pair(input, gIdx + blockDim.x, shift, n);\n"
    "    }\n"
    "    __syncthreads();\n"
    "    float2 sum = {0.0f, 0.0f};\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < 21; i++) {\n"
    "        float2 temp = inputS[sIdxShift - 10 + i];\n"
    "        sum.x += temp.x * FilterCoeffs[i];\n"
    "        sum.y += temp.y * FilterCoeffs[i];\n"
    "    }\n"
    "    filtered[gIdx] = sum.x;\n"
    "    filtered[gIdx + shift] = sum.y;\n"
    "}\n";

// Deterministic inputs (xorshift32): the same numbers on every run.
struct Random {
  uint32_t x = 2463534242u;
  uint32_t next() {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
  }
};

// One experiment's device work: the context, buffers and the timed launches.
struct Bench {
  ExperimentRun& res;
  OpenedDevice dev;
  PrimaryContext ctx;
  DriverStatus st;

  explicit Bench(ExperimentRun& r) : res(r) {}

  bool open() {
    dev = open_first_device();
    if (!dev.ok) {
      res.status = RunStatus::NoCuda;
      res.message = dev.reason;
      return false;
    }
    res.device = dev.info;
    return st.check(ctx.retain(dev.dev), "cuDevicePrimaryCtxRetain") &&
           st.check(ctx.make_current(), "cuCtxSetCurrent");
  }

  bool wait(const Event& e) { return wait_for_event(st, e, kTimeoutMs, nullptr); }

  // Compiles `source`, then (reset(), one launch) runs + 1 times: the first a warm-up; the median
  // of the others' event times. fn_args are the kernel's arguments.
  double time(const std::string& source, const std::string& name, int64_t grid,
              const std::vector<void*>& args, int runs, const std::function<bool()>& reset,
              Module& module) {
    KernelSource k;
    k.text = source;
    k.kernel_name = name;
    k.file_name = name + ".cu";
    k.user_source = false;  // the experiments' own kernels
    const CompileOutcome c = compile(k, dev.info.sm);
    if (!c.compiled) {
      res.status = RunStatus::CompileError;
      res.message = c.error;
      return -1;
    }
    CUfunction fn = nullptr;
    if (!st.check(load_module(module, c.compiled->cubin.data()), "cuModuleLoadData") ||
        !st.check(driver().cuModuleGetFunction_(&fn, module.get(), c.compiled->lowered.c_str()),
                  "cuModuleGetFunction"))
      return -1;
    Event e0, e1;
    if (!st.check(create_event(e0), "cuEventCreate") ||
        !st.check(create_event(e1), "cuEventCreate"))
      return -1;
    std::vector<double> ms;
    for (int i = 0; i <= runs; ++i) {
      if (!reset()) return -1;
      const Driver& d = driver();
      float t = 0;
      if (!st.check(d.cuEventRecord_(e0.get(), nullptr), "cuEventRecord") ||
          !st.check(d.cuLaunchKernel_(fn, static_cast<unsigned>(grid), 1, 1, kThreads, 1, 1, 0,
                                      nullptr, const_cast<void**>(args.data()), nullptr),
                    "cuLaunchKernel") ||
          !st.check(d.cuEventRecord_(e1.get(), nullptr), "cuEventRecord") || !wait(e1) ||
          !st.check(d.cuEventElapsedTime_(&t, e0.get(), e1.get()), "cuEventElapsedTime"))
        return -1;
      if (i > 0) ms.push_back(t);
    }
    st.check(e0.release(), "cuEventDestroy");
    st.check(e1.release(), "cuEventDestroy");
    return median(ms);
  }

  bool failed() {
    if (st.ok() && res.status != RunStatus::CompileError) return false;
    if (res.status != RunStatus::CompileError) {
      res.status = RunStatus::LaunchError;
      res.message = st.message();
      DriverStatus reset;
      ctx.reset(reset);  // a sticky error takes the context with it
    }
    return true;
  }
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void histogram(Bench& b, int runs) {
  ExperimentRun& res = b.res;
  std::vector<int32_t> input(static_cast<size_t>(kHistogramItems));
  Random r;
  std::vector<int64_t> expect(kBins, 0);
  for (int32_t& v : input) {
    v = static_cast<int32_t>(r.next() % kBins);
    ++expect[static_cast<size_t>(v)];
  }
  DeviceMemory in, out;
  const Driver& d = driver();
  if (!b.st.check(alloc_device(in, input.size() * 4), "cuMemAlloc") ||
      !b.st.check(alloc_device(out, kBins * 4), "cuMemAlloc") ||
      !b.st.check(d.cuMemcpyHtoD_(in.get(), input.data(), input.size() * 4), "cuMemcpyHtoD"))
    return;
  CUdeviceptr pin = in.get(), pout = out.get();
  const std::vector<void*> args = {&pin, &pout};
  const int64_t grid = kHistogramItems / kThreads;
  auto zero = [&] { return b.st.check(d.cuMemsetD32_(pout, 0, kBins), "cuMemsetD32"); };
  for (const auto& [name, src, fn] : {std::tuple{"global", kHistogramGlobal, "histogram"},
                                      std::tuple{"shared", kHistogramShared, "histogram_shared"}}) {
    Module m;
    VariantTiming v;
    v.name = name;
    v.ms = b.time(src, fn, grid, args, runs, zero, m);
    if (v.ms < 0) return;
    std::vector<int32_t> got(kBins);
    if (!b.st.check(d.cuMemcpyDtoH_(got.data(), pout, kBins * 4), "cuMemcpyDtoH")) return;
    int bad = 0;
    for (int i = 0; i < kBins; ++i)
      bad += got[static_cast<size_t>(i)] != expect[static_cast<size_t>(i)];
    v.verified = bad == 0;
    v.check = v.verified ? "all 256 bins match the CPU's count of 2^25 values"
                         : std::to_string(bad) + " of 256 bins differ from the CPU's count";
    b.st.check(m.release(), "cuModuleUnload");
    res.variants.push_back(v);
  }
}

void filter(Bench& b, int runs) {
  ExperimentRun& res = b.res;
  const size_t n = static_cast<size_t>(kFilterPoints);
  std::vector<float> input(n), got(n);
  Random r;
  for (float& v : input) v = static_cast<float>(r.next() >> 8) / 16777216.0f;
  DeviceMemory in, out;
  const Driver& d = driver();
  if (!b.st.check(alloc_device(in, n * 4), "cuMemAlloc") ||
      !b.st.check(alloc_device(out, n * 4), "cuMemAlloc") ||
      !b.st.check(d.cuMemcpyHtoD_(in.get(), input.data(), n * 4), "cuMemcpyHtoD"))
    return;
  CUdeviceptr pin = in.get(), pout = out.get();
  int count = static_cast<int>(n);
  const std::vector<void*> args = {&pin, &pout, &count};
  auto poison = [&] { return b.st.check(d.cuMemsetD32_(pout, 0x7fc00000u, n), "cuMemsetD32"); };
  const std::string coeffs = coefficients_source();
  for (const auto& [name, src, fn, grid] :
       {std::tuple{"float", kFilterFloat, "filter_float", kFilterPoints / kThreads},
        std::tuple{"float2", kFilterFloat2, "filter_float2", kFilterPoints / kThreads / 2}}) {
    Module m;
    VariantTiming v;
    v.name = name;
    v.ms = b.time(coeffs + src, fn, grid, args, runs, poison, m);
    if (v.ms < 0) return;
    if (!b.st.check(d.cuMemcpyDtoH_(got.data(), pout, n * 4), "cuMemcpyDtoH")) return;
    // The CPU in double; the GPU's float sums (fused or not) agree to a few ulps.
    int64_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      double sum = 0;
      for (int k = 0; k < kTaps; ++k) {
        const int64_t j = static_cast<int64_t>(i) - kRadius + k;
        if (j >= 0 && j < static_cast<int64_t>(n)) sum += double(input[size_t(j)]) * coefficient(k);
      }
      if (!(std::fabs(got[i] - sum) <= 1e-5 + 1e-5 * std::fabs(sum))) ++bad;
    }
    v.verified = bad == 0;
    v.check = v.verified ? "all 2^24 outputs match the CPU's filter (within 1e-5)"
                         : std::to_string(bad) + " of 2^24 outputs differ from the CPU's filter";
    b.st.check(m.release(), "cuModuleUnload");
    res.variants.push_back(v);
  }
}

void data_layout(ExperimentRun& res, int runs, const std::vector<Scenario>& scenarios) {
  if (scenarios.size() != 2) {
    res.status = RunStatus::BadScenario;
    res.message =
        "the data-layout experiment runs two scenarios (column-write-column-read, "
        "row-write-row-read)";
    return;
  }
  // Launch-bound kernels of a few microseconds: the two alternate for three rounds and each keeps
  // its fastest round, so a clock ramping up or a busy moment does not favour one of them.
  Runner runner;
  const char* names[] = {"setColReadCol", "setRowReadRow"};
  std::vector<VariantTiming> best(2);
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < 2; ++i) {
      RunOptions o;
      o.mode = RunMode::Written;
      o.timing_runs = runs;
      o.counters = false;
      const RunResult r = runner.run(scenarios[i], o);
      if (r.status != RunStatus::Ok) {
        res.status = r.status;
        res.message = r.message;
        return;
      }
      res.device = r.device;
      VariantTiming& v = best[i];
      const double ms = r.written.us_per_launch / 1000.0;
      if (round == 0 || ms < v.ms) v.ms = ms;
      v.name = names[i];
      v.verified = r.verification.status == VerifyStatus::Verified;
      v.check = r.verification.summary;
    }
  }
  res.variants = best;
}

}  // namespace

ExperimentRun run_experiment(const Experiment& e, int timing_runs,
                             const std::vector<Scenario>& scenarios) {
  ExperimentRun res;
  const int runs = std::clamp(timing_runs, 1, 1000);
  if (e.name == "data-layout-row-vs-column") {
    data_layout(res, runs, scenarios);
  } else {
    Bench b(res);
    if (!b.open()) {
      if (res.status != RunStatus::NoCuda) b.failed();
      return res;
    }
    if (e.name == "histogram-atomics")
      histogram(b, runs);
    else if (e.name == "kepler-filter-float2")
      filter(b, runs);
    if (b.failed()) return res;
    DriverStatus rel;
    b.ctx.release(rel);
  }
  if (res.variants.size() != 2) {
    if (res.status == RunStatus::Ok || res.message.empty()) {
      res.status = RunStatus::BadScenario;
      res.message = "no experiment named '" + e.name + "'";
    }
    return res;
  }
  res.status = RunStatus::Ok;
  res.ratio = res.variants[1].ms > 0 ? res.variants[0].ms / res.variants[1].ms : 0;
  const std::string gpu = res.device.name.empty() ? "this GPU" : res.device.name;
  const std::string measured = fixed(res.ratio, 2) + "x on " + gpu;
  const std::string published = fixed(e.published_ratio, 2) + "x";
  if (e.name == "data-layout-row-vs-column") {
    res.why = "Measured " + measured + " (the seed: " + published +
              "); the model says 32x the shared-memory wavefronts. One block stores and loads "
              "one word per thread once: the launch, the global write and the block's start "
              "take nearly all the time, so 31 extra wavefronts per warp (a few hundred cycles) "
              "change it little. `bankviz-cli run --mode exposed` repeats the access until the "
              "banks are the bottleneck: there the ratio is the model's 32x.";
  } else if (e.name == "kepler-filter-float2") {
    res.why = "Measured " + measured + " (the seed on a K20c: " + published +
              " in 8-byte mode, 1.20x in 4-byte mode). Since Maxwell the banks are 4 bytes wide "
              "and the bank-size setting does nothing, so the seed's 8-byte mode does not exist "
              "here: a float2 load takes 2 wavefronts, and the model predicts the same shared "
              "wavefronts per output for both (1x). What the float2 kernel still saves is half "
              "the instructions and index arithmetic, and the time also includes 2^24 global "
              "loads and stores that shared memory does not change.";
  } else {
    res.why = "Measured " + measured + " (the seed on a Tesla T4: " + published +
              "). The global version sends all 2^25 increments to 256 addresses in L2; the shared "
              "version does them in each block's shared memory (3.5 wavefronts per atomic "
              "instruction by the model) and sends 256 per block. How much that gains depends on "
              "the GPU's L2 same-address atomic throughput against its shared atomics, which "
              "differs between the T4 and this GPU; the bank model covers only the shared part.";
  }
  return res;
}

}  // namespace bankviz
