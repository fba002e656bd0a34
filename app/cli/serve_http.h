// serve_http.h: `bankviz-cli serve --http [ADDR:]PORT` (issue 33): this machine's GPU served to a
// browser, as Jupyter serves notebooks. It serves the browser site (--site DIR) and the measuring
// protocol of `serve` (gpu_protocol.h) over HTTP: POST /api/request with one request's JSON, the
// reply's JSON back; GET /api/hello, the greeting. Safe by default: it binds to 127.0.0.1 unless
// told otherwise, prints a link with a random token and refuses every /api call without it
// (`Authorization: token T`), refuses a request whose Origin is not this server's, bounds a
// request's size and the requests waiting for the GPU, and runs only the measuring requests (a
// user's kernel file, `profile`, only with --allow-profile). The requests run in a child
// `bankviz-cli serve` (gpu_client.h), or on the GPU --gpu/--gpu-command name, one at a time; a
// kernel that faults ends that child, and the next request starts another.
#pragma once

#include <string>

namespace bankviz::cli {

struct ServeHttpOptions {
  std::string listen;  // "[ADDR:]PORT"; PORT 0: any free port (the link names it)
  std::string site;    // the browser site's folder (scripts/web.sh builds build-web/site)
  std::string token;   // empty: a random one
  bool allow_profile = false;
  int max_waiting = 4;         // requests waiting for the GPU beyond the one running
  int64_t max_body = 1 << 20;  // a request's bytes (without --allow-profile)
  // The GPU behind the server: empty, this machine's (a child `bankviz-cli serve`); else a GPU
  // elsewhere that speaks the protocol (--gpu HOST, --gpu-command CMD: a course's login node
  // serving the page, its GPU nodes through `srun ... bankviz-cli serve`).
  std::string gpu_host, gpu_command;
  double gpu_timeout_s = 600;
};

// "ADDR:PORT" or "PORT" -> the address (127.0.0.1 when not given) and the port; else the reason.
std::string parse_listen(const std::string& listen, std::string* addr, int* port);

// Runs until killed (SIGINT/SIGTERM end it).
void run_serve_http(const ServeHttpOptions& o);

}  // namespace bankviz::cli
