// launcher.h (internal, CUDA builds only): launching a generated kernel and timing it with
// events, under the watchdog.
//
// One Launcher serves a whole run: it owns the output buffer and the two events, counts the
// launches (ncu numbers kernels in launch order, StepTiming::measured_launch), and keeps the
// run's first failed driver call. Every wait for the GPU polls an event through
// wait_with_timeout() (run_types.h); when a wait gives up, timed_out() is set and the kernel may
// still be running: the caller must reset the context (abandon() first: freeing would wait).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <vector>

#include "driver.h"

namespace bankviz::detail {

// The launch shape: the kernel, its block and its dynamic shared memory.
struct LaunchShape {
  CUfunction fn = nullptr;
  int64_t block[3] = {1, 1, 1};
  unsigned dyn_bytes = 0;
  uint32_t warps = 0;  // exposed mode: the lesson's warps that run (a kernel argument)
};

// Waits for an event under the watchdog (wait_with_timeout, run_types.h): true when it completed;
// else the failure (or CUDA_ERROR_LAUNCH_TIMEOUT, with *timed_out set) goes to st.
bool wait_for_event(DriverStatus& st, const Event& e, double timeout_ms, bool* timed_out);

class Launcher {
 public:
  explicit Launcher(double timeout_ms) : timeout_ms_(timeout_ms) {}

  // The output buffer (values of 32 bits) and the two events; `input`, when not empty, is
  // copied to the device and passed right after `out` (a kernel with cp.async, codegen.h).
  bool prepare(size_t out_values, const std::vector<uint32_t>& input = {});
  void set_shape(const LaunchShape& shape) { shape_ = shape; }

  // Blocks of `block_threads` threads of fn, with dyn bytes of dynamic shared memory, that one
  // SM holds at once (the occupancy API; at least 1, a failure recorded).
  int blocks_per_sm(CUfunction fn, int64_t block_threads, int64_t dyn_bytes);

  // Events around `count` launches: milliseconds, or -1 on error.
  double timed(int64_t grid, int measure, int reps, int count);
  // Poisons the output, launches once, waits, copies `host.size()` values back.
  bool run_once(int64_t grid, int measure, int reps, std::vector<uint32_t>& host);

  DriverStatus& status() { return status_; }
  bool ok() const { return status_.ok(); }
  bool timed_out() const { return timed_out_; }
  int launches() const { return launches_; }  // launched so far in this run

  // Frees the buffer and the events, checked (after a failure: the failure stays the first).
  void release();
  // Forgets them without a call: the context is about to be reset (after a timeout).
  void abandon();

 private:
  bool launch(int64_t grid, int measure, int reps);
  bool wait(const Event& e);  // the watchdog

  LaunchShape shape_;
  DeviceMemory out_, in_;
  CUdeviceptr in_at_ = 0;  // the input inside in_, on a 2 MiB boundary (cp.async sources)
  Event e0_, e1_;
  DriverStatus status_;
  double timeout_ms_ = 10000;
  bool timed_out_ = false;
  int launches_ = 0;
};

}  // namespace bankviz::detail
