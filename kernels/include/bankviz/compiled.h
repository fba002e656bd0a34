// compiled.h: the written kernel as the compiler made it, step by step.
//
// The model counts the lesson's accesses as written. The compiled kernel differs where the
// compiler (NVRTC, then ptxas) changes them, and the GPU counts what it made. From the cubin's SASS
// (the toolkit's nvdisasm, with line info) this knows, per scenario step, the shared-memory
// instructions on its lines and serves them with the trace's own addresses (core's serve(): no
// second bank computation):
//
//   wider      an LDS.64 / LDS.128 (STS too) covers several steps, or several iterations of a
//              loop step: one instruction per warp, its lanes' W bytes from the first member's
//              addresses ("steps 3 x 4: one LDS.128 per thread, 2 wavefronts per instruction")
//   predicated an instruction under a predicate (@P0), not jumped over: every warp of the block
//              issues it, a warp without an active lane for 0 wavefronts
//   speculated an unpredicated instruction of a guarded step: every lane of every warp reads (the
//              guard moved to what uses the value), served without the guard
//   none       no shared instruction on the step's lines: the value stayed in a register (the
//              thread stored it before) or the access was removed
//   moved      a step's lines hold more instructions than it executes: they serve the next
//              steps' first executions (a loop's later loads moved up among the previous step's)
//   reused     a loop whose iterations load the same addresses: one load
//   uniform    a load addressed by a uniform register alone ([UR4]): one wavefront
//   contended  a float atomic's CAS loop on addresses other warps update: said, not modelled
//
// Measured on an H100 over the 49 presets (docs/COUNTERS.md, "As compiled").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/codegen.h"

namespace bankviz {

// One SASS instruction of nvdisasm's listing (nvdisasm -gi -c).
struct SassInstruction {
  uint32_t pc = 0;
  std::string predicate;  // "@!P4", "" when none
  std::string opcode;     // "LDS.128"
  std::string operands;   // "R24, [R29+0x10]"
  std::string file;       // its line's file ("" without line info)
  uint32_t line = 0;      // the line in the kernel (an inlined function's call site)
  std::string own_file;   // the instruction's own file and line: an inlined function's
  uint32_t own_line = 0;  // (the first of "inlined at"), where the hardware counts it;
                          // file/line where nothing is inlined
  // Every location of an inlined instruction, its own first, then each call site out to the
  // kernel's line (CUDA's atomicCAS in a user's helper: the header's line, the helper's, the
  // kernel's); its one location where nothing is inlined.
  std::vector<std::pair<std::string, uint32_t>> chain;
  bool under_branch = false;  // inside a conditional forward branch (some warps jump over it)
  bool labelled = false;      // a label before it: a branch may land here (a block's start)
  bool in_loop = false;       // between a backward branch's target and the branch: a loop's
                              // body, which a warp may issue many times
  std::string function;       // the kernel or function it belongs to: its mangled name
  bool shared() const;        // LDS, STS, ATOMS, LDSM, STSM, LDGSTS
  // Under @!PT (never true): ptxas's pad, `@!PT LDS RZ, [RZ]`, three before each LDGSTS on sm_90.
  // Every warp that reaches it issues it and no lane executes it: the L1 unit's instruction
  // counter (smsp__inst_executed_op_shared_ld) counts it, CUPTI's per-instruction metrics do not
  // (docs/COUNTERS.md, "Pads beside LDGSTS").
  bool never_executes() const;
  int width() const;  // bytes per lane: 1, 2, 4, 8 or 16 (LDS.U16: 2, LDS.128: 16)
  // The innermost line of `file_name` in the chain (0: none): the user's line that made the
  // instruction, a helper's line rather than the kernel's call of the helper.
  uint32_t line_in(const std::string& file_name) const;
};

// Parses nvdisasm's listing (with -gi: "//## File "x.cu", line 12 inlined at "x.cu", line 40"
// gives the call site's line, 40, and the instruction's own, 12). Bounded by the text; lines it
// does not know are skipped.
std::vector<SassInstruction> parse_nvdisasm(std::string_view text);

// A CUDA toolkit program ("nvdisasm", "nvcc"): the first regular executable file of that name in
// $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, then PATH's folders; "" when none.
std::string find_cuda_tool(const std::string& name);

// nvdisasm -gi -c on a cubin, found as $CUDA_HOME/bin/nvdisasm, /usr/local/cuda/bin/nvdisasm or on
// PATH, run in a process of its own (output bounded to 64 MB, 60 s). Empty and *why set when it
// cannot run.
std::string disassemble(const std::vector<char>& cubin, std::string* why);

// A compare-and-swap loop (a float's atomicAdd: LDS + ATOMS.CAST.SPIN) over one execution's
// warps (their accesses): instructions and wavefronts with each warp alone, and where warps
// update the same addresses the most any interleaving takes (max_*; 0 where exact). The rules
// compiled_steps() serves a CAS loop step with (compiled.cpp cas_loop(), cas_loop_bound()).
struct CasLoopCost {
  int64_t instructions = 0, wavefronts = 0, max_instructions = 0, max_wavefronts = 0;
};
CasLoopCost cas_loop_cost(const Arch& arch, const std::vector<WarpAccess>& warps);

// One scenario memory step as compiled, per lesson block.
struct CompiledStep {
  int step = -1;
  std::vector<std::string> sass;  // its shared instructions, "@!P4 LDS.64", pc order
  int64_t instructions = 0;       // warp instructions as compiled
  int64_t wavefronts = 0;
  int64_t written_instructions = 0, written_wavefronts = 0;  // the model as written
  bool differs() const {
    return instructions != written_instructions || wavefronts != written_wavefronts ||
           pad_instructions > 0;
  }
  std::string reason;  // empty where it is as written: "one LDS.128 per thread covers 4 ..."
  // ptxas's pads on the step's lines (`@!PT LDS RZ, [RZ]`, never_executes()): the warp
  // instructions they add to the L1 unit's counts, with no wavefront; not in `instructions` (the
  // per-step rows compare with CUPTI's per-instruction metrics, which do not count them).
  int64_t pad_instructions = 0;
  // The compiler made another instruction sequence of it: a float atomicAdd's compare-and-swap
  // loop (LDS + ATOMS.CAST.SPIN). Exposed mode predicts such a step's time from these figures
  // (its kernel holds the same loop): the other forms above are the written kernel's alone.
  bool cas_loop = false;
  // A compare-and-swap loop on addresses other warps of the block update in the same step: each
  // warp's tries depend on how the warps interleave, so the hardware's count is not one number.
  // `instructions` and `wavefronts` are then each warp alone (the fewest tries), these the most
  // any interleaving can take (cas_loop_bound() in compiled.cpp says why); 0 where exact.
  int64_t max_instructions = 0, max_wavefronts = 0;
  bool bounded() const { return max_instructions > 0; }
  // A cp.async whose sources take several global passes: the wavefronts of the passes after the
  // first, which the L1's counter counts (`wavefronts`) and CUPTI's per-instruction counter does
  // not (copy_h200.h); 0 elsewhere. The per-step rows compare with per_instruction_wavefronts().
  int64_t later_passes = 0;
  int64_t per_instruction_wavefronts() const { return wavefronts - later_passes; }
};

// Every memory step of `a` (one block of s) as the SASS says the compiler made it. `sass` is
// the kernel k's listing; instructions on lines of no step are left out. `block`: the block `a`
// was traced as (blockIdx.x, gridDim.x), where the scenario's blocks differ.
std::vector<CompiledStep> compiled_steps(const Scenario& s, const Analysis& a,
                                         const KernelSource& k,
                                         const std::vector<SassInstruction>& sass,
                                         const TraceOptions& block = {});

// The same over a launch of `grid` blocks (figures summed over the launch, not per block): where
// the blocks differ (uses_block_index: a histogram's bins, blockIdx in an index or a guard) every
// block traced alone and modelled as compiled, as the hardware runs them; otherwise one block's
// figures times `grid`. The reason is the first block's that differs. Empty and *why set where
// the launch is too large to model block by block (plan.h kMaxLaunchModelThreads) or a block
// cannot be traced.
std::vector<CompiledStep> compiled_launch(const Scenario& s, const Arch* arch,
                                          const KernelSource& k,
                                          const std::vector<SassInstruction>& sass, int64_t grid,
                                          std::string* why);

// The whole kernel as compiled, per block or launch as `steps` are: what the L1 unit's counters
// count (written mode's totals, run_counters.cpp): every step's instructions and its pads; the
// wavefronts of the steps whose wavefronts an op_ counter holds (cp.async's write is in none,
// kinds.h wavefront_counter), pads none.
struct CompiledTotals {
  int64_t instructions = 0, wavefronts = 0, pad_instructions = 0;
};
CompiledTotals compiled_totals(const Scenario& s, const std::vector<CompiledStep>& steps);

// "step  as written  as compiled  why" rows for the steps that differ; empty when none does.
std::string format_compiled_steps(const std::vector<CompiledStep>& steps);

// The written kernel of s compiled (NVRTC for sm_90, as run compiles it), disassembled and
// modelled on `arch` (the GPU's rules; nullptr: the scenario's): no GPU needed, the toolkit's
// nvdisasm is. `error` says why there is none.
struct AsCompiled {
  std::vector<CompiledStep> steps;
  std::vector<SassInstruction> sass;  // the listing
  std::string error;
};
AsCompiled as_compiled(const Scenario& s, const Arch* arch);

}  // namespace bankviz
