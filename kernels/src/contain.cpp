// contain.cpp: the CPU recording's compile and run contained by Linux Landlock (sandbox.h).
//
// Landlock (Linux 5.13+, in-kernel, no privilege) is built here as a ruleset in the parent and
// entered by the child just before execve; it persists across exec and is inherited by every
// process the child starts (the compiler's cc1plus, as, collect2, ld). Landlock decides on opening
// a file, before a FIFO or a device could block or stream: a FIFO or device the rules do not name
// cannot be opened at all. The compile gets, besides, a small seccomp filter that refuses sockets
// (Landlock's network rules cover only TCP) and a few calls no compiler makes.
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>

#include "sandbox.h"

#if BANKVIZ_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace bankviz {

namespace {

// Debian 12's linux-libc-dev (6.1) names Landlock's rights up to ABI 2; the later ones by value.
constexpr uint64_t kFsTruncate = 1ull << 14;  // ABI 3
constexpr uint64_t kFsIoctlDev = 1ull << 15;  // ABI 5
constexpr uint64_t kNetBindTcp = 1ull << 0;   // ABI 4
constexpr uint64_t kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnix = 1ull << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ull << 1;

// The ruleset's attributes as the newest kernels read them; an older kernel reads the prefix it
// knows (and refuses nonzero fields it does not know, which are left 0 below).
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

struct PathBeneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

constexpr uint64_t kRead = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr uint64_t kReadFile = LANDLOCK_ACCESS_FS_READ_FILE;
constexpr uint64_t kExecute = LANDLOCK_ACCESS_FS_EXECUTE;

// Every file-system right of an ABI.
uint64_t fs_rights(int abi) {
  uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) r |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) r |= kFsTruncate;
  if (abi >= 5) r |= kFsIoctlDev;
  return r;
}

// What the temporary folder allows: everything a compiler and linker do with files, no device,
// FIFO, socket or link made there.
uint64_t scratch_rights(int abi) {
  uint64_t r = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
               LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
               LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
               LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG;
  if (abi >= 2) r |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) r |= kFsTruncate;
  return r;
}

// A rule allowing `rights` beneath `path` (a folder) or on it (a file: only a file's rights).
// False when the path cannot be opened (it does not exist: nothing to allow).
bool allow(int ruleset, const std::string& path, uint64_t rights) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  if (!S_ISDIR(st.st_mode))
    rights &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
              LANDLOCK_ACCESS_FS_READ_FILE | kFsTruncate;
  const PathBeneath rule{rights, fd};
  const long rc = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  ::close(fd);
  return rc == 0;
}

// The regular files under `folder` (itself, and its folders to `depth` levels, no hidden name),
// each allowed for reading by a rule of its own: a FIFO, device or socket there, or a file made
// later, stays closed. At most `budget` files in all.
void allow_files_under(int ruleset, const std::filesystem::path& folder, int depth, int* budget) {
  std::error_code ec;
  std::filesystem::directory_iterator it(folder, ec), end;
  for (; !ec && it != end && *budget > 0; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    const auto type = it->symlink_status(ec).type();
    if (type == std::filesystem::file_type::regular) {
      if (allow(ruleset, it->path().string(), kReadFile)) --*budget;
    } else if (type == std::filesystem::file_type::directory && depth > 0) {
      allow_files_under(ruleset, it->path(), depth - 1, budget);
    }
  }
}

int make_ruleset(int abi, std::string* problem) {
  RulesetAttr attr;
  attr.handled_access_fs = fs_rights(abi);
  if (abi >= 4) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;  // no rule: none allowed
  if (abi >= 6) attr.scoped = kScopeAbstractUnix | kScopeSignal;         // only its own processes
  const long fd = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0) *problem = std::string("landlock_create_ruleset: ") + std::strerror(errno);
  return static_cast<int>(fd);
}

// Every confinement's start: the kernel's Landlock ABI and a ruleset handling every right, with
// the system's folders `system` allowed `system_rights` and the dynamic loader's list of
// libraries read. False (with c.problem) when Landlock cannot be used here.
bool start_ruleset(Confinement& c, std::initializer_list<const char*> system,
                   uint64_t system_rights) {
  std::string why;
  c.abi = landlock_abi(&why);
  if (c.abi == 0) {
    c.problem = why;
    return false;
  }
  c.landlock = make_ruleset(c.abi, &c.problem);
  if (c.landlock < 0) return false;
  for (const char* p : system) allow(c.landlock, p, system_rights);
  if (system.size() > 0) allow(c.landlock, "/etc/ld.so.cache", kReadFile);
  return true;
}

// The user's source folders: their regular files read, at most kMaxSourceFiles in all.
void allow_sources(const Confinement& c, const std::vector<std::string>& sources) {
  int budget = kMaxSourceFiles;
  for (const std::string& s : sources)
    if (!s.empty()) allow_files_under(c.landlock, s, kSourceDepth, &budget);
}

// The installation folder of a compiler outside /usr (BANKVIZ_RECORD_CXX=/opt/gcc-14/bin/g++:
// /opt/gcc-14, for its libexec, lib and include), or its own folder when that is not named bin.
std::string compiler_prefix(const std::string& cxx) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(cxx, ec);
  if (ec) return {};
  const std::filesystem::path dir = real.parent_path();
  if (dir.filename() != "bin") return dir.string();
  const std::filesystem::path prefix = dir.parent_path();
  const char* home = std::getenv("HOME");
  if (prefix == "/" || (home && prefix == std::filesystem::path(home))) return dir.string();
  return prefix.string();
}

#if BANKVIZ_HAVE_SECCOMP
// The compile's seccomp filter: everything a compiler does is allowed, these fail with EPERM: no
// socket (so no network, UDP and Unix sockets included), no device or FIFO made, no other process
// traced or read, no new namespace, mount, key or BPF program.
std::vector<sock_filter> compile_filter(std::string* problem) {
  std::vector<sock_filter> program;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    *problem = "libseccomp cannot make a filter";
    return program;
  }
  const int refused[] = {SCMP_SYS(socket),
                         SCMP_SYS(socketpair),
                         SCMP_SYS(connect),
                         SCMP_SYS(bind),
                         SCMP_SYS(ptrace),
                         SCMP_SYS(process_vm_readv),
                         SCMP_SYS(process_vm_writev),
                         SCMP_SYS(mknod),
                         SCMP_SYS(mknodat),
                         SCMP_SYS(unshare),
                         SCMP_SYS(setns),
                         SCMP_SYS(mount),
                         SCMP_SYS(keyctl),
                         SCMP_SYS(add_key),
                         SCMP_SYS(request_key),
                         SCMP_SYS(bpf),
                         SCMP_SYS(perf_event_open),
                         SCMP_SYS(userfaultfd),
                         SCMP_SYS(io_uring_setup)};
  bool ok = true;
  for (int nr : refused)
    if (nr >= 0) ok = ok && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) == 0;
  const int fd = ::memfd_create("bankviz-seccomp-cc", MFD_CLOEXEC);
  if (ok && fd >= 0 && seccomp_export_bpf(ctx, fd) == 0) {
    const off_t size = ::lseek(fd, 0, SEEK_END);
    if (size > 0 && size % static_cast<off_t>(sizeof(sock_filter)) == 0 && size < (1 << 20)) {
      program.resize(static_cast<size_t>(size) / sizeof(sock_filter));
      if (::pread(fd, program.data(), static_cast<size_t>(size), 0) != size) program.clear();
    }
  }
  if (fd >= 0) ::close(fd);
  seccomp_release(ctx);
  if (program.empty()) *problem = "libseccomp cannot export the compile's filter";
  return program;
}
#endif

}  // namespace

int landlock_abi(std::string* why) {
  const long abi =
      ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi > 0) return static_cast<int>(abi);
  if (why)
    *why = errno == ENOSYS ? "this Linux kernel has no Landlock (5.13 or later is needed)"
           : errno == EOPNOTSUPP
               ? "Landlock is built into this Linux kernel but not enabled (its lsm= list)"
               : std::string("Landlock cannot be used here: ") + std::strerror(errno) +
                     " (a container's system-call filter?)";
  return 0;
}

Confinement::~Confinement() {
  if (landlock >= 0) ::close(landlock);
}

Confinement::Confinement(Confinement&& o) noexcept
    : landlock(o.landlock),
      abi(o.abi),
      seccomp(std::move(o.seccomp)),
      problem(std::move(o.problem)) {
  o.landlock = -1;
}

Confinement compile_confinement(const std::string& cxx, const std::vector<std::string>& sources,
                                const std::string& scratch) {
  Confinement c;
  // The compiler's own files and the system's headers and libraries: read, list and run.
  if (!start_ruleset(c, {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"},
                     kRead | kExecute))
    return c;
  if (const std::string prefix = compiler_prefix(cxx); !prefix.empty())
    allow(c.landlock, prefix, kRead | kExecute);
  if (!allow(c.landlock, scratch, scratch_rights(c.abi))) {
    c.problem = "cannot name the temporary folder '" + scratch + "' in the rules";
    return c;
  }
  allow_sources(c, sources);
#if BANKVIZ_HAVE_SECCOMP
  c.seccomp = compile_filter(&c.problem);
#else
  c.problem = "bankviz was built without libseccomp (libseccomp-dev)";
#endif
  return c;
}

Confinement nvrtc_confinement(const std::vector<std::string>& toolkit,
                              const std::vector<std::string>& sources) {
  Confinement c;
#if BANKVIZ_HAVE_SECCOMP
  c.seccomp = compile_filter(&c.problem);
#endif
  // The system's headers and libraries, NVRTC's own (its builtins library, loaded at the first
  // compile) and CUDA's headers: read and list. Nothing may be written anywhere.
  if (!start_ruleset(c, {"/usr", "/lib", "/lib64", "/lib32", "/libx32"}, kRead)) return c;
  for (const std::string& t : toolkit) {
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(t, ec);
    if (!ec) allow(c.landlock, real.string(), kRead);
  }
  allow_sources(c, sources);
  return c;
}

Confinement run_confinement(const std::string& exe, const SandboxFilter& filter) {
  Confinement c;
  c.seccomp = filter.program;
  if (c.seccomp.empty()) {
    c.problem = filter.problem.empty() ? "no seccomp filter" : filter.problem;
    return c;
  }
  // Landlock beside the allow-list where the kernel has it: only the recording itself may be
  // opened (by its execve), nothing else of any file system. Without Landlock the allow-list,
  // which refuses every call that names a path, is the confinement.
  if (start_ruleset(c, {}, 0) && !allow(c.landlock, exe, kReadFile | kExecute)) {
    ::close(c.landlock);
    c.landlock = -1;
  }
  c.problem.clear();  // the filter confines it alone
  return c;
}

bool enter_landlock(const Confinement& c) {
  if (c.landlock < 0) return true;
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         ::syscall(SYS_landlock_restrict_self, c.landlock, 0) == 0;
}

}  // namespace bankviz
