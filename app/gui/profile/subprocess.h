// subprocess.h: running another program (bankviz-cli) and collecting what it prints, bounded.
//
// The app profiles a user's kernel in a bankviz-cli process of its own (docs/PROFILE.md): CUDA
// cannot stop a kernel that never ends, nor recover from a fault, in the process that ran it, but
// the driver frees the GPU when that process ends. So the app survives any kernel a user writes.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace bankviz::gui {

struct ProcessResult {
  bool started = false;    // false: error says why (no such program...)
  int exit_code = -1;      // when it exited by itself
  int signal = 0;          // when a signal ended it
  bool timed_out = false;  // killed at the deadline
  bool canceled = false;   // killed because *cancel became true
  bool truncated = false;  // an output exceeded max_bytes (the rest was read and dropped)
  std::string out, err;
  std::string error;
};

// Runs argv[0] (a path, no shell, no PATH search) with argv, standard input from /dev/null,
// standard output and error captured (each up to max_bytes), in a process group of its own and
// with a TMPDIR of its own (removed afterwards, with whatever was left in it). After timeout_s or
// as soon as *cancel is true its group gets SIGTERM (bankviz-cli then kills what it started and
// removes its temporary files), then SIGKILL 3 s later if it is still there; always waited for.
// The child learns this process's id (BANKVIZ_PARENT_PID): bankviz-cli ends with its parent.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, size_t max_bytes,
                          const std::atomic<bool>* cancel = nullptr);

// Where bankviz-cli may be for an app in `self_dir`, in order: $BANKVIZ_CLI when set, beside the
// app (an install puts both in bin/), one directory up (the build tree: the app is
// app/gui/bankviz, the CLI app/bankviz-cli).
std::vector<std::string> cli_candidates(const std::string& self_dir);

// The first candidate (for /proc/self/exe's directory) that is an executable regular file; empty
// when none is, with *tried listing where it looked.
std::string find_cli(std::string* tried);

}  // namespace bankviz::gui
