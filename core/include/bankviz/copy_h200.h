// copy_h200.h: access.h's cp.async section, on a GPU other than the H100 its L1 set hash was
// measured on (docs/CPASYNC_SOURCE.md, "On an H200"). Kept apart from access.h only so that few
// files include it; access.cpp defines both.
#pragma once

#include <cstdint>
#include <string>

#include "bankviz/access.h"

namespace bankviz {

// The wavefronts of a cp.async served in one global pass (its store groups only), as an H200
// counted sources that the H100's set hash splits into several passes.
int copy_wavefronts_one_pass(const Arch& arch, const WarpAccess& access);
// What more than one global pass means on such a GPU, in words (the verdict's, analyze's and the
// compiled step's reason), given the rule's wavefronts and the one-pass count; empty where they
// are equal or there is one pass.
std::string copy_passes_caveat(int passes, int64_t wavefronts, int64_t one_pass);
inline constexpr const char* kCopyCaveatStart = "its sources take ";  // how that sentence starts

}  // namespace bankviz
