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

}  // namespace bankviz
