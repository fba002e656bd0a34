// analysis.h: Scenario -> Analysis, the model's answer for every warp and every step.
//
// The trace (trace.h) says which element and byte each lane touches in each executed step; the
// analysis adds how the banks serve each warp (access.h) and which accesses race (hazard.h).
// Views and the CLI only read this.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/hazard.h"
#include "bankviz/scenario.h"
#include "bankviz/trace.h"

namespace bankviz {

// One warp executing one step.
struct WarpStep {
  int warp = 0;
  WarpAccess access;                         // width = tile element size; mask = active lanes
  std::array<int64_t, kWarpSize> element{};  // linear element per lane (-1: inactive)
  AccessResult result;                       // empty for sync steps
};

struct Analysis {
  Scenario scenario;
  const Arch* arch = nullptr;
  std::vector<StepInfo> steps;               // executed steps in order (syncs included)
  std::vector<std::vector<WarpStep>> warps;  // [executed step][warp]
  std::vector<Issue> issues;                 // out-of-bounds, races (hazards.examples), ...
  Hazards hazards;                           // every racing access, from the one hazard model
  int64_t out_of_bounds = 0;                 // lanes left inactive: out of bounds (Trace)

  int warp_count() const;
  // Sum over warps for one executed step, and over everything.
  int step_wavefronts(int step) const;
  int step_ideal(int step) const;
  int step_instructions(int step) const;    // warps that issue it (any active lane)
  double step_per_request(int step) const;  // wavefronts per instruction (0 without any)
  // The instruction an executed memory step issues, with its width (Step::op).
  OpSpec step_op(int step) const;
  int total_wavefronts() const;
  int total_ideal() const;
  // The memory step with the highest wavefronts/ideal ratio (first on ties): the one worth
  // drawing first. -1 when there is no memory step.
  int worst_step() const;
};

struct AnalysisResult {
  std::optional<Analysis> analysis;
  std::vector<Diagnostic> errors;  // parse/evaluation errors; non-empty iff !analysis
};

// The instruction step `step` of s compiles to on `arch` (Step::op, and what the compiler makes
// of it where that changes the banks' work): atomicAdd of the constant 1 to a 32-bit integer
// tile is ATOMS.POPC.INC (Op::AtomicInc) on Hopper, measured; elsewhere an atomic is Op::Atomic.
OpSpec compiled_op(const Scenario& s, int step, const Arch& arch);

// Analyzes under the scenario's own arch (or `arch` when given). Out-of-bounds accesses are
// reported in Analysis::issues and the lane is left inactive, never modelled silently.
AnalysisResult analyze(const Scenario& s, const Arch* arch = nullptr);
// The same for one block of a launch (trace.h's TraceOptions: blockIdx.x and gridDim.x), where
// the scenario's blocks differ (uses_block_index): the model of any block, not only block 0.
AnalysisResult analyze(const Scenario& s, const Arch* arch, const TraceOptions& block);

// The same from a trace of s already made (trace(), or relayout() of another's). CountsOnly
// fills each warp's AccessResult with its wavefronts and ideal alone (no detail, no per-bank
// figures): for what only sums them (summarize(), a sweep's points), at a fraction of the cost.
enum class ServeDetail { Full, CountsOnly };
AnalysisResult analyze(const Scenario& s, const Arch* arch, Trace t,
                       ServeDetail detail = ServeDetail::Full);

// The bank figures of one executed step of a trace of s, summed over its warps: what analyze()
// gives that step (each warp through validate() and serve(); one validate() refuses serves
// nothing). For many variants of one trace (advise's candidates) without a whole Analysis.
struct StepFigures {
  int wavefronts = 0, ideal = 0;
};

// What serve_step() found for the warp accesses it served, to give an access met again the same
// figures without serving it again: the bank model and validate() are functions of the arch, the
// instruction and the access (width, mask, every lane's address and source) alone, and a tile's
// re-placed steps repeat few patterns (advise()'s heaviest scenario: 16384 warp instructions,
// 32 distinct accesses per candidate). One per thread; at most kMaxEntries kept.
class ServeMemo {
 public:
  static constexpr size_t kMaxEntries = size_t{1} << 16;
  size_t size() const { return seen_.size(); }

 private:
  friend StepFigures serve_step(const Scenario&, const Arch&, const TraceStep&, ServeMemo*);
  struct Key {
    Op op = Op::Load;
    int width = 0;
    uint32_t mask = 0;
    bool has_source = false;
    std::array<uint32_t, kWarpSize> addr{}, source{};  // source: zero without has_source
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    size_t operator()(const Key& k) const;
  };
  const Arch* arch_ = nullptr;  // the arch its figures are for (another clears it)
  std::unordered_map<Key, StepFigures, Hash> seen_;
};

StepFigures serve_step(const Scenario& s, const Arch& arch, const TraceStep& ts,
                       ServeMemo* memo = nullptr);

}  // namespace bankviz
