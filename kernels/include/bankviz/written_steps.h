// written_steps.h: the written kernel (the one a student writes) step by step, from the hardware.
//
// The generated kernel is profiled as `bankviz-cli profile` profiles a user's kernel (profile.h:
// NVRTC with line info, one launch under CUPTI's SASS metrics, each instruction's source line),
// and its shared-memory instructions go to the scenario's steps through the kernel's own lines
// (KernelSource::step_line): what ran for each step, beside the model's instructions and
// wavefronts. An instruction the compiler made for several steps (an LDS.64 for two loads, a
// value kept in a register) shows as the hardware counting more or less on a step than the model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/codegen.h"
#include "bankviz/compiled.h"
#include "bankviz/profile.h"

namespace bankviz {

// The profile of a written kernel: its source and name, the scenario's launch (grid x block, the
// dynamic tile), a buffer for its output and, for cp.async, one for its input (zeroed: the
// addresses never depend on the values).
ProfileRequest written_profile_request(const Scenario& s, const KernelSource& k);

// One scenario step as the hardware ran it and as the model has it, over the whole launch.
struct WrittenStep {
  int step = -1;                 // scenario step; -1: shared instructions on lines of no step
  std::string label;             // the step's label ("" for -1)
  int sass_instructions = 0;     // SASS instructions on its lines that touch shared memory
  std::vector<std::string> ops;  // their ops in pc order, distinct ("ld", "ldsm", ...)
  int64_t executed = 0;          // hardware: warp instructions executed
  int64_t wavefronts = 0;        // hardware: shared wavefronts
  int64_t model_instructions = 0, model_wavefronts = 0;  // the model, over the launch
  bool agrees() const { return executed == model_instructions && wavefronts == model_wavefronts; }
  // The model of the kernel as compiled (compiled.h), over the launch, when it was made.
  bool compiled = false;
  int64_t compiled_instructions = 0, compiled_wavefronts = 0;
  std::string compiled_reason;  // where it differs from the model as written, why
  bool agrees_compiled() const {
    return compiled && executed == compiled_instructions && wavefronts == compiled_wavefronts;
  }
};

// Every memory step in order (then the instructions on no step's lines, if any): the
// instructions of lines step_line[i] .. step_line[next step] - 1 of the kernel's file go to step
// i. The model is `a`'s block times the grid, or every block of the launch where the scenario's
// blocks differ (an empty model where that launch is too large to model).
// With `sass` (the same kernel's listing, compiled.h), an instruction's line is the one nvdisasm
// gives its pc: the call site in the kernel's body where CUPTI's line table names the line inside
// an inlined helper (the loads folded into bits() went to no step).
std::vector<WrittenStep> written_steps(const Scenario& s, const Analysis& a, const KernelSource& k,
                                       const std::vector<ProfileInstruction>& instructions,
                                       const std::vector<SassInstruction>* sass = nullptr);

// Puts the model as compiled over the launch (compiled.h compiled_launch(): every block where
// the scenario's blocks differ) beside each row.
void attach_compiled(std::vector<WrittenStep>& rows, const std::vector<CompiledStep>& launch);

// A table: step, hardware instructions and wavefronts per block, the model's (as compiled where
// attached, with why it differs from as written), agrees or differs.
std::string format_written_steps(const std::vector<WrittenStep>& steps, int64_t grid);

}  // namespace bankviz
