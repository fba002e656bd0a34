// types.h (internal): how each shared element type is written, converted and checksummed, in the
// generated CUDA and on the CPU, so both sides compute the same 32-bit sums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bankviz/expr.h"

namespace bankviz::detail {

enum class CompKind { SInt, UInt, F32, F64, F16, BF16 };

struct TypeInfo {
  std::string_view name;  // elem_types() spelling
  std::string_view comp;  // C type of one component ("signed char", "__half", "float")
  int comps = 1;          // 1 for scalars, 2 or 4 for vector types
  int comp_bytes = 4;
  CompKind kind = CompKind::SInt;
  std::string_view make;   // vector constructor ("make_float4", "__halves2half2"); "" scalar
  bool atomic = false;     // atomicAdd(T*, T) exists for shared memory
  bool plain_sum = false;  // 1-4 byte scalar integer: `sum += tile[...]` needs no bits()
};

// nullptr for an unknown name (core validated the name, so that is a bug).
const TypeInfo* type_info(std::string_view elem);

// The bits of one component holding `value` (a C integer expression's typed value, converted as an
// assignment converts it: integers wrap, floats round to nearest even).
uint64_t component_bits(const TypeInfo& t, Value value);

// What `bits(component)` (or the plain integer promotion) adds to the thread's 32-bit sum.
uint32_t component_checksum(const TypeInfo& t, uint64_t bits);

// Numeric value of a component's bits (for atomicAdd on int/unsigned/float/double).
double component_value(const TypeInfo& t, uint64_t bits);

}  // namespace bankviz::detail
