// helpers.h: small builders shared by the core tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "bankviz/scenario.h"

namespace bankviz::test {

// A step with only its kind and index set (Step is an aggregate with many fields).
inline Step step(StepKind kind, std::string index = "") {
  Step st;
  st.kind = kind;
  st.index = std::move(index);
  return st;
}

// The seeds' transpose (setRowReadCol): store a row, sync, load a column of a 32x32 int tile padded
// by `pad` elements a row.
inline Scenario transpose(int64_t pad = 0) {
  Scenario s;
  s.tiles[0].pad = pad;
  s.steps = {step(StepKind::Store, "tile[threadIdx.y][threadIdx.x]"), step(StepKind::Sync),
             step(StepKind::Load, "tile[threadIdx.x][threadIdx.y]")};
  return s;
}

}  // namespace bankviz::test
