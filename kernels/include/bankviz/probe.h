// probe.h: recorded warp accesses (core/records.h) run on the present GPU, one instruction per
// launch, with the hardware's counters for each (counters.h). `bankviz-cli validate` runs the
// committed measured suites through it.
#pragma once

#include <string>
#include <vector>

#include "bankviz/counters.h"
#include "bankviz/records.h"
#include "bankviz/run_types.h"

namespace bankviz {

// Each record (core/records.h) run on the present GPU as exactly one warp-wide instruction (a
// plain record: one load, then one store, as its width; records of atomic suites: one
// atomicAdd; ldmatrix/stmatrix/cp.async as named) in a single-warp launch of a fixed probe
// kernel, the lanes' addresses read from a device buffer (never spliced into code), the
// counters read per launch, many launches per profiler session (tools/hopper-suite/probe.cu and
// tools/matrix-suite/probe.cu measured the committed suites the same way with ncu).
struct ProbeRecord {
  Record record;
  bool atomic = false;  // a plain record run as atomicAdd (4-byte records only)
};
struct ProbeRun {
  CounterStatus status = CounterStatus::NoDevice;
  std::string message;  // counter_problem()'s words when status != Ok
  DeviceInfo device;
  // Per record, in order: ran[i] false when the GPU cannot run it (why[i] says why: an
  // instruction this GPU lacks, an address beyond its shared memory). counters[i]: the launch's
  // counters; for cp.async wavefronts_all less the probe's own shared wavefronts (measured
  // with one lane copying), so that it is the copy's shared writes.
  std::vector<bool> ran;
  std::vector<std::string> why;
  std::vector<SharedCounters> counters;
  std::vector<std::string> missing_metrics;
  size_t passes = 0;  // replay passes per launch
  double ms = 0;      // the whole probe run, compiling included
  double compile_ms = 0;
  std::string note;    // what the probes' own bookkeeping counted (cp.async), for the report
  std::string timing;  // where the last batch's time went (CUPTI's steps)
};
ProbeRun probe_records(const std::vector<ProbeRecord>& records);

}  // namespace bankviz
