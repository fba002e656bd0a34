// types.cpp: the CPU's copy of the GPU's conversions (integer -> float/half/bfloat16 round to
// nearest even) and checksums, for each element type of core's table (kinds.h).
#include "types.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>

namespace bankviz::detail {

namespace {
// std::bit_cast, which the browser build's libc++ (Emscripten 3.1.6) lacks: the same bits.
template <class To, class From>
To bits_of(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}
}  // namespace


namespace {

using K = CompKind;

// An integer rounded to nearest even into a binary format with `mbits` fraction bits, `ebits`
// exponent bits and a sign bit at bit 15 (binary16 and bfloat16): what __uint2half_rn and the
// __nv_bfloat16 constructors compute for integer inputs.
uint64_t int_to_small_float(Value v, int mbits, int ebits) {
  const uint64_t sign = v.is_negative() ? 1u << 15 : 0;
  uint64_t m = v.is_negative() ? uint64_t(0) - v.bits : v.bits;
  if (m == 0) return 0;
  int msb = 63 - std::countl_zero(m);
  const int shift = msb - mbits;
  uint64_t q = 0;
  if (shift > 0) {
    q = m >> shift;
    const uint64_t rem = m & ((uint64_t{1} << shift) - 1);
    const uint64_t halfway = uint64_t{1} << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1))) ++q;
    if (q == (uint64_t{1} << (mbits + 1))) {
      q >>= 1;
      ++msb;
    }
  } else {
    q = m << -shift;
  }
  const int bias = (1 << (ebits - 1)) - 1;
  const uint64_t max_exp = (uint64_t{1} << ebits) - 1;
  const uint64_t exp = static_cast<uint64_t>(msb + bias);
  if (exp >= max_exp) return sign | (max_exp << mbits);  // overflow: infinity
  return sign | (exp << mbits) | (q & ((uint64_t{1} << mbits) - 1));
}

}  // namespace

uint64_t component_bits(const ElemType& t, Value v) {
  // An unsigned long long above INT64_MAX converts as unsigned; everything else has an int64 value.
  const bool huge = !v.to_int64();
  const int64_t value = static_cast<int64_t>(v.bits);
  switch (t.comp_kind) {
    case K::SInt:
    case K::UInt:
      if (t.comp_bytes() == 8) return v.bits;
      return v.bits & ((uint64_t{1} << (8 * t.comp_bytes())) - 1);
    case K::F32:
      return bits_of<uint32_t>(huge ? static_cast<float>(v.bits) : static_cast<float>(value));
    case K::F64:
      return bits_of<uint64_t>(huge ? static_cast<double>(v.bits)
                                          : static_cast<double>(value));
    case K::F16:
      return int_to_small_float(v, 10, 5);
    case K::BF16:
      return int_to_small_float(v, 7, 8);
  }
  return 0;
}

uint32_t component_checksum(const ElemType& t, uint64_t bits) {
  if (t.comp_bytes() == 8) return static_cast<uint32_t>(bits ^ (bits >> 32));
  if (t.comp_kind == K::SInt && t.comp_bytes() < 4) {
    // Integer promotion sign-extends a signed char or short.
    const int shift = 64 - 8 * t.comp_bytes();
    return static_cast<uint32_t>(static_cast<int64_t>(bits << shift) >> shift);
  }
  return static_cast<uint32_t>(bits);
}

double component_value(const ElemType& t, uint64_t bits) {
  switch (t.comp_kind) {
    case K::SInt:
      if (t.comp_bytes() == 8) return static_cast<double>(static_cast<int64_t>(bits));
      return static_cast<double>(static_cast<int32_t>(component_checksum(t, bits)));
    case K::UInt:
      return static_cast<double>(bits);
    case K::F32:
      return bits_of<float>(static_cast<uint32_t>(bits));
    case K::F64:
      return bits_of<double>(bits);
    case K::F16:
    case K::BF16:
      break;
  }
  return std::nan("");
}

}  // namespace bankviz::detail
