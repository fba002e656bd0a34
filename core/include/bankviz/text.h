// text.h: the model's pictures as plain text and JSON, so they can be seen and tested without GL.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "bankviz/analysis.h"

namespace bankviz {

// Per-warp table: one row per executed memory step, one column per warp, cells "wavefronts/ideal",
// plus totals and the verdict in words ("32-way conflict: 32 wavefronts, ideal 1").
std::string render_table(const Analysis& a);

// The logical tile for one executed step and warp: one cell per element, the lane number where a
// lane of this warp touches it ('.' untouched, '#' padding). wavefront >= 0 shows only the lanes
// served in that wavefront.
std::string render_tile(const Analysis& a, int step, int warp, int wavefront = -1);

// The physical view: one row per line (Arch::line_bytes_shown(): 128 bytes since Fermi), one
// column per bank, the lane in each touched bank word; rows limited to the lines the warp
// touches. Below: distinct words per bank, the passes each bank makes and '!' on the banks that
// conflict, both as serve() recorded them (AccessResult::bank_passes, conflict_banks).
std::string render_banks(const Analysis& a, int step, int warp, int wavefront = -1);

// One sentence: "32-way bank conflict: 32 wavefronts where 1 would do".
std::string verdict(const AccessResult& r);
// The same, naming the access width when the request is split: "8-byte access: 2 wavefronts,
// conflict-free (each half-warp is one wavefront)".
std::string verdict(const AccessResult& r, int width);
// The same for the instruction a step issues: ldmatrix/stmatrix name their matrices
// ("ldmatrix.x4: 4 wavefronts, conflict-free (each 8x8 matrix is one wavefront)"), cp.async its
// copy; plain loads, stores and atomics as verdict(r, width).
std::string verdict(const AccessResult& r, const OpSpec& op);

// What must not be missed, in a few words each, for the verdict area of every view (presenter
// mode included): races (with the executed steps involved), out-of-bounds lanes. Empty when
// neither. `step` (an executed step, or -1) adds "(this step)" where it is involved.
std::vector<std::string> headline_warnings(const Analysis& a, int step = -1);

// The model's figures in words, for a scenario's description after an edit: per memory step (a
// loop's iterations once, at the worst) its label and the worst warp's verdict (at most 8 steps),
// then headline_warnings(). "The model on Hopper (sm_90): store tile[ty][tx]: conflict-free: 1
// wavefront; load tile[tx][ty]: 32-way bank conflict: 32 wavefronts where 1 would do."
std::string describe_analysis(const Analysis& a);

// The full analysis as JSON (schema in docs/SCENARIO.md), written member by member and step by
// step (the largest scenario's is hundreds of MB; it is never built whole).
void write_analysis_json(const Analysis& a, std::ostream& out);
std::string analysis_to_json(const Analysis& a);  // the same, as one string (tests, small cases)

}  // namespace bankviz
