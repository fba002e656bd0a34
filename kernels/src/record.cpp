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
#include "contained_run.h"
#include "sandbox.h"

namespace bankviz {

namespace detail {

// What is kept of a process's error output: its end, where a crash's reason is.
constexpr size_t kErrorKept = 16 * 1024;

// The child's side of run(), after fork: only async-signal-safe calls. It leads a process group of
// its own and enters the confinement (Landlock first, which needs its ruleset descriptor, then
// every other descriptor closed); then it forks once more: the grandchild takes the limits and the
// seccomp filter and execs the program, the child stays as the group's guardian. When bankviz-cli
// dies (even by SIGKILL, which nothing can handle), the guardian's PR_SET_PDEATHSIG handler kills
// the whole group: the compiler's cc1plus, as and ld go with it, never orphans. When the grandchild
// ends, the guardian ends the same way (its exit status, or its signal), as if it had been it.
[[noreturn]] void exec_child(char* const* args, char* const* env, int out, int err, pid_t parent,
                             const Limits& lim, const Confinement* confine) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, 0);
  ::dup2(out, 1);
  ::dup2(err, 2);
  // This program's handlers and blocked signals are not the child's.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (confine && !enter_landlock(*confine)) ::_exit(kUnconfined);
  close_descriptors_from(3);
  const rlimit zero{0, 0};
  ::setrlimit(RLIMIT_CORE, &zero);
  const pid_t guardian = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) ::_exit(127);
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != guardian) ::_exit(127);
    const rlimit c{lim.cpu_s, lim.cpu_s}, m{lim.memory_bytes, lim.memory_bytes},
        f{lim.file_bytes, lim.file_bytes};
    ::setrlimit(RLIMIT_CPU, &c);
    ::setrlimit(RLIMIT_AS, &m);
    ::setrlimit(RLIMIT_FSIZE, &f);
    if (!lim.processes)
      ::setrlimit(RLIMIT_NPROC, &zero);  // as root this binds nothing: the filter does
    if (confine && !enter_seccomp(confine->seccomp)) ::_exit(kUnconfined);
    ::execve(args[0], args, env);
    ::_exit(127);
  }
  struct sigaction end_group {};
  end_group.sa_handler = [](int) { ::kill(0, SIGKILL); };
  ::sigaction(SIGHUP, &end_group, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGHUP);
  if (::getppid() != parent) ::kill(0, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    ::signal(WTERMSIG(status), SIG_DFL);
    ::kill(::getpid(), WTERMSIG(status));
    ::_exit(128 + WTERMSIG(status));
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

// argv[0] (a path) run with stdin from /dev/null, stdout and stderr captured up to max_bytes
// each, killed after timeout_s; limited as `lim` says, no descriptor of this process but 0-2 (the
// pipes), TMPDIR set to `tmpdir` (the compiler's own temporary files go there, removed with it),
// confined by `confine` (Landlock, seccomp). The child leads a process group of its own, and the
// whole group is killed at the deadline, when the output grows past its bound, once the child has
// ended, and when a signal ends this program (io.h kill_process_group_on_signal): nothing it
// started (a compiler's cc1plus, a process the user's code forked) outlives the run or holds its
// output open; when this process dies by SIGKILL the group's guardian kills it (exec_child()).
Ran run(const std::vector<std::string>& argv, double timeout_s, size_t max_bytes, Limits lim,
        const std::string& tmpdir, const Confinement* confine) {
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
  lim.cpu_s = std::min(lim.cpu_s, static_cast<rlim_t>(timeout_s) + 1);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(args.data(), env.data(), out[1], err[1], parent, lim, confine);
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
      if (got > 0 && i == 1) {
        // The error output is read to its end (it ends the run only by the time limit) and only
        // its last bytes kept: a kernel printing 90 MB without a newline makes no 90 MB message.
        r.err.append(buf.data(), static_cast<size_t>(got));
        if (r.err.size() > 2 * kErrorKept) {
          r.err_dropped += r.err.size() - kErrorKept;
          r.err.erase(0, r.err.size() - kErrorKept);
        }
      } else if (got > 0) {
        const size_t room = max_bytes > r.out.size() ? max_bytes - r.out.size() : 0;
        r.out.append(buf.data(), std::min(room, static_cast<size_t>(got)));
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
  // A line without end (a kernel printing megabytes without a newline): its last 2 KB.
  if (t.size() > 2048) t = "[...] " + t.substr(t.size() - 2048);
  return t;
}

TempDir::TempDir() {
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

TempDir::~TempDir() {
  std::error_code ec;
  if (const char* keep = std::getenv("BANKVIZ_RECORD_KEEP"); keep && *keep == '1') {
    forget_on_signal(on_signal);
    return;
  }
  if (!path.empty()) std::filesystem::remove_all(path, ec);
  forget_on_signal(on_signal);  // after: a signal before it removes what is left
}

}  // namespace detail

namespace {

using namespace detail;

// The reason the recording's own code gave on its way out (bankviz_record.h's say()), or "".
std::string said_reason(const std::string& err) {
  const std::string mark = "bankviz-record: ";
  const size_t at = err.rfind(mark);
  if (at == std::string::npos) return {};
  const size_t end = err.find('\n', at);
  return err.substr(at + mark.size(),
                    end == std::string::npos ? std::string::npos : end - at - mark.size());
}

// Whether this process runs under a seccomp filter of its own (a container's, systemd's): such a
// filter may end the recording with SIGSYS before the recording's own filter traps the call and
// names it (a kill outranks a trap), so which call it was is then not known.
bool under_outer_seccomp() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("Seccomp:", 0) == 0) return line.find('2') != std::string::npos;
  return false;
}

// Why the kernel's process ended before the block did, from what it said on stderr and its signal
// or exit status (a refused call makes a library abort, whose abort() the filter then turns into
// SIGSEGV: the words decide first). Each reason ends with the kernel's last lines of error output.
std::string run_problem(const Ran& r) {
  const std::string said = said_reason(r.err);
  const std::string dropped =
      r.err_dropped > 0 ? " (" + std::to_string(r.err_dropped) + " bytes before not shown)" : "";
  // The recording's own refusal (bankviz_record.h fail(): out of bounds, too many accesses).
  if (r.exit_code == 3 && said.empty() && !r.err.empty())
    return "the recording stopped: " + tail(r.err, 4) + dropped;
  auto has = [&](const char* w) { return r.err.find(w) != std::string::npos; };
  std::string why =
      !said.empty() ? said
      : has("std::bad_alloc") || has("cannot allocate")
          ? "it ran out of memory (the recording's process has 2 GB)"
      : has("std::system_error") || has("pthread_create")
          ? "it tried to start a thread (std::thread) or a process, which the recording refuses: "
            "one block's threads are the recording's own"
      : r.signal == SIGFPE  ? "an integer division by zero?"
      : r.signal == SIGXCPU ? "it used up its CPU time (a loop that never ends?)"
      : r.signal == SIGXFSZ ? "it wrote a file (a kernel writes only shared memory and its buffers)"
      : r.signal == SIGABRT ? "it aborted (a failed assert, or an exception nothing caught)"
      : r.signal == SIGKILL ? "it was killed (out of memory?)"
      : r.signal == SIGSYS && under_outer_seccomp()
          ? "a system call that the seccomp filter bankviz-cli itself runs under (a container's "
            "or a service's, not the recording's) refuses by ending the process; which call is "
            "not known"
      : r.signal == SIGSYS ? "a system call the recording refuses"
      : r.signal           ? "an access out of its buffers (pointer arguments are 64 MB of zeros)?"
                           : "";
  std::string out = r.signal ? "the kernel crashed on the CPU (signal " + std::to_string(r.signal) +
                                   ", " + strsignal(r.signal) + "): " + why
                    : r.exit_code == 0
                        ? "the recording stopped: " + why
                        : "the kernel ended the recording's process with exit status " +
                              std::to_string(r.exit_code) +
                              (why.empty() ? " (exit() inside the kernel?)" : ": " + why);
  const std::string last = tail(r.err, 4);
  if (!last.empty() && last.find("bankviz-record: ") != 0)
    out += "\nits error output ended: " + last + dropped;
  return out;
}

// s without every occurrence of what.
std::string without(std::string s, const std::string& what) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at))
    s.erase(at, what.size());
  return s;
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

// The compiler's flags beyond the language: the recording header's folder, warnings off, and
// bounds on compile-time evaluation far below GCC's (2^25 operations, 2^18 loop iterations), so a
// constexpr or template bomb of ten lines stops in a second with GCC's message instead of using
// the whole time and memory limit.
const char* const kCompileBounds[] = {"-fconstexpr-ops-limit=4194304",
                                      "-fconstexpr-loop-limit=65536",
                                      "-fconstexpr-depth=256",
                                      "-ftemplate-depth=512",
                                      "-fmax-errors=12",
                                      "-fstack-clash-protection"};

// The compile of the prepared source into `exe`, contained (sandbox.h: Landlock and a seccomp
// filter; 1 GB of address space, 64 MB per file written, the time limit): empty when made, else
// why not. Without Landlock nothing is compiled, unless BANKVIZ_RECORD_UNCONTAINED=1 asks for it:
// then *notice says the compile was not contained.
std::string compile_recording(const std::string& cxx, const RecordRequest& q,
                              const std::string& dir, const std::string& exe, std::string* notice) {
  std::error_code ec;
  std::string folder = std::filesystem::path(q.file_name).parent_path().string();
  if (folder.empty()) folder = std::filesystem::current_path(ec).string();
  Confinement contained = compile_confinement(cxx, {folder}, dir);
  if (!contained.problem.empty()) {
    const char* anyway = std::getenv("BANKVIZ_RECORD_UNCONTAINED");
    if (!(anyway && std::string(anyway) == "1"))
      return "cannot contain the host compiler (" + contained.problem +
             "): not compiled (BANKVIZ_RECORD_UNCONTAINED=1 compiles it without containment, "
             "reading and writing whatever you may; the recording's run stays confined)";
    *notice = "the host compiler ran NOT contained (" + contained.problem +
              "; BANKVIZ_RECORD_UNCONTAINED=1)";
  }
  std::vector<std::string> argv = {cxx, "-std=c++20", "-O1", "-w", "-fno-strict-aliasing"};
  argv.insert(argv.end(), std::begin(kCompileBounds), std::end(kCompileBounds));
  // Linked statically: no dynamic loader, which would have to open files, runs under the filter.
  // The stand-ins of CUDA's headers first (-I), then the kernel's own folder for `#include "x.h"`
  // (the file is compiled from `dir`; its folder is one the containment lets it read).
  const std::string own = std::filesystem::absolute(folder, ec).string();
  for (const std::string& a :
       {std::string("-static"), std::string("-I"), dir, std::string("-iquote"), ec ? folder : own,
        std::string("-o"), exe, dir + "/kernel.cpp"})
    argv.push_back(a);
  const double limit = std::max(q.timeout_s, 60.0);
  const Ran cc = run(argv, limit, size_t{1} << 20,
                     Limits{RLIM_INFINITY, rlim_t{1} << 30, rlim_t{64} << 20, true}, dir,
                     contained.problem.empty() ? &contained : nullptr);
  if (cc.started && !cc.timed_out && cc.exit_code == 0) return {};
  const bool no_static_library = cc.err.find("cannot find -l") != std::string::npos;
  const bool refused = cc.err.find("Permission denied") != std::string::npos ||
                       cc.err.find("file not found") != std::string::npos;
  if (!cc.started) return "cannot run " + cxx + ": " + cc.error;
  if (cc.timed_out) return "the host compiler did not finish in " + seconds(limit) + " s";
  if (cc.exit_code == kUnconfined)
    return "cannot contain the host compiler (Landlock refused in its process): not compiled";
  if (cc.exit_code == 127 && cc.err.empty()) return "cannot run " + cxx;
  return "the kernel does not compile for the CPU recording (" + cxx + "):\n" +
         (cc.err.empty() ? (cc.signal ? std::string("ended by signal ") + std::to_string(cc.signal)
                                      : "exit status " + std::to_string(cc.exit_code)) +
                               ", no message"
                         : without(tail(cc.err, 12), dir + "/")) +
         (no_static_library ? "\n(the recording is linked statically: it needs the C "
                              "and C++ libraries' static archives, libc6-dev and "
                              "libstdc++-12-dev)"
          : refused && !contained.problem.empty() ? ""
          : refused ? "\n(the host compiler runs contained: it reads only the files of the "
                      "kernel's folder, the system's headers and libraries; docs/RECORD.md)"
                    : "");
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
  if (std::string p = line_directive_problem(source); !p.empty()) {
    *why = file_name + ": " + p;
    return {};
  }
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
  if (std::string p = line_directive_problem(q.source); !p.empty()) {
    out.error = q.file_name + ": " + p;
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
  if (std::string e = compile_recording(cxx, q, dir.path, exe, &out.notice); !e.empty()) {
    out.error = e;
    return out;
  }
  std::vector<std::string> argv = {exe,
                                   std::to_string(q.block[0]),
                                   std::to_string(q.block[1]),
                                   std::to_string(q.block[2]),
                                   std::to_string(q.dynamic_shared),
                                   std::to_string(q.max_accesses)};
  for (const std::optional<int64_t>& a : q.args) argv.push_back(std::to_string(a.value_or(0)));
  const Confinement confined = run_confinement(exe, filter);
  const Ran r = run(argv, q.timeout_s, size_t{96} << 20,
                    Limits{RLIM_INFINITY, rlim_t{2} << 30, 0, false}, dir.path, &confined);
  if (!r.started || r.timed_out || r.truncated || r.exit_code != 0 || r.signal != 0 ||
      !said_reason(r.err).empty()) {
    out.error = !r.started ? "cannot run the recording: " + r.error
                : r.timed_out
                    ? "the kernel did not finish in " + seconds(q.timeout_s) +
                          " s on the CPU (a loop that never ends, or too much work for one block)"
                : r.truncated ? "the recording grew past 96 MB"
                : r.exit_code == kUnconfined
                    ? "cannot confine the recording's process (no seccomp filter): not run"
                : r.exit_code == 127 && r.err.empty()
                    ? "cannot run the compiled recording in " + dir.path +
                          " (a temporary directory on a noexec mount? set TMPDIR)"
                    : run_problem(r);
    return out;
  }
  // What the recording noted beside it (a barrier the whole block does not reach), as it said it.
  for (size_t at = r.err.find("bankviz-record-note: "); at != std::string::npos;
       at = r.err.find("bankviz-record-note: ", at + 1)) {
    const size_t from = at + 21, end = r.err.find('\n', from);
    out.notice += (out.notice.empty() ? "" : "\n") + r.err.substr(from, end - from);
  }
  out.recording = parse_recording(r.out, &why);
  if (!out.recording) out.error = why;
  return out;
}

}  // namespace bankviz
