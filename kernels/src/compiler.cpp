// compiler.cpp: NVRTC and the bounded cubin and module caches (compiler.h).
#include "compiler.h"

#include "bankviz/sass.h"

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "sandbox.h"
#include "timing.h"

namespace bankviz {

namespace detail {

namespace {

std::string cuda_include_dir() {
#ifdef BANKVIZ_CUDA_INCLUDE_DIR
  return BANKVIZ_CUDA_INCLUDE_DIR;
#else
  return "/usr/local/cuda/include";
#endif
}

// "k.cu(12): error: ..." -> the message, and the generated line it points at.
std::string explain_log(const std::string& log, const KernelSource& k) {
  std::string out;
  size_t pos = 0;
  while ((pos = log.find(k.file_name + "(", pos)) != std::string::npos) {
    const size_t open = pos + k.file_name.size();
    const size_t close = log.find(')', open);
    const size_t eol = log.find('\n', pos);
    const std::string line_text =
        log.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? log.size() : eol;
    if (line_text.find("error") == std::string::npos) continue;
    const int line =
        close == std::string::npos ? 0 : std::atoi(log.substr(open + 1, close - open - 1).c_str());
    out += line_text + "\n  at " + source_line(k.text, line) + "\n";
    if (out.size() > 2000) break;
  }
  if (out.empty()) out = log;
  return out;
}

// The process-wide cubin cache.
std::mutex g_cubins_mutex;
LruCache<std::string, std::shared_ptr<const Compiled>> g_cubins(kCubinCacheEntries,
                                                                kCubinCacheBytes);

// NVRTC, opened at run time as the driver and CUPTI are: a program built with CUDA starts on a
// machine without the toolkit (a Debian package installed there: README, Install) and says why
// it cannot compile a kernel. Looked for in the library path, then where the build found it.
struct Nvrtc {
  void* handle = nullptr;
  std::string error;  // why it is not there
#define BANKVIZ_NVRTC_FN(fn) decltype(&::fn) fn = nullptr;
  BANKVIZ_NVRTC_FN(nvrtcCreateProgram)
  BANKVIZ_NVRTC_FN(nvrtcDestroyProgram)
  BANKVIZ_NVRTC_FN(nvrtcAddNameExpression)
  BANKVIZ_NVRTC_FN(nvrtcCompileProgram)
  BANKVIZ_NVRTC_FN(nvrtcGetProgramLogSize)
  BANKVIZ_NVRTC_FN(nvrtcGetProgramLog)
  BANKVIZ_NVRTC_FN(nvrtcGetCUBINSize)
  BANKVIZ_NVRTC_FN(nvrtcGetCUBIN)
  BANKVIZ_NVRTC_FN(nvrtcGetLoweredName)
  BANKVIZ_NVRTC_FN(nvrtcGetErrorString)
#undef BANKVIZ_NVRTC_FN
};

const Nvrtc& nvrtc() {
  static const Nvrtc n = [] {
    Nvrtc n;
    const std::string name = "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000);
    std::string tried;
    for (const std::string& path : {name, std::string(BANKVIZ_CUDA_LIBRARY_DIR) + "/" + name}) {
      n.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (n.handle) break;
      const char* e = dlerror();
      if (!tried.empty()) tried += "; ";
      tried += e ? e : path + " not found";
    }
    if (!n.handle) {
      n.error = "NVRTC, the CUDA toolkit's compiler, is not installed (" + tried +
                "): install the CUDA toolkit to compile kernels";
      return n;
    }
#define BANKVIZ_NVRTC_LOAD(fn)                                    \
  n.fn = reinterpret_cast<decltype(&::fn)>(dlsym(n.handle, #fn)); \
  if (!n.fn && n.error.empty()) n.error = std::string(name) + " lacks " + #fn;
    BANKVIZ_NVRTC_LOAD(nvrtcCreateProgram)
    BANKVIZ_NVRTC_LOAD(nvrtcDestroyProgram)
    BANKVIZ_NVRTC_LOAD(nvrtcAddNameExpression)
    BANKVIZ_NVRTC_LOAD(nvrtcCompileProgram)
    BANKVIZ_NVRTC_LOAD(nvrtcGetProgramLogSize)
    BANKVIZ_NVRTC_LOAD(nvrtcGetProgramLog)
    BANKVIZ_NVRTC_LOAD(nvrtcGetCUBINSize)
    BANKVIZ_NVRTC_LOAD(nvrtcGetCUBIN)
    BANKVIZ_NVRTC_LOAD(nvrtcGetLoweredName)
    BANKVIZ_NVRTC_LOAD(nvrtcGetErrorString)
#undef BANKVIZ_NVRTC_LOAD
    return n;
  }();
  return n;
}

// One NVRTC program, destroyed on every path; each call's result checked.
struct Program {
  nvrtcProgram prog = nullptr;
  nvrtcResult failed = NVRTC_SUCCESS;
  std::string call;  // the call that failed
  ~Program() {
    if (prog) nvrtc().nvrtcDestroyProgram(&prog);  // only fails for a null program
  }
  bool check(nvrtcResult r, const char* what) {
    if (r == NVRTC_SUCCESS) return true;
    if (failed == NVRTC_SUCCESS) {
      failed = r;
      call = what;
    }
    return false;
  }
  std::string error() const {
    return "NVRTC: " + call + ": " + nvrtc().nvrtcGetErrorString(failed);
  }
};

// The program's log, trailing NULs and newlines removed.
std::string program_log(Program& p) {
  size_t size = 0;
  if (!p.check(nvrtc().nvrtcGetProgramLogSize(p.prog, &size), "nvrtcGetProgramLogSize")) return {};
  std::string log(size, '\0');
  if (size > 1 && !p.check(nvrtc().nvrtcGetProgramLog(p.prog, log.data()), "nvrtcGetProgramLog"))
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::string cache_key(const std::string& sm, const KernelSource& k) {
  return sm + "\n" + k.text;
}

CompileOutcome compile(const KernelSource& k, const std::string& sm) {
  CompileOutcome out;
  const std::string key = cache_key(sm, k);
  {
    std::lock_guard<std::mutex> lock(g_cubins_mutex);
    if (const auto* hit = g_cubins.find(key)) {
      out.compiled = *hit;
      out.cache_hit = true;
      out.log = (*hit)->log;
      return out;
    }
  }
  // NVRTC opens what an #include names (the source's folder, the working directory, the -I
  // folders): a device, FIFO, folder or /proc file is refused before it reads one (sandbox.h).
  {
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    const std::string folder = std::filesystem::path(k.file_name).parent_path().string();
    if (std::string why = include_problem(
            k.text,
            {folder.empty() ? cwd : folder, cwd, cuda_include_dir(), cuda_include_dir() + "/cccl"});
        !why.empty()) {
      out.error = k.file_name + ": " + why;
      return out;
    }
  }
  if (!nvrtc().error.empty()) {
    out.error = nvrtc().error;
    return out;
  }
  const auto t0 = std::chrono::steady_clock::now();
  Program p;
  if (!p.check(nvrtc().nvrtcCreateProgram(&p.prog, k.text.c_str(), k.file_name.c_str(), 0, nullptr,
                                          nullptr),
               "nvrtcCreateProgram") ||
      !p.check(nvrtc().nvrtcAddNameExpression(p.prog, k.kernel_name.c_str()),
               "nvrtcAddNameExpression")) {
    out.error = p.error();
    return out;
  }
  const std::string arch = "--gpu-architecture=" + sm;
  const std::string include = "-I" + cuda_include_dir();
  // CUDA 13 keeps libcu++ (<cuda/std/...>, which cooperative_groups.h includes) under cccl/.
  const std::string cccl = cuda_include_dir() + "/cccl";
  std::error_code ec;
  const std::string include_cccl = "-I" + cccl;
  const bool with_cccl = std::filesystem::is_directory(cccl, ec);
  const char* opts[] = {arch.c_str(), "-std=c++17", include.c_str(), "-lineinfo",
                        include_cccl.c_str()};
  const nvrtcResult r = nvrtc().nvrtcCompileProgram(p.prog, with_cccl ? 5 : 4, opts);
  out.log = program_log(p);
  if (r != NVRTC_SUCCESS) {
    out.error =
        std::string("NVRTC: ") + nvrtc().nvrtcGetErrorString(r) + "\n" + explain_log(out.log, k);
    out.ms = ms_since(t0);
    return out;
  }
  auto c = std::make_shared<Compiled>();
  size_t size = 0;
  const char* lowered = nullptr;
  if (p.check(nvrtc().nvrtcGetCUBINSize(p.prog, &size), "nvrtcGetCUBINSize")) {
    c->cubin.resize(size);
    if (p.check(nvrtc().nvrtcGetCUBIN(p.prog, c->cubin.data()), "nvrtcGetCUBIN"))
      p.check(nvrtc().nvrtcGetLoweredName(p.prog, k.kernel_name.c_str(), &lowered),
              "nvrtcGetLoweredName");
  }
  out.ms = ms_since(t0);
  if (p.failed != NVRTC_SUCCESS) {
    out.error = p.error();
    return out;
  }
  c->lowered = lowered ? lowered : k.kernel_name;
  c->log = out.log;
  out.compiled = c;
  const size_t bytes = key.size() + c->cubin.size() + c->lowered.size() + c->log.size();
  std::lock_guard<std::mutex> lock(g_cubins_mutex);
  if (!g_cubins.contains(key)) g_cubins.insert(key, std::move(c), bytes);  // another thread?
  g_cubins.trim();  // holders of an evicted cubin keep theirs
  return out;
}

void set_cubin_cache_bounds(size_t max_entries, size_t max_bytes) {
  std::lock_guard<std::mutex> lock(g_cubins_mutex);
  g_cubins.set_bounds(max_entries, max_bytes);
  g_cubins.trim();
}

size_t cubin_cache_size() {
  std::lock_guard<std::mutex> lock(g_cubins_mutex);
  return g_cubins.size();
}

// [SECTION] ModuleCache ==========================================================================

CUresult ModuleCache::get(const std::string& key, const Compiled& c, CUmodule* out, bool* hit) {
  if (Module* m = lru_.find(key)) {
    *out = m->get();
    *hit = true;
    return CUDA_SUCCESS;
  }
  *hit = false;
  Module m;
  const CUresult r = load_module(m, c.cubin.data());
  if (r != CUDA_SUCCESS) return r;
  *out = m.get();
  lru_.insert(key, std::move(m), key.size() + c.cubin.size());
  return r;
}

void ModuleCache::trim(DriverStatus& st) {
  for (Module& m : lru_.trim()) st.check(m.release(), m.release_call());
}

void ModuleCache::unload_all(DriverStatus& st) {
  for (Module& m : lru_.take_all()) st.check(m.release(), m.release_call());
}

void ModuleCache::forget_all() {
  for (Module& m : lru_.take_all()) m.abandon();
}

}  // namespace detail

std::vector<char> compiled_cubin(const KernelSource& k, const std::string& sm, std::string* error) {
  detail::CompileOutcome o = detail::compile(k, sm);
  if (!o.compiled) {
    if (error) *error = o.error;
    return {};
  }
  return o.compiled->cubin;
}

CompileCheck compile_only(const KernelSource& k, const std::string& sm) {
  CompileCheck c;
  detail::CompileOutcome o = detail::compile(k, sm);
  c.ok = o.compiled != nullptr;
  c.message = o.error;
  c.log = o.log;
  c.ms = o.ms;
  c.cubin_bytes = o.compiled ? o.compiled->cubin.size() : 0;
  return c;
}

}  // namespace bankviz
