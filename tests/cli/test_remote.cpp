// test_remote.cpp: the GPU protocol (app/shared/gpu_protocol.h), the client (app/remote/
// gpu_client.h) against `bankviz-cli serve` and against remotes that misbehave (fake ones made
// with /bin/sh), the CLI's --gpu/--gpu-command, and a run's JSON and the recorded sets
// (run_json.h, recorded.h). Without a GPU the server answers "no GPU", and that is checked too.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bankviz/arch.h"
#include "cli_run.h"
#include "gpu_client.h"
#include "gpu_protocol.h"
#include "recorded.h"
#include "run_json.h"

namespace bankviz {
namespace {

using nlohmann::json;
using test::cli;

const std::string kCli = BANKVIZ_CLI;

std::string greeting_line(const std::string& version = BANKVIZ_VERSION, bool gpu = true) {
  Greeting g;
  g.protocol_version = kProtocolVersion;
  g.bankviz = version;
  g.device.present = gpu;
  g.device.name = gpu ? "NVIDIA H200" : "";
  g.device.sm = "sm_90";
  g.device.reason = gpu ? "" : "no CUDA device: cuInit failed";
  return greeting_json(g).dump();
}

// A remote made of /bin/sh: `script` runs after it printed `first` (a line).
GpuTarget fake(const std::string& first, const std::string& script) {
  GpuTarget t;
  t.command = "printf '%s\\n' '" + first + "'; " + script;
  t.connect_timeout_s = 5;
  t.request_timeout_s = 5;
  return t;
}

GpuTarget served() {
  GpuTarget t;
  t.command = "'" + kCli + "' serve";
  t.connect_timeout_s = 30;
  t.request_timeout_s = 120;
  return t;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// [SECTION] The protocol's words

TEST(Protocol, GreetingRoundTripsAndVersionsAreCompared) {
  std::string error;
  auto g = parse_greeting(greeting_line(), &error);
  ASSERT_TRUE(g) << error;
  EXPECT_TRUE(g->device.present);
  EXPECT_EQ(g->device.name, "NVIDIA H200");
  EXPECT_EQ(version_problem(*g, BANKVIZ_VERSION, "gpu1"), "");
  auto old = parse_greeting(greeting_line("0.0.1"), &error);
  ASSERT_TRUE(old);
  const std::string why = version_problem(*old, BANKVIZ_VERSION, "gpu1");
  EXPECT_NE(why.find("gpu1 runs bankviz 0.0.1"), std::string::npos) << why;
  EXPECT_NE(why.find(std::string("install bankviz ") + BANKVIZ_VERSION), std::string::npos) << why;
}

TEST(Protocol, MalformedGreetingsAreErrors) {
  std::string error;
  for (const char* bad : {"hello", "[]", "{\"protocol\":\"other\"}",
                          "{\"protocol\":\"bankviz-serve\",\"protocol_version\":1}",
                          "{\"protocol\":\"bankviz-serve\",\"protocol_version\":\"1\",\"bankviz\":"
                          "\"0.1.0\",\"device\":{\"present\":true}}",
                          "{\"protocol\":\"bankviz-serve\",\"protocol_version\":1,\"bankviz\":"
                          "\"0.1.0\",\"device\":{\"present\":true}}"}) {
    error.clear();
    EXPECT_FALSE(parse_greeting(bad, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
  // Nesting past the limit is refused before nlohmann's parser sees it.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  ParsedLine p = parse_protocol_line(deep);
  EXPECT_FALSE(p.value);
  EXPECT_NE(p.error.find("nested deeper"), std::string::npos);
}

TEST(Protocol, RequestsOfEveryServedKindReadBackAndOthersAreRefused) {
  for (const char* kind : kServedRequests) {
    Request q;
    q.id = 7;
    q.request = kind;
    q.args = {"--json", "x y"};
    q.files = {{"a.json", "{}"}};
    std::string error;
    int64_t id = 0;
    auto back = parse_request(request_json(q).dump(), &error, &id);
    ASSERT_TRUE(back) << kind << ": " << error;
    EXPECT_EQ(back->request, kind);
    EXPECT_EQ(back->args, q.args);
    EXPECT_EQ(back->files, q.files);
    EXPECT_EQ(id, 7);
  }
  const std::pair<const char*, const char*> bad[] = {
      {R"({"id":1,"request":"analyze"})", "not served"},
      {R"({"id":1,"request":"serve"})", "not served"},
      {R"({"request":"run"})", "integer \"id\""},
      {R"({"id":1})", "no \"request\""},
      {R"({"id":1,"request":"run","args":[1]})", "other than a string"},
      {R"({"id":1,"request":"run","files":{"../x":"t"}})", "not a plain file name"},
      {R"({"id":1,"request":"run","files":{".x":"t"}})", "not a plain file name"},
      {R"({"id":1,"request":"run","files":{"a/b":"t"}})", "not a plain file name"},
      {R"({"id":1,"request":"run","files":{"a":1}})", "no text"},
      {R"({"id":1,"request":"run","files":{"a":"","b":"","c":"","d":"","e":""}})", "at most"},
      {"{\"id\":1,", "not JSON"}};
  for (const auto& [line, expect] : bad) {
    std::string error;
    int64_t id = -1;
    EXPECT_FALSE(parse_request(line, &error, &id)) << line;
    EXPECT_NE(error.find(expect), std::string::npos) << line << " -> " << error;
  }
}

TEST(Protocol, MalformedRepliesAreErrors) {
  std::string error;
  Reply r;
  r.id = 3;
  r.ok = true;
  r.exit = 1;
  r.out = "table\n";
  r.err = "why\n";
  auto back = parse_reply(reply_json(r).dump(), 3, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->out, "table\n");
  EXPECT_EQ(back->exit, 1);
  EXPECT_FALSE(parse_reply(reply_json(r).dump(), 4, &error));
  EXPECT_NE(error.find("request 3 where 4"), std::string::npos) << error;
  for (const char* bad : {"", "nonsense", R"({"id":3})", R"({"id":3,"ok":true})",
                          R"({"id":3,"ok":true,"exit":300,"stdout":"","stderr":""})",
                          R"({"id":3,"ok":true,"exit":0,"stdout":5,"stderr":""})"}) {
    EXPECT_FALSE(parse_reply(bad, 3, &error)) << bad;
  }
}

TEST(Protocol, SshFailuresAreExplainedInWords) {
  GpuTarget t;
  t.host = "gpu1";
  auto says = [&](int code, const std::string& err, const char* what) {
    const std::string m = explain_remote_end(t, code, 0, err);
    EXPECT_NE(m.find(what), std::string::npos) << m;
  };
  says(255, "ssh: Could not resolve hostname gpu1: Name or service not known\n",
       "host name is unknown");
  says(255, "user@gpu1: Permission denied (publickey,password).\n", "without a password");
  says(255, "Host key verification failed.\n", "host key is not known");
  says(255, "ssh: connect to host gpu1 port 22: Connection timed out\n", "cannot reach gpu1");
  says(127, "bash: line 1: bankviz-cli: command not found\n", "bankviz-cli is not installed");
  says(2, "The following argument was not expected: serve\n", "without `serve`");
  EXPECT_EQ(short_gpu_name("NVIDIA H200"), "H200");
  EXPECT_EQ(short_gpu_name("NVIDIA H100 80GB HBM3"), "H100");
  GpuTarget both{"a", "b"};
  EXPECT_NE(both.problem(), "");
  GpuTarget option{"-oProxyCommand=touch /tmp/x", ""};
  EXPECT_NE(option.problem().find("cannot start with '-'"), std::string::npos);
}

// [SECTION] The client against the real server (no GPU in CI: it says so)

TEST(Serve, GreetsWithItsVersionAndDevice) {
  GpuClient c(served());
  ASSERT_EQ(c.connect(), "");
  EXPECT_EQ(c.greeting().bankviz, BANKVIZ_VERSION);
  EXPECT_EQ(c.greeting().protocol_version, kProtocolVersion);
  if (!c.greeting().device.present) {
    EXPECT_NE(c.require_gpu().find("has no usable GPU"), std::string::npos) << c.require_gpu();
    EXPECT_FALSE(c.greeting().device.reason.empty());
  } else {
    EXPECT_EQ(c.require_gpu(), "");
  }
}

// The model-only side of each served command answers as the command line does, byte for byte.
TEST(Serve, EveryRequestAnswersAsTheCommandLine) {
  GpuClient c(served());
  ASSERT_EQ(c.connect(), "");
  const std::string cu = std::string(BANKVIZ_TEST_DATA) + "/profile/reverse.cu";
  struct Case {
    const char* kind;
    std::vector<std::string> args;
    std::string local;
  } cases[] = {
      {"compare",
       {"row-write-column-read", "row-write-column-read-padded", "--json"},
       "compare row-write-column-read row-write-column-read-padded --json"},
      {"sweep",
       {"--preset", "row-write-column-read", "--param", "pad=0..2"},
       "sweep --preset row-write-column-read --param pad=0..2"},
      {"experiments", {"--json"}, "experiments --json"},
      {"run", {"--preset", "no-such-preset"}, "run --preset no-such-preset"},
      {"validate", {"--suite", "no-such-suite"}, "validate --suite no-such-suite"},
  };
  for (const Case& k : cases) {
    GpuClient::Outcome o = c.request(k.kind, k.args, {});
    ASSERT_TRUE(o.reply) << k.kind << ": " << o.error;
    ASSERT_TRUE(o.reply->ok) << o.reply->error;
    const test::Result local = cli(k.local);
    EXPECT_EQ(o.reply->exit, local.status) << k.kind;
    EXPECT_EQ(o.reply->out, local.out) << k.kind;
    EXPECT_EQ(o.reply->err, local.err) << k.kind;
  }
  // run: without a GPU both say so, with one both ran.
  GpuClient::Outcome run = c.request("run", {"--preset", "row-write-column-read", "--json"}, {});
  ASSERT_TRUE(run.reply) << run.error;
  const json j = json::parse(run.reply->out);
  EXPECT_EQ(j["scenario"], "row-write-column-read");
  if (!c.greeting().device.present) {
    EXPECT_EQ(run.reply->exit, 1);
    EXPECT_EQ(j["status"], run_status_name(RunStatus::NoCuda));
  }
  // profile: a kernel file sent with the request (the model's following needs no GPU), as a
  // local profile of the same file in its own directory prints it.
  std::ifstream in(cu);
  ASSERT_TRUE(in) << cu;
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<std::string> args{"reverse.cu", "--kernel", "staticReverse", "--block",
                                      "64",         "--arg",    "buffer:256",    "--arg",
                                      "int:64",     "--model"};
  GpuClient::Outcome p = c.request("profile", args, {{"reverse.cu", text.str()}});
  ASSERT_TRUE(p.reply) << p.error;
  ASSERT_TRUE(p.reply->ok) << p.reply->error;
  const test::Result local =
      cli("profile reverse.cu --kernel staticReverse --block 64 --arg buffer:256 --arg int:64 "
          "--model",
          "", "cd '" + std::string(BANKVIZ_TEST_DATA) + "/profile' && ");
  EXPECT_EQ(p.reply->exit, local.status) << p.reply->err;
  EXPECT_EQ(p.reply->out, local.out);
  EXPECT_NE(local.out.find("staticReverse"), std::string::npos) << local.out << local.err;
}

TEST(Serve, ReadsOnlyTheFilesSentAndWritesNone) {
  GpuClient c(served());
  ASSERT_EQ(c.connect(), "");
  const std::string scenario =
      test::slurp(std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/row-write-column-read.json");
  // A file sent is read (the sweep of it equals the preset's sweep).
  GpuClient::Outcome sent =
      c.request("sweep", {"--file", "s.json", "--param", "pad=0..1"}, {{"s.json", scenario}});
  ASSERT_TRUE(sent.reply) << sent.error;
  EXPECT_EQ(sent.reply->exit, 0) << sent.reply->err;
  EXPECT_NE(sent.reply->out.find("value"), std::string::npos);
  const std::pair<std::vector<std::string>, const char*> refused[] = {
      {{"sweep", "--file", "/etc/passwd", "--param", "pad=0..1"}, "reads only the files sent"},
      {{"sweep", "--file", "-", "--param", "pad=0..1"}, "reads only the files sent"},
      {{"compare", "/etc/hostname", "row-write-column-read"}, "reads only the files sent"},
      {{"validate", "--report", "/tmp/bankviz-report"}, "not served"},
      {{"validate", "--suites", "/tmp"}, "not served"},
      {{"run", "--preset", "row-write-column-read", "--gpu-command", "true"}, "not served"},
      {{"profile", "/etc/passwd", "--kernel", "k", "--block", "32"}, "reads only the files"},
  };
  for (const auto& [argv, expect] : refused) {
    std::vector<std::string> args(argv.begin() + 1, argv.end());
    GpuClient::Outcome o = c.request(argv[0], args, {});
    ASSERT_TRUE(o.reply) << o.error;
    EXPECT_EQ(o.reply->exit, 2) << argv[0] << " " << argv[1] << ": " << o.reply->err;
    EXPECT_NE(o.reply->err.find(expect), std::string::npos) << o.reply->err;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/bankviz-report"));
  GpuClient::Outcome other = c.request("analyze", {}, {});
  ASSERT_TRUE(other.reply) << other.error;
  EXPECT_FALSE(other.reply->ok);
  EXPECT_NE(other.reply->error.find("not served"), std::string::npos);
}

// Lines that are no request get a refusal each; the server goes on and ends with its input.
TEST(Serve, MalformedRequestLinesAreRefusedOneByOne) {
  const test::Result r = cli("serve",
                             "garbage\n"
                             "{\"id\":5}\n" +
                                 std::string(200, '[') + "\n" +
                                 "{\"id\":6,\"request\":\"sweep\",\"args\":[\"--preset\",\"row-"
                                 "write-column-read\",\"--param\",\"pad=0..1\"]}\n");
  EXPECT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::vector<json> got;
  while (std::getline(lines, line)) got.push_back(json::parse(line));
  ASSERT_EQ(got.size(), 5u) << r.out;
  EXPECT_EQ(got[0]["protocol"], "bankviz-serve");
  EXPECT_EQ(got[1]["ok"], false);
  EXPECT_NE(got[1]["error"].get<std::string>().find("not JSON"), std::string::npos);
  EXPECT_EQ(got[2]["id"], 5);
  EXPECT_EQ(got[2]["ok"], false);
  EXPECT_NE(got[3]["error"].get<std::string>().find("nested"), std::string::npos);
  EXPECT_EQ(got[4]["id"], 6);
  EXPECT_EQ(got[4]["ok"], true);
  EXPECT_EQ(got[4]["exit"], 0);
}

// [SECTION] Remotes that misbehave: each a message within seconds

TEST(Remote, NotTheProtocol) {
  GpuClient c(fake("hello, I am a shell", "cat >/dev/null"));
  const std::string why = c.connect();
  EXPECT_NE(why.find("does not speak bankviz's protocol"), std::string::npos) << why;
}

TEST(Remote, AnotherVersionSaysWhatToInstall) {
  GpuClient c(fake(greeting_line("0.0.1"), "cat >/dev/null"));
  const std::string why = c.connect();
  EXPECT_NE(why.find(std::string("install bankviz ") + BANKVIZ_VERSION), std::string::npos) << why;
}

TEST(Remote, CommandNotFound) {
  GpuTarget t;
  t.command = "no-such-bankviz-program-xyz serve";
  GpuClient c(t);
  const std::string why = c.connect();
  EXPECT_NE(why.find("was not found"), std::string::npos) << why;
}

TEST(Remote, SilentRemoteTimesOut) {
  GpuTarget t;
  t.command = "sleep 30";
  t.connect_timeout_s = 1;
  GpuClient c(t);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string why = c.connect();
  EXPECT_LT(seconds_since(t0), 5);
  EXPECT_NE(why.find("no answer"), std::string::npos) << why;
}

TEST(Remote, RequestThatIsNeverAnsweredTimesOut) {
  GpuTarget t = fake(greeting_line(), "sleep 30");
  t.request_timeout_s = 1;
  GpuClient c(t);
  ASSERT_EQ(c.connect(), "");
  const auto t0 = std::chrono::steady_clock::now();
  GpuClient::Outcome o = c.request("run", {}, {});
  EXPECT_LT(seconds_since(t0), 5);
  EXPECT_FALSE(o.reply);
  EXPECT_NE(o.error.find("did not answer within 1 s"), std::string::npos) << o.error;
}

TEST(Remote, MalformedReplyIsAnErrorNotACrash) {
  for (const char* reply : {"garbage", "{\"id\":1}", "{\"id\":9,\"ok\":true}", "[[[[[[", "{}"}) {
    GpuClient c(fake(greeting_line(),
                     std::string("read l; printf '%s\\n' '") + reply + "'; cat >/dev/null"));
    ASSERT_EQ(c.connect(), "");
    GpuClient::Outcome o = c.request("run", {}, {});
    EXPECT_FALSE(o.reply) << reply;
    EXPECT_NE(o.error.find("sent a malformed reply"), std::string::npos)
        << reply << ": " << o.error;
    EXPECT_FALSE(c.connected());
  }
}

TEST(Remote, DiesMidRequest) {
  GpuClient c(fake(greeting_line(), "read l; echo 'segfault, core dumped' >&2; exit 139"));
  ASSERT_EQ(c.connect(), "");
  GpuClient::Outcome o = c.request("run", {}, {});
  EXPECT_FALSE(o.reply);
  EXPECT_NE(o.error.find("was lost during the request"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("segfault"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("139"), std::string::npos) << o.error;
}

// A connection that ended between requests is opened again for the next one.
TEST(Remote, ReopensAfterADrop) {
  // Answers one request (whatever its id: the first of each connection is 1, 2, ...), then ends.
  GpuClient c(fake(greeting_line(),
                   "read l; id=$(printf '%s' \"$l\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/'); "
                   "printf '{\"id\":%s,\"ok\":true,\"exit\":0,\"stdout\":\"x\",\"stderr\":\"\"}\\n'"
                   " \"$id\""));
  ASSERT_EQ(c.connect(), "");
  GpuClient::Outcome first = c.request("run", {}, {});
  ASSERT_TRUE(first.reply) << first.error;
  EXPECT_EQ(first.reply->out, "x");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  GpuClient::Outcome second = c.request("run", {}, {});
  ASSERT_TRUE(second.reply) << second.error;
  EXPECT_EQ(second.reply->out, "x");
}

// [SECTION] The CLI through --gpu-command and --gpu

// A remote as a script file: it prints `lines`, then reads its input to the end.
std::string fake_script(const std::string& name, const std::vector<std::string>& lines) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                  ("bankviz-fake-" + std::to_string(getpid()) + "-" + name + ".sh");
  std::ofstream out(p);
  for (const std::string& l : lines) out << "cat <<'EOF'\n" << l << "\nEOF\n";
  out << "cat >/dev/null\n";
  return p.string();
}

TEST(RemoteCli, NoGpuThereIsAClearFailure) {
  const test::Result local = cli("run --preset row-write-column-read --mode exposed");
  if (local.status == 0) GTEST_SKIP() << "this machine has a GPU: see GpuCommandEqualsLocal";
  const test::Result r =
      cli("run --preset row-write-column-read --gpu-command \"'" + kCli + "' serve\"");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("has no usable GPU"), std::string::npos) << r.err;
}

TEST(RemoteCli, BadTargetsAreUsageErrors) {
  test::Result r = cli("run --gpu -oProxyCommand=true");
  EXPECT_EQ(r.status, 2) << r.err;
  r = cli("run --gpu 'a b'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("no spaces"), std::string::npos) << r.err;
  r = cli("run --gpu a --gpu-command b");
  EXPECT_EQ(r.status, 2) << r.err;
  r = cli("run --gpu-command 'printf nonsense' --gpu-timeout 0");
  EXPECT_EQ(r.status, 2) << r.err;
}

TEST(RemoteCli, MisbehavingRemotesAreMessages) {
  test::Result r = cli("run --gpu-command 'echo hello'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("does not speak bankviz's protocol"), std::string::npos) << r.err;
  r = cli("compare a b --run --gpu-command 'exit 0'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("ended without a word"), std::string::npos) << r.err;
  // A remote with a GPU that refuses: the refusal is quoted.
  r = cli("experiments --run --gpu-command 'sh " +
          fake_script("refuses", {greeting_line(), R"({"id":1,"ok":false,"error":"busy"})"}) + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("refused the request: busy"), std::string::npos) << r.err;
  // A remote's output and exit status become the command's.
  r = cli("validate --gpu-command 'sh " +
          fake_script("answers", {greeting_line(), R"({"id":1,"ok":true,"exit":3,)"
                                                   R"("stdout":"remote table\n","stderr":)"
                                                   R"("remote note\n"})"}) +
          "'");
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "remote table\n");
  EXPECT_EQ(r.err, "remote note\n");
}

// The files a command names travel with it: a fake remote echoes the request it got.
TEST(RemoteCli, FilesTravelAndGpuFlagsStayHome) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("bankviz-remote-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "mine.json") << "{\"marker\": 42}";
  const std::string script = (dir / "echo.sh").string();
  std::ofstream(script)
      << "printf '%s\\n' '" << greeting_line() << "'\nread -r l\nprintf '%s' \"$l\" > '"
      << (dir / "got").string()
      << "'\nprintf '{\"id\":1,\"ok\":true,\"exit\":0,\"stdout\":\"\",\"stderr\":\"\"}\\n'\n";
  const test::Result r = cli("run --file '" + (dir / "mine.json").string() +
                             "' --mode exposed --gpu-command 'sh " + script + "' --gpu-timeout 9");
  EXPECT_EQ(r.status, 0) << r.err;
  const json got = json::parse(test::slurp(dir / "got"));
  EXPECT_EQ(got["request"], "run");
  EXPECT_EQ(got["args"], json({"--file", "mine.json", "--mode", "exposed"}));
  EXPECT_EQ(got["files"]["mine.json"], "{\"marker\": 42}");
  fs::remove_all(dir);
}

// [SECTION] A run's JSON and the recorded sets

RunResult sample_run();

// A recorded set of this build's rules, from an H200, holding S's exposed run (sample_run()).
RecordedSet h200_set_of(const Scenario& s) {
  RecordedSet set;
  set.bankviz = BANKVIZ_VERSION;
  set.rules_version = kModelRulesVersion;
  set.date = "2026-11-29";
  set.device = "NVIDIA H200";
  set.runs[scenario_identity(s) + " exposed"] = run_result_json(s, sample_run());
  return set;
}

RunResult sample_run() {
  RunResult r;
  r.status = RunStatus::Ok;
  r.mode = RunMode::Exposed;
  r.device.present = true;
  r.device.name = "NVIDIA H200";
  r.device.sm = "sm_90";
  r.device.cc_major = 9;
  r.device.sm_count = 132;
  r.device.clock_khz = 1980000;
  r.device.model_arch = "hopper";
  r.scenario_arch = "hopper";
  r.verification.status = VerifyStatus::Verified;
  r.verification.summary = "all 1024 outputs match";
  r.verification.checked = 1024;
  r.counters = CounterStatus::Ok;
  StepTiming t;
  t.step = 2;
  t.label = "load tile[tx][ty]";
  t.kind = "load";
  t.cycles_per_instruction = 32.02;
  t.model_wavefronts = 32;
  t.predicted_cycles = 32;
  t.shared_bound = true;
  t.hw.read = true;
  t.hw.hw_wavefronts = 1024;
  t.hw.model_wavefronts = 1024;
  r.exposed.steps.push_back(t);
  return r;
}

TEST(RunJson, RoundTripsWhatTheTablesShow) {
  Scenario s;
  s.name = "x";
  const RunResult r = sample_run();
  std::string error;
  auto back = run_result_from_json(run_result_json(s, r), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->status, RunStatus::Ok);
  EXPECT_EQ(back->device.name, "NVIDIA H200");
  EXPECT_EQ(back->device.clock_khz, 1980000);
  ASSERT_EQ(back->exposed.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(back->exposed.steps[0].cycles_per_instruction, 32.02);
  EXPECT_TRUE(back->exposed.steps[0].hw.read);
  EXPECT_EQ(explain_result(s, *back), explain_result(s, r));
  json bad = run_result_json(s, r);
  bad["status"] = "fine";
  EXPECT_FALSE(run_result_from_json(bad, &error));
  bad = run_result_json(s, r);
  bad["exposed"]["steps"][0]["cycles_per_instruction"] = "fast";
  EXPECT_FALSE(run_result_from_json(bad, &error));
  EXPECT_NE(error.find("steps[0].cycles_per_instruction"), std::string::npos) << error;
}

Scenario preset(const char* name) {
  ScenarioLoad l =
      load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/" + name + ".json");
  EXPECT_TRUE(l.scenario);
  return *l.scenario;
}

TEST(Recorded, IdentityIsTheKernelNotItsWords) {
  Scenario a = preset("row-write-column-read");
  Scenario b = a;
  b.name = "renamed";
  b.title = "another title";
  b.open_step = 0;
  EXPECT_EQ(scenario_identity(a), scenario_identity(b));
  b.tiles[0].pad = 1;
  EXPECT_NE(scenario_identity(a), scenario_identity(b));
  Scenario c = a;
  c.block[0] = 16;
  EXPECT_NE(scenario_identity(a), scenario_identity(c));
}

TEST(Recorded, FindsExactlyTheScenarioAndSaysWhenItsRulesAreOlder) {
  const Scenario s = preset("row-write-column-read");
  RecordedSet set = h200_set_of(s);
  std::string error;
  auto read = parse_recorded_set(recorded_set_text(set), &error);
  ASSERT_TRUE(read) << error;
  std::vector<RecordedSet> sets{*read};
  auto hit = find_recorded_run(sets, s, RunMode::Exposed);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->label, "measured on H200, recorded 2026-11-29");
  EXPECT_EQ(hit->note, "");
  EXPECT_DOUBLE_EQ(hit->result.exposed.steps[0].cycles_per_instruction, 32.02);
  EXPECT_FALSE(find_recorded_run(sets, s, RunMode::Written));
  Scenario edited = s;
  edited.tiles[0].pad = 3;
  EXPECT_FALSE(find_recorded_run(sets, edited, RunMode::Exposed));
  sets[0].rules_version = kModelRulesVersion - 1;
  hit = find_recorded_run(sets, s, RunMode::Exposed);
  ASSERT_TRUE(hit);
  EXPECT_NE(hit->note.find("model has changed since"), std::string::npos) << hit->note;
  for (const char* bad : {"{}", "[]", R"({"format":"bankviz-recorded","format_version":9})",
                          R"({"format":"bankviz-recorded","format_version":1,"rules_version":1,)"
                          R"("date":"d","device":{"name":"x"},"runs":[{"id":"short"}]})"})
    EXPECT_FALSE(parse_recorded_set(bad, &error)) << bad;
}

// The shipped sets read, each names its device, date and the rules it was measured with, and
// each is complete (a set cut short by --budget-s is finished with measure --resume first).
TEST(Recorded, ShippedSetsRead) {
  std::vector<std::string> problems;
  const auto sets =
      load_recorded_sets(std::string(BANKVIZ_SOURCE_DIR) + "/assets/recorded", &problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  for (const RecordedSet& set : sets) {
    EXPECT_FALSE(set.device.empty());
    EXPECT_GT(set.rules_version, 0);
    EXPECT_FALSE(set.runs.empty()) << set.path;
    EXPECT_TRUE(set.complete) << set.path << ": measure --resume it on the GPU it was made on";
  }
  EXPECT_FALSE(sets.empty());
}

// The programs read the shipped sets by index (a lookup reads one run): run for run, what a
// whole read holds. A set not laid out as measure writes it is read whole instead; a run whose
// line is damaged is passed over when looked up; a set cut short is refused.
TEST(Recorded, AnIndexedSetFindsWhatAWholeReadFinds) {
  namespace fs = std::filesystem;
  const std::string dir = std::string(BANKVIZ_SOURCE_DIR) + "/assets/recorded";
  const std::vector<RecordedSet> whole = load_recorded_sets(dir, nullptr);
  const std::vector<RecordedSet> indexed = load_recorded_sets(dir, nullptr, /*indexed=*/true);
  ASSERT_EQ(whole.size(), indexed.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    const RecordedSet &w = whole[i], &x = indexed[i];
    EXPECT_TRUE(x.runs.empty()) << x.path << " was read whole, not by index";
    ASSERT_TRUE(x.text);
    EXPECT_EQ(x.lines.size(), w.runs.size()) << x.path;
    EXPECT_EQ(recorded_label(x), recorded_label(w));
    EXPECT_EQ(x.rules_version, w.rules_version);
    EXPECT_EQ(x.complete, w.complete);
    EXPECT_EQ(x.experiments, w.experiments);
    for (const auto& [key, result] : w.runs) {
      auto at = x.lines.find(key);
      ASSERT_NE(at, x.lines.end()) << key;
      const nlohmann::json line = nlohmann::json::parse(
          x.text->substr(at->second.first, at->second.second - at->second.first));
      EXPECT_EQ(line["result"], result) << key;
    }
  }
  const Scenario s = preset("row-write-column-read");
  auto a = find_recorded_run(whole, s, RunMode::Exposed);
  auto b = find_recorded_run(indexed, s, RunMode::Exposed);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(run_result_json(s, a->result), run_result_json(s, b->result));
  EXPECT_EQ(a->label, b->label);

  RecordedSet set = h200_set_of(s);
  Scenario other = s;
  other.tiles[0].pad = 7;
  set.runs[scenario_identity(other) + " written"] = run_result_json(other, sample_run());
  const std::string text = recorded_set_text(set);
  std::string error;
  std::optional<RecordedSet> ix = index_recorded_set(text, &error);
  ASSERT_TRUE(ix) << error;
  EXPECT_EQ(ix->lines.size(), 2u);
  auto hit = find_recorded_run({*ix}, s, RunMode::Exposed);
  ASSERT_TRUE(hit);
  EXPECT_DOUBLE_EQ(hit->result.exposed.steps[0].cycles_per_instruction, 32.02);
  EXPECT_TRUE(find_recorded_run({*ix}, other, RunMode::Written));
  EXPECT_FALSE(find_recorded_run({*ix}, other, RunMode::Exposed));
  // Laid out otherwise (pretty-printed by hand): not indexed, read whole by the loader.
  const std::string pretty = nlohmann::json::parse(text).dump(2);
  EXPECT_FALSE(index_recorded_set(pretty, &error));
  const fs::path tmp = fs::temp_directory_path() / ("bankviz-recidx-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  std::ofstream(tmp / "a.json") << pretty;
  std::vector<std::string> problems;
  const std::vector<RecordedSet> loaded = load_recorded_sets(tmp.string(), &problems, true);
  EXPECT_TRUE(problems.empty()) << problems.front();
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].runs.size(), 2u);
  EXPECT_TRUE(find_recorded_run(loaded, s, RunMode::Exposed));
  fs::remove_all(tmp);
  // A damaged run: indexed, and passed over when looked up; the other still found.
  std::string damaged = text;
  const size_t at = damaged.find("\"result\":{");
  ASSERT_NE(at, std::string::npos);
  damaged.replace(at, 10, "\"result\":[");
  ix = index_recorded_set(damaged, &error);
  ASSERT_TRUE(ix) << error;
  EXPECT_EQ(find_recorded_run({*ix}, s, RunMode::Exposed).has_value() +
                find_recorded_run({*ix}, other, RunMode::Written).has_value(),
            1);
  // Cut short, or a line that is not a run: refused (and the whole read refuses it too).
  EXPECT_FALSE(index_recorded_set(text.substr(0, text.size() - 40), &error));
  std::string foreign = text;
  foreign.insert(text.find('\n') + 1, "{\"mode\":\"exposed\"},\n");
  EXPECT_FALSE(index_recorded_set(foreign, &error));
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
}

}  // namespace
}  // namespace bankviz
