// counters.h: the GPU's own shared-memory counters (the ones Nsight Compute reports), read
// through CUPTI, and how they are put beside the model.
//
// CUPTI (the CUDA toolkit's profiling library, libcupti.so) is opened at run time like the
// driver: a program without it, or on a machine whose driver keeps the counters to
// administrators, still runs and times kernels; the counters then come back as a status with the
// reason and the fix in words (CounterStatus, counter_problem()).
//
// Counters are read in launches of their own, after the timed ones (a profiled launch is
// replayed and serialized: timing it would measure the profiler).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/access.h"

namespace bankviz {

// One launch's shared-memory counters, summed over the whole grid, by Nsight Compute's names
// (kCounterMetrics). ldmatrix's wavefronts count in wavefronts_ld, stmatrix's in wavefronts_st;
// cp.async (LDGSTS) has no wavefront counter of its own: its shared writes show only in
// wavefronts_all (every shared wavefront of the launch).
struct SharedCounters {
  int64_t wavefronts_all = 0;   // l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  int64_t wavefronts_ld = 0;    // ..._mem_shared_op_ld.sum (LDS and LDSM)
  int64_t wavefronts_st = 0;    // ..._mem_shared_op_st.sum (STS and STSM)
  int64_t wavefronts_atom = 0;  // ..._mem_shared_op_atom.sum
  int64_t conflicts_ld = 0;     // l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  int64_t conflicts_st = 0;
  int64_t conflicts_atom = 0;
  int64_t conflicts_ldgsts = 0;
  int64_t inst_ld = 0;      // smsp__inst_executed_op_shared_ld.sum: warp instructions
  int64_t inst_st = 0;      // smsp__inst_executed_op_shared_st.sum
  int64_t inst_atom = 0;    // smsp__inst_executed_op_shared_atom.sum
  int64_t inst_ldsm = 0;    // smsp__inst_executed_op_ldsm.sum
  int64_t inst_stsm = 0;    // smsp__inst_executed_op_shared_stsm.sum
  int64_t inst_ldgsts = 0;  // smsp__inst_executed_op_ldgsts.sum

  SharedCounters& operator-=(const SharedCounters& o);
  friend SharedCounters operator-(SharedCounters a, const SharedCounters& b) { return a -= b; }
  bool operator==(const SharedCounters&) const = default;
};

// The metrics read, each with where its value goes. A metric this GPU does not know is left at
// 0 and named in CounterRun::missing.
struct CounterMetric {
  const char* name;  // "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
  int64_t SharedCounters::*field;
};
const std::vector<CounterMetric>& counter_metrics();

// Why counters could not be read. Timing never depends on them.
enum class CounterStatus {
  Ok,
  Off,           // not asked for (--no-counters)
  NoCupti,       // libcupti could not be opened (or lacks the profiling API)
  NotPermitted,  // the driver keeps GPU performance counters to administrators
  Unsupported,   // this GPU, driver or setup (vGPU, MIG, confidential computing) has no counters
  NoDevice,      // no GPU ran anything
  Failed,        // a CUPTI call failed: the message quotes it
};
const char* counter_status_name(CounterStatus s);

// What a status means for the user, with the fix in words (one paragraph, no trailing newline);
// `detail` (CUPTI's or the loader's own words) is appended. Empty for Ok.
std::string counter_problem(CounterStatus s, const std::string& detail);

// Wavefronts, bank conflicts and warp instructions of one operation (access.h's Op) in c
// (cp.async: wavefronts_all, from which the caller subtracts what the rest of the launch does).
int64_t op_wavefronts(const SharedCounters& c, Op op);
int64_t op_conflicts(const SharedCounters& c, Op op);
int64_t op_instructions(const SharedCounters& c, Op op);

// The hardware beside the model for one step (exposed mode) or one kernel (written mode), per
// lesson block: "hardware 1024 wavefronts in 32 instructions; model 1024".
struct CounterComparison {
  bool read = false;         // the counters were read for this row
  double hw_wavefronts = 0;  // per lesson block
  double hw_instructions = 0;
  double model_wavefronts = 0;  // the present GPU's model, per lesson block
  double model_instructions = 0;
  // The scenario names blockIdx, so its blocks differ: the model is block 0's while the hardware
  // is the average over the launch's blocks (a difference then need not be the model's).
  bool model_block0_only = false;
  // The scenario names blockIdx and the model is the average over every block of the launch,
  // this many (each traced alone), like the counters; 0 when the model is the lesson's block.
  int64_t model_blocks = 0;
  // Written mode: the blocks of the launch the counters were read in (the row is per block).
  int64_t launch_blocks = 0;
  // A cp.async step: Nsight Compute counts its bank conflicts (l1tex__data_bank_conflicts_pipe_
  // lsu_mem_shared_op_ldgsts), not its shared write's wavefronts (docs/MATRIX_RULE.md), so
  // hw_wavefronts and model_wavefronts hold bank conflicts (the model's: wavefronts - ideal).
  bool conflicts = false;
  // Instructions equal, wavefronts within 1%: the L1 unit's counters count a few stray
  // wavefronts in a launch of the whole GPU (0.13% at most in the presets' exposed steps on an
  // H100, docs/COUNTERS.md), a single-warp probe none.
  bool agrees() const;
};
// "hardware 1024 wavefronts in 32 instructions; model 1024 (agrees)" / "... model 512 in 32".
std::string format_comparison(const CounterComparison& c);

}  // namespace bankviz
