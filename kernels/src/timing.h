// timing.h (internal): the host side of timing, no CUDA: wall-clock spans, the median of
// repeated event timings, and the watchdog's wait (wait_with_timeout(), run_types.h). The GPU side,
// events around launches, is launcher.h.
#pragma once

#include <chrono>
#include <vector>

namespace bankviz::detail {

// Milliseconds of wall-clock time since t0.
double ms_since(std::chrono::steady_clock::time_point t0);

// The middle value (the upper one of an even count); 0 for none.
double median(std::vector<double> v);

}  // namespace bankviz::detail
