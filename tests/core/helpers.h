// helpers.h: small builders shared by the core tests.
#pragma once

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

}  // namespace bankviz::test
