// subprocess.cpp: run_process() with posix_spawn, two pipes and poll (subprocess.h).
#include "profile/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

extern char** environ;

namespace bankviz::gui {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

// A folder of the child's own for its temporary files (its TMPDIR), removed once the child and
// everything it left are gone: whatever a child killed by SIGKILL could not remove (the CPU
// recording's bankviz-record-XXXXXX) goes with it.
struct PrivateTmp {
  std::string path;
  PrivateTmp() {
    const char* base = std::getenv("TMPDIR");
    std::string t = std::string(base && *base ? base : "/tmp") + "/bankviz-app-XXXXXX";
    if (::mkdtemp(t.data())) path = t;
  }
  ~PrivateTmp() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

// This environment with TMPDIR replaced by `tmp` (when there is one) and BANKVIZ_PARENT_PID
// naming this process: bankviz-cli then ends itself (SIGTERM, so it cleans up) when the thread that
// started it ends (app/cli's PR_SET_PDEATHSIG).
std::vector<std::string> child_environment(const std::string& tmp) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if ((tmp.empty() || std::strncmp(*e, "TMPDIR=", 7) != 0) &&
        std::strncmp(*e, "BANKVIZ_PARENT_PID=", 19) != 0)
      env.emplace_back(*e);
  if (!tmp.empty()) env.push_back("TMPDIR=" + tmp);
  env.push_back("BANKVIZ_PARENT_PID=" + std::to_string(::getpid()));
  return env;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, size_t max_bytes,
                          const std::atomic<bool>* cancel) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "no program to run";
    return r;
  }
  Pipe out, err;
  if (::pipe2(out.fd, O_CLOEXEC) != 0 || ::pipe2(err.fd, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const PrivateTmp tmp;
  std::vector<std::string> env_text = child_environment(tmp.path);
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  // The child leads a process group of its own (killed whole), with the signals that make it clean
  // up at their default action, whatever this process ignores.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0].c_str(), &fa, &attr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  out.close_end(1);
  err.close_end(1);
  if (rc != 0) {
    r.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  r.started = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  // Cancel and the deadline first ask with SIGTERM, on which bankviz-cli kills what it started and
  // removes its temporary files (core's io.h); a child still there 3 s later, and whatever is left
  // of its group, gets SIGKILL.
  bool killed = false, forced = false;
  std::chrono::steady_clock::time_point asked_at;
  auto end_child = [&] {
    ::kill(-pid, SIGTERM);
    asked_at = std::chrono::steady_clock::now();
    killed = true;
  };
  pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    if (!killed) {
      if (cancel && cancel->load()) {
        r.canceled = true;
        end_child();
      } else if (std::chrono::steady_clock::now() > deadline) {
        r.timed_out = true;
        end_child();
      }
    } else if (!forced && std::chrono::steady_clock::now() - asked_at > std::chrono::seconds(3)) {
      forced = true;
      ::kill(-pid, SIGKILL);
    }
    const int n = ::poll(fds, 2, 50);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        const size_t room = max_bytes > sinks[i]->size() ? max_bytes - sinks[i]->size() : 0;
        sinks[i]->append(buf, std::min(room, static_cast<size_t>(got)));
        if (static_cast<size_t>(got) > room) r.truncated = true;
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;  // closed (the Pipe closes the descriptor)
        --open;
      }
    }
  }
  // The group, whatever is left of it, goes before the child is reaped (its id stays the group's).
  if (killed) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

std::vector<std::string> cli_candidates(const std::string& self_dir) {
  std::vector<std::string> out;
  if (const char* e = std::getenv("BANKVIZ_CLI"); e && *e) out.push_back(e);
  const std::filesystem::path dir(self_dir);
  out.push_back((dir / "bankviz-cli").string());
  out.push_back((dir.parent_path() / "bankviz-cli").string());
  return out;
}

std::string find_cli(std::string* tried) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  tried->clear();
  for (const std::string& c : cli_candidates(ec ? std::string(".") : self.parent_path().string())) {
    struct stat st {};
    if (::stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(c.c_str(), X_OK) == 0)
      return c;
    *tried += (tried->empty() ? "" : ", ") + c;
  }
  return {};
}

}  // namespace bankviz::gui
