// trace.h: Scenario -> what every thread of one block does, step by step. The ONLY place that
// evaluates a thread's lets, guards, subscripts and values.
//
// For each executed step (a scenario step, or one iteration of a looped step), each warp and each
// lane: active or not (guard true and in bounds), the element and byte it touches, and the value
// it stores or adds. The bank model (analysis.h), the CPU reference (kernels/reference.h) and the
// hazard model (hazard.h) all read this; code generation declares the same C types (let_type()).
//
// Names have the types the generated kernel declares: constants `#define`d (int, or long long
// beyond int), lets their declared type (or their expression's type), loop variables int.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/access.h"
#include "bankviz/expr.h"
#include "bankviz/scenario.h"

namespace bankviz {

// One executed step: a scenario step, or one iteration of a looped step.
struct StepInfo {
  int step = 0;           // index into Scenario::steps
  int64_t iteration = 0;  // loop variable's value (0 without a loop)
  StepKind kind = StepKind::Load;
  int tile = 0;       // index into Scenario::tiles (-1 for sync)
  std::string label;  // "store tile[ty][tx]" or "load tile[tx][ty] (i=3)"
};

// One warp executing one memory step. Inactive lanes (guard false, past the block's last thread,
// or out of bounds) have element -1. Kept small (644 bytes): the largest scenario has 32768.
struct WarpTrace {
  uint32_t mask = 0;                         // active lanes, bit i = lane i
  std::array<int32_t, kWarpSize> element{};  // linear element before swizzle (< 2^18)
  std::array<uint32_t, kWarpSize> byte{};    // byte address: TileDecl::byte_offset
  std::array<uint64_t, kWarpSize> value{};   // store/atomic: the value's bits (Value::bits)
  // cp.async: the global chunk each lane copies (Step::source; the thread's linear index when
  // the step has none): bytes [chunk * B, chunk * B + B) of the kernel's input.
  std::array<uint32_t, kWarpSize> chunk{};
};

struct TraceStep {
  StepInfo info;
  CType value_type = CType::UInt;  // store/atomic: the stored value's C type (one per step)
  bool has_source = false;         // cp.async with a "source": its chunks are not the default
  std::vector<WarpTrace> warps;    // [warp]; empty for __syncthreads()
  Value value(size_t warp, size_t lane) const { return {value_type, warps[warp].value[lane]}; }
};

// A problem found while tracing that does not stop the model: the lane is left inactive.
struct Issue {
  int step = -1, warp = -1, lane = -1;  // where (executed step); -1 = not specific
  std::string message;                  // "thread (3,31,0): tile[3][33] is out of bounds: ..."
};

struct Trace {
  int64_t block_index = 0, grid = 1;  // blockIdx.x and gridDim.x the block was traced with
  std::vector<TraceStep> steps;       // every executed step, syncs included
  std::vector<Issue> issues;          // out-of-bounds accesses (listed up to a few per step)
  int64_t out_of_bounds = 0;          // lanes left inactive because they were out of bounds
};

struct TraceOptions {
  int64_t block_index = 0;  // blockIdx.x
  int64_t grid = 0;         // gridDim.x; 0 = the scenario's grid
};

struct TraceResult {
  std::optional<Trace> trace;
  std::vector<Diagnostic> errors;  // check() errors, names that do not bind, and evaluation
                                   // errors (undefined behaviour) naming the thread and column
};

TraceResult trace(const Scenario& s, const TraceOptions& options = {});

// The same scenario with one tile's geometry changed (its padding, extents or swizzle, not its
// element type or rank: advise()'s candidates, a sweep of the padding): every lane evaluates the
// same guard and subscripts, so `t`, a trace of the scenario as it was (`traced`, that tile as it
// was), gives each active lane's subscripts from its element, and only where they lie changes,
// placed as trace() places them. Returns what trace(changed, options of t) returns, or nullopt
// where `t` cannot tell it: a lane out of bounds in `t` (its subscripts are not kept), or one the
// change puts out of bounds, past the tile's end or off an instruction's alignment (then trace()
// says how). `changed` must pass check().
std::optional<Trace> relayout(const Scenario& changed, int tile, const TileDecl& traced,
                              const Trace& t);
// relayout() of one executed step (`t.steps[exec]`), into `out`, whose storage is reused: for
// many variants served step by step (advise()'s candidates) without a copy of the whole trace.
// False where relayout() returns nullopt for what this step holds or for the trace as a whole.
bool relayout_step(const Scenario& changed, int tile, const TileDecl& traced, const Trace& t,
                   size_t exec, TraceStep& out);
// relayout() of one warp of one executed step (`t.steps[exec].warps[warp]`), into `out`: for
// many variants of a trace whose warps repeat a few accesses (TraceVariants, analysis.h). False
// where relayout() returns nullopt for this warp's lanes or for the trace as a whole.
bool relayout_warp(const Scenario& changed, int tile, const TileDecl& traced, const Trace& t,
                   size_t exec, size_t warp, WarpTrace& out);

// The C types the lets are declared with in the kernel, in order: a let's own `type`, else its
// expression's type (binding against the constants and earlier lets). Stops at the first let
// whose expression does not bind, so the result may be shorter than s.lets.
std::vector<CType> let_types(const Scenario& s);

// `text` as the compiler folds it: an expression of literals, the scenario's constants (the
// kernel's #defines) and lets that are themselves such expressions, with C's casts, promotions
// and operators ("(1)", "2 - 1", "0x1", "(int)1", "1ll", "ONE" are each the constant 1), converted
// to `to`. nullopt where it reads a built-in variable (threadIdx, blockDim, ...), a loop variable
// or a let that does, or does not evaluate (undefined behaviour, a name that does not bind).
std::optional<Value> folded_constant(const Scenario& s, std::string_view text, CType to);

// The most expression-node evaluations one trace may take: lets once per thread, plus every
// executed step's guard, subscripts and value (and the lets it reads) once per thread. A scenario
// asking for more is refused before evaluating anything.
inline constexpr int64_t kMaxEvaluations = int64_t{1} << 26;

// Does any let or step name blockIdx or gridDim? Then blocks differ and each is traced alone.
bool uses_block_index(const Scenario& s);

// CUDA's linear thread order: tid = x + y*bx + z*bx*by; warp = tid / 32, lane = tid % 32.
struct ThreadIndex {
  int64_t x = 0, y = 0, z = 0;
};
ThreadIndex thread_of(int64_t tid, const int64_t block[3]);
std::string thread_text(const ThreadIndex& t);  // "thread (3,1,0)"

}  // namespace bankviz
