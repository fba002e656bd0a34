// record.cpp: the CPU recording (record.h): prepare, compile with the host compiler, run bounded.
#include "bankviz/record.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "bankviz/io.h"
#include "sandbox.h"

namespace bankviz {

namespace {

// The child's exit status when the seccomp filter cannot be installed (it then runs nothing).
constexpr int kUnconfined = 126;

struct Ran {
  bool started = false, timed_out = false, truncated = false;
  int exit_code = -1, signal = 0;
  std::string out, err, error;
};

// argv[0] (a path) run with stdin from /dev/null, stdout and stderr captured up to max_bytes
// each, killed after timeout_s; in the child, CPU time and address space limited, no descriptor
// of this process but 0-2 (the pipes), TMPDIR set to `tmpdir` (the compiler's own temporary
// files go there, removed with it). The child leads a process group of its own, and the whole
// group is killed at the deadline, when the output grows past its bound, once the child has
// ended, and when a signal ends this program (io.h kill_process_group_on_signal): nothing it
// started (the compiler's cc1plus blocked opening an #include'd FIFO, a process the user's code
// forked) outlives the run or holds its output open. It is killed too if this process dies
// first. With `confine` (the user's kernel): the seccomp allow-list (sandbox.h) from before its
// exec, and no file may grow.
Ran run(const std::vector<std::string>& argv, double timeout_s, size_t max_bytes,
        rlim_t memory_bytes, const std::string& tmpdir, const SandboxFilter* confine = nullptr) {
  Ran r;
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    for (int f : {out[0], out[1], err[0], err[1]})
      if (f >= 0) ::close(f);
    return r;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment, TMPDIR replaced; built here: after fork only async-signal-safe calls.
  std::vector<std::string> env_text;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env_text.emplace_back(*e);
  env_text.push_back("TMPDIR=" + tmpdir);
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  const rlim_t cpu = static_cast<rlim_t>(timeout_s) + 1;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls from here
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    close_descriptors_from(3);
    // This program's handlers and blocked signals are not the child's.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const rlimit c{cpu, cpu}, m{memory_bytes, memory_bytes}, zero{0, 0};
    ::setrlimit(RLIMIT_CPU, &c);
    ::setrlimit(RLIMIT_AS, &m);
    ::setrlimit(RLIMIT_CORE, &zero);
    if (confine) {
      ::setrlimit(RLIMIT_FSIZE, &zero);
      ::setrlimit(RLIMIT_NPROC, &zero);  // as root this binds nothing: the filter does
      if (!enter_sandbox(*confine)) ::_exit(kUnconfined);
    }
    ::execve(args[0], args.data(), env.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    ::close(out[0]);
    ::close(err[0]);
    return r;
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists before a kill
  // A signal that ends this program kills the group first (core's io.h; before this line the
  // child's PR_SET_PDEATHSIG does, and nothing of it has been exec'd yet).
  const int on_signal = kill_process_group_on_signal(pid);
  r.started = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open = 2;
  // exited: the child has ended; it stays a zombie until reaped at the end, so its pid (the
  // group's id) cannot be taken by another process while the group is killed.
  bool exited = false, killed = false;
  std::chrono::steady_clock::time_point killed_at;
  auto kill_group = [&] {
    ::kill(-pid, SIGKILL);
    if (!killed) killed_at = std::chrono::steady_clock::now();
    killed = true;
  };
  std::vector<char> buf(1 << 16);
  while (open > 0 || !exited) {
    const auto now = std::chrono::steady_clock::now();
    if (!r.timed_out && now > deadline) {
      r.timed_out = true;
      kill_group();
    }
    // The child has ended: what it started goes too, and its output is read to its end.
    siginfo_t info{};
    if (!exited &&
        ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      exited = true;
      kill_group();
    }
    // A process that left the group (only the compiler's could) cannot keep this waiting.
    if (killed && now - killed_at > std::chrono::seconds(2)) break;
    const int n = ::poll(fds, 2, 50);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fds[i].fd, buf.data(), buf.size());
      if (got > 0) {
        const size_t room = max_bytes > sinks[i]->size() ? max_bytes - sinks[i]->size() : 0;
        sinks[i]->append(buf.data(), std::min(room, static_cast<size_t>(got)));
        if (static_cast<size_t>(got) > room && !r.truncated) {
          r.truncated = true;
          kill_group();
        }
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (pollfd& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  ::kill(-pid, SIGKILL);  // before the child is reaped: nothing of the group is left
  forget_on_signal(on_signal);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

// A program: a regular file this process may execute (a directory passes access(X_OK)).
bool runnable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return runnable(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t b = 0;
  while (b <= p.size()) {
    size_t e = p.find(':', b);
    if (e == std::string::npos) e = p.size();
    const std::string c = (e > b ? p.substr(b, e - b) : std::string(".")) + '/' + name;
    if (runnable(c)) return c;
    b = e + 1;
  }
  return {};
}

// The last lines of a process's error output, for a message.
std::string tail(const std::string& s, size_t lines) {
  size_t at = s.size(), n = 0;
  while (at > 0 && n <= lines) {
    at = s.rfind('\n', at - 1);
    if (at == std::string::npos) {
      at = 0;
      break;
    }
    ++n;
  }
  std::string t = s.substr(at == 0 ? 0 : at + 1);
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t;
}

// s without every occurrence of what.
std::string without(std::string s, const std::string& what) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at))
    s.erase(at, what.size());
  return s;
}

struct TempDir {
  std::string path, problem;  // problem: why there is none, in words
  int on_signal = -1;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    const std::string in = base && *base ? base : "/tmp";
    std::string t = in + "/bankviz-record-XXXXXX";
    if (::mkdtemp(t.data())) {
      path = t;
      on_signal = remove_directory_on_signal(path);  // Ctrl+C leaves no directory (io.h)
    } else {
      problem = "cannot make a temporary directory in '" + in + "'" +
                (base && *base ? " (TMPDIR)" : "") + ": " + std::strerror(errno);
    }
  }
  ~TempDir() {
    std::error_code ec;
    if (const char* keep = std::getenv("BANKVIZ_RECORD_KEEP"); keep && *keep == '1') {
      forget_on_signal(on_signal);
      return;
    }
    if (!path.empty()) std::filesystem::remove_all(path, ec);
    forget_on_signal(on_signal);  // after: a signal before it removes what is left
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// What a signal that ended the user's kernel most likely means.
std::string crash_hint(int sig) {
  switch (sig) {
    case SIGFPE:
      return "an integer division by zero?";
    case SIGXCPU:
      return "it used up its CPU time (a loop that never ends?)";
    case SIGXFSZ:
      return "it wrote a file (a kernel writes only shared memory and its buffers)";
    default:
      return "an access out of its buffers, or a recursion too deep for a thread's 128 KB stack? "
             "Pointer arguments are 64 MB of zeros";
  }
}

// 10 -> "10", 0.5 -> "0.5" (not std::to_string's "10.000000").
std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

// CUDA's headers a kernel includes, each a stand-in written beside the kernel (bankviz_record.h
// emulates what the CPU recording needs of them: vector types, fp16/bf16, cooperative groups).
constexpr const char* kStandinHeaders[] = {
    "cuda_runtime.h",       "cuda_runtime_api.h",      "cuda.h",      "device_launch_parameters.h",
    "device_functions.h",   "vector_types.h",          "cuda_fp16.h", "cuda_bf16.h",
    "cooperative_groups.h", "sm_20_atomic_functions.h"};

// Empty when written, else why not (a full disk, the file-size limit).
std::string write_file(const std::string& path, const std::string& text) {
  errno = 0;
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (f) return {};
  return "cannot write '" + path + "': " + (errno ? std::strerror(errno) : "write failed");
}

}  // namespace

std::string record_compiler() {
  if (const char* c = std::getenv("BANKVIZ_RECORD_CXX"); c && *c) return find_in_path(c);
  for (const char* c : {"g++", "c++"})
    if (std::string p = find_in_path(c); !p.empty()) return p;
  return {};
}

std::string recorded_line_reason(uint32_t line, int widest, int64_t recorded_requests,
                                 int64_t hw_executed, const std::vector<SassInstruction>& sass,
                                 int64_t model_wavefronts, int64_t hw_wavefronts) {
  // The instructions whose own line it is (an inlined helper's line, where the hardware counts
  // them), else those inlined there (its call site's).
  std::vector<const SassInstruction*> on;
  for (const SassInstruction& i : sass)
    if (i.own_line == line && i.shared()) on.push_back(&i);
  if (on.empty())
    for (const SassInstruction& i : sass)
      if (i.line == line && i.shared()) on.push_back(&i);
  if (on.empty())
    return "the compiled kernel has no shared-memory instruction on this line: the compiler kept "
           "the value in a register or removed the access";
  std::string ops;
  std::vector<std::string> named;  // each op once ("LDS" is not "LDS.128")
  int wide = 0;
  bool predicated = false;
  for (const SassInstruction* i : on) {
    const std::string op = (i->predicate.empty() ? "" : i->predicate + ' ') + i->opcode;
    if (std::find(named.begin(), named.end(), op) == named.end()) {
      named.push_back(op);
      ops += (ops.empty() ? "" : ", ") + op;
    }
    wide = std::max(wide, i->width());
    predicated = predicated || !i->predicate.empty();
  }
  const std::string made = "the compiler made this line " + std::to_string(on.size()) +
                           " shared instruction" + (on.size() == 1 ? "" : "s") + " (" + ops + ")";
  if (wide > widest)
    return made + ": " + std::to_string(wide) + " bytes per lane where the source accesses " +
           std::to_string(widest) + ", several accesses merged into one wider instruction (" +
           std::to_string(hw_executed) + " executed, the source's " +
           std::to_string(recorded_requests) + ")";
  if (hw_executed > recorded_requests && predicated)
    return made + ": predicated, issued by warps whose lanes the source's guard leaves idle (" +
           std::to_string(hw_executed) + " executed, the source's " +
           std::to_string(recorded_requests) + ")";
  if (hw_executed < recorded_requests)
    return made + ": fewer instructions executed than the source makes accesses (" +
           std::to_string(hw_executed) + " against " + std::to_string(recorded_requests) +
           "): accesses merged or moved to another line";
  if (hw_executed == recorded_requests && recorded_requests > 0 && model_wavefronts >= 0 &&
      hw_wavefronts >= 0 && model_wavefronts != hw_wavefronts) {
    auto per = [&](int64_t w) {
      char b[32];
      std::snprintf(b, sizeof b, "%.2f", static_cast<double>(w) / recorded_requests);
      return std::string(b);
    };
    return made + ": as many executed as the source's requests (" + std::to_string(hw_executed) +
           "), but the hardware's " + std::to_string(hw_wavefronts) + " wavefronts (" +
           per(hw_wavefronts) + " a request) against the bank model's " +
           std::to_string(model_wavefronts) + " (" + per(model_wavefronts) + "): the model costs " +
           (on.size() == 1 ? "this instruction" : "these instructions") +
           " otherwise than the hardware (core's serve() for its kind)";
  }
  return made + ": " + std::to_string(hw_executed) + " executed against the source's " +
         std::to_string(recorded_requests) + " requests";
}

std::string gpu_recording_text(const std::string& source, const std::string& kernel,
                               const std::string& file_name, std::string* why,
                               std::vector<RecordedArray>* declared) {
  const std::string text =
      recording_source(source, kernel, file_name, why, RecordTarget::Gpu, declared);
  return text.empty() ? text : record_gpu_header() + '\n' + text;
}

RecordResult record_on_cpu(const RecordRequest& q) {
  RecordResult out;
  const int64_t threads = q.block[0] * q.block[1] * q.block[2];
  if (q.block[0] < 1 || q.block[1] < 1 || q.block[2] < 1 || threads > 1024 || q.block[2] > 64) {
    out.error = "the block must have 1 to 1024 threads (z at most 64)";
    return out;
  }
  if (q.dynamic_shared < 0 || q.dynamic_shared > int64_t{kMaxSharedBytes}) {
    out.error =
        "the dynamic shared memory must be 0 to " + std::to_string(kMaxSharedBytes) + " bytes";
    return out;
  }
  std::string why;
  const std::string text = recording_source(q.source, q.kernel, q.file_name, &why);
  if (text.empty()) {
    out.error = why;
    return out;
  }
  // An #include of a device, FIFO, folder or /proc file is refused before the compiler reads it.
  {
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    const std::string folder = std::filesystem::path(q.file_name).parent_path().string();
    if (std::string p = include_problem(
            q.source, {folder.empty() ? cwd : folder, cwd, "/usr/include", "/usr/local/include"});
        !p.empty()) {
      out.error = q.file_name + ": " + p;
      return out;
    }
  }
  const std::string cxx = record_compiler();
  if (cxx.empty()) {
    const char* c = std::getenv("BANKVIZ_RECORD_CXX");
    out.error = c && *c ? "BANKVIZ_RECORD_CXX='" + std::string(c).substr(0, 200) +
                              "' is not a program (a path, or a name in PATH; no arguments)"
                        : "no host C++ compiler to record with (install g++, or set "
                          "BANKVIZ_RECORD_CXX)";
    return out;
  }
  // The user's kernel runs only confined (sandbox.h): without the filter nothing is compiled.
  const SandboxFilter filter = recording_filter();
  if (!filter.problem.empty()) {
    out.error = "cannot confine the recording's process (no seccomp filter: " + filter.problem +
                "): not run";
    return out;
  }
  TempDir dir;
  std::string written = dir.problem;
  if (written.empty()) written = write_file(dir.path + "/bankviz_record.h", record_header());
  // CUDA's headers, whose content the emulation header holds: found before the system's.
  // Flat files only: the signal handler removes the directory's files, not folders (io.h).
  for (const char* h : kStandinHeaders) {
    if (!written.empty()) break;
    written = write_file(dir.path + "/" + h,
                         "// bankviz's stand-in: bankviz_record.h holds what the CPU recording "
                         "emulates of it\n#pragma once\n#include \"bankviz_record.h\"\n");
  }
  if (written.empty()) written = write_file(dir.path + "/kernel.cpp", text);
  if (!written.empty()) {
    out.error = "cannot write the recording's files: " + written;
    return out;
  }
  const std::string exe = dir.path + "/record";
  // Linked statically: no dynamic loader, which would have to open files, runs under the filter.
  // The stand-ins first, then the kernel's own folder (a header beside it, `#include "x.h"`).
  std::vector<std::string> cc_args = {
      cxx, "-std=c++20", "-O1", "-w", "-fno-strict-aliasing", "-static", "-I", dir.path};
  {
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::path(q.file_name).parent_path();
    const std::string own = std::filesystem::absolute(folder.empty() ? "." : folder, ec).string();
    if (!ec) cc_args.insert(cc_args.end(), {"-iquote", own});
  }
  cc_args.insert(cc_args.end(), {"-o", exe, dir.path + "/kernel.cpp"});
  const Ran cc =
      run(cc_args, std::max(q.timeout_s, 60.0), size_t{1} << 20, rlim_t{4} << 30, dir.path);
  const bool no_static_library = cc.err.find("cannot find -l") != std::string::npos;
  if (!cc.started || cc.timed_out || cc.exit_code != 0) {
    out.error =
        !cc.started ? "cannot run " + cxx + ": " + cc.error
        : cc.timed_out
            ? "the host compiler did not finish in " + seconds(std::max(q.timeout_s, 60.0)) +
                  " s (an #include that never ends: a FIFO, a device?)"
        : cc.exit_code == 127 && cc.err.empty()
            ? "cannot run " + cxx
            : "the kernel does not compile for the CPU recording (" + cxx + "):\n" +
                  (cc.err.empty()
                       ? (cc.signal ? std::string("ended by signal ") + std::to_string(cc.signal)
                                    : "exit status " + std::to_string(cc.exit_code)) +
                             ", no message"
                       : without(tail(cc.err, 12), dir.path + "/")) +
                  (no_static_library ? "\n(the recording is linked statically: it needs the C "
                                       "and C++ libraries' static archives, libc6-dev and "
                                       "libstdc++-12-dev)"
                                     : "");
    return out;
  }
  std::vector<std::string> argv = {exe,
                                   std::to_string(q.block[0]),
                                   std::to_string(q.block[1]),
                                   std::to_string(q.block[2]),
                                   std::to_string(q.dynamic_shared),
                                   std::to_string(q.max_accesses)};
  for (const std::optional<int64_t>& a : q.args) argv.push_back(std::to_string(a.value_or(0)));
  const Ran r = run(argv, q.timeout_s, size_t{96} << 20, rlim_t{2} << 30, dir.path, &filter);
  if (!r.started || r.timed_out || r.truncated || r.exit_code != 0) {
    out.error = !r.started ? "cannot run the recording: " + r.error
                : r.timed_out
                    ? "the kernel did not finish in " + seconds(q.timeout_s) +
                          " s on the CPU (a loop that never ends, or too much work for one block)"
                : r.truncated ? "the recording grew past 96 MB"
                : r.signal ? "the kernel crashed on the CPU (signal " + std::to_string(r.signal) +
                                 ", " + strsignal(r.signal) + "): " + crash_hint(r.signal)
                : r.exit_code == kUnconfined
                    ? "cannot confine the recording's process (no seccomp filter): not run"
                : r.exit_code == 127 && r.err.empty()
                    ? "cannot run the compiled recording in " + dir.path +
                          " (a temporary directory on a noexec mount? set TMPDIR)"
                    : "the recording stopped: " + tail(r.err, 4);
    return out;
  }
  out.recording = parse_recording(r.out, &why);
  if (!out.recording) out.error = why;
  return out;
}

}  // namespace bankviz
