// record.cpp: the CPU recording (record.h): prepare, compile with the host compiler, run bounded.
#include "bankviz/record.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace bankviz {

namespace {

struct Ran {
  bool started = false, timed_out = false, truncated = false;
  int exit_code = -1, signal = 0;
  std::string out, err, error;
};

// argv[0] (a path) run with stdin from /dev/null, stdout and stderr captured up to max_bytes
// each, killed after timeout_s; in the child, CPU time and address space limited.
Ran run(const std::vector<std::string>& argv, double timeout_s, size_t max_bytes,
        rlim_t memory_bytes) {
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
  const rlim_t cpu = static_cast<rlim_t>(timeout_s) + 1;
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls from here
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    const rlimit c{cpu, cpu}, m{memory_bytes, memory_bytes}, core{0, 0};
    ::setrlimit(RLIMIT_CPU, &c);
    ::setrlimit(RLIMIT_AS, &m);
    ::setrlimit(RLIMIT_CORE, &core);
    ::execv(args[0], args.data());
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
  r.started = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open = 2;
  std::vector<char> buf(1 << 16);
  while (open > 0) {
    if (!r.timed_out && std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
    }
    const int n = ::poll(fds, 2, 50);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fds[i].fd, buf.data(), buf.size());
      if (got > 0) {
        const size_t room = max_bytes > sinks[i]->size() ? max_bytes - sinks[i]->size() : 0;
        sinks[i]->append(buf.data(), std::min(room, static_cast<size_t>(got)));
        if (static_cast<size_t>(got) > room && !r.truncated) {
          r.truncated = true;
          ::kill(pid, SIGKILL);
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
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t b = 0;
  while (b <= p.size()) {
    size_t e = p.find(':', b);
    if (e == std::string::npos) e = p.size();
    const std::string c = (e > b ? p.substr(b, e - b) : std::string(".")) + '/' + name;
    if (::access(c.c_str(), X_OK) == 0) return c;
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
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string t = std::string(base && *base ? base : "/tmp") + "/bankviz-record-XXXXXX";
    if (::mkdtemp(t.data())) path = t;
  }
  ~TempDir() {
    std::error_code ec;
    if (const char* keep = std::getenv("BANKVIZ_RECORD_KEEP"); keep && *keep == '1') return;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  return static_cast<bool>(f);
}

}  // namespace

std::string record_compiler() {
  if (const char* c = std::getenv("BANKVIZ_RECORD_CXX"); c && *c) return find_in_path(c);
  for (const char* c : {"g++", "c++"})
    if (std::string p = find_in_path(c); !p.empty()) return p;
  return {};
}

std::string recorded_line_reason(uint32_t line, int widest, int64_t recorded_requests,
                                 int64_t hw_executed, const std::vector<SassInstruction>& sass) {
  std::vector<const SassInstruction*> on;
  for (const SassInstruction& i : sass)
    if (i.line == line && i.shared()) on.push_back(&i);
  if (on.empty())
    return "the compiled kernel has no shared-memory instruction on this line: the compiler kept "
           "the value in a register or removed the access";
  std::string ops;
  int wide = 0;
  bool predicated = false;
  for (const SassInstruction* i : on) {
    const std::string op = (i->predicate.empty() ? "" : i->predicate + ' ') + i->opcode;
    if (ops.find(op) == std::string::npos) ops += (ops.empty() ? "" : ", ") + op;
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
  const std::string cxx = record_compiler();
  if (cxx.empty()) {
    out.error = "no host C++ compiler to record with (install g++, or set BANKVIZ_RECORD_CXX)";
    return out;
  }
  TempDir dir;
  if (dir.path.empty() || !write_file(dir.path + "/bankviz_record.h", record_header()) ||
      !write_file(dir.path + "/kernel.cpp", text)) {
    out.error = "cannot write the recording's files in a temporary directory";
    return out;
  }
  const std::string exe = dir.path + "/record";
  const Ran cc = run({cxx, "-std=c++20", "-O1", "-w", "-fno-strict-aliasing", "-I", dir.path, "-o",
                      exe, dir.path + "/kernel.cpp"},
                     std::max(q.timeout_s, 60.0), size_t{1} << 20, rlim_t{4} << 30);
  if (!cc.started || cc.timed_out || cc.exit_code != 0) {
    out.error = !cc.started    ? "cannot run " + cxx + ": " + cc.error
                : cc.timed_out ? "the host compiler did not finish in time"
                               : "the kernel does not compile for the CPU recording (" + cxx +
                                     "):\n" + without(tail(cc.err, 12), dir.path + "/");
    return out;
  }
  std::vector<std::string> argv = {exe,
                                   std::to_string(q.block[0]),
                                   std::to_string(q.block[1]),
                                   std::to_string(q.block[2]),
                                   std::to_string(q.dynamic_shared),
                                   std::to_string(q.max_accesses)};
  for (const std::optional<int64_t>& a : q.args) argv.push_back(std::to_string(a.value_or(0)));
  const Ran r = run(argv, q.timeout_s, size_t{96} << 20, rlim_t{2} << 30);
  if (!r.started || r.timed_out || r.truncated || r.exit_code != 0) {
    out.error =
        !r.started    ? "cannot run the recording: " + r.error
        : r.timed_out ? "the kernel did not finish in " + std::to_string(q.timeout_s) +
                            " s on the CPU (a loop that never ends, or too much work for one block)"
        : r.truncated ? "the recording grew past 96 MB"
        : r.signal    ? "the kernel crashed on the CPU (signal " + std::to_string(r.signal) + ", " +
                         strsignal(r.signal) +
                         "): an access out of its buffers? Pointer arguments are 64 MB of zeros"
                   : "the recording stopped: " + tail(r.err, 4);
    return out;
  }
  out.recording = parse_recording(r.out, &why);
  if (!out.recording) out.error = why;
  return out;
}

}  // namespace bankviz
