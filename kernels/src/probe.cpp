// probe.cpp: recorded warp accesses run one instruction per single-warp launch, with the
// hardware counters read per launch (counters.h, probe_records()).
//
// [SECTION] Loading the probe kernels (probe_kernels.h) for the present GPU
// [SECTION] probe_records()
//
// The probes are the kernels that measured the committed suites (tools/hopper-suite/probe.cu,
// tools/matrix-suite/probe.cu), written for NVRTC: one shared access per kernel, through
// `ld/st.volatile.shared`, `atom.shared.add`, `ldmatrix`/`stmatrix ...shared.b16` or
// `cp.async.ca.shared.global`, at base + addr[lane] in a dynamic shared buffer of the device's
// opt-in size (128-byte aligned).
#include <algorithm>
#include <chrono>
#include <map>

#include "bankviz/probe.h"
#include "compiler.h"
#include "cupti.h"
#include "driver.h"
#include "probe_kernels.h"
#include "timing.h"

namespace bankviz {

using namespace detail;

namespace {

// [SECTION] Loading the probe kernels for the present GPU
// =====================================================

struct Probes {
  std::vector<Module> modules;
  std::map<std::string, CUfunction> fn;
  std::string why[kProbeFamilies];  // per family: why it is missing (empty when loaded)
  double compile_ms = 0;
};

void load_probes(Probes& p, const DeviceInfo& dev, int smem) {
  const Driver& d = driver();
  const int cc = dev.cc_major * 10 + dev.cc_minor;
  for (int family = 0; family < kProbeFamilies; ++family) {
    if (cc < probe_family_min_cc(family)) {
      p.why[family] = std::string(probe_family_what(family)) + " need compute capability " +
                      std::to_string(probe_family_min_cc(family) / 10) + "." +
                      std::to_string(probe_family_min_cc(family) % 10) +
                      " (this GPU: " + std::to_string(dev.cc_major) + "." +
                      std::to_string(dev.cc_minor) + ")";
      continue;
    }
    KernelSource k;
    k.text = probe_family_source(family, &k.kernel_name);
    k.file_name = "bankviz_probe.cu";
    k.user_source = false;
    const CompileOutcome c = compile(k, dev.sm);
    p.compile_ms += c.ms;
    if (!c.compiled) {
      p.why[family] = c.error;
      continue;
    }
    Module m;
    if (CUresult r = load_module(m, c.compiled->cubin.data()); r != CUDA_SUCCESS) {
      p.why[family] = "cuModuleLoadData failed: " + d.describe(r);
      continue;
    }
    // Every kernel of the family: its name and the opt-in to the whole shared memory.
    for (const std::string& name : probe_family_kernels(k.text)) {
      CUfunction f = nullptr;
      if (CUresult r = d.cuModuleGetFunction_(&f, m.get(), name.c_str()); r != CUDA_SUCCESS) {
        p.why[family] = "cuModuleGetFunction(" + name + ") failed: " + d.describe(r);
        break;
      }
      if (CUresult r =
              d.cuFuncSetAttribute_(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
          r != CUDA_SUCCESS) {
        p.why[family] = "cuFuncSetAttribute failed: " + d.describe(r);
        break;
      }
      p.fn[name] = f;
    }
    p.modules.push_back(std::move(m));
  }
}

int family_of(const ProbeRecord& r) {
  if (!r.record.op) return 0;
  return r.record.op->op == Op::StMatrix ? 2 : 1;
}

std::string kernel_of(const ProbeRecord& r) {
  if (r.record.op) return probe_op_name(*r.record.op);
  return r.atomic ? "probe_atom" : probe_plain_name(r.record.access.width);
}

// Per record, kRecordWords words of `addr`: the lanes' shared addresses, then (cp.async) each
// lane's global source, a byte offset into the kSourceBytes source buffer (the coalesced lane *
// width where the record gives none); a row of zeros last (no lane's, lane 0's baseline). fn[i]
// is record i's probe, nullptr (run.why[i] set) where it cannot run here.
void place_records(const std::vector<ProbeRecord>& records, const Probes& probes, int smem,
                   ProbeRun& run, std::vector<uint32_t>& addr, std::vector<CUfunction>& fn) {
  const size_t n = records.size();
  addr.assign((n + 1) * kRecordWords, 0);
  fn.assign(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    const ProbeRecord& r = records[i];
    const WarpAccess& a = r.record.access;
    const int family = family_of(r);
    const std::string name = kernel_of(r);
    if (!probes.why[family].empty()) {
      run.why[i] = probes.why[family];
      continue;
    }
    if (r.atomic && a.width != 4) {
      run.why[i] = "atomic probes are 4 bytes wide";
      continue;
    }
    const uint32_t lanes = r.record.op ? r.record.op->lanes(a.mask) : a.mask;
    uint32_t end = 0;
    int64_t source_end = 0;
    for (int l = 0; l < kWarpSize; ++l)
      if ((lanes >> l) & 1u) {
        end = std::max(end, a.addr[l] + static_cast<uint32_t>(a.width));
        source_end = std::max(source_end, int64_t{a.source_of(l)} + a.width);
      }
    if (end > static_cast<uint32_t>(smem)) {
      run.why[i] =
          "address beyond this GPU's " + std::to_string(smem) + " bytes of shared memory per block";
      continue;
    }
    if (r.record.op && r.record.op->op == Op::CpAsync && source_end > kSourceBytes) {
      run.why[i] = std::string("a source beyond the probe's ") + std::to_string(kSourceBytes) +
                   "-byte buffer";
      continue;
    }
    auto it = probes.fn.find(name);
    if (it == probes.fn.end()) {
      run.why[i] = "no probe kernel " + name;
      continue;
    }
    fn[i] = it->second;
    for (int l = 0; l < kWarpSize; ++l) {
      addr[i * kRecordWords + static_cast<size_t>(l)] = a.addr[l];
      addr[i * kRecordWords + kWarpSize + static_cast<size_t>(l)] = a.source_of(l);
    }
  }
}

}  // namespace

// [SECTION] probe_records() ======================================================================

ProbeRun probe_records(const std::vector<ProbeRecord>& records) {
  const auto t0 = std::chrono::steady_clock::now();
  ProbeRun run;
  const size_t n = records.size();
  run.ran.assign(n, false);
  run.why.assign(n, {});
  run.counters.assign(n, {});
  auto fail = [&](CounterStatus s, const std::string& detail) {
    run.status = s;
    run.message = counter_problem(s, detail);
    run.ms = ms_since(t0);
    return run;
  };

  const OpenedDevice od = open_first_device();
  if (!od.ok) return fail(CounterStatus::NoDevice, od.reason);
  run.device = od.info;
  const Driver& d = driver();
  PrimaryContext ctx;
  if (CUresult r = ctx.retain(od.dev); r != CUDA_SUCCESS)
    return fail(CounterStatus::Failed, "cuDevicePrimaryCtxRetain failed: " + d.describe(r));
  if (CUresult r = ctx.make_current(); r != CUDA_SUCCESS)
    return fail(CounterStatus::Failed, "cuCtxSetCurrent failed: " + d.describe(r));
  // Counters first: without them there is nothing to probe.
  CounterSession counters(ctx.get(), 0);
  if (!counters.ok()) return fail(counters.status(), counters.message());
  run.missing_metrics = counters.missing();
  run.passes = counters.passes();

  const int smem = static_cast<int>(od.info.shared_per_block_optin);
  Probes probes;
  load_probes(probes, od.info, smem);
  run.compile_ms = probes.compile_ms;

  // Which records run, and their addresses and sources in one buffer.
  std::vector<uint32_t> addr;
  std::vector<CUfunction> fn;
  place_records(records, probes, smem, run, addr, fn);
  DeviceMemory d_addr, d_sink, d_src;
  CUdeviceptr src_at = 0;
  const size_t addr_bytes = addr.size() * sizeof(uint32_t);
  DriverStatus st;
  st.check(alloc_device(d_addr, addr_bytes), "cuMemAlloc") &&
      st.check(alloc_device(d_sink, kWarpSize * sizeof(uint32_t)), "cuMemAlloc") &&
      st.check(alloc_source(d_src, kSourceBytes, &src_at), "cuMemAlloc") &&
      st.check(d.cuMemsetD32_(src_at, 0, kSourceBytes / 4), "cuMemsetD32") &&
      st.check(d.cuMemcpyHtoD_(d_addr.get(), addr.data(), addr_bytes), "cuMemcpyHtoD");
  if (!st.ok()) return fail(CounterStatus::Failed, st.message());

  auto launch = [&](CUfunction f, size_t record, uint32_t mask) {
    CUdeviceptr a = d_addr.get() + record * kRecordWords * sizeof(uint32_t);
    CUdeviceptr sink = d_sink.get(), src = src_at;
    void* args[] = {&a, &mask, &sink, &src};
    return st.check(d.cuLaunchKernel_(f, 1, 1, 1, kWarpSize, 1, 1, static_cast<unsigned>(smem),
                                      nullptr, args, nullptr),
                    "cuLaunchKernel");
  };

  auto sync = [&] { return st.check(d.cuCtxSynchronize_(), "cuCtxSynchronize"); };
  auto collect_failed = [&] {
    return fail(counters.ok() ? CounterStatus::Failed : counters.status(),
                counters.ok() ? st.message() : counters.message());
  };

  // cp.async has no wavefront counter of its own: its writes show only among all of the
  // launch's shared wavefronts, with the probe's own. Those are what the same kernel counts with
  // one lane copying to address 0 (one wavefront, whatever the rules) less that one.
  std::map<CUfunction, int64_t> cp_rest;
  {
    std::vector<CUfunction> cps;
    for (size_t i = 0; i < n; ++i)
      if (fn[i] && records[i].record.op && records[i].record.op->op == Op::CpAsync &&
          !cp_rest.count(fn[i])) {
        cp_rest[fn[i]] = 0;
        cps.push_back(fn[i]);
      }
    std::vector<SharedCounters> base;
    // Launch 2k: no lane; 2k + 1: lane 0 (the zero row after the records' addresses).
    if (!cps.empty() &&
        !counters.collect(
            2 * cps.size(), [&](size_t k) { return launch(cps[k / 2], n, k % 2 ? 1u : 0u); }, sync,
            base))
      return collect_failed();
    for (size_t k = 0; k < cps.size(); ++k) {
      cp_rest[cps[k]] = base[2 * k + 1].wavefronts_all - 1;
      run.note += (run.note.empty() ? "" : "; ") + std::string("cp.async probe: ") +
                  std::to_string(base[2 * k].wavefronts_all) + " shared wavefronts with no lane, " +
                  std::to_string(base[2 * k + 1].wavefronts_all) + " with one";
    }
  }

  // The records, in batches of launches per profiler session.
  constexpr size_t kBatch = 512;
  std::vector<size_t> todo;
  for (size_t i = 0; i < n; ++i)
    if (fn[i]) todo.push_back(i);
  for (size_t b = 0; b < todo.size(); b += kBatch) {
    const size_t e = std::min(todo.size(), b + kBatch);
    std::vector<SharedCounters> got;
    if (!counters.collect(
            e - b,
            [&](size_t k) {
              const size_t i = todo[b + k];
              return launch(fn[i], i, records[i].record.access.mask);
            },
            sync, got))
      return collect_failed();
    for (size_t k = b; k < e; ++k) {
      const size_t i = todo[k];
      run.ran[i] = true;
      run.counters[i] = got[k - b];
      if (auto it = cp_rest.find(fn[i]); it != cp_rest.end())
        run.counters[i].wavefronts_all -= it->second;
    }
  }
  run.timing = counters.timing();
  run.status = CounterStatus::Ok;
  run.ms = ms_since(t0);
  return run;
}

}  // namespace bankviz
