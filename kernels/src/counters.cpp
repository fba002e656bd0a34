// counters.cpp: the counters' table, statuses in words and the hardware-versus-model line
// (counters.h). No CUDA here: these build and are tested on every machine; cupti.cpp reads them.
#include "bankviz/counters.h"

#include <cmath>
#include <cstdio>

namespace bankviz {

SharedCounters& SharedCounters::operator-=(const SharedCounters& o) {
  for (const CounterMetric& m : counter_metrics()) this->*m.field -= o.*m.field;
  return *this;
}

const std::vector<CounterMetric>& counter_metrics() {
  static const std::vector<CounterMetric> table = {
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", &SharedCounters::wavefronts_all},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", &SharedCounters::wavefronts_ld},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", &SharedCounters::wavefronts_st},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", &SharedCounters::wavefronts_atom},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", &SharedCounters::conflicts_ld},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", &SharedCounters::conflicts_st},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
       &SharedCounters::conflicts_atom},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
       &SharedCounters::conflicts_ldgsts},
      {"smsp__inst_executed_op_shared_ld.sum", &SharedCounters::inst_ld},
      {"smsp__inst_executed_op_shared_st.sum", &SharedCounters::inst_st},
      {"smsp__inst_executed_op_shared_atom.sum", &SharedCounters::inst_atom},
      {"smsp__inst_executed_op_ldsm.sum", &SharedCounters::inst_ldsm},
      {"smsp__inst_executed_op_shared_stsm.sum", &SharedCounters::inst_stsm},
      {"smsp__inst_executed_op_ldgsts.sum", &SharedCounters::inst_ldgsts},
  };
  return table;
}

const char* counter_status_name(CounterStatus s) {
  switch (s) {
    case CounterStatus::Ok:
      return "ok";
    case CounterStatus::Off:
      return "off";
    case CounterStatus::NoCupti:
      return "no CUPTI";
    case CounterStatus::NotPermitted:
      return "not permitted";
    case CounterStatus::Unsupported:
      return "unsupported";
    case CounterStatus::NoDevice:
      return "no device";
    case CounterStatus::Failed:
      return "failed";
  }
  return "?";
}

std::string counter_problem(CounterStatus s, const std::string& detail) {
  std::string out;
  switch (s) {
    case CounterStatus::Ok:
      return {};
    case CounterStatus::Off:
      out = "hardware counters were not read (--no-counters).";
      break;
    case CounterStatus::NoCupti:
      out =
          "hardware counters need CUPTI (libcupti.so.13, part of the CUDA toolkit), which "
          "could not be opened. Install the toolkit's CUPTI and put its directory on "
          "LD_LIBRARY_PATH (e.g. /usr/local/cuda/lib64 or /usr/local/cuda/extras/CUPTI/lib64). "
          "Timing works without it.";
      break;
    case CounterStatus::NotPermitted:
      out =
          "the GPU driver lets only administrators read performance counters "
          "(ERR_NVGPUCTRPERM). Run as root, or allow every user: put "
          "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in a file under "
          "/etc/modprobe.d/, then rebuild the initramfs and reboot (or reload the nvidia "
          "module). Timing works without counters.";
      break;
    case CounterStatus::Unsupported:
      out =
          "this GPU or setup gives no performance counters (CUPTI's profiling needs compute "
          "capability 7.0 or newer, and no vGPU without profiling, no confidential computing, "
          "no SLI). Timing works without them.";
      break;
    case CounterStatus::NoDevice:
      out = "hardware counters need a CUDA GPU, and none ran the kernel.";
      break;
    case CounterStatus::Failed:
      out = "reading the hardware counters failed. Timing is unaffected.";
      break;
  }
  if (!detail.empty()) out += " (" + detail + ")";
  return out;
}

int64_t op_wavefronts(const SharedCounters& c, Op op) {
  switch (op) {
    case Op::Load:
    case Op::LdMatrix:
      return c.wavefronts_ld;
    case Op::Store:
    case Op::StMatrix:
      return c.wavefronts_st;
    case Op::Atomic:
    case Op::AtomicInc:
    case Op::AtomicCas:
      return c.wavefronts_atom;
    case Op::CpAsync:
      return c.wavefronts_all;
  }
  return 0;
}

int64_t op_conflicts(const SharedCounters& c, Op op) {
  switch (op) {
    case Op::Load:
    case Op::LdMatrix:
      return c.conflicts_ld;
    case Op::Store:
    case Op::StMatrix:
      return c.conflicts_st;
    case Op::Atomic:
    case Op::AtomicInc:
    case Op::AtomicCas:
      return c.conflicts_atom;
    case Op::CpAsync:
      return c.conflicts_ldgsts;
  }
  return 0;
}

int64_t op_instructions(const SharedCounters& c, Op op) {
  switch (op) {
    case Op::Load:
      return c.inst_ld;
    case Op::Store:
      return c.inst_st;
    case Op::Atomic:
    case Op::AtomicInc:
    case Op::AtomicCas:
      return c.inst_atom;
    case Op::LdMatrix:
      return c.inst_ldsm;
    case Op::StMatrix:
      return c.inst_stsm;
    case Op::CpAsync:
      return c.inst_ldgsts;
  }
  return 0;
}

bool CounterComparison::agrees() const {
  // Conflicts: within 1% of the step's instructions (a conflict-free copy counts ~0).
  const double slack = conflicts ? 0.01 * model_instructions : 0.01 * model_wavefronts;
  return read && std::fabs(hw_instructions - model_instructions) < 1e-9 &&
         std::fabs(hw_wavefronts - model_wavefronts) <= slack + 1e-9;
}

namespace {

// Whole numbers without decimals, others with up to two.
std::string number(double v) {
  char buf[48];
  if (std::fabs(v - std::round(v)) < 1e-9)
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  else
    std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

}  // namespace

std::string format_comparison(const CounterComparison& c) {
  if (!c.read) return "hardware counters not read";
  std::string out = "hardware " + number(c.hw_wavefronts) +
                    (c.conflicts ? " bank conflicts in " : " wavefronts in ") +
                    number(c.hw_instructions) + " instructions; model " +
                    number(c.model_wavefronts);
  if (std::fabs(c.hw_instructions - c.model_instructions) >= 1e-9)
    out += " in " + number(c.model_instructions);
  out += c.agrees() ? " (agrees)" : " (differs)";
  if (c.model_block0_only) out += " [blocks differ: model of block 0, hardware the average]";
  if (c.model_blocks > 0)
    out += " [blocks differ: both the average over the launch's " + std::to_string(c.model_blocks) +
           " blocks]";
  return out;
}

}  // namespace bankviz
