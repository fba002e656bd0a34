// test_ssh.cpp: --gpu HOST through a real ssh: Debian's openssh-server started by the test on
// 127.0.0.1 (a free port) with a host key and a user key of its own, stopped after. The ssh the
// client runs is a wrapper ($BANKVIZ_SSH) that adds the test's ssh config, so the user's own
// ~/.ssh is never read or changed. Skipped, saying so, only when sshd or ssh is not installed
// (scripts/install-deps.sh installs both).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_run.h"
#include "gpu_client.h"

namespace bankviz {
namespace {

namespace fs = std::filesystem;

const char* const kSshd = "/usr/sbin/sshd";

int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

bool accepts(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

class Ssh : public ::testing::Test {
 protected:
  static inline fs::path dir;
  static inline pid_t sshd = -1;
  static inline int port = 0, bare_port = 0;
  static inline std::string why_not;

  static void SetUpTestSuite() {
    if (!fs::exists(kSshd) || std::system("command -v ssh >/dev/null && command -v ssh-keygen "
                                          ">/dev/null") != 0) {
      why_not = "openssh-server or openssh-client is not installed (scripts/install-deps.sh "
                "installs them): the real ssh round trip is not tested";
      return;
    }
    dir = fs::temp_directory_path() / ("bankviz-ssh-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all);
    const std::string d = dir.string();
    for (const char* key : {"host_key", "user_key", "stranger_key"})
      if (std::system(("ssh-keygen -q -t ed25519 -N '' -f '" + d + "/" + key + "'").c_str()) !=
          0) {
        why_not = "ssh-keygen failed";
        return;
      }
    fs::copy_file(dir / "user_key.pub", dir / "authorized_keys");
    port = free_port();
    bare_port = free_port();
    const std::string cli_dir = fs::path(BANKVIZ_CLI).parent_path().string();
    std::ofstream(dir / "sshd_config")
        << "Port " << port << "\nPort " << bare_port << "\nListenAddress 127.0.0.1\n"
        << "HostKey " << d << "/host_key\nAuthorizedKeysFile " << d << "/authorized_keys\n"
        << "PidFile " << d << "/sshd.pid\nPasswordAuthentication no\n"
        << "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
        << "PermitRootLogin prohibit-password\nLogLevel ERROR\n"
        // bankviz-cli on the PATH of a login on the first port only: the second is a server
        // without bankviz.
        << "Match LocalPort " << port << "\n  SetEnv PATH=" << cli_dir << ":/usr/bin:/bin\n"
        << "Match LocalPort " << bare_port << "\n  SetEnv PATH=/usr/bin:/bin\n";
    std::string host_pub = test::slurp(dir / "host_key.pub");
    host_pub = host_pub.substr(0, host_pub.find_last_not_of("\n") + 1);
    std::ofstream(dir / "known_hosts") << "[127.0.0.1]:" << port << " " << host_pub << "\n"
                                       << "[127.0.0.1]:" << bare_port << " " << host_pub << "\n";
    const passwd* pw = ::getpwuid(::getuid());
    const std::string user = pw ? pw->pw_name : "root";
    auto host = [&](const char* alias, int p, const char* key, const char* known) {
      return std::string("Host ") + alias + "\n  HostName 127.0.0.1\n  Port " +
             std::to_string(p) + "\n  User " + user + "\n  IdentityFile " + d + "/" + key +
             "\n  IdentitiesOnly yes\n  UserKnownHostsFile " + d + "/" + known +
             "\n  GlobalKnownHostsFile /dev/null\n  LogLevel ERROR\n";
    };
    std::ofstream(dir / "ssh_config") << host("bvtest", port, "user_key", "known_hosts")
                                      << host("bvtest-bare", bare_port, "user_key", "known_hosts")
                                      << host("bvtest-stranger", port, "stranger_key",
                                              "known_hosts")
                                      << host("bvtest-newkey", port, "user_key", "empty_known");
    std::ofstream(dir / "empty_known");
    std::ofstream(dir / "ssh.sh") << "#!/bin/sh\nexec ssh -F '" << d << "/ssh_config' \"$@\"\n";
    fs::permissions(dir / "ssh.sh", fs::perms::owner_all);
    if (::geteuid() == 0) fs::create_directories("/run/sshd");  // privilege separation
    sshd = ::fork();
    if (sshd == 0) {
      ::execl(kSshd, kSshd, "-D", "-e", "-f", (d + "/sshd_config").c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !accepts(port); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!accepts(port)) why_not = "sshd did not start on 127.0.0.1:" + std::to_string(port);
    ::setenv("BANKVIZ_SSH", (d + "/ssh.sh").c_str(), 1);
  }

  static void TearDownTestSuite() {
    if (sshd > 0) {
      ::kill(sshd, SIGTERM);
      ::waitpid(sshd, nullptr, 0);
    }
    ::unsetenv("BANKVIZ_SSH");
    if (!dir.empty()) fs::remove_all(dir);
  }

  void SetUp() override {
    if (!why_not.empty()) GTEST_SKIP() << why_not;
  }

  static GpuTarget target(const char* host) {
    GpuTarget t;
    t.host = host;
    t.connect_timeout_s = 20;
    t.request_timeout_s = 120;
    return t;
  }
};

TEST_F(Ssh, RoundTripAnswersAsTheCommandLine) {
  GpuClient c(target("bvtest"));
  ASSERT_EQ(c.connect(), "");
  EXPECT_EQ(c.greeting().bankviz, BANKVIZ_VERSION);
  GpuClient::Outcome o =
      c.request("compare", {"row-write-column-read", "row-write-column-read-padded"}, {});
  ASSERT_TRUE(o.reply) << o.error;
  const test::Result local = test::cli("compare row-write-column-read row-write-column-read-padded");
  EXPECT_EQ(o.reply->exit, local.status);
  EXPECT_EQ(o.reply->out, local.out);
  // The connection stays open for the next request.
  GpuClient::Outcome again = c.request("experiments", {"--json"}, {});
  ASSERT_TRUE(again.reply) << again.error;
  EXPECT_EQ(again.reply->out, test::cli("experiments --json").out);
}

TEST_F(Ssh, CliThroughGpuHost) {
  const std::string env = "env BANKVIZ_SSH='" + (dir / "ssh.sh").string() + "' ";
  const test::Result local = test::cli("run --preset row-write-column-read --mode exposed");
  const test::Result r =
      test::cli("run --preset row-write-column-read --mode exposed --gpu bvtest", "", env);
  if (local.status != 0) {
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("bvtest has no usable GPU"), std::string::npos) << r.err;
  } else {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("cyc/instr"), std::string::npos) << r.out;
  }
}

TEST_F(Ssh, FailuresAreMessagesWithinSeconds) {
  const std::pair<const char*, const char*> cases[] = {
      {"bvtest-bare", "bankviz-cli is not installed on bvtest-bare"},
      {"bvtest-stranger", "without a password"},
      {"bvtest-newkey", "host key is not known"},
      {"no-such-host.invalid", "host name is unknown"},
  };
  for (const auto& [host, expect] : cases) {
    const auto t0 = std::chrono::steady_clock::now();
    GpuClient c(target(host));
    const std::string why = c.connect();
    EXPECT_NE(why.find(expect), std::string::npos) << host << ": " << why;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15)
        << host;
  }
}

}  // namespace
}  // namespace bankviz
