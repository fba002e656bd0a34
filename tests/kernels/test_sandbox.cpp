// test_sandbox.cpp: the CPU recording's confinement (kernels/src/sandbox.h): the user's kernel,
// run as host code, reaches no file, no network and no process; an #include of something that is
// not a regular file is refused before any compiler reads it (the host compiler's and NVRTC's).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bankviz/record.h"
#include "sandbox.h"
#if BANKVIZ_HAVE_CUDA
#include "compiler.h"
#endif

namespace bankviz {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Scratch {
  fs::path dir;
  Scratch() {
    std::string t = (fs::temp_directory_path() / "bankviz-sandbox-test-XXXXXX").string();
    dir = ::mkdtemp(t.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

RecordResult record(const std::string& source, std::vector<std::optional<int64_t>> args = {}) {
  RecordRequest q;
  q.source = source;
  q.file_name = "k.cu";
  q.kernel = std::string("k");  // GCC 12 -O3 warns (-Wrestrict, falsely) on = "k"
  q.block[0] = 32;
  q.args = std::move(args);
  q.timeout_s = 60;
  return record_on_cpu(q);
}

// A kernel that tries, in its first thread, each way out to the user's files, the network and
// other processes; each that works is named on stderr and fails the recording (exit 3).
std::string escaping_kernel(const std::string& victim, const std::string& marker) {
  return R"(#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 0) {
    const char *escaped = 0;
    const char *victim = ")" +
         victim + R"(";
    if (FILE *f = fopen("x", "w")) { escaped = "fopen x"; fclose(f); }
    if (FILE *f = fopen(victim, "w")) { escaped = "fopen victim for writing"; fclose(f); }
    if (FILE *f = fopen(victim, "r")) { escaped = "fopen victim for reading"; fclose(f); }
    if (syscall(SYS_openat, AT_FDCWD, victim, O_RDWR | O_TRUNC) >= 0) escaped = "openat";
    if (truncate(victim, 0) == 0) escaped = "truncate";
    if (unlink(victim) == 0) escaped = "unlink";
    if (rename(victim, "/tmp/bankviz-sandbox-renamed") == 0) escaped = "rename";
    if (chmod(victim, 0) == 0) escaped = "chmod";
    struct stat st;
    if (stat(victim, &st) == 0) escaped = "stat";
    if (socket(AF_INET, SOCK_STREAM, 0) >= 0) escaped = "socket";
    if (socket(AF_UNIX, SOCK_DGRAM, 0) >= 0) escaped = "unix socket";
    if (opendir("/")) escaped = "opendir";
    if (system("echo x > )" +
         marker + R"(") == 0) escaped = "system";
    if (fork() >= 0) escaped = "fork";
    if (kill(getppid(), 0) == 0) escaped = "kill";
    if (chdir("/") == 0) escaped = "chdir";
    // Descriptors of the process that started the recording: none but 0-2 reached it.
    for (int fd = 3; fd < 64; ++fd)
      if (write(fd, "x", 1) == 1) escaped = "an inherited descriptor";
    if (escaped) { fprintf(stderr, "escaped: %s\n", escaped); fflush(stderr); exit(3); }
  }
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  d[threadIdx.x] = s[31 - threadIdx.x];
}
)";
}

TEST(Sandbox, TheRecordedKernelReachesNoFileNoNetworkAndNoProcess) {
  if (record_compiler().empty()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  if (const SandboxFilter f = recording_filter(); !f.problem.empty())
    GTEST_SKIP() << "no seccomp filter in this build: " << f.problem;
  Scratch s;
  const fs::path victim = s.dir / "users-file.txt", marker = s.dir / "system-ran";
  std::ofstream(victim) << "the user's data\n";
  // A descriptor this process holds without O_CLOEXEC, as a careless caller might.
  const int leaked = ::open((s.dir / "leaked").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(leaked, 3);
  const fs::path cwd = fs::current_path();
  fs::current_path(s.dir);  // fopen("x", "w") would land here
  const RecordResult r = record(escaping_kernel(victim.string(), marker.string()), {});
  fs::current_path(cwd);
  ::close(leaked);
  ASSERT_TRUE(r.recording) << r.error;  // no call escaped, and the recording still reports
  EXPECT_EQ(r.recording->accesses.size(), 64u);
  EXPECT_EQ(slurp(victim), "the user's data\n");
  EXPECT_FALSE(fs::exists(s.dir / "x"));
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_EQ(fs::file_size(s.dir / "leaked"), 0u);
  EXPECT_FALSE(fs::exists("/tmp/bankviz-sandbox-renamed"));
}

TEST(Sandbox, TheFilterIsAnAllowListThatRefusesWhatItDoesNotName) {
  const SandboxFilter f = recording_filter();
  if (!f.problem.empty()) GTEST_SKIP() << f.problem;
  // libseccomp's program: an architecture check, a rule per allowed call, a default that is
  // SECCOMP_RET_ERRNO | EPERM (0x00050001), not ALLOW (0x7fff0000).
  ASSERT_GT(f.program.size(), 20u);
  bool refuses_by_default = false;
  for (const sock_filter& i : f.program)
    if (i.code == (BPF_RET | BPF_K) && i.k == (0x00050000u | EPERM)) refuses_by_default = true;
  EXPECT_TRUE(refuses_by_default);
}

TEST(Sandbox, AnIncludeOfADeviceFifoFolderOrKernelViewIsRefused) {
  Scratch s;
  ASSERT_EQ(::mkfifo((s.dir / "fifo").c_str(), 0600), 0);
  fs::create_directory(s.dir / "folder");
  std::ofstream(s.dir / "fine.h") << "#define FINE 1\n";
  const std::vector<std::string> roots = {s.dir.string()};
  auto refused = [&](const std::string& src) { return include_problem(src, roots); };
  EXPECT_NE(refused("#include \"/dev/zero\"\n")
                .find("line 1: #include \"/dev/zero\" is refused: "
                      "'/dev/zero' is a device"),
            std::string::npos)
      << refused("#include \"/dev/zero\"\n");
  EXPECT_NE(refused("int a;\n#include </dev/zero>\n").find("line 2:"), std::string::npos);
  EXPECT_NE(refused("#include \"fifo\"\n").find("is a FIFO"), std::string::npos);
  EXPECT_NE(refused("#include \"folder\"\n").find("is a directory"), std::string::npos);
  EXPECT_NE(refused("#include \"/proc/self/status\"\n").find("kernel's proc file system"),
            std::string::npos);
  EXPECT_NE(refused("#include <../../../../../../../../../dev/zero>\n").find("device"),
            std::string::npos);
  // The preprocessor's spellings: spaces, a digraph, a comment, a spliced line, include_next.
  EXPECT_NE(refused("  #  include\t\"/dev/zero\"\n").find("device"), std::string::npos);
  EXPECT_NE(refused("%:include \"/dev/zero\"\n").find("device"), std::string::npos);
  EXPECT_NE(refused("# /* c */ include \"/dev/zero\"\n").find("device"), std::string::npos);
  EXPECT_NE(refused("#inc\\\nlude \"/dev/zero\"\n").find("line 1:"), std::string::npos);
  EXPECT_NE(refused("#include_next </dev/null>\n").find("device"), std::string::npos);
  // Something that only looks like a comment's start does not hide the line after it.
  EXPECT_NE(refused("const char *a = \"/*\";\n#include \"/dev/zero\"\n// */\n").find("line 2:"),
            std::string::npos);
  EXPECT_NE(
      refused("const char *a = R\"x(\"/*)x\";\n#include \"/dev/zero\"\n// */\n").find("line 2:"),
      std::string::npos);
  // Regular files, missing ones (the compiler says those), a comment's or a macro's include.
  EXPECT_EQ(refused("#include \"fine.h\"\n#include <cstdio>\n#include \"missing.h\"\n"), "");
  EXPECT_EQ(refused("// #include \"/dev/zero\"\n/* #include \"/dev/zero\" */\n"), "");
  EXPECT_EQ(refused("#define F \"/dev/zero\"\n#include F\n"), "");
}

TEST(Sandbox, TheCpuRecordingRefusesADeviceIncludeBeforeCompiling) {
  const RecordResult r = record(
      "#include \"/dev/zero\"\n__global__ void k() {\n  __shared__ int s[32];\n  s[0] = 1;\n}\n");
  ASSERT_FALSE(r.recording);
  EXPECT_NE(r.error.find("k.cu: line 1: #include \"/dev/zero\" is refused"), std::string::npos)
      << r.error;
}

#if BANKVIZ_HAVE_CUDA
TEST(Sandbox, NvrtcIsRefusedADeviceIncludeBeforeCompiling) {
  KernelSource k;
  k.text = "#include \"/dev/zero\"\n__global__ void k() {}\n";
  k.file_name = "k.cu";
  k.kernel_name = "k";
  const detail::CompileOutcome c = detail::compile(k, "sm_90");
  EXPECT_FALSE(c.compiled);
  EXPECT_NE(c.error.find("k.cu: line 1: #include \"/dev/zero\" is refused"), std::string::npos)
      << c.error;
}
#endif

}  // namespace
}  // namespace bankviz
