// contained_run.h: a program run in a process group of its own, bounded and confined (record.cpp):
// the CPU recording's compile and run, and the user's nvcc compile (nvcc.cpp).
#pragma once

#include <sys/resource.h>

#include <cstddef>
#include <string>
#include <vector>

#include "sandbox.h"

namespace bankviz::detail {

// The child's exit status when its confinement cannot be entered (it then runs nothing).
inline constexpr int kUnconfined = 126;

struct Ran {
  bool started = false, timed_out = false, truncated = false;
  int exit_code = -1, signal = 0;
  std::string out, err, error;  // err: only its last 16 KB
  size_t err_dropped = 0;       // bytes of err before those, not kept
};

// What a run may use: CPU seconds, address space, the size of a file it writes (0: none at all),
// and whether it may start processes (a compiler starts cc1plus, as, ld; the kernel nothing).
struct Limits {
  rlim_t cpu_s, memory_bytes, file_bytes;
  bool processes;
};

// argv[0] (a path) run with stdin from /dev/null, stdout and stderr captured up to max_bytes
// each, killed after timeout_s; limited as `lim` says, no descriptor of this process but 0-2 (the
// pipes), TMPDIR set to `tmpdir`, confined by `confine` (Landlock, seccomp; null: not confined).
// The child leads a process group of its own, killed whole at the deadline, when the output grows
// past its bound, once the child has ended, and when a signal ends this program.
Ran run(const std::vector<std::string>& argv, double timeout_s, size_t max_bytes, Limits lim,
        const std::string& tmpdir, const Confinement* confine);

// `name` found on PATH (or the path itself when it has a '/'): a regular file this process may
// execute; "" when none.
std::string find_in_path(const std::string& name);

// The last `lines` lines of a process's error output, for a message (at most 2 KB of one line).
std::string tail(const std::string& s, size_t lines);

// A temporary folder (bankviz-record-XXXXXX in $TMPDIR or /tmp), removed with everything in it
// when this ends and when a signal ends the program (BANKVIZ_RECORD_KEEP=1 keeps it).
struct TempDir {
  std::string path, problem;  // problem: why there is none, in words
  int on_signal = -1;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace bankviz::detail
