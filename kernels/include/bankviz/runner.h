// runner.h: compile the generated kernel with NVRTC, run it on the GPU that is present, verify its
// output against the CPU evaluation, and time it. Every failure is a value, never a crash.
//
// The CUDA driver is opened at run time (dlopen of libcuda.so.1), so the program starts and the
// model works on a machine with no GPU or driver; the run then reports "no CUDA device" with the
// driver's own reason. Built without the CUDA toolkit, every run reports that instead.
//
// This is the facade of kernels/; its vocabulary (the options, results and statuses, and the
// functions that need no Runner) is run_types.h, which the files below it include instead.
#pragma once

#include <memory>
#include <string>

#include "bankviz/run_types.h"

namespace bankviz {

struct ProfileRequest;
struct ProfileResult;

// Owns the CUDA context and the loaded modules (a bounded cache: the least recently used are
// unloaded between runs). Not thread-safe: use one Runner per worker thread. A sticky CUDA error (a
// kernel fault) destroys the context; the next run makes a new one, so the caller can always try
// again.
class Runner {
 public:
  Runner();
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Opens the driver and the first device on first use. present=false with reason when none.
  DeviceInfo device(std::string* reason = nullptr);
  RunResult run(const Scenario& s, const RunOptions& o = {});
  // A user's own kernel, per source line from the hardware (profile.h).
  ProfileResult profile(const ProfileRequest& req);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace bankviz
