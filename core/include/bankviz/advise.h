// advise.h: Scenario -> which paddings and swizzles make its memory steps conflict-free, and what
// each costs in shared memory.
//
// For every tile that a memory step uses, each candidate layout change is applied to a copy of the
// scenario, checked (check()) and analyzed: the scenario's trace re-placed for the candidate
// (trace.h relayout_step(): the same lanes touch the same subscripts) and the tile's steps served
// (analysis.h serve_step(), a warp access met again not served again), or, where relayout cannot
// tell, analyze() of the copy. The one bank model, never a second bank computation. Which
// candidates are analyzed is decided in order first (check() and the bound), then they are
// analyzed on a worker per core: the same advice as one after the other. Candidates:
//   pad p      p = 1 .. kMaxAdvisePad elements per innermost row (row-major tiles of rank >= 2);
//              costs (rows x p) elements of shared memory.
//   swizzle    CuTe Swizzle<B,M,S> on element offsets, B = 1..5, M = 0..4, S = B..8, and the
//              TMA/GMMA modes SW32/SW64/SW128 in this element's units; costs nothing (the same
//              bytes, permuted). On a CuTe-laid-out tile the swizzle composes with its layout.
// Each replaces the tile's current padding and swizzle (the baseline is listed for comparison).
// Candidates run in this order, so that a bound cuts the least likely first: the TMA modes, pad 1
// and 2, the classic Sw<b,0,b>, the other pads, the rest of the grid. At most kMaxAdviseAnalyses
// analyses run in all, and fewer for a large scenario: kMaxAdviseWork lane-steps (the baseline's
// active and inactive lanes of its executed memory steps, times the analyses), but at least
// kMinAdviseAnalyses. Advice::truncated says when the bound cut the list short; BENCHMARKS.md
// ("Advisor") gives the time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/scenario.h"

namespace bankviz {

inline constexpr int kMaxAdvisePad = 32;
inline constexpr int kMaxAdviseAnalyses = 1024;
inline constexpr int kMinAdviseAnalyses = 48;
inline constexpr int64_t kMaxAdviseWork = int64_t{1} << 25;

enum class FixKind { Baseline, Pad, Swizzle };

// One candidate for one tile and what the model says of it.
struct Fix {
  int tile = 0;  // index into Scenario::tiles
  FixKind kind = FixKind::Baseline;
  int64_t pad = 0;          // Pad: elements per innermost row
  Swizzle swizzle;          // Swizzle: in elements
  std::string name;         // "pad 1", "Sw<5,0,5>", "Sw<3,3,3> = SW128"
  int64_t extra_bytes = 0;  // shared memory beyond the tile without padding (Pad only)
  // Per memory step of the scenario that uses this tile (Advice::steps order): wavefronts and
  // ideal summed over its executions and warps.
  std::vector<int64_t> wavefronts, ideal;
  int64_t total_wavefronts = 0, total_ideal = 0;
  int conflict_free_steps = 0;  // steps whose wavefronts equal their ideal
  bool all_conflict_free() const { return conflict_free_steps == static_cast<int>(ideal.size()); }
};

// A memory step and, best first, the fixes that serve it in the fewest wavefronts.
struct StepAdvice {
  int step = 0;  // index into Scenario::steps
  int tile = 0;
  std::string label;       // "load tile[threadIdx.x][threadIdx.y]"
  int64_t wavefronts = 0;  // as the scenario is now
  int64_t ideal = 0;
  std::vector<int> best;  // indices into Advice::fixes: the fewest wavefronts, cheapest first
  bool conflict_free_now() const { return wavefronts == ideal; }
};

struct TileAdvice {
  int tile = 0;
  std::vector<int> steps;  // indices into Advice::steps: this tile's memory steps
  int baseline = -1;       // index into Advice::fixes: the tile as it is
  // Every candidate that analyzed, ranked: fewest wavefronts over the tile's steps, then fewest
  // extra bytes, then the simplest (smaller pad, fewer swizzle bits).
  std::vector<int> ranked;
};

struct Advice {
  std::vector<StepAdvice> steps;
  std::vector<TileAdvice> tiles;
  std::vector<Fix> fixes;
  int analyses = 0;  // analyze() calls made
  int bound = 0;     // analyze() calls allowed for this scenario (see above)
  int skipped = 0;   // candidates check() or analyze() refused (a swizzle past the array's end,
                     // a padding that misaligns an ldmatrix row)
  bool truncated = false;          // kMaxAdviseAnalyses stopped the search
  std::vector<Diagnostic> errors;  // the scenario itself does not analyze; nothing else is set
};

Advice advise(const Scenario& s);

// Applies a fix to a scenario: the tile's padding and swizzle become the fix's.
void apply_fix(Scenario& s, const Fix& f);

// The advice as text (a table per tile, the best per step) and as JSON.
std::string render_advice(const Scenario& s, const Advice& a);
std::string advice_json(const Scenario& s, const Advice& a);

}  // namespace bankviz
