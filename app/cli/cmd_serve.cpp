// cmd_serve.cpp: `bankviz-cli serve`, the measuring side of a remote GPU (gpu_protocol.h): JSON
// lines on standard input and output, a greeting with the versions and the device, then one
// reply per request. A request is one of the measuring subcommands (run, compare, sweep,
// validate, experiments, profile), run in this process by cli_main() as the command line would
// run it, its output captured; the files it names were sent with it and are written into a
// directory of its own, its working directory while it runs. Nothing else runs: no other
// subcommand, no file of the server's read or written by a request (common.h's served checks),
// no shell.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "bankviz/driver_version.h"
#include "bankviz/io.h"
#include "bankviz/runner.h"
#include "cli_main.h"
#include "commands.h"
#include "common.h"
#include "gpu_protocol.h"
#include "serve_http.h"

namespace bankviz::cli {
namespace {

namespace fs = std::filesystem;

// The protocol's descriptors: standard input and output moved aside, so that nothing a command
// or a library prints (printf, the driver's warnings) can reach the client as a protocol line.
int g_in = -1, g_out = -1;
// The request being served, for end_process_after_fault()'s reply.
int64_t g_id = 0;
std::ostringstream* g_captured_out = nullptr;
std::ostringstream* g_captured_err = nullptr;

bool send_line(const nlohmann::json& j) {
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(g_out, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A kernel that faulted or ran past its timeout ends this process (CUDA cannot recover in it):
// the reply goes first, saying so; the client opens a new connection for the next request.
void reply_before_fault_exit() {
  if (!g_captured_out || !g_captured_err) return;
  Reply r;
  r.id = g_id;
  r.ok = true;
  r.exit = kExitFailed;
  r.out = g_captured_out->str();
  r.err = g_captured_err->str() +
          "bankviz-cli serve: the GPU server's process ends after this fault (CUDA cannot "
          "recover in it); the next request starts a new one\n";
  send_line(reply_json(r));
}

// Reads one line (without its newline) of at most `max` bytes. 1: a line, 0: end of input,
// -1: a line longer than max (read to its end and dropped).
int read_request_line(std::string& buffer, std::string& line, int64_t max) {
  bool too_long = false;
  char chunk[65536];
  for (;;) {
    if (size_t nl = buffer.find('\n'); nl != std::string::npos) {
      line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return too_long ? -1 : 1;
    }
    if (static_cast<int64_t>(buffer.size()) > max) {
      too_long = true;
      buffer.clear();
    }
    const ssize_t n = ::read(g_in, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

Greeting greeting_of(Runner& runner) {
  Greeting g;
  g.protocol_version = kProtocolVersion;
  g.bankviz = BANKVIZ_VERSION;
  std::string reason;
  const DeviceInfo d = runner.device(&reason);
  g.device.present = d.present;
  g.device.name = d.name;
  g.device.sm = d.sm;
  g.device.driver_cuda = cuda_driver_version();
  g.device.reason = d.present ? std::string() : reason;
  return g;
}

// The request run as the command line runs it, in a directory holding the files it sent.
Reply serve_one(const Request& q) {
  Reply r;
  r.id = q.id;
  char pattern[] = "/tmp/bankviz-serve-XXXXXX";
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = (tmp && *tmp ? std::string(tmp) : "/tmp") + "/bankviz-serve-XXXXXX";
  std::vector<char> buf(dir_template.begin(), dir_template.end());
  buf.push_back('\0');
  char* made = ::mkdtemp(buf.data());
  if (made == nullptr) made = ::mkdtemp(pattern);
  if (made == nullptr) {
    r.error = std::string("cannot make the request's directory: ") + std::strerror(errno);
    return r;
  }
  const std::string dir = made;
  const int slot = remove_directory_on_signal(dir);
  std::vector<std::string> names;
  for (const auto& [name, text] : q.files) {
    if (std::string why = write_file_atomic(dir + "/" + name, text, false); !why.empty()) {
      r.error = "cannot write the request's file: " + why;
      break;
    }
    names.push_back(name);
  }
  std::error_code ec;
  const fs::path home = fs::current_path(ec);
  if (r.error.empty() && ::chdir(dir.c_str()) != 0)
    r.error = std::string("cannot enter the request's directory: ") + std::strerror(errno);
  if (r.error.empty()) {
    std::vector<std::string> args{"bankviz-cli", q.request};
    args.insert(args.end(), q.args.begin(), q.args.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::ostringstream out, err;
    std::streambuf* const o = std::cout.rdbuf(out.rdbuf());
    std::streambuf* const e = std::cerr.rdbuf(err.rdbuf());
    g_id = q.id;
    g_captured_out = &out;
    g_captured_err = &err;
    set_served_files(&names);
    r.exit = cli_main(static_cast<int>(args.size()), argv.data());
    set_served_files(nullptr);
    g_captured_out = g_captured_err = nullptr;
    std::cout.rdbuf(o);
    std::cerr.rdbuf(e);
    r.ok = true;
    r.out = out.str();
    r.err = err.str();
    if (!home.empty() && ::chdir(home.c_str()) != 0) ::chdir("/");
  }
  fs::remove_all(dir, ec);
  forget_on_signal(slot);
  return r;
}

void run_serve() {
  if (serving()) throw Exit{kExitUsage, "serve is not served"};
  // The protocol on descriptors of its own; standard input becomes /dev/null, standard output
  // standard error.
  g_in = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  g_out = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (g_in < 0 || g_out < 0 || null < 0 || ::dup2(null, 0) < 0 || ::dup2(2, 1) < 0)
    throw Exit{kExitFailed,
               std::string("serve: cannot set up its descriptors: ") + std::strerror(errno)};
  ::close(null);
  set_before_fault_exit(&reply_before_fault_exit);
  // One Runner for the process: the device's context stays open between requests (the
  // commands' own Runners share it), so a request does not pay for it again.
  Runner runner;
  if (!send_line(greeting_json(greeting_of(runner)))) return;
  std::string buffer, line;
  for (;;) {
    const int got = read_request_line(buffer, line, kMaxRequestLine);
    if (got == 0) return;  // the client closed: done
    Reply r;
    if (got < 0) {
      r.error = "the request line is longer than " + std::to_string(kMaxRequestLine >> 20) + " MB";
    } else {
      std::string error;
      int64_t id = 0;
      std::optional<Request> q = parse_request(line, &error, &id);
      r.id = id;
      if (!q)
        r.error = error;
      else
        r = serve_one(*q);
    }
    if (!send_line(reply_json(r))) return;
  }
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "serve",
      "serve this machine's GPU to `--gpu HOST` and `--gpu-command CMD` (JSON lines on "
      "standard input and output: run, compare, sweep, validate, experiments, profile), or with "
      "--http to a browser");
  auto o = std::make_shared<ServeHttpOptions>();
  cmd->add_option("--http", o->listen,
                  "[ADDR:]PORT: serve the browser site and the protocol over HTTP instead "
                  "(127.0.0.1 unless ADDR is given; it prints a link with a random token, "
                  "refused without it)");
  cmd->add_option("--site", o->site, "with --http: the browser site's folder (build-web/site)")
      ->check(non_empty_path());
  cmd->add_option("--token", o->token,
                  "with --http: this token instead of a random one (at least 16 letters and "
                  "digits)");
  cmd->add_flag("--allow-profile", o->allow_profile,
                "with --http: let a page profile a kernel file it sends (its code runs on this "
                "GPU); off by default");
  cmd->add_option("--max-waiting", o->max_waiting,
                  "with --http: requests that may wait for the GPU beyond the one running "
                  "(default 4; more are answered 'busy')")
      ->check(CLI::Range(0, 64));
  // With --http: the GPU behind the page may be elsewhere (a login node serving the page, the
  // GPU through ssh or a scheduler).
  auto g = std::make_shared<GpuFlags>();
  add_gpu_options(*cmd, *g);
  cmd->callback([o, g] {
    o->gpu_host = g->host;
    o->gpu_command = g->command;
    o->gpu_timeout_s = g->timeout_s;
    if (o->listen.empty()) {
      if (!o->site.empty() || !o->token.empty() || o->allow_profile)
        throw Exit{kExitUsage, "--site, --token and --allow-profile go with --http"};
      if (!g->host.empty() || !g->command.empty())
        throw Exit{kExitUsage,
                   "--gpu and --gpu-command go with --http (serve without it is the GPU's own end "
                   "of the protocol: it relays to no other)"};
      return run_serve();
    }
    if (!o->token.empty() &&
        (o->token.size() < 16 || o->token.size() > 128 ||
         o->token.find_first_not_of(
             "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
             std::string::npos))
      throw Exit{kExitUsage, "--token: 16 to 128 letters and digits"};
    if (serving()) throw Exit{kExitUsage, "serve is not served"};
    run_serve_http(*o);
  });
}

}  // namespace bankviz::cli
