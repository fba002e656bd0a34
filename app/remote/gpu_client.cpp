// gpu_client.cpp: the remote GPU's process, its pipes and deadlines (gpu_client.h).
#include "gpu_client.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "bankviz/printable.h"

extern char** environ;

namespace bankviz {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kStderrTail = 16 << 10;

bool contains(const std::string& s, const char* what) {
  return s.find(what) != std::string::npos;
}

// The last non-empty line of a process's standard error, as a message may quote it.
std::string last_line(const std::string& err) {
  std::istringstream in(err);
  std::string line, last;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) last = line;
  }
  return quoted_excerpt(last, 200);
}

// write() all of `bytes` to a non-blocking pipe within `timeout_s`, with SIGPIPE blocked on this
// thread (a remote gone is EPIPE, a message, never the signal that would end the program); a
// pending SIGPIPE is taken back. Empty on success, else "closed" or "timeout".
// `wake`: a descriptor that becomes readable when the write must stop ("cancelled").
std::string write_all(int fd, const std::string& bytes, double timeout_s, int wake) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  size_t done = 0;
  std::string why;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        why = "timeout";
        break;
      }
      pollfd p[2] = {{fd, POLLOUT, 0}, {wake, POLLIN, 0}};
      ::poll(p, wake >= 0 ? 2 : 1, static_cast<int>(std::min<int64_t>(left, 1000)));
      if (wake >= 0 && (p[1].revents & POLLIN)) {
        why = "cancelled";
        break;
      }
      continue;
    }
    why = "closed";
    break;
  }
  if (why == "closed") {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return why;
}

}  // namespace

std::string ssh_program() {
  const char* e = std::getenv("BANKVIZ_SSH");
  return e && *e ? std::string(e) : std::string("ssh");
}

std::string GpuTarget::where() const {
  if (!host.empty()) return quoted_excerpt(host, 80);
  return "the GPU command '" + quoted_excerpt(command, 80) + "'";
}

std::string GpuTarget::problem() const {
  if (!host.empty() && !command.empty()) return "give --gpu HOST or --gpu-command CMD, not both";
  if (!host.empty()) {
    if (host.front() == '-')
      return "--gpu '" + quoted_excerpt(host, 80) + "': a host cannot start with '-'";
    if (has_control(host) || host.find_first_of(" \t") != std::string::npos)
      return "--gpu '" + quoted_excerpt(host, 80) +
             "': an ssh destination has no spaces (user@host, ssh://user@host:port or a Host of "
             "your ~/.ssh/config); for a command use --gpu-command";
    if (host.size() > 1024) return "--gpu: a host of more than 1024 characters";
  }
  if (!command.empty() && command.size() > 8192)
    return "--gpu-command: a command of more than 8192 characters";
  if (!command.empty() && command.find_first_not_of(" \t") == std::string::npos)
    return "--gpu-command: the command is blank";
  return {};
}

std::vector<std::string> target_argv(const GpuTarget& t) {
  if (!t.host.empty())
    // BatchMode: no password or passphrase prompt (it would wait behind the window); a host key
    // not yet known is refused, not accepted. ConnectTimeout bounds an unreachable host, the
    // ServerAlive probes a connection that drops without a word (15 s). -T: no terminal.
    return {ssh_program(),
            "-T",
            "-o",
            "BatchMode=yes",
            "-o",
            "ConnectTimeout=10",
            "-o",
            "ServerAliveInterval=5",
            "-o",
            "ServerAliveCountMax=3",
            "--",
            t.host,
            "bankviz-cli serve"};
  return {"/bin/sh", "-c", t.command};
}

std::string explain_remote_end(const GpuTarget& t, int exit_code, int signal,
                               const std::string& err) {
  const std::string said = last_line(err);
  const std::string quote = said.empty() ? std::string() : " (" + said + ")";
  const std::string where = t.where();
  const std::string install = std::string("install bankviz ") + BANKVIZ_VERSION;
  if (!t.host.empty() && exit_code == 255) {
    if (contains(err, "Could not resolve hostname") || contains(err, "Name or service not known"))
      return "cannot reach " + where + ": the host name is unknown" + quote;
    if (contains(err, "Host key verification failed") || contains(err, "host key"))
      return where + "'s host key is not known here yet: connect once with `ssh " + where +
             "` in a terminal to check and accept it" + quote;
    if (contains(err, "Permission denied") || contains(err, "Too many authentication"))
      return "ssh could not log in to " + where +
             " without a password (bankviz runs ssh in batch mode: it never asks): add your key "
             "there (ssh-copy-id " +
             where + ") or load it into your agent (ssh-add)" + quote;
    if (contains(err, "timed out") || contains(err, "refused") || contains(err, "No route") ||
        contains(err, "unreachable"))
      return "cannot reach " + where + quote;
    return "ssh to " + where + " failed" + quote;
  }
  if (exit_code == 127 || contains(err, "command not found") || contains(err, ": not found"))
    return !t.host.empty()
               ? "bankviz-cli is not installed on " + where +
                     " (not on the PATH of a non-interactive ssh login there): " + install +
                     " there, or name it: --gpu-command \"ssh " + where +
                     " /path/to/bankviz-cli serve\"" + quote
               : where + " was not found" + quote;
  if (contains(err, "serve") && (contains(err, "not expected") || contains(err, "xtras")))
    return where + " runs a bankviz-cli without `serve` (an older bankviz): " + install + " there" +
           quote;
  if (signal != 0)
    return where + " ended by signal " + std::to_string(signal) + " before it greeted" + quote;
  if (exit_code == 0)
    return where + " ended without a word of bankviz's protocol (is it `bankviz-cli serve`?)" +
           quote;
  return where + " ended with status " + std::to_string(exit_code) + " before it greeted" + quote;
}

GpuClient::GpuClient(GpuTarget target) : target_(std::move(target)) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
}

GpuClient::~GpuClient() {
  close();
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

void GpuClient::cancel() {
  cancelled_.store(true);
  if (wake_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);  // full: already woken
  }
}

std::string GpuClient::require_gpu() const {
  if (greeting_.device.present) return {};
  return target_.where() + " has no usable GPU: " +
         (greeting_.device.reason.empty() ? std::string("the server found none")
                                          : quoted_excerpt(greeting_.device.reason, 300));
}

void GpuClient::close() {
  if (pid_ <= 0) return;
  if (in_ >= 0) ::close(in_);
  in_ = -1;
  // A serve whose input ends exits at once; give it a moment, then end its group (cancelled:
  // no moment, the caller may be the app's UI).
  int status = 0;
  const auto until = Clock::now() + std::chrono::milliseconds(cancelled_.load() ? 0 : 300);
  pid_t got = 0;
  while ((got = ::waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < until) ::usleep(5000);
  if (got == 0) {
    ::kill(-pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (got >= 0) {
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  for (int* fd : {&out_, &err_})
    if (*fd >= 0) ::close(*fd), *fd = -1;
  pid_ = -1;
  buffered_.clear();
}

void GpuClient::drain_stderr() {
  if (err_ < 0) return;
  char buf[4096];
  for (;;) {
    pollfd p{err_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP))) return;
    const ssize_t n = ::read(err_, buf, sizeof buf);
    if (n <= 0) {
      ::close(err_);
      err_ = -1;
      return;
    }
    stderr_tail_.append(buf, static_cast<size_t>(n));
    if (stderr_tail_.size() > kStderrTail) stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
  }
}

// Reads one line of the remote's standard output (its standard error collected meanwhile). An
// empty return is success; else what went wrong ("closed", "timeout", "too long").
std::string GpuClient::read_line(double timeout_s, int64_t max_bytes, std::string& line) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[65536];
  for (;;) {
    if (size_t nl = buffered_.find('\n'); nl != std::string::npos) {
      line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return {};
    }
    if (static_cast<int64_t>(buffered_.size()) > max_bytes) return "too long";
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return "timeout";
    if (cancelled_.load()) return "cancelled";
    // The remote's output, the wake-up of cancel(), its standard error (when still open).
    pollfd fds[3] = {{out_, POLLIN, 0}, {wake_[0], POLLIN, 0}, {err_, POLLIN, 0}};
    const int n =
        ::poll(fds, err_ >= 0 ? 3 : 2, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) return std::string("poll: ") + std::strerror(errno);
    if (n <= 0) continue;
    if (fds[1].revents & POLLIN) return "cancelled";
    if (err_ >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) drain_stderr();
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t got = ::read(out_, buf, sizeof buf);
      if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) return "closed";
      if (got > 0) buffered_.append(buf, static_cast<size_t>(got));
    }
  }
}

// After the remote's output closed: wait for it (briefly) and say why it ended.
std::string GpuClient::ended_message(const char* when) {
  const auto until = Clock::now() + std::chrono::seconds(2);
  int status = 0;
  pid_t got = 0;
  while ((got = ::waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < until) {
    drain_stderr();
    ::usleep(5000);
  }
  drain_stderr();
  int code = -1, sig = 0;
  if (got == pid_) {
    code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  const std::string err = stderr_tail_;
  if (got == pid_) pid_ = -2;  // reaped: close() must not wait for it
  if (pid_ == -2) {
    for (int* fd : {&in_, &out_, &err_})
      if (*fd >= 0) ::close(*fd), *fd = -1;
    pid_ = -1;
    buffered_.clear();
  } else {
    close();
  }
  if (std::string_view(when) == "greeting") return explain_remote_end(target_, code, sig, err);
  const std::string said = last_line(err);
  return "the connection to " + target_.where() + " was lost during the request" +
         (said.empty() ? std::string() : " (" + said + ")") +
         (code >= 0 ? "; it ended with status " + std::to_string(code) : std::string()) +
         (sig > 0 ? "; it ended by signal " + std::to_string(sig) : std::string());
}

std::string GpuClient::connect() {
  close();
  stderr_tail_.clear();
  if (cancelled_.load()) return kCancelled;
  if (std::string why = target_.problem(); !why.empty()) return why;
  if (target_.empty()) return "no GPU target (--gpu HOST or --gpu-command CMD)";
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return std::string("pipe: ") + std::strerror(errno);
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return std::string("pipe: ") + std::strerror(errno);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own: ended whole (sh and what it started, ssh) at a deadline. SIGPIPE and
  // the signal mask back to their defaults for the child.
  sigset_t none, pipe_only;
  sigemptyset(&none);
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &pipe_only);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const std::vector<std::string> argv = target_argv(target_);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  for (int fd : {in[0], out[1], err[1]}) ::close(fd);
  if (rc != 0) {
    for (int fd : {in[1], out[0], err[0]}) ::close(fd);
    return "cannot run " + argv[0] + " for " + target_.where() + ": " + std::strerror(rc) +
           (!target_.host.empty() ? " (install the OpenSSH client: apt install openssh-client)"
                                  : "");
  }
  pid_ = pid;
  in_ = in[1];
  ::fcntl(in_, F_SETFL, ::fcntl(in_, F_GETFL) | O_NONBLOCK);
  out_ = out[0];
  err_ = err[0];
  std::string line;
  const std::string why = read_line(target_.connect_timeout_s, 1 << 20, line);
  if (why == "cancelled") {
    close();
    return kCancelled;
  }
  if (why == "closed") return ended_message("greeting");
  if (!why.empty()) {
    drain_stderr();
    const std::string said = last_line(stderr_tail_);
    close();
    if (why == "timeout")
      return "no answer from " + target_.where() + " within " +
             std::to_string(static_cast<int>(target_.connect_timeout_s)) + " s" +
             (said.empty() ? std::string() : " (" + said + ")");
    return target_.where() + " did not greet with bankviz's protocol: its first line is " + why;
  }
  std::string error;
  std::optional<Greeting> g = parse_greeting(line, &error);
  if (!g) {
    close();
    return target_.where() + " does not speak bankviz's protocol: " + error +
           " (is it `bankviz-cli serve`?)";
  }
  if (std::string v = version_problem(*g, BANKVIZ_VERSION, target_.where()); !v.empty()) {
    close();
    return v;
  }
  greeting_ = *g;
  return {};
}

GpuClient::Outcome GpuClient::request(const std::string& kind, const std::vector<std::string>& args,
                                      const std::map<std::string, std::string>& files) {
  Outcome o;
  Request r;
  r.id = next_id_++;
  r.request = kind;
  r.args = args;
  r.files = files;
  const std::string bytes =
      request_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (static_cast<int64_t>(bytes.size()) > kMaxRequestLine) {
    o.error = "the request is larger than " + std::to_string(kMaxRequestLine >> 20) +
              " MB (the files it sends)";
    return o;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!connected()) {
      if (std::string why = connect(); !why.empty()) {
        o.error = why;
        return o;
      }
    }
    // A connection that dropped while idle shows as a closed pipe or an exited process: open it
    // again once.
    if (std::string sent = write_all(in_, bytes, target_.request_timeout_s, wake_[0]);
        !sent.empty()) {
      close();
      if (sent == "cancelled") {
        o.error = kCancelled;
        return o;
      }
      if (sent == "closed" && attempt == 0) continue;
      o.error =
          "cannot send the request to " + target_.where() +
          (sent == "closed" ? ": the connection closed"
                            : ": it read nothing for " +
                                  std::to_string(static_cast<int>(target_.request_timeout_s)) +
                                  " s; the connection was closed");
      return o;
    }
    std::string line;
    const std::string why = read_line(target_.request_timeout_s, kMaxReplyLine, line);
    if (why == "cancelled") {
      close();
      o.error = kCancelled;
      return o;
    }
    if (why == "closed") {
      o.error = ended_message("request");
      return o;
    }
    if (!why.empty()) {
      close();
      o.error = why == "timeout"
                    ? target_.where() + " did not answer within " +
                          std::to_string(static_cast<int>(target_.request_timeout_s)) +
                          " s; the connection was closed (--gpu-timeout sets the limit)"
                    : target_.where() + " sent a reply line that is " + why + " (over " +
                          std::to_string(kMaxReplyLine >> 20) + " MB); the connection was closed";
      return o;
    }
    std::string error;
    o.reply = parse_reply(line, r.id, &error);
    if (!o.reply) {
      close();
      o.error = target_.where() + " sent " + error + "; the connection was closed";
    }
    return o;
  }
  return o;
}

}  // namespace bankviz
