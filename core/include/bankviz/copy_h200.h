// copy_h200.h: access.h's cp.async section, as Nsight Compute's per-instruction counter counts
// it (docs/CPASYNC_SOURCE.md, "Two counters"). Kept apart from access.h only so that few files
// include it; access.cpp defines both.
#pragma once

#include <cstdint>
#include <string>

#include "bankviz/access.h"

namespace bankviz {

// The wavefronts of a cp.async served in one global pass (its store groups only): what
// smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared (per instruction) counts where the L1 set hash
// splits the sources into several passes, which l1tex__data_pipe_lsu_wavefronts_mem_shared counts
// (measured on an H200, tests/data/hopper/counters-h200.txt).
int copy_wavefronts_one_pass(const Arch& arch, const WarpAccess& access);
// What more than one global pass means for the two counters, in words (the verdict's, analyze's
// and the compiled step's reason), given the rule's wavefronts and the one-pass count; empty where
// they are equal or there is one pass.
std::string copy_passes_caveat(int passes, int64_t wavefronts, int64_t one_pass);
inline constexpr const char* kCopyCaveatStart = "its sources take ";  // how that sentence starts

}  // namespace bankviz
