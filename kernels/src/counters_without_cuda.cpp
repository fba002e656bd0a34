// counters_without_cuda.cpp: probe_records() in a build without the CUDA toolkit: nothing runs,
// and the run says so (counters.h).
#include "bankviz/probe.h"

namespace bankviz {

ProbeRun probe_records(const std::vector<ProbeRecord>& records) {
  ProbeRun run;
  run.ran.assign(records.size(), false);
  run.why.assign(records.size(), "built without CUDA");
  run.counters.assign(records.size(), {});
  run.status = CounterStatus::NoDevice;
  run.message =
      counter_problem(CounterStatus::NoDevice, "this bankviz was built without the CUDA toolkit");
  return run;
}

}  // namespace bankviz
