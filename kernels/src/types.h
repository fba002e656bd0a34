// types.h (internal): the CPU's copy of the GPU's conversions and checksums of each element type
// (its row of core's elem_types(), kinds.h), so the generated CUDA and the CPU reference compute
// the same 32-bit sums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bankviz/expr.h"
#include "bankviz/kinds.h"

namespace bankviz::detail {

// The bits of one component holding `value` (a C integer expression's typed value, converted as an
// assignment converts it: integers wrap, floats round to nearest even).
uint64_t component_bits(const ElemType& t, Value value);

// What `bits(component)` (or the plain integer promotion) adds to the thread's 32-bit sum.
uint32_t component_checksum(const ElemType& t, uint64_t bits);

// Numeric value of a component's bits (for atomicAdd on int/unsigned/float/double).
double component_value(const ElemType& t, uint64_t bits);

}  // namespace bankviz::detail
