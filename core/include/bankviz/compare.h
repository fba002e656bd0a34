// compare.h: before and after. The figures a comparison or a sweep shows for one analyzed
// scenario, two scenarios side by side with their ratios, and one parameter varied over a range.
// The CLI (`compare`, `sweep`) and the app's before/after view read these; measured figures are
// added by the caller from kernels/ (core knows no GPU).
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"

namespace bankviz {

// What one scenario costs, in the model's words.
struct Summary {
  std::string name, title;
  int total_wavefronts = 0, total_ideal = 0;
  int worst_step = -1;           // executed step (Analysis::worst_step()); -1 without memory steps
  std::string worst_label;       // its label
  int worst_wavefronts = 0;      // its wavefronts summed over warps
  int worst_instructions = 0;    // warps that issue it (active lanes)
  double worst_per_request = 0;  // wavefronts per instruction of the worst step
  int64_t racing_accesses = 0;   // the hazard model's count
  int64_t out_of_bounds = 0;     // lanes left inactive because out of bounds
};
Summary summarize(const Analysis& a);
// The same from each executed step's figures (analysis.h StepFigures), without an Analysis.
Summary summarize(const Scenario& s, const std::vector<StepInfo>& steps,
                  const std::vector<StepFigures>& figures, int64_t racing_accesses,
                  int64_t out_of_bounds);

// B against A: ratios B / A (0 where A's figure is 0).
struct Comparison {
  Summary a, b;
  double total_ratio = 0;        // total wavefronts
  double per_request_ratio = 0;  // worst step's wavefronts per request
};
Comparison compare(const Analysis& a, const Analysis& b);

// The executed step a comparison opens on: where A and B differ most, by the ratio of their
// worst warps' wavefronts at the same executed step (then by the difference, then the earlier
// step); A's worst step when no step differs; -1 when A has no memory step.
int most_different_step(const Analysis& a, const Analysis& b);

// [SECTION] Sweep: one parameter of the first tile (or the block) over a range of values.
//   pad=0..32   rows=16..64   cols=32..40   elem=int,float2,double   swizzle=none;3,0,3;3,3,3
inline constexpr size_t kMaxSweepValues = 257;

// The parameters a sweep can vary, the one list (the CLI's --param, the app's sweep window):
// the first tile's padding, extents and element type, and the swizzle.
inline constexpr const char* kSweepParams[] = {"pad", "rows", "cols", "elem", "swizzle"};
// A first range of values for each, in the same order (the app's sweep window starts there).
inline constexpr const char* kSweepFirstValues[] = {"0..32", "8..64", "32..40",
                                                    "int,float,float2,double", "none;3,0,3;5,0,5"};
static_assert(std::size(kSweepFirstValues) == std::size(kSweepParams), "one range per parameter");

struct SweepSpec {
  std::string param;                // one of kSweepParams
  std::vector<std::string> values;  // as the user wrote them, one per point
};
struct SweepParse {
  std::optional<SweepSpec> spec;
  std::string error;  // "--param: unknown parameter 'x' (pad, rows, cols, elem, swizzle)"
};
SweepParse parse_sweep(const std::string& text);

// The scenario with the parameter set to one value, checked; errors when the value makes it
// invalid (the sweep reports them per point, it does not stop).
ScenarioLoad apply_sweep_value(const Scenario& s, const std::string& param,
                               const std::string& value);

struct SweepPoint {
  std::string value;
  std::optional<Summary> summary;  // empty when the point is invalid
  std::string error;               // why (first problem)
};
// Each point is summarize() of its scenario analyzed; the padding, extents and swizzle re-place
// one trace of s (trace.h relayout()) where they can, serving each distinct warp access once
// (analysis.h TraceVariants), and a point keeps the counts only: a sweep of 257 values of a
// 2^19-lane-step scenario in about a second.
std::vector<SweepPoint> sweep(const Scenario& s, const SweepSpec& spec);

}  // namespace bankviz
