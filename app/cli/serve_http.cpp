// serve_http.cpp: `bankviz-cli serve --http` (serve_http.h). The HTTP side is Debian's
// cpp-httplib; without it (a build that did not find libcpp-httplib-dev) --http says so.
#include "serve_http.h"

#include <unistd.h>

#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>

#include "common.h"
#include "gpu_protocol.h"

#ifdef BANKVIZ_HAVE_HTTPLIB
#include <httplib.h>

#include "gpu_client.h"
#endif

namespace bankviz::cli {

std::string parse_listen(const std::string& listen, std::string* addr, int* port) {
  std::string a = "127.0.0.1", p = listen;
  if (size_t colon = listen.rfind(':'); colon != std::string::npos) {
    a = listen.substr(0, colon);
    p = listen.substr(colon + 1);
  }
  if (a.size() > 2 && a.front() == '[' && a.back() == ']') a = a.substr(1, a.size() - 2);
  if (a.empty()) a = "127.0.0.1";
  for (char c : a)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != ':' && c != '-')
      return "--http: '" + quoted_excerpt(a, 80) + "' is no address (an IP address or a name)";
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(p) > 65535)
    return "--http: '" + quoted_excerpt(p, 80) + "' is no port (0 to 65535; 0: any free port)";
  *addr = a;
  *port = std::stoi(p);
  return {};
}

#ifndef BANKVIZ_HAVE_HTTPLIB

void run_serve_http(const ServeHttpOptions&) {
  throw Exit{kExitFailed,
             "serve --http: this bankviz-cli was built without cpp-httplib (install "
             "libcpp-httplib-dev: scripts/install-deps.sh, and build again)"};
}

#else

namespace {

// 24 random bytes as 48 hex digits, from the kernel's generator.
std::string random_token() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[24];
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw Exit{kExitFailed, "serve --http: cannot read /dev/urandom for the token"};
  std::string hex;
  for (unsigned char b : bytes) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", b);
    hex += two;
  }
  return hex;
}

// The same length and bytes, in a time that does not depend on where they differ.
bool same_token(const std::string& given, const std::string& token) {
  if (given.size() != token.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

std::string error_json(const std::string& why) {
  return nlohmann::json{{"error", why}}.dump(-1, ' ', false,
                                             nlohmann::json::error_handler_t::replace);
}

// This process's own program, quoted for /bin/sh.
std::string self_command() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw Exit{kExitFailed, "serve --http: cannot find its own program (/proc/self/exe)"};
  std::string quoted = "'";
  for (char c : std::string(path, static_cast<size_t>(n)))
    quoted += c == '\'' ? "'\\''" : std::string(1, c);
  return quoted + "' serve";
}

// The GPU behind the server: a child `bankviz-cli serve`, one request at a time, at most
// `max_waiting` more waiting for it.
class ServedGpu {
 public:
  ServedGpu(GpuTarget t, int max_waiting) : client_(std::move(t)), max_waiting_(max_waiting) {}

  // nullopt: too many are waiting already.
  std::optional<GpuClient::Outcome> request(const Request& q) {
    std::unique_lock<std::mutex> lock(mu_);
    if (busy_ && waiting_ >= max_waiting_) return std::nullopt;
    ++waiting_;
    cv_.wait(lock, [&] { return !busy_; });
    --waiting_;
    busy_ = true;
    lock.unlock();
    GpuClient::Outcome out = client_.request(q.request, q.args, q.files);
    lock.lock();
    busy_ = false;
    cv_.notify_one();
    return out;
  }

  // The child's greeting (started when none runs), or why there is none.
  nlohmann::json hello() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !busy_; });
    busy_ = true;
    lock.unlock();
    std::string why;
    if (!client_.connected()) why = client_.connect();
    nlohmann::json j = why.empty() ? greeting_json(client_.greeting()) : nlohmann::json();
    lock.lock();
    busy_ = false;
    cv_.notify_one();
    if (!why.empty()) j = {{"error", "the GPU server's process did not start: " + why}};
    return j;
  }

 private:
  GpuClient client_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool busy_ = false;
  int waiting_ = 0;
  const int max_waiting_;
};

// Every request: its Origin (when it names one) must be this server's, and every /api call must
// carry the token. A refusal is answered here.
httplib::Server::HandlerResponse gate(const httplib::Request& req, httplib::Response& res,
                                      const std::string& token) {
  if (req.has_header("Origin")) {
    const std::string origin = req.get_header_value("Origin");
    if (origin != "http://" + req.get_header_value("Host")) {
      res.status = 403;
      res.set_content(
          error_json("refused: the request comes from a page of another site (Origin '" +
                     quoted_excerpt(origin, 100) +
                     "'); only this server's own page may measure here"),
          "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
  }
  if (req.path.rfind("/api/", 0) == 0) {
    const std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("token ", 0) != 0 || !same_token(auth.substr(6), token)) {
      res.status = 403;
      res.set_content(error_json("refused: no token, or a wrong one (open the link `bankviz-cli "
                                 "serve --http` printed: it carries the token)"),
                      "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

// POST /api/request: one request of gpu_protocol.h, its reply back.
void answer(const httplib::Request& req, httplib::Response& res, ServedGpu& gpu,
            const ServeHttpOptions& o) {
  std::string error;
  int64_t id = 0;
  std::optional<Request> q = parse_request(req.body, &error, &id);
  Reply refused;
  refused.id = id;
  res.status = 400;
  if (q && q->request == "profile" && !o.allow_profile) {
    res.status = 403;
    error =
        "refused: profile compiles and runs a kernel file of the sender's own on this GPU; this "
        "server allows it only when started with --allow-profile";
    q.reset();
  }
  if (!q) {
    refused.error = error;
    res.set_content(
        reply_json(refused).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
        "application/json");
    return;
  }
  std::optional<GpuClient::Outcome> out = gpu.request(*q);
  if (!out) {
    res.status = 503;
    res.set_content(error_json("busy: " + std::to_string(o.max_waiting) +
                               " requests are waiting for this GPU already; try again"),
                    "application/json");
    return;
  }
  if (!out->reply) {
    res.status = 502;
    res.set_content(error_json(out->error), "application/json");
    return;
  }
  out->reply->id = q->id;  // the child's numbering is the server's own: the page's id back
  res.status = 200;
  res.set_content(
      reply_json(*out->reply).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      "application/json");
}

}  // namespace

void run_serve_http(const ServeHttpOptions& o) {
  std::string addr;
  int port = 0;
  if (std::string why = parse_listen(o.listen, &addr, &port); !why.empty())
    throw Exit{kExitUsage, why};
  const std::string token = o.token.empty() ? random_token() : o.token;
  GpuTarget target{o.gpu_host, o.gpu_command};
  const bool elsewhere = !target.empty();
  if (elsewhere) {
    target.request_timeout_s = o.gpu_timeout_s;
    if (std::string why = target.problem(); !why.empty()) throw Exit{kExitUsage, why};
  } else {
    target.command = self_command();
  }
  // Where the page says its GPU is: this machine, or the GPU named.
  std::string host = target.where();
  if (!elsewhere) {
    char name[256] = {};
    host = ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
  }
  ServedGpu gpu(target, o.max_waiting);
  httplib::Server srv;
  // The page loads its files and its workers' script at once over parallel connections, which
  // the browser keeps open: with cpp-httplib's default pool (8 threads on a small machine) and
  // keep-alive (5 s), a request waited for an idle connection to time out (the page's first
  // frame 30 s). Threads enough for a page's connections, and idle connections given back soon.
  srv.new_task_queue = [] { return new httplib::ThreadPool(32); };
  srv.set_keep_alive_timeout(1);
  srv.set_payload_max_length(static_cast<size_t>(o.allow_profile ? kMaxRequestLine : o.max_body));
  // The page's workers share its memory: the browser gives that only to an isolated page.
  srv.set_default_headers({{"Cross-Origin-Opener-Policy", "same-origin"},
                           {"Cross-Origin-Embedder-Policy", "require-corp"},
                           {"Cross-Origin-Resource-Policy", "same-origin"},
                           {"X-Content-Type-Options", "nosniff"},
                           {"Referrer-Policy", "no-referrer"},
                           {"Cache-Control", "no-store"}});
  srv.set_pre_routing_handler([&token](const httplib::Request& req, httplib::Response& res) {
    return gate(req, res, token);
  });
  for (const auto& [ext, type] :
       {std::pair{"wasm", "application/wasm"}, std::pair{"js", "text/javascript"},
        std::pair{"json", "application/json"}, std::pair{"data", "application/octet-stream"},
        std::pair{"gz", "application/gzip"}})
    srv.set_file_extension_and_mimetype_mapping(ext, type);
  if (!o.site.empty() && !srv.set_mount_point("/", o.site))
    throw Exit{kExitUsage, "--site: '" + quoted_excerpt(o.site, 200) +
                               "' is no folder (scripts/web.sh builds build-web/site)"};
  if (o.site.empty())
    srv.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "<!doctype html><title>bankviz</title><p>This bankviz-cli serve has no browser site: "
          "build it with scripts/web.sh and start the server with --site build-web/site.",
          "text/html");
    });
  srv.Get("/api/hello", [&](const httplib::Request&, httplib::Response& res) {
    nlohmann::json j = gpu.hello();
    j["allow_profile"] = o.allow_profile;
    if (!host.empty()) j["host"] = host;
    res.status = j.contains("error") ? 502 : 200;
    res.set_content(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                    "application/json");
  });
  srv.Post("/api/request",
           [&](const httplib::Request& req, httplib::Response& res) { answer(req, res, gpu, o); });
  if (port == 0)
    port = srv.bind_to_any_port(addr);
  else if (!srv.bind_to_port(addr, port))
    port = -1;
  if (port <= 0)
    throw Exit{kExitFailed, "serve --http: cannot listen on " + addr + ":" +
                                std::to_string(port < 0 ? 0 : port) +
                                " (in use, or an address this machine does not have)"};
  if (addr != "127.0.0.1" && addr != "localhost" && addr != "::1")
    std::cerr << "bankviz-cli serve: listening on " << addr
              << ", not only this machine: anyone who has the link measures on this GPU\n";
  std::string shown = addr == "0.0.0.0" ? "127.0.0.1" : addr == "::" ? "::1" : addr;
  if (shown.find(':') != std::string::npos) shown = "[" + shown + "]";
  std::cout << "bankviz-cli serve: open http://" << shown << ":" << port << "/#token=" << token
            << std::endl;
  if (!srv.listen_after_bind())
    throw Exit{kExitFailed, "serve --http: the server stopped: cannot accept connections"};
}

#endif

}  // namespace bankviz::cli
