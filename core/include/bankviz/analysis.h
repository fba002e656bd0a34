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
#include <utility>
#include <vector>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/hazard.h"
#include "bankviz/scenario.h"
#include "bankviz/trace.h"

namespace bankviz {

// The bank figures of one executed step, summed over its warps (serve_step(), TraceVariants,
// Analysis::step_figures()).
struct StepFigures {
  int wavefronts = 0, ideal = 0;
  int instructions = 0;  // warps that issue it (an active lane, and validate() accepts it)
  // Wavefronts per instruction (0 without any): ncu's transactions per request.
  double per_request() const {
    return instructions > 0 ? static_cast<double>(wavefronts) / instructions : 0.0;
  }
  StepFigures& operator+=(const StepFigures& o) {
    wavefronts += o.wavefronts, ideal += o.ideal, instructions += o.instructions;
    return *this;
  }
};

// The memory step with the highest wavefronts/ideal ratio (first on ties), -1 when there is no
// memory step: the one worth drawing first (Analysis::worst_step(), a sweep's points).
int worst_step(const std::vector<StepInfo>& steps, const std::vector<StepFigures>& figures);

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
  // Each executed step's figures (step_wavefronts(), step_ideal(), step_instructions()).
  std::vector<StepFigures> step_figures() const;
  // The memory step with the highest wavefronts/ideal ratio (first on ties): the one worth
  // drawing first. -1 when there is no memory step.
  int worst_step() const;
};

struct AnalysisResult {
  std::optional<Analysis> analysis;
  std::vector<Diagnostic> errors;  // parse/evaluation errors; non-empty iff !analysis
};

// The instruction step `step` of s compiles to on `arch` (Step::op, and what the compiler makes
// of it where that changes the banks' work): atomicAdd of the constant 1 (folded_constant()) to a
// 32-bit integer tile is ATOMS.POPC.INC (Op::AtomicInc) on Hopper; elsewhere it is Op::Atomic.
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

// The figures of warp accesses served, to give an access met again the same figures without
// serving it again: the bank model and validate() are functions of the arch, the instruction and
// the access (width, mask, every lane's address and source) alone, and a tile's steps repeat few
// patterns (advise()'s heaviest scenario: 16384 warp instructions, 32 distinct accesses per
// candidate). Keeps accesses validate() accepts only (a refusal is checked again, for its
// words). serve_step() and analyze(..., CountsOnly) use one; one per thread; at most kMaxEntries.
class ServeMemo {
 public:
  static constexpr size_t kMaxEntries = size_t{1} << 16;
  size_t size() const { return seen_.size(); }
  // The figures kept for this access (served on `arch`: another arch clears the memo), or null.
  const StepFigures* find(const Arch& arch, Op op, const WarpAccess& a);
  // Keeps an accepted access's figures (after find() for the same arch).
  void keep(Op op, const WarpAccess& a, const StepFigures& f);

 private:
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
  void set(Op op, const WarpAccess& a);  // key_ = this access
  const Arch* arch_ = nullptr;           // the arch its figures are for
  Key key_;                              // the last access looked up or kept
  std::unordered_map<Key, StepFigures, Hash> seen_;
};

// The figures of one executed step of a trace of s, summed over its warps: what analyze()
// gives that step (each warp through validate() and the bank model; one validate() refuses
// serves nothing). For many variants of one trace (advise's candidates) without an Analysis.
StepFigures serve_step(const Scenario& s, const Arch& arch, const TraceStep& ts,
                       ServeMemo* memo = nullptr);

// One trace of s served for many variants of one tile's geometry (trace.h relayout(): a sweep's
// points). The warp accesses that the re-placing and the bank model cannot tell apart (one
// instruction, the same active lanes touching the same elements at the same bytes from the same
// sources) are grouped once; each variant places and serves one access of each group and adds
// up the groups' figures per step. The largest sweep (257 paddings of 512 steps x 32 warps)
// serves 32 distinct accesses per point, not 16384.
class TraceVariants {
 public:
  // t: a trace of s; s, arch and t must outlive it.
  TraceVariants(const Scenario& s, const Arch& arch, const Trace& t);
  // Per executed step, the figures serve_step() gives each step of relayout(changed, tile,
  // s.tiles[tile], t) (`changed`: s with that tile's geometry changed, passing check()), or
  // nullopt where relayout() returns nullopt.
  std::optional<std::vector<StepFigures>> figures(const Scenario& changed, int tile) const;
  size_t distinct() const { return reps_.size(); }  // the groups

 private:
  const Scenario& s_;
  const Arch& arch_;
  const Trace& t_;
  std::vector<std::pair<uint32_t, uint32_t>> reps_;  // each group's first (step, warp)
  std::vector<uint32_t> group_;                      // each warp's group, step by step
};

}  // namespace bankviz
