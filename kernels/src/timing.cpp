// timing.cpp: wall-clock spans, medians and the watchdog's wait (timing.h, run_types.h).
#include "timing.h"

#include <algorithm>
#include <thread>

#include "bankviz/run_types.h"

namespace bankviz {

namespace detail {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace detail

WaitOutcome wait_with_timeout(const std::function<int()>& query, double timeout_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int polls = 0;; ++polls) {
    const int q = query();
    if (q == 0) return WaitOutcome::Done;
    if (q != 1) return WaitOutcome::Failed;
    if (detail::ms_since(t0) > timeout_ms) return WaitOutcome::TimedOut;
    // Spin briefly (most waits are microseconds), then sleep: events time the GPU, not this loop.
    if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace bankviz
