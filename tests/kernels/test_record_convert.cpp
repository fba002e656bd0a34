// The CPU recording's emulation header (kernels/record/bankviz_record.h) on its own: CUDA's
// conversion intrinsics as the GPU computes them (PTX cvt: rounded, then saturated to the
// integer's range, NaN to 0; mul24 on the operands' low 24 bits), where a bare cast is undefined.
// Its own translation unit (tests/kernels/CMakeLists.txt: out of the unity batches), since the
// header defines CUDA's names (threadIdx, warpSize, min, max) as a kernel file sees them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../../kernels/record/bankviz_record.h"

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();
constexpr int kIntMin = std::numeric_limits<int>::min();

TEST(RecordConversions, FloatToIntRoundsAsNamedAndSaturatesLikeTheGpu) {
  EXPECT_EQ(__float2int_rn(2.5f), 2);  // ties to even
  EXPECT_EQ(__float2int_rn(-3.5f), -4);
  EXPECT_EQ(__float2int_rz(-2.7f), -2);
  EXPECT_EQ(__float2int_rd(-0.5f), -1);
  EXPECT_EQ(__float2int_ru(0.25f), 1);
  EXPECT_EQ(__float2int_rn(3.0e9f), kIntMax);
  EXPECT_EQ(__float2int_rz(-3.0e9f), kIntMin);
  EXPECT_EQ(__float2int_ru(INFINITY), kIntMax);
  EXPECT_EQ(__float2int_rd(-INFINITY), kIntMin);
  EXPECT_EQ(__float2int_rn(NAN), 0);
  EXPECT_EQ(__float2int_rz(2147483520.0f), 2147483520);  // the largest float below 2^31
}

TEST(RecordConversions, ToUnsignedAndWideIntegersSaturateAtBothEnds) {
  EXPECT_EQ(__float2uint_rz(-1.0f), 0u);
  EXPECT_EQ(__float2uint_rn(5.0e9f), std::numeric_limits<unsigned>::max());
  EXPECT_EQ(__float2uint_rn(NAN), 0u);
  EXPECT_EQ(__float2ll_rz(1.0e30f), std::numeric_limits<long long>::max());
  EXPECT_EQ(__float2ll_rn(-1.0e30f), std::numeric_limits<long long>::min());
  EXPECT_EQ(__float2ull_rz(-7.0f), 0ull);
  EXPECT_EQ(__double2int_rz(-1.0e300), kIntMin);
  EXPECT_EQ(__double2int_rn(2147483647.4), kIntMax);
  EXPECT_EQ(__double2int_rn(-2147483648.4), kIntMin);
  EXPECT_EQ(__double2uint_rn(4294967295.6), std::numeric_limits<unsigned>::max());
  EXPECT_EQ(__double2ull_rn(-3.0), 0ull);
  EXPECT_EQ(__double2ll_rz(std::nan("")), 0ll);
}

TEST(RecordConversions, Mul24UsesTheLow24BitsOfEachOperand) {
  EXPECT_EQ(__mul24(0x01000003, 5), 15);  // bit 24 and above ignored
  EXPECT_EQ(__mul24(0x00ffffff, 2), -2);  // the low 24 bits are signed: -1
  EXPECT_EQ(__mul24(0x7fffff, 0x7fffff), static_cast<int>(0xff000001u));  // low 32 bits
  EXPECT_EQ(__umul24(0xff000003u, 5u), 15u);
  EXPECT_EQ(__umul24(0xffffffu, 0xffffffu), 0xfe000001u);
}

}  // namespace
