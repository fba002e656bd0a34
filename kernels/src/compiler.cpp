// compiler.cpp: NVRTC and the bounded cubin and module caches (compiler.h).
#include "compiler.h"

#include "bankviz/sass.h"

#include <cuda.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <nvrtc.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

// The folder NVRTC's library was loaded from (its builtins library lies beside it), or "".
std::string nvrtc_folder() {
  Dl_info info{};
  if (!nvrtc().nvrtcCompileProgram ||
      ::dladdr(reinterpret_cast<void*>(nvrtc().nvrtcCompileProgram), &info) == 0 || !info.dli_fname)
    return {};
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

// The contained compile's exit status when its process could not enter its confinement.
constexpr int kNvrtcUnconfined = 86;

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

// What one NVRTC compile gave: the cubin and the kernel's lowered name, or the error.
struct NvrtcRun {
  std::string error;  // "NVRTC: ..." with the source's line quoted; empty when compiled
  std::string log, lowered;
  std::vector<char> cubin;
};

// NVRTC's log kept to its end: a source made of errors cannot make a message of megabytes.
constexpr size_t kLogKept = 64 * 1024;

NvrtcRun nvrtc_run(const KernelSource& k, const std::string& sm) {
  NvrtcRun out;
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
  if (out.log.size() > kLogKept)
    out.log = "(" + std::to_string(out.log.size() - kLogKept) +
              " bytes of NVRTC's log before not shown)\n" +
              out.log.substr(out.log.size() - kLogKept);
  if (r != NVRTC_SUCCESS) {
    out.error =
        std::string("NVRTC: ") + nvrtc().nvrtcGetErrorString(r) + "\n" + explain_log(out.log, k);
    return out;
  }
  size_t size = 0;
  const char* lowered = nullptr;
  if (p.check(nvrtc().nvrtcGetCUBINSize(p.prog, &size), "nvrtcGetCUBINSize")) {
    out.cubin.resize(size);
    if (p.check(nvrtc().nvrtcGetCUBIN(p.prog, out.cubin.data()), "nvrtcGetCUBIN"))
      p.check(nvrtc().nvrtcGetLoweredName(p.prog, k.kernel_name.c_str(), &lowered),
              "nvrtcGetLoweredName");
  }
  if (p.failed != NVRTC_SUCCESS) {
    out.error = p.error();
    out.cubin.clear();
    return out;
  }
  out.lowered = lowered ? lowered : k.kernel_name;
  return out;
}

// The contained compile's time limit and the most its process may send back.
constexpr double kNvrtcSeconds = 60;
constexpr size_t kNvrtcReplyBytes = size_t{256} << 20;
constexpr rlim_t kNvrtcMemoryBytes = rlim_t{4} << 30;  // more than this process has mapped

void put(std::string& to, const void* data, size_t n) {
  const uint64_t size = n;
  to.append(reinterpret_cast<const char*>(&size), sizeof size);
  to.append(static_cast<const char*>(data), n);
}

bool take(const std::string& from, size_t* at, std::string* out) {
  uint64_t size = 0;
  if (from.size() - *at < sizeof size) return false;
  std::memcpy(&size, from.data() + *at, sizeof size);
  *at += sizeof size;
  if (from.size() - *at < size) return false;
  out->assign(from, *at, size);
  *at += size;
  return true;
}

// This process's mapped bytes (/proc/self/statm's first field), so the compile's process may map
// kNvrtcMemoryBytes more than it inherits (a CUDA context maps much).
rlim_t mapped_bytes() {
  std::ifstream in("/proc/self/statm");
  unsigned long long pages = 0;
  in >> pages;
  return static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
}

// The child's side: limits, confinement, the compile, its result written to `fd`.
[[noreturn]] void nvrtc_child(const KernelSource& k, const std::string& sm, const Confinement& c,
                              int fd, pid_t parent, rlim_t memory) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const rlimit zero{0, 0},
      cpu{static_cast<rlim_t>(kNvrtcSeconds), static_cast<rlim_t>(kNvrtcSeconds)},
      mem{memory, memory};
  ::setrlimit(RLIMIT_CORE, &zero);
  ::setrlimit(RLIMIT_FSIZE, &zero);
  ::setrlimit(RLIMIT_CPU, &cpu);
  ::setrlimit(RLIMIT_AS, &mem);
  if (!enter_landlock(c) || !enter_seccomp(c.seccomp)) ::_exit(kNvrtcUnconfined);
  const NvrtcRun r = nvrtc_run(k, sm);
  std::string reply;
  put(reply, r.error.data(), r.error.size());
  put(reply, r.log.data(), r.log.size());
  put(reply, r.lowered.data(), r.lowered.size());
  put(reply, r.cubin.data(), r.cubin.size());
  for (size_t at = 0; at < reply.size();) {
    const ssize_t n = ::write(fd, reply.data() + at, reply.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(1);
    at += static_cast<size_t>(n);
  }
  ::_exit(0);
}

// The user's source compiled by NVRTC in a forked process of its own: Landlock lets it read only
// the system's and CUDA's headers and libraries and the files of `sources` (sandbox.h
// nvrtc_confinement()), its seccomp filter refuses sockets; 60 s of CPU and of wall time, 4 GB
// more memory than this process has mapped, no file written. A compile that blocks (an include
// of a FIFO built by macros, where Landlock is missing) is killed at the limit.
NvrtcRun nvrtc_contained(const KernelSource& k, const std::string& sm,
                         const std::vector<std::string>& sources) {
  NvrtcRun out;
  const std::string toolkit_lib = nvrtc_folder();
  const Confinement c = nvrtc_confinement(
      {std::filesystem::path(cuda_include_dir()).parent_path().string(), toolkit_lib}, sources);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.error = std::string("NVRTC's process: pipe: ") + std::strerror(errno);
    return out;
  }
  const rlim_t memory = mapped_bytes() + kNvrtcMemoryBytes;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    out.error = std::string("NVRTC's process: fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    nvrtc_child(k, sm, c, fds[1], parent, memory);
  }
  ::close(fds[1]);
  std::string reply;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(kNvrtcSeconds);
  bool timed_out = false, too_much = false;
  for (char buf[65536];;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (reply.size() + static_cast<size_t>(n) > kNvrtcReplyBytes) {
      too_much = true;
      break;
    }
    reply.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out || too_much) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string limits = " (NVRTC runs in a process of its own, with 60 s and " +
                             std::to_string(kNvrtcMemoryBytes >> 30) + " GB)";
  if (timed_out) {
    out.error = "NVRTC did not finish compiling " + k.file_name + " in 60 s" + limits;
    return out;
  }
  if (too_much) {
    out.error = "NVRTC's output for " + k.file_name + " passed " +
                std::to_string(kNvrtcReplyBytes >> 20) + " MB" + limits;
    return out;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNvrtcUnconfined) {
    out.error = "cannot contain NVRTC's compile of " + k.file_name +
                " (Landlock or the seccomp filter refused in its process): not compiled";
    return out;
  }
  size_t at = 0;
  std::string cubin;
  if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) || !take(reply, &at, &out.error) ||
      !take(reply, &at, &out.log) || !take(reply, &at, &out.lowered) || !take(reply, &at, &cubin)) {
    out = NvrtcRun{};
    out.error =
        "NVRTC's compile of " + k.file_name + " ended " +
        (WIFSIGNALED(status)
             ? "by signal " + std::to_string(WTERMSIG(status)) + " (" +
                   strsignal(WTERMSIG(status)) +
                   (WTERMSIG(status) == SIGXCPU ? ": its CPU time ran out" : "") +
                   (WTERMSIG(status) == SIGABRT || WTERMSIG(status) == SIGSEGV ? ": out of memory?"
                                                                               : "") +
                   ")"
             : "with status " + std::to_string(WEXITSTATUS(status))) +
        limits;
    return out;
  }
  out.cubin.assign(cubin.begin(), cubin.end());
  return out;
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
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  const std::string folder = std::filesystem::path(k.file_name).parent_path().string();
  if (k.user_source) {
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
  // The user's source compiles in a process of its own, contained (what a macro-built include
  // opens cannot be seen above); bankviz's own kernels in this one.
  NvrtcRun run = k.user_source ? nvrtc_contained(k, sm, {folder.empty() ? cwd : folder, cwd})
                               : nvrtc_run(k, sm);
  out.ms = ms_since(t0);
  out.log = std::move(run.log);
  if (!run.error.empty()) {
    out.error = std::move(run.error);
    return out;
  }
  auto c = std::make_shared<Compiled>();
  c->cubin = std::move(run.cubin);
  c->lowered = std::move(run.lowered);
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

std::vector<char> compiled_cubin(const KernelSource& k, const std::string& sm, std::string* error,
                                 std::string* lowered) {
  detail::CompileOutcome o = detail::compile(k, sm);
  if (!o.compiled) {
    if (error) *error = o.error;
    return {};
  }
  if (lowered) *lowered = o.compiled->lowered;
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
