// from_source.h: one shared-memory access of a user's CUDA source as a bankviz scenario.
//
// `bankviz-cli profile` and the app's "your kernel" window offer the lines they profiled as
// scenarios, so the model's picture and the hardware's count meet on the user's own code. What
// can be expressed: a __shared__ array declared with constant extents (integers and #define'd
// integers; a last extent written `A + B` is A with B elements of padding) or `extern __shared__
// T name[]` (then as long as the block has threads, a guess the description says), accessed on
// the line as `name[...]...` with subscripts of threadIdx, blockDim, #define'd constants and
// integer locals declared before it in the same function (`unsigned int idx = ...;`, which
// become lets). The text is only ever parsed by the scenario's own expression parser; anything
// else is refused with the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bankviz/scenario.h"

namespace bankviz {

struct SourceScenario {
  std::optional<Scenario> scenario;  // checked (check()) and analyzable
  std::string why;                   // when there is none: why the line cannot be expressed
};

// The access on `line` (1-based) of `source`: a load, a store (the array left of '='), or an
// atomic (atomicAdd(&name[...], ...)). `op` ("ld", "st", "atom" as profile names them, or empty)
// picks among several accesses on the line. block: the launch's blockDim.
SourceScenario scenario_from_source_line(std::string_view source, uint32_t line,
                                         std::string_view op, const int64_t block[3],
                                         const std::string& file_name);

}  // namespace bankviz
