// test_serve_http.cpp: `bankviz-cli serve --http` (issue 33) as a browser's page meets it, with
// Debian's cpp-httplib client: the link with its token, calls refused without it or from a page
// of another site, malformed and oversized requests answered with errors, `profile` refused
// unless allowed, a measuring request answered as `serve` answers it (without a GPU: that there
// is none), and the site served cross-origin isolated.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <thread>

#include "gpu_protocol.h"

namespace bankviz {
namespace {

namespace fs = std::filesystem;

// A server of the test's own on 127.0.0.1 (any free port), ended with the test.
struct Server {
  FILE* pipe = nullptr;
  pid_t pid = -1;
  int port = 0;
  std::string link, token;

  explicit Server(const std::string& args) {
    // The shell says its pid, then becomes the server, whose first line is the link.
    const std::string cmd = "sh -c 'echo $$; exec \"$0\" serve --http 127.0.0.1:0 \"$@\"' '" +
                            std::string(BANKVIZ_CLI) + "' " + args + " 2>/dev/null";
    pipe = ::popen(cmd.c_str(), "r");
    if (!pipe) return;
    char line[512];
    if (std::fgets(line, sizeof line, pipe)) pid = std::stoi(line);
    if (std::fgets(line, sizeof line, pipe)) link = line;
    std::smatch m;
    static const std::regex kLink(R"(open http://127\.0\.0\.1:([0-9]+)/#token=([0-9A-Za-z]+))");
    if (std::regex_search(link, m, kLink)) {
      port = std::stoi(m[1]);
      token = m[2];
    }
  }
  ~Server() {
    if (pid > 0) ::kill(pid, SIGTERM);
    if (pipe) ::pclose(pipe);
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    return c;
  }
  httplib::Headers auth(const std::string& t) const { return {{"Authorization", "token " + t}}; }
};

// The greeting this build's `bankviz-cli serve` sends, its device made an H200: what a script
// playing a GPU host elsewhere answers first. Empty (with a failure) when serve did not greet.
std::optional<Greeting> h200_greeting() {
  FILE* p = ::popen(("'" + std::string(BANKVIZ_CLI) + "' serve </dev/null").c_str(), "r");
  if (!p) {
    ADD_FAILURE() << "bankviz-cli serve did not start";
    return std::nullopt;
  }
  char line[4096] = {};
  const bool read = std::fgets(line, sizeof line, p) != nullptr;
  ::pclose(p);
  std::string error;
  std::optional<Greeting> g = read ? parse_greeting(line, &error) : std::nullopt;
  if (!g) {
    ADD_FAILURE() << "no greeting from bankviz-cli serve: " << error << ": " << line;
    return std::nullopt;
  }
  g->device = GpuDevice{};
  g->device.present = true;
  g->device.name = "NVIDIA H200";
  g->device.sm = "sm_90";
  return g;
}

std::string field(const std::string& body, const char* key) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

TEST(ServeHttp, TheLinkCarriesARandomTokenAndCallsWithoutItAreRefused) {
  Server s("");
  ASSERT_GT(s.port, 0) << "no link: " << s.link;
  EXPECT_EQ(s.token.size(), 48u) << s.link;  // 24 random bytes
  Server other("");
  EXPECT_NE(other.token, s.token);
  httplib::Client c = s.client();
  auto r = c.Get("/api/hello");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(field(r->body, "error").find("no token, or a wrong one"), std::string::npos) << r->body;
  r = c.Get("/api/hello", s.auth(other.token));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  r = c.Post("/api/request", R"({"id":1,"request":"run","args":[]})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  // With the token: the greeting of the GPU server behind it.
  r = c.Get("/api/hello", s.auth(s.token));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::string error;
  auto g = parse_greeting(r->body, &error);
  ASSERT_TRUE(g) << error << ": " << r->body;
  EXPECT_EQ(g->bankviz, BANKVIZ_VERSION);
  EXPECT_TRUE(g->device.present || !g->device.reason.empty());
}

TEST(ServeHttp, AnotherSitesPageIsRefusedAndBadRequestsGetErrors) {
  const std::string token = "abcdefghijklmnop0123";
  Server s("--token " + token);
  ASSERT_GT(s.port, 0) << s.link;
  EXPECT_EQ(s.token, token);
  httplib::Client c = s.client();
  httplib::Headers h = s.auth(token);
  h.emplace("Origin", "http://evil.example");
  const std::string run =
      R"({"id":7,"request":"run","args":["--preset","row-write-column-read","--mode","exposed","--json"]})";
  auto r = c.Post("/api/request", h, run, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(field(r->body, "error").find("a page of another site"), std::string::npos) << r->body;
  // Malformed, a command that is not served, a file name that is a path: errors in words.
  for (const auto& [body, says] : std::vector<std::pair<std::string, std::string>>{
           {"{", "JSON"},
           {R"({"id":2,"request":"analyze","args":[]})", "analyze"},
           {R"({"id":3,"request":"run","args":[],"files":{"../x":"y"}})", "../x"},
           {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "deep"}}) {
    r = c.Post("/api/request", s.auth(token), body, "application/json");
    ASSERT_TRUE(r) << body;
    EXPECT_EQ(r->status, 400) << body;
    EXPECT_NE(r->body.find(says), std::string::npos) << body << " -> " << r->body;
  }
  // A user's kernel file is not profiled unless the server allows it.
  r = c.Post(
      "/api/request", s.auth(token),
      R"({"id":4,"request":"profile","args":["k.cu"],"files":{"k.cu":"__global__ void k(){}"}})",
      "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("--allow-profile"), std::string::npos) << r->body;
  // A request larger than 1 MB is refused before it is read whole.
  r = c.Post("/api/request", s.auth(token), std::string(2 << 20, ' '), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  // This server's own page (its Origin) measures: the reply of `serve`, as --gpu-command gets it.
  httplib::Headers own = s.auth(token);
  own.emplace("Origin", "http://127.0.0.1:" + std::to_string(s.port));
  r = c.Post("/api/request", own, run, "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::string error;
  auto reply = parse_reply(r->body, 7, &error);
  ASSERT_TRUE(reply) << error << ": " << r->body;
  EXPECT_TRUE(reply->ok);
  if (reply->exit == 0) {
    EXPECT_NE(reply->out.find("\"cycles_per_instruction\""), std::string::npos) << reply->out;
  } else {
    EXPECT_NE((reply->out + reply->err).find("no CUDA"), std::string::npos)  // no GPU: said
        << reply->out << reply->err;
  }
}

// The GPU behind the page elsewhere (--gpu-command: a course's login node serving the page, its
// GPU through a scheduler): the greeting and the replies are that GPU's. A script plays a host with
// an H200 (the real server's greeting, its device replaced), answering every request in words of
// its own.
TEST(ServeHttp, AGpuElsewhereMeasuresForThePage) {
  std::optional<Greeting> g = h200_greeting();
  ASSERT_TRUE(g);
  std::string error;
  const fs::path dir = fs::temp_directory_path() / ("bankviz-gpu-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path script = dir / "gpu.sh";
  std::ofstream(script) << "cat <<'EOF'\n"
                        << greeting_json(*g).dump() << "\nEOF\n"
                        << "while read -r l; do\n"
                        << "  id=$(printf '%s' \"$l\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n"
                        << "  printf '{\"id\":%s,\"ok\":true,\"exit\":0,\"stdout\":\"the stand-in "
                           "ran it\",\"stderr\":\"\"}\\n' \"$id\"\n"
                        << "done\n";
  const std::string command = "sh " + script.string();
  Server s("--gpu-command '" + command + "'");
  ASSERT_GT(s.port, 0) << s.link;
  httplib::Client c = s.client();
  auto r = c.Get("/api/hello", s.auth(s.token));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const nlohmann::json hello = nlohmann::json::parse(r->body);
  EXPECT_EQ(hello["device"]["name"], "NVIDIA H200") << r->body;
  EXPECT_EQ(hello["host"], "the GPU command '" + command + "'") << r->body;
  r = c.Post("/api/request", s.auth(s.token),
             R"({"id":42,"request":"run","args":["--preset","row-write-column-read","--json"]})",
             "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto reply = parse_reply(r->body, 42, &error);
  ASSERT_TRUE(reply) << error << ": " << r->body;
  EXPECT_TRUE(reply->ok);
  EXPECT_EQ(reply->out, "the stand-in ran it");
  fs::remove_all(dir);
}

// More requests than may wait for the GPU are answered "busy" at once, not queued without end:
// a GPU host that greets and then never answers holds the one running request (until
// --gpu-timeout), and with --max-waiting 0 the next is refused with 503.
TEST(ServeHttp, MoreRequestsThanMayWaitAreBusy) {
  std::optional<Greeting> g = h200_greeting();
  ASSERT_TRUE(g);
  const fs::path dir = fs::temp_directory_path() / ("bankviz-busy-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path script = dir / "gpu.sh";
  std::ofstream(script) << "cat <<'EOF'\n" << greeting_json(*g).dump() << "\nEOF\nsleep 30\n";
  Server s("--max-waiting 0 --gpu-timeout 4 --gpu-command 'sh " + script.string() + "'");
  ASSERT_GT(s.port, 0) << s.link;
  const std::string run = R"({"id":1,"request":"run","args":["--preset","row-write-column-read"]})";
  int first = 0;
  std::thread hung([&] {
    httplib::Client c = s.client();
    auto r = c.Post("/api/request", s.auth(s.token), run, "application/json");
    first = r ? r->status : -1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  httplib::Client c = s.client();
  auto r = c.Post("/api/request", s.auth(s.token), run, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503) << r->body;
  EXPECT_NE(field(r->body, "error").find("busy"), std::string::npos) << r->body;
  hung.join();
  EXPECT_EQ(first, 502);  // the hung host's request ends at its deadline, in words
  fs::remove_all(dir);
}

TEST(ServeHttp, ServesTheSiteCrossOriginIsolated) {
  const fs::path site = fs::temp_directory_path() / ("bankviz-site-" + std::to_string(::getpid()));
  fs::create_directories(site);
  std::ofstream(site / "index.html") << "<!doctype html><title>the site</title>";
  Server s("--site '" + site.string() + "'");
  ASSERT_GT(s.port, 0) << s.link;
  httplib::Client c = s.client();
  auto r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("the site"), std::string::npos);
  EXPECT_EQ(r->get_header_value("Cross-Origin-Opener-Policy"), "same-origin");
  EXPECT_EQ(r->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp");
  r = c.Get("/../../etc/passwd");
  ASSERT_TRUE(r);
  EXPECT_NE(r->status, 200);
  EXPECT_EQ(r->body.find("root:"), std::string::npos);
  fs::remove_all(site);
}

TEST(ServeHttp, BadFlagsAreRefusedInWords) {
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"serve --http 127.0.0.1:99999", "no port"},
           {"serve --http 'a b:80'", "no address"},
           {"serve --http 8080 --token short", "16 to 128"},
           {"serve --token abcdefghijklmnopq", "go with --http"},
           {"serve --gpu-command 'bankviz-cli serve'", "go with --http"},
           {"serve --http 0 --gpu gpu1 --gpu-command x", "not both"},
           {"serve --http 0 --gpu=-oProxyCommand=x", "cannot start with '-'"},
       }) {
    const std::string cmd = "'" + std::string(BANKVIZ_CLI) + "' " + args + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_TRUE(p);
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    const int status = ::pclose(p);
    EXPECT_EQ(WEXITSTATUS(status), 2) << args << ": " << out;
    EXPECT_NE(out.find(says), std::string::npos) << args << ": " << out;
  }
}

}  // namespace
}  // namespace bankviz
