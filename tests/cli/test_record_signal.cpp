// test_record_signal.cpp: a signal to bankviz-cli while `profile --record` compiles or runs the
// user's kernel leaves nothing behind: no process of the recording's group (the host compiler's
// cc1plus, the recording itself) and no /tmp/bankviz-record-XXXXXX (core's io.h: the one home of
// what a signal must clean up).
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Processes whose environment holds `needle` (the recording's children get TMPDIR set to their
// temporary directory, which lies in the test's own TMPDIR): "pid command" each.
std::vector<std::string> processes_with(const std::string& needle) {
  std::vector<std::string> found;
  for (const fs::directory_entry& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream env(e.path() / "environ", std::ios::binary);
    std::stringstream s;
    s << env.rdbuf();
    if (s.str().find(needle) == std::string::npos) continue;
    std::ifstream comm(e.path() / "comm");
    std::string c;
    std::getline(comm, c);
    // A zombie is already gone but for its exit status (its parent reaps it).
    std::ifstream stat(e.path() / "stat");
    std::string st;
    std::getline(stat, st);
    const size_t close = st.rfind(')');
    if (close != std::string::npos && close + 2 < st.size() && st[close + 2] == 'Z') continue;
    found.push_back(name + " " + c);
  }
  return found;
}

std::string kernel_file(const fs::path& dir, bool spin, bool slow_compile = false) {
  const fs::path p = dir / (spin ? "spin.cu" : "plain.cu");
  std::ofstream f(p);
  // Forty compile-time evaluations, each within the compiler's bounds: seconds of cc1plus.
  if (slow_compile) {
    f << "constexpr long f(long n) { long s = 0; for (long i = 0; i < 60000; ++i) s += (i * n) % "
         "7; return s; }\n";
    for (int k = 0; k < 40; ++k) f << "static_assert(f(" << k << ") >= 0);\n";
  }
  f << "__global__ void k(int *d)\n{\n  __shared__ int s[32];\n"
    << (spin ? "  for (volatile int i = 0; ; ) { }\n" : "")
    << "  s[threadIdx.x] = d[threadIdx.x];\n}\n";
  return p.string();
}

// Starts `bankviz-cli profile FILE --kernel k --block 32 --record` with TMPDIR=tmp, waits until
// `ready` says the recording reached the phase under test, sends `sig`, and checks what is left.
// SIGKILL cannot be handled: the recording's group then ends by its guardian (kernels/src/
// record.cpp), and its temporary directory is left for whoever gave bankviz-cli its TMPDIR (the
// app gives it one of its own, removed afterwards: app/gui/profile/subprocess.cpp).
void signal_during_record(int sig, bool spin, bool (*ready)(const std::string& tmp),
                          bool slow_compile = false) {
  std::string t = (fs::temp_directory_path() / "bankviz-signal-test-XXXXXX").string();
  const fs::path tmp = ::mkdtemp(t.data());
  const std::string file = kernel_file(tmp, spin, slow_compile);
  const fs::path work = tmp / "work";  // the recording's TMPDIR
  fs::create_directory(work);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("TMPDIR", work.c_str(), 1);
    std::freopen("/dev/null", "w", stdout);
    std::freopen((tmp / "err").c_str(), "w", stderr);
    // SIGINT as a terminal's Ctrl+C sends it: not ignored (a background job's would be).
    ::signal(sig, SIG_DFL);
    ::execl(BANKVIZ_CLI, BANKVIZ_CLI, "profile", file.c_str(), "--kernel", "k", "--block", "32",
            "--record", "--arg", "buffer:128", "--timeout", "120", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  const std::string needle = "TMPDIR=" + work.string() + "/bankviz-record-";
  const auto start = std::chrono::steady_clock::now();
  bool reached = false;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(90)) {
    if (ready(work.string())) {
      reached = true;
      break;
    }
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      std::ifstream e(tmp / "err");
      std::stringstream s;
      s << e.rdbuf();
      fs::remove_all(tmp);
      FAIL() << "bankviz-cli ended before the signal: " << s.str();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(reached) << "the recording never reached the phase under test";
  EXPECT_FALSE(processes_with(needle).empty()) << "no process of the recording to leave behind";
  ::kill(pid, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
  // What the handler killed is gone; give the kernel a moment to take the last of it down.
  std::vector<std::string> left = processes_with(needle);
  for (int i = 0; i < 40 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = processes_with(needle);
  }
  std::string names;
  for (const std::string& p : left) names += p + "; ";
  EXPECT_TRUE(left.empty()) << "left running: " << names;
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(work))
    files.push_back(e.path().filename().string());
  if (sig != SIGKILL) {
    EXPECT_TRUE(files.empty()) << "left in TMPDIR: " << (files.empty() ? "" : files[0]);
  }
  // Whatever a failed check left running is not left to the next test.
  for (const std::string& p : left) ::kill(std::stoi(p), SIGKILL);
  fs::remove_all(tmp);
}

// The host compiler is at work: a cc1plus (or the compiler's driver) runs in the group.
bool compiling(const std::string& work) {
  for (const std::string& p : processes_with("TMPDIR=" + work + "/bankviz-record-"))
    if (p.find("cc1plus") != std::string::npos) return true;
  return false;
}

// The compiled recording runs (the spinning kernel).
bool running(const std::string& work) {
  for (const std::string& p : processes_with("TMPDIR=" + work + "/bankviz-record-"))
    if (p.substr(p.find(' ') + 1) == "record") return true;
  return false;
}

bool have_compiler() {
  return std::system("command -v g++ >/dev/null 2>&1 || command -v c++ >/dev/null 2>&1") == 0;
}

TEST(RecordSignal, CtrlCWhileCompilingKillsTheCompilerAndRemovesTheDirectory) {
  if (!have_compiler()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  signal_during_record(SIGINT, false, compiling);
}

TEST(RecordSignal, SigkillWhileCompilingStillEndsTheCompilersWholeGroup) {
  if (!have_compiler()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  signal_during_record(SIGKILL, false, compiling, true);
}

TEST(RecordSignal, SigtermOrSighupWhileTheKernelRunsKillsItAndRemovesTheDirectory) {
  if (!have_compiler()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  signal_during_record(SIGTERM, true, running);
  signal_during_record(SIGHUP, true, running);
}

}  // namespace
