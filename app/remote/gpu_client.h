// gpu_client.h: a GPU somewhere else. `--gpu HOST` runs `ssh HOST bankviz-cli serve` (batch mode:
// a password prompt is a clear error, never a prompt; the user's ssh config, keys and agent);
// `--gpu-command CMD` runs CMD with /bin/sh (a container, `srun ... bankviz-cli serve`, or
// `bankviz-cli serve` itself). Either speaks gpu_protocol.h on its standard input and output. One
// connection is kept open for many requests and opened again after a drop. Every failure is a
// message in words within the deadlines: an unknown host, a login that needs a password, no
// bankviz-cli there, another version there, no GPU there, no answer, a lost connection, a
// malformed reply. Linux/POSIX (posix_spawn, pipes, poll); the protocol itself is
// app/shared/gpu_protocol.h, which needs no process.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpu_protocol.h"

namespace bankviz {

struct GpuTarget {
  std::string host;     // --gpu: an ssh destination (user@host, ssh://user@host:port, an alias)
  std::string command;  // --gpu-command: a shell command that speaks the protocol
  double connect_timeout_s = 20;   // the greeting's deadline (ssh's ConnectTimeout is 10 s)
  double request_timeout_s = 600;  // one request's deadline (a validate of every suite, profile)

  bool empty() const { return host.empty() && command.empty(); }
  // "HOST" or "the GPU command 'CMD'": a message's subject.
  std::string where() const;
  // What is wrong with the target as given (both given, a host that starts with '-' or holds
  // a space or control), else empty.
  std::string problem() const;
};

// The ssh program --gpu runs: $BANKVIZ_SSH when set (a wrapper with options of its own: the
// tests' server on 127.0.0.1), else ssh from the PATH.
std::string ssh_program();

// The program and arguments the target starts: ssh's with its options, or /bin/sh -c CMD.
std::vector<std::string> target_argv(const GpuTarget& t);

// Why a remote that ended before it greeted ended, in words (ssh's own words quoted), from its
// exit status and the last lines of its standard error. Pure; tested without ssh.
std::string explain_remote_end(const GpuTarget& t, int exit_code, int signal,
                               const std::string& err);

class GpuClient {
 public:
  explicit GpuClient(GpuTarget target);
  ~GpuClient();
  GpuClient(const GpuClient&) = delete;
  GpuClient& operator=(const GpuClient&) = delete;

  // Starts the remote and reads its greeting: empty on success, else the message. A remote
  // without a GPU is a success here (greeting().device says why); require_gpu() says so.
  std::string connect();
  bool connected() const { return pid_ > 0; }
  const Greeting& greeting() const { return greeting_; }
  const GpuTarget& target() const { return target_; }
  // Empty when the remote has a GPU; else "HOST has no usable GPU: REASON".
  std::string require_gpu() const;

  // One request, one reply. Connects first when not connected; a connection found dropped
  // before the request was sent is opened again once. A refused request is a Reply with ok ==
  // false; a failure to get any reply is the message (the connection is then closed).
  struct Outcome {
    std::optional<Reply> reply;
    std::string error;
  };
  Outcome request(const std::string& kind, const std::vector<std::string>& args,
                  const std::map<std::string, std::string>& files);

  // Ends the remote: its input closed, a moment to exit, then its process group killed.
  void close();

  // From any thread: the connect or request waiting now (and every later one) ends at once with
  // kCancelled, and the remote is ended. What the app's GPU menu calls when the user switches
  // away from a GPU that does not answer, and the app when it quits: nothing waits for the
  // request's deadline.
  void cancel();
  bool cancelled() const { return cancelled_.load(); }
  static constexpr const char* kCancelled = "cancelled: another GPU was chosen";

 private:
  std::string read_line(double timeout_s, int64_t max_bytes, std::string& line);
  std::string ended_message(const char* when);
  void drain_stderr();

  GpuTarget target_;
  Greeting greeting_;
  int pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;  // the remote's stdin (we write), stdout, stderr
  std::string buffered_;               // stdout read past the last line
  std::string stderr_tail_;            // the last 16 KiB of its standard error
  int64_t next_id_ = 1;
  int exit_code_ = -1, signal_ = 0;
  std::atomic<bool> cancelled_{false};
  int wake_[2] = {-1, -1};  // cancel() writes a byte: the poll of a wait wakes
};

}  // namespace bankviz
