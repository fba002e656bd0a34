// test_sandbox.cpp: the CPU recording's confinement (kernels/src/sandbox.h): the user's kernel,
// run as host code, reaches no file, no network and no process; an #include of something that is
// not a regular file is refused before any compiler reads it (the host compiler's and NVRTC's).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../test_support.h"
#include "bankviz/record.h"
#include "sandbox.h"
#if BANKVIZ_HAVE_CUDA
#include "compiler.h"
#endif

using bankviz::test::slurp;

namespace bankviz {
namespace {

namespace fs = std::filesystem;

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

RecordResult sandboxed_record(const std::string& source,
                              std::vector<std::optional<int64_t>> args = {}) {
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
  const RecordResult r = sandboxed_record(escaping_kernel(victim.string(), marker.string()), {});
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
  const RecordResult r = sandboxed_record(
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

namespace bankviz {
namespace {

// ---- The compile contained (contain.cpp): each line of RECORD.md's list, tried ------------------

// The folders of a contained compile: src/ (the source's folder) with a header, a FIFO and a
// subfolder; secret.txt beside it, outside; tmp/ (the compile's folder).
struct CompileFolders {
  Scratch s;
  fs::path src, tmp, secret;
  CompileFolders() : src(s.dir / "src"), tmp(s.dir / "tmp"), secret(s.dir / "secret.txt") {
    fs::create_directories(src / "sub");
    fs::create_directory(tmp);
    std::ofstream(src / "header.h") << "#define FROM_HEADER 1\n";
    std::ofstream(src / "sub" / "deeper.h") << "#define DEEPER 1\n";
    std::ofstream(src / ".hidden.h") << "#define HIDDEN 1\n";
    std::ofstream(secret) << "TOP-SECRET-7f3a\n";
    ::mkfifo((src / "fifo").c_str(), 0600);
    ::mkfifo((s.dir / "fifo").c_str(), 0600);
  }
};

// errno of open(path, flags) in this process (0: it opened). O_NONBLOCK: a FIFO that opened would
// not block the test.
int open_errno(const fs::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::close(fd);
    return 0;
  }
  return errno;
}

TEST(Contain, TheCompileReadsOnlyTheSystemsAndTheSourcesFilesAndWritesOnlyItsFolder) {
  std::string why;
  if (landlock_abi(&why) == 0) GTEST_SKIP() << "no Landlock here: " << why;
  CompileFolders f;
  const Confinement c = compile_confinement("/usr/bin/g++", {f.src.string()}, f.tmp.string());
  ASSERT_EQ(c.problem, "");
  int pipe_fd[2];
  ASSERT_EQ(::pipe(pipe_fd), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fd[0]);
    std::string wrong;
    if (!enter_landlock(c) || !enter_seccomp(c.seccomp)) ::_exit(2);
    auto expect = [&](const char* what, bool ok) {
      if (!ok) wrong += std::string(what) + "; ";
    };
    // read: the system's headers and libraries, the source's files (a subfolder's too)
    expect("read /usr/include/stdio.h", open_errno("/usr/include/stdio.h", O_RDONLY) == 0);
    expect("read src/header.h", open_errno(f.src / "header.h", O_RDONLY) == 0);
    expect("read src/sub/deeper.h", open_errno(f.src / "sub" / "deeper.h", O_RDONLY) == 0);
    // nothing else: a file beside the source, the user's other files, a hidden one, one made now
    expect("secret.txt refused", open_errno(f.secret, O_RDONLY) == EACCES);
    expect("/etc/passwd refused", open_errno("/etc/passwd", O_RDONLY) == EACCES);
    expect("src/.hidden.h refused", open_errno(f.src / ".hidden.h", O_RDONLY) == EACCES);
    // no device, FIFO or kernel view: refused at the open, before anything could block
    expect("/dev/zero refused", open_errno("/dev/zero", O_RDONLY) == EACCES);
    expect("/dev/null refused", open_errno("/dev/null", O_RDONLY) == EACCES);
    expect("src/fifo refused", open_errno(f.src / "fifo", O_RDONLY) == EACCES);
    expect("a FIFO outside refused", open_errno(f.s.dir / "fifo", O_RDONLY) == EACCES);
    expect("/proc/self/environ refused", open_errno("/proc/self/environ", O_RDONLY) == EACCES);
    // write: only its folder, and only regular files and folders there
    expect("write tmp/out.o", open_errno(f.tmp / "out.o", O_WRONLY | O_CREAT) == 0);
    expect("mkdir tmp/d", ::mkdir((f.tmp / "d").c_str(), 0700) == 0);
    expect("write src/ refused", open_errno(f.src / "new.h", O_WRONLY | O_CREAT) == EACCES);
    expect("write the secret refused", open_errno(f.secret, O_WRONLY) == EACCES);
    expect("mkfifo in tmp refused", ::mkfifo((f.tmp / "f").c_str(), 0600) != 0);
    expect("symlink in tmp refused", ::symlink("/etc/passwd", (f.tmp / "l").c_str()) != 0);
    // no network of any kind
    expect("TCP socket refused", ::socket(AF_INET, SOCK_STREAM, 0) < 0);
    expect("UDP socket refused", ::socket(AF_INET6, SOCK_DGRAM, 0) < 0);
    expect("Unix socket refused", ::socket(AF_UNIX, SOCK_STREAM, 0) < 0);
    if (::write(pipe_fd[1], wrong.data(), wrong.size()) < 0) ::_exit(3);
    ::_exit(wrong.empty() ? 0 : 1);
  }
  ::close(pipe_fd[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) said.append(buf, n);
  ::close(pipe_fd[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << ": " << said;
  EXPECT_EQ(said, "");
  // A file made after the rules were built stays closed to the compile as well.
  std::ofstream(f.src / "later.h") << "#define LATER 1\n";
  const pid_t p2 = ::fork();
  if (p2 == 0) {
    if (!enter_landlock(c)) ::_exit(2);
    ::_exit(open_errno(f.src / "later.h", O_RDONLY) == EACCES ? 0 : 1);
  }
  ASSERT_EQ(::waitpid(p2, &status, 0), p2);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "later.h readable";
}

RecordResult record_in(const CompileFolders& f, const std::string& source) {
  std::ofstream(f.src / "k.cu") << source;
  RecordRequest q;
  q.source = source;
  q.file_name = (f.src / "k.cu").string();
  q.kernel = std::string("k");
  q.block[0] = 32;
  q.timeout_s = 60;
  return record_on_cpu(q);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// `.incbin` assembled through a macro-built token (no `asm` for the name check to see): the bytes
// of FILE become the values the kernel stores into shared memory, which the recording carries.
std::string incbin_kernel(const std::string& file) {
  return "#define GLUE(a, b) a##b\n"
         "GLUE(__as, m__)(\".section .rodata\\n.globl bv_bytes\\nbv_bytes: .incbin \\\"" +
         file +
         "\\\"\\n.byte 0\\n.text\");\n"
         "extern \"C\" const char bv_bytes[];\n"
         "__global__ void k()\n{\n  __shared__ int s[32];\n"
         "  s[threadIdx.x] = bv_bytes[threadIdx.x % 8];\n}\n";
}

bool carries(const RecordResult& r, const std::string& text) {
  if (!r.recording) return r.error.find(text) != std::string::npos;
  std::string values;
  for (const RecordedAccess& a : r.recording->accesses)
    if (a.thread < 8) values += static_cast<char>(a.value);
  return values.find(text) != std::string::npos;
}

TEST(Contain, AnIncbinReadsOnlyTheSourcesFolder) {
  if (record_compiler().empty()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  std::string why;
  if (landlock_abi(&why) == 0) GTEST_SKIP() << "no Landlock here: " << why;
  CompileFolders f;
  // The user's file outside the source's folder, by absolute path and climbing from it.
  for (const std::string& name : {f.secret.string(), std::string("../secret.txt")}) {
    const RecordResult r = record_in(f, incbin_kernel(name));
    EXPECT_FALSE(r.recording) << name;
    EXPECT_FALSE(carries(r, "TOP-SECR")) << name << ": " << r.error;
    EXPECT_NE(r.error.find("secret.txt"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("the host compiler runs contained"), std::string::npos) << r.error;
  }
  // A file of the source's folder may be read: the recording carries its first bytes.
  std::ofstream(f.src / "table.bin") << "TABLE-01";
  const RecordResult ok = record_in(f, incbin_kernel((f.src / "table.bin").string()));
  ASSERT_TRUE(ok.recording) << ok.error;
  EXPECT_TRUE(carries(ok, "TABLE-01"));
}

TEST(Contain, AFifoOrDeviceNamedByAMacroOrPragmaEndsTheCompileAtOnce) {
  if (record_compiler().empty()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  std::string why;
  if (landlock_abi(&why) == 0) GTEST_SKIP() << "no Landlock here: " << why;
  CompileFolders f;
  const std::string fifo = (f.s.dir / "fifo").string(), near = (f.src / "fifo").string();
  const std::string body =
      "__global__ void k()\n{\n  __shared__ int s[32];\n  s[threadIdx.x] = 1;\n}\n";
  const std::vector<std::string> sources = {
      "#if __has_include(\"" + fifo + "\")\n#endif\n" + body,
      "#if __has_include(\"" + near + "\")\n#endif\n" + body,
      "#pragma GCC dependency \"" + fifo + "\"\n" + body,
      "_Pragma(\"GCC dependency \\\"" + near + "\\\"\")\n" + body,
      "#define F(x) #x\n#define S(x) F(x)\n#define P " + fifo + "\n#include S(P)\n" + body,
      "#define D </dev/zero>\n#include D\n" + body,
      "#define Z(a, b) a##b\n#define N(x) #x\n#define M(x) N(x)\n#include M(/dev/Z(ze, ro))\n" +
          body};
  for (const std::string& src : sources) {
    const auto start = std::chrono::steady_clock::now();
    const RecordResult r = record_in(f, src);
    // The compiler may find the name missing (a false __has_include) or say it cannot read it;
    // it never waits on it.
    EXPECT_LT(seconds_since(start), 15.0) << src;
    if (!r.recording) {
      EXPECT_EQ(r.error.find("did not finish"), std::string::npos) << r.error;
    }
  }
}

#if BANKVIZ_HAVE_CUDA
// NVRTC's include look-ups (the GPU recording's and profile's compile of the user's file) under
// the same rules: a macro-built include of a FIFO, of /dev/zero or of a file outside the source's
// folder fails at once, in NVRTC's process; a header of the source's folder and CUDA's own are
// read; bankviz's generated kernels compile in this process as before.
TEST(Contain, NvrtcReadsOnlyTheSourcesFolderAndCudasHeaders) {
  std::string why;
  if (landlock_abi(&why) == 0) GTEST_SKIP() << "no Landlock here: " << why;
  CompileFolders f;
  const auto compile_in = [&](const std::string& text) {
    KernelSource k;
    k.text = text;
    k.file_name = (f.src / "k.cu").string();
    k.kernel_name = "k";
    return detail::compile(k, "sm_90");
  };
  const std::string body =
      "__global__ void k(int* o) { __shared__ int s[32]; s[threadIdx.x] = "
      "threadIdx.x; __syncthreads(); o[0] = s[31 - threadIdx.x]; }\n";
  const detail::CompileOutcome plain = compile_in("#include <cuda_fp16.h>\n" + body);
  if (!plain.compiled && plain.error.find("NVRTC") != std::string::npos &&
      plain.error.find("not installed") != std::string::npos)
    GTEST_SKIP() << plain.error;
  ASSERT_TRUE(plain.compiled) << plain.error;
  const detail::CompileOutcome header =
      compile_in("#define H(x) #x\n#define HH(x) H(x)\n#include HH(" +
                 (f.src / "header.h").string() + ")\n#if FROM_HEADER\n" + body + "#endif\n");
  EXPECT_TRUE(header.compiled) << header.error;
  const std::string fifo = (f.s.dir / "fifo").string(), near = (f.src / "fifo").string();
  for (const std::string& bad :
       {"#define S(x) #x\n#define P(x) S(x)\n#include P(" + fifo + ")\n",
        "#define S(x) #x\n#define P(x) S(x)\n#include P(" + near + ")\n",
        std::string("#define Z(a, b) a##b\n#define N(x) #x\n#define M(x) N(x)\n#include "
                    "M(/dev/Z(ze, ro))\n"),
        "#define S(x) #x\n#define P(x) S(x)\n#include P(" + f.secret.string() + ")\n",
        "#if __has_include(\"" + fifo + "\")\n#error found\n#endif\n#include \"" +
            f.secret.string() + "\"\n"}) {
    const auto start = std::chrono::steady_clock::now();
    const detail::CompileOutcome c = compile_in(bad + body);
    EXPECT_LT(seconds_since(start), 15.0) << bad;
    EXPECT_FALSE(c.compiled) << bad;
    EXPECT_EQ(c.error.find("TOP-SECRET"), std::string::npos) << c.error;
    EXPECT_EQ(c.log.find("TOP-SECRET"), std::string::npos) << c.log;
    EXPECT_EQ(c.error.find("did not finish"), std::string::npos) << c.error;
  }
}
#endif

// Where this Linux has no Landlock (a container's system-call filter refuses it), the compile is
// refused in words, with the way to compile anyway: tried here in a child process whose own
// seccomp filter makes landlock_create_ruleset fail with ENOSYS, as a kernel without it does.
TEST(Contain, WithoutLandlockTheCompileIsRefusedInWords) {
  if (record_compiler().empty()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::unsetenv("BANKVIZ_RECORD_UNCONTAINED");
    const std::vector<sock_filter> no_landlock = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    if (!enter_seccomp(no_landlock)) ::_exit(3);
    const RecordResult r = sandboxed_record(
        "__global__ void k(int* d)\n{\n  __shared__ int s[32];\n  s[threadIdx.x] = "
        "d[threadIdx.x];\n}\n",
        {std::nullopt});
    const std::string said = r.recording ? std::string("recorded") : r.error;
    if (::write(fds[1], said.data(), said.size()) < 0) ::_exit(4);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    said.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(said.find("cannot contain the host compiler (this Linux kernel has no Landlock"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("not compiled (BANKVIZ_RECORD_UNCONTAINED=1 compiles it without containment"),
            std::string::npos)
      << said;
}

TEST(Contain, ConstexprAndTemplateBombsStopWithinSeconds) {
  if (record_compiler().empty()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  std::string why;
  if (landlock_abi(&why) == 0) GTEST_SKIP() << "no Landlock here: " << why;
  CompileFolders f;
  const std::string body =
      "__global__ void k()\n{\n  __shared__ int s[32];\n  s[threadIdx.x] = 1;\n}\n";
  const std::vector<std::string> bombs = {
      // a loop of a billion steps, evaluated at compile time
      "constexpr long f(long n) { long s = 0; for (long i = 0; i < n; ++i) s += i; return s; }\n"
      "static_assert(f(1000000000L) > 0);\n",
      // exponential recursion
      "constexpr long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
      "static_assert(fib(60) > 0);\n",
      // a large array filled at compile time
      "struct A { int v[1 << 24]; };\n"
      "constexpr A make() { A a{}; for (int i = 0; i < (1 << 24); ++i) a.v[i] = i; return a; }\n"
      "constexpr A big = make();\n"};
  for (const std::string& b : bombs) {
    const auto start = std::chrono::steady_clock::now();
    const RecordResult r = record_in(f, b + body);
    EXPECT_LT(seconds_since(start), 15.0) << b;
    EXPECT_FALSE(r.recording) << b;
    EXPECT_NE(r.error.find("constexpr"), std::string::npos) << r.error;
  }
}

}  // namespace
}  // namespace bankviz

namespace bankviz {
namespace {

// ---- Honest, bounded reasons when the kernel's process ends before its block does -------------

RecordResult record_kernel(const std::string& prelude, const std::string& body) {
  RecordRequest q;
  q.source = prelude + "__global__ void k(int *d)\n{\n  __shared__ int s[32];\n" + body +
             "  s[threadIdx.x] = d[threadIdx.x];\n}\n";
  q.file_name = "k.cu";
  q.kernel = std::string("k");
  q.block[0] = 32;
  q.timeout_s = 60;
  return record_on_cpu(q);
}

// Whether a seccomp filter this test runs under (a container's) ends a process that makes an x32
// system call: a kill outranks the recording's trap, so the recording cannot name the call there.
bool outer_filter_kills_x32() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::syscall(0x40000000L + 39);  // x32 getpid: a pid, or ENOSYS where x32 is not built in
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS;
}

TEST(Sandbox, EachWayAKernelEndsItsProcessIsNamed) {
  if (record_compiler().empty()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  if (const SandboxFilter f = recording_filter(); !f.problem.empty()) GTEST_SKIP() << f.problem;
  struct Case {
    const char *name, *prelude, *body, *said;
  };
  const Case cases[] = {
      {"an 8 MB local array", "",
       "  volatile char big[8 << 20];\n  big[threadIdx.x] = 1;\n  d[0] = big[1];\n",
       "overflowed its 128 KB stack"},
      {"a recursion too deep",
       "__device__ int down(int n) { volatile char pad[512]; pad[0] = (char)n; "
       "return n ? down(n - 1) + pad[0] : 0; }\n",
       "  d[1] = down(1000000);\n", "overflowed its 128 KB stack"},
      {"std::thread", "#include <thread>\n",
       "  if (threadIdx.x == 0) { std::thread t([] {}); t.join(); }\n",
       "tried to start a thread (std::thread)"},
      {"memory", "#include <new>\n",
       "  if (threadIdx.x == 0) { char *p = new char[size_t{3} << 30]; p[0] = 1; d[2] = p[0]; }\n",
       "ran out of memory"},
      {"exit(0)", "#include <cstdlib>\n", "  if (threadIdx.x == 3) exit(0);\n",
       "exit() was called inside the kernel, by thread 3"},
      {"exit(7)", "#include <cstdlib>\n", "  if (threadIdx.x == 0) exit(7);\n", "exit status 7"},
      {"the kernel's own words", "#include <cstdio>\n#include <cstdlib>\n",
       "  if (threadIdx.x == 0) { fprintf(stderr, \"my own reason\\n\"); abort(); }\n",
       "my own reason"},
      // Named by the recording's trap; where an outer filter kills it first, said as that.
      {"an x32 system call", "#include <unistd.h>\n",
       "  if (threadIdx.x == 0) d[3] = (int)syscall(0x40000000L + 39);\n",
       outer_filter_kills_x32()
           ? "(signal 31, Bad system call): a system call that the seccomp filter bankviz-cli "
             "itself runs under"
           : "system call 1073741863 of another ABI (x32?), which the recording refuses"},
  };
  for (const Case& c : cases) {
    const RecordResult r = record_kernel(c.prelude, c.body);
    EXPECT_FALSE(r.recording) << c.name;
    EXPECT_NE(r.error.find(c.said), std::string::npos) << c.name << ": " << r.error;
  }
}

TEST(Sandbox, AFloodOfErrorOutputMakesAShortMessage) {
  if (record_compiler().empty()) GTEST_SKIP() << "no host C++ compiler: no CPU recording here";
  if (const SandboxFilter f = recording_filter(); !f.problem.empty()) GTEST_SKIP() << f.problem;
  // 90 MB without a newline, then a crash.
  const RecordResult r = record_kernel(
      "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\nstatic char bv_x[1 << 20];\n",
      "  if (threadIdx.x == 0) { memset(bv_x, 'x', sizeof bv_x); for (int i = 0; i < 90; ++i) "
      "fwrite(bv_x, 1, sizeof bv_x, stderr); exit(1); }\n");
  ASSERT_FALSE(r.recording);
  EXPECT_LT(r.error.size(), 4096u) << r.error.substr(0, 300);
  EXPECT_NE(r.error.find("exit status 1"), std::string::npos) << r.error.substr(0, 300);
  EXPECT_NE(r.error.find("bytes before not shown"), std::string::npos) << r.error.substr(0, 300);
}

}  // namespace
}  // namespace bankviz
