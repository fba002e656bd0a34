// run_counters.h (internal, CUDA builds only): a run's hardware counters, read after its timed
// launches in launches of their own (a profiled launch is replayed and serialized: it is never a
// timed one). Written mode: the lesson's launch once. Exposed mode: per step its launch with the
// step repeated twice and its baseline, whose difference is the step once. Each beside the
// present GPU's model, per lesson block (RunResult::written.hw, StepTiming::hw).
#pragma once

#include <memory>

#include "cupti.h"
#include "measure.h"

namespace bankviz::detail {

// `session` is the runner's, kept between runs (building the metric configuration costs more
// than reading): made here on first use in `ctx`, dropped when it failed.
void read_run_counters(Session& run, CUcontext ctx, std::unique_ptr<CounterSession>& session);

}  // namespace bankviz::detail
