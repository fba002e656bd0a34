// sandbox.h: the confinement of the CPU recording's process (record.cpp), a seccomp allow-list
// built with Debian's libseccomp. Not part of kernels/'s public headers.
//
// The recording is the user's kernel compiled for the host and linked statically, so no dynamic
// loader has to open a file; the filter is installed in the forked child just before execve
// (it persists across exec), so nothing of the user's code runs unconfined. It allows only what a
// static C++ program with fibers uses: reading and writing descriptors it already has, memory,
// signal masks and handlers, futexes, clocks and sleeps, getrandom, exiting, and the one execve
// (whatever that execs inherits the filter). Every other system call fails with EPERM: open,
// unlink, rename, socket, fork, clone, kill, ptrace, ioctl, stat of a path, ...
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

namespace bankviz {

// A seccomp program built in the parent (libseccomp allocates; after fork only prctl runs).
struct SandboxFilter {
  std::vector<sock_filter> program;  // empty when `problem` says why there is none
  std::string problem;
};

// The recording's allow-list, or why it cannot be built (bankviz built without libseccomp, an
// architecture libseccomp does not know).
SandboxFilter recording_filter();

// In a forked child, before execve; async-signal-safe (prctl and close_range only). Sets
// no_new_privs and installs the filter; false when the kernel refuses (no CONFIG_SECCOMP_FILTER,
// a container's profile that forbids it): then the child must run nothing.
bool enter_sandbox(const SandboxFilter& filter);

// ---- Landlock (contain.cpp) ---------------------------------------------------------------------
// The host compiler runs contained too: a Landlock ruleset (Linux 5.13+, no privilege needed)
// lets it, and every process it starts,
//   read, list and execute  /usr, /lib*, /bin, /sbin (the compiler's own files, the system's
//                           headers and libraries), /etc/ld.so.cache, and the installation folder
//                           of a compiler outside /usr (BANKVIZ_RECORD_CXX);
//   read                    each regular file under the source's folders (the folder and its
//                           folders to kSourceDepth levels, hidden names skipped, kMaxSourceFiles
//                           files in all), one rule per file: no FIFO, device or socket there;
//   read and write          its temporary folder (make, write, remove files and folders; no
//                           device, FIFO, socket or link made);
// and nothing else: no other file, no device (not /dev/zero, not /dev/null), no FIFO, no /proc;
// no TCP (Landlock ABI 4), no abstract Unix socket, no signal to another process (ABI 6). Its
// seccomp filter refuses every socket (UDP and Unix too), mknod, ptrace, namespaces, mount, BPF.
// The recording's run gets a ruleset that allows only the recording's own file (its execve),
// beside the seccomp allow-list above.
inline constexpr int kMaxSourceFiles = 4096;
inline constexpr int kSourceDepth = 4;

// The Landlock ABI of this kernel (1, 2, ...), or 0 with *why (none, not enabled, refused).
int landlock_abi(std::string* why);

// A process's confinement, built in the parent (a Landlock ruleset descriptor, a seccomp program)
// and entered by the child before execve.
struct Confinement {
  int landlock = -1;                 // the ruleset; -1: none
  int abi = 0;                       // its Landlock ABI
  std::vector<sock_filter> seccomp;  // installed last (it may refuse what entering needs)
  std::string problem;               // why it cannot be confined: then nothing may run
  Confinement() = default;
  Confinement(Confinement&& o) noexcept;
  Confinement(const Confinement&) = delete;
  Confinement& operator=(const Confinement&) = delete;
  ~Confinement();
};

// The compile's: `cxx` the compiler (its installation folder when outside /usr), `sources` the
// folders whose files it may read (the source's folder, include folders), `scratch` the one folder
// it may write. problem is set when Landlock is missing: the compile must then not run contained.
Confinement compile_confinement(const std::string& cxx, const std::vector<std::string>& sources,
                                const std::string& scratch);

// NVRTC's (the GPU recording's and profile's compile of the user's source, compiler.cpp, in a
// forked process of its own): read and list /usr, /lib*, /etc/ld.so.cache and the `toolkit`
// folders (CUDA's headers, NVRTC's libraries); read each regular file under `sources` as the
// compile's rules do; write nothing, open no device, FIFO or /proc file; the compile's seccomp
// filter (no socket). problem is set when Landlock is missing (the seccomp filter is still there
// when libseccomp is).
Confinement nvrtc_confinement(const std::vector<std::string>& toolkit,
                              const std::vector<std::string>& sources);

// The run's: the seccomp allow-list (problem set without it), and Landlock where the kernel has
// it, allowing only `exe`.
Confinement run_confinement(const std::string& exe, const SandboxFilter& filter);

// In the child, async-signal-safe: no_new_privs and the Landlock ruleset (true when there is none).
// Before descriptors are closed (the ruleset is one) and before the seccomp filter.
bool enter_landlock(const Confinement& c);

// In the child, async-signal-safe: the seccomp program (true when there is none).
bool enter_seccomp(const std::vector<sock_filter>& program);

// In a forked child: closes every descriptor from `first` on (what the parent had open, a
// settings file, a socket of the app, must not reach the user's code).
void close_descriptors_from(int first);

// The compile's side of it: empty unless an #include (or #include_next, #import) of the user's
// source, in its "quoted" or <angled> form, names something that is not a regular file where a
// compiler could look for it (an absolute path; relative to each folder in `roots`: the source's
// folder, the working directory, the -I folders; and, for a name that climbs with .., from /):
// a device (/dev/zero), a FIFO, a directory, a socket, or a file of /proc or /sys. Then says which
// line and why. Such an include would have the compiler read until its time or memory limit (or
// forever, on a FIFO nobody writes); an include computed by a macro (#include NAME) cannot be
// seen here and keeps only those limits.
std::string include_problem(const std::string& source, const std::vector<std::string>& roots);

// Empty unless the source holds a #line directive (or a GNU line marker, `# 12 "f"`): then says
// which line. The recordings name each access by its line in the file as written; a #line (up to
// 4000000000) would give lines the file does not have.
std::string line_directive_problem(const std::string& source);

}  // namespace bankviz
