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
// standard output and error captured (each up to max_bytes). Killed (SIGKILL) after timeout_s or
// as soon as *cancel is true; always waited for.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, size_t max_bytes,
                          const std::atomic<bool>* cancel = nullptr);

// bankviz-cli beside the running program (/proc/self/exe's directory: the build tree and an
// install both put them together), or $BANKVIZ_CLI when set.
std::string cli_path();

}  // namespace bankviz::gui
