// Index expressions as a kernel writes them: CUDA C++'s types and values, and the errors a
// student sees. (tests/core/expr_differential/ checks thousands of random expressions against
// the host compiler; these tests pin the rules one by one, with the issue's examples.)
//
// [SECTION] Helpers
// [SECTION] Types and values (CType, Value, conversions)
// [SECTION] Values and precedence
// [SECTION] Integer promotions and the usual arithmetic conversions
// [SECTION] Literals
// [SECTION] Casts
// [SECTION] Builtins, names and functions
// [SECTION] Symbols and bound expressions
// [SECTION] Evaluation errors (what C++ leaves undefined)
// [SECTION] Bind errors
// [SECTION] Parse errors with exact columns
// [SECTION] Robustness (deep nesting, long chains, random input)
// [SECTION] Subscripts
// [SECTION] Names and formatting

#include <gtest/gtest.h>

#include <climits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "../test_support.h"
#include "bankviz/expr.h"

using bankviz::test::contains;

using bankviz::bind;
using bankviz::BoundExpr;
using bankviz::CType;
using bankviz::Env;
using bankviz::Expr;
using bankviz::ExprError;
using bankviz::parse_expr;
using bankviz::parse_subscripts;
using bankviz::Symbols;
using bankviz::Value;

namespace bankviz {
// gtest prints Values in failures as "unsigned int 4294967295".
void PrintTo(const Value& v, std::ostream* os) {
  *os << ctype_name(v.type) << " " << static_cast<int64_t>(v.bits) << " (bits 0x" << std::hex
      << v.bits << std::dec << ")";
}
}  // namespace bankviz

// [SECTION] Helpers ==============================================================================

namespace {

// Values written as C would type them; the bits sign- or zero-extended as expr.h specifies.
Value I(int32_t v) {
  return {CType::Int, static_cast<uint64_t>(static_cast<int64_t>(v))};
}
Value U(uint32_t v) {
  return {CType::UInt, v};
}
Value LL(int64_t v) {
  return {CType::LongLong, static_cast<uint64_t>(v)};
}
Value ULL(uint64_t v) {
  return {CType::ULongLong, v};
}

// Parses and evaluates; fails the test on any error.
Value value_of(const std::string& text, const Env& env = {}) {
  auto p = parse_expr(text);
  EXPECT_TRUE(p.expr.has_value()) << text << ": " << p.error.format(text);
  if (!p.expr) return I(-424242);
  ExprError err;
  auto v = p.expr->eval(env, &err);
  EXPECT_TRUE(v.has_value()) << text << ": " << err.format(text);
  return v.value_or(I(-424242));
}

// The type C gives the expression (bound with no names).
CType type_of(const std::string& text) {
  auto p = parse_expr(text);
  EXPECT_TRUE(p.expr.has_value()) << text << ": " << p.error.format(text);
  if (!p.expr) return CType::Int;
  auto b = bind(*p.expr, Symbols{});
  EXPECT_TRUE(b.bound.has_value()) << text << ": " << b.error.format(text);
  return b.bound ? b.bound->type() : CType::Int;
}

// The parse error for text (fails the test if it parses).
ExprError parse_error(const std::string& text) {
  auto p = parse_expr(text);
  EXPECT_FALSE(p.expr.has_value()) << "'" << text << "' should not parse";
  return p.error;
}

// The evaluation error for text, which must parse.
ExprError eval_error(const std::string& text, const Env& env = {}) {
  auto p = parse_expr(text);
  EXPECT_TRUE(p.expr.has_value()) << text << ": " << p.error.format(text);
  ExprError err;
  if (p.expr) {
    auto v = p.expr->eval(env, &err);
    EXPECT_FALSE(v.has_value()) << "'" << text << "' should fail, gave "
                                << testing::PrintToString(v.value_or(I(0)));
  }
  return err;
}

// The bind error for text against symbols (text must parse).
ExprError bind_error(const std::string& text, const Symbols& symbols = {}) {
  auto p = parse_expr(text);
  EXPECT_TRUE(p.expr.has_value()) << text << ": " << p.error.format(text);
  if (!p.expr) return {};
  auto b = bind(*p.expr, symbols);
  EXPECT_FALSE(b.bound.has_value()) << "'" << text << "' should not bind";
  return b.error;
}

Env thread(uint32_t x, uint32_t y = 0, uint32_t z = 0) {
  Env env;
  env.threadIdx[0] = x, env.threadIdx[1] = y, env.threadIdx[2] = z;
  env.blockDim[0] = 1024;
  return env;
}

}  // namespace

// [SECTION] Types and values =====================================================================

TEST(ExprTypes, NamesWidthsAndSignednessOfThePromotedTypes) {
  EXPECT_STREQ(bankviz::ctype_name(CType::Int), "int");
  EXPECT_STREQ(bankviz::ctype_name(CType::UInt), "unsigned int");
  EXPECT_STREQ(bankviz::ctype_name(CType::LongLong), "long long");
  EXPECT_STREQ(bankviz::ctype_name(CType::ULongLong), "unsigned long long");
  EXPECT_EQ(bankviz::ctype_bits(CType::Int), 32);
  EXPECT_EQ(bankviz::ctype_bits(CType::UInt), 32);
  EXPECT_EQ(bankviz::ctype_bits(CType::LongLong), 64);
  EXPECT_EQ(bankviz::ctype_bits(CType::ULongLong), 64);
  EXPECT_TRUE(bankviz::ctype_signed(CType::Int));
  EXPECT_FALSE(bankviz::ctype_signed(CType::UInt));
  EXPECT_TRUE(bankviz::ctype_signed(CType::LongLong));
  EXPECT_FALSE(bankviz::ctype_signed(CType::ULongLong));
}

TEST(ExprTypes, DeclarationSpellingsNameTheirTypeAndNarrowTypesAreNotDeclarable) {
  struct Case {
    const char* spelling;
    std::optional<CType> type;
  };
  const Case cases[] = {
      {"int", CType::Int},
      {"signed", CType::Int},
      {"signed int", CType::Int},
      {"int32_t", CType::Int},
      {"unsigned", CType::UInt},
      {"unsigned int", CType::UInt},
      {"uint32_t", CType::UInt},
      {"long", CType::LongLong},  // LP64: long is 64 bits, as in device code
      {"long long", CType::LongLong},
      {"int64_t", CType::LongLong},
      {"unsigned long", CType::ULongLong},
      {"unsigned long long", CType::ULongLong},
      {"size_t", CType::ULongLong},
      {"uint64_t", CType::ULongLong},
      {"char", std::nullopt},  // a let or a loop variable is at least an int
      {"short", std::nullopt},
      {"unsigned char", std::nullopt},
      {"bool", std::nullopt},
      {"float", std::nullopt},
      {"", std::nullopt},
      {"intt", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(bankviz::parse_ctype(c.spelling), c.type) << c.spelling;
}

TEST(ExprTypes, CommonTypeFollowsTheUsualArithmeticConversions) {
  const CType I32 = CType::Int, U32 = CType::UInt, I64 = CType::LongLong, U64 = CType::ULongLong;
  struct Case {
    CType a, b, common;
  };
  const Case cases[] = {
      {I32, I32, I32}, {I32, U32, U32}, {I32, I64, I64}, {I32, U64, U64},
      {U32, U32, U32}, {U32, I64, I64},  // long long holds every unsigned int
      {U32, U64, U64}, {I64, I64, I64}, {I64, U64, U64}, {U64, U64, U64},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(bankviz::common_type(c.a, c.b), c.common)
        << bankviz::ctype_name(c.a) << ", " << bankviz::ctype_name(c.b);
    EXPECT_EQ(bankviz::common_type(c.b, c.a), c.common)
        << bankviz::ctype_name(c.b) << ", " << bankviz::ctype_name(c.a);
  }
}

TEST(ExprTypes, ValuesHoldTheirBitsExtendedTo64AsTheirTypeSays) {
  EXPECT_EQ(Value::of(CType::Int, -1), I(-1));
  EXPECT_EQ(Value::of(CType::Int, -1).bits, ~uint64_t{0});           // sign-extended
  EXPECT_EQ(Value::of(CType::UInt, -1).bits, uint64_t{0xffffffff});  // zero-extended
  EXPECT_EQ(Value::of(CType::Int, 4294967295LL), I(-1));             // modulo 2^32
  EXPECT_EQ(Value::of(CType::Int, 2147483648LL), I(INT_MIN));
  EXPECT_EQ(Value::of_unsigned(CType::UInt, (uint64_t{1} << 32) + 5), U(5));
  EXPECT_EQ(Value::of_unsigned(CType::LongLong, ~uint64_t{0}), LL(-1));
  EXPECT_EQ(Value::of(CType::ULongLong, -1), ULL(~uint64_t{0}));
  EXPECT_TRUE(I(-1).is_negative());
  EXPECT_FALSE(U(0xffffffff).is_negative());
  EXPECT_FALSE(ULL(~uint64_t{0}).is_negative());
  EXPECT_EQ(I(-7).to_int64(), -7);
  EXPECT_EQ(U(0xffffffff).to_int64(), 4294967295LL);
  EXPECT_EQ(ULL(uint64_t{1} << 63).to_int64(), std::nullopt);
  EXPECT_EQ(ULL(INT64_MAX).to_int64(), INT64_MAX);
  EXPECT_EQ(I(-1).text(), "-1");
  EXPECT_EQ(U(0xffffffff).text(), "4294967295");
  EXPECT_EQ(LL(INT64_MIN).text(), "-9223372036854775808");
  EXPECT_EQ(ULL(~uint64_t{0}).text(), "18446744073709551615");
  EXPECT_FALSE(I(0).truthy());
  EXPECT_TRUE(ULL(uint64_t{1} << 63).truthy());
  EXPECT_NE(I(1), U(1));  // same number, different type
}

TEST(ExprTypes, ConversionIsModularAndReinterpretsTheSign) {
  EXPECT_EQ(bankviz::convert(I(-1), CType::UInt), U(0xffffffff));
  EXPECT_EQ(bankviz::convert(I(-1), CType::ULongLong), ULL(~uint64_t{0}));  // sign-extends first
  EXPECT_EQ(bankviz::convert(U(0xffffffff), CType::LongLong), LL(4294967295LL));
  EXPECT_EQ(bankviz::convert(U(0xffffffff), CType::Int), I(-1));
  EXPECT_EQ(bankviz::convert(LL((int64_t{1} << 32) + 7), CType::Int), I(7));
  EXPECT_EQ(bankviz::convert(ULL(uint64_t{1} << 63), CType::LongLong), LL(INT64_MIN));
  EXPECT_EQ(bankviz::convert(LL(-2), CType::UInt), U(0xfffffffe));
}

// [SECTION] Values and precedence ================================================================

TEST(ExprValues, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(value_of("2 + 3 * 4"), I(14));
  EXPECT_EQ(value_of("(2 + 3) * 4"), I(20));
  EXPECT_EQ(value_of("-2 * 3"), I(-6));
}

TEST(ExprValues, FollowsCPrecedenceAcrossAllLevels) {
  EXPECT_EQ(value_of("1 << 2 + 1"), I(8));  // + before <<
  EXPECT_EQ(value_of("1 + 2 << 1"), I(6));
  EXPECT_EQ(value_of("1 << 3 < 9"), I(1));      // << before <
  EXPECT_EQ(value_of("2 < 3 == 1"), I(1));      // < before ==
  EXPECT_EQ(value_of("6 & 3 == 3"), I(0));      // == before &: 6 & 1
  EXPECT_EQ(value_of("1 | 2 ^ 3 & 1"), I(3));   // & before ^ before |
  EXPECT_EQ(value_of("4 | 1 && 0"), I(0));      // | before &&
  EXPECT_EQ(value_of("1 || 0 && 0"), I(1));     // && before ||
  EXPECT_EQ(value_of("0 || 1 ? 7 : 8"), I(7));  // || before ?:
  EXPECT_EQ(value_of("!0 + 1"), I(2));          // unary before binary
  EXPECT_EQ(value_of("~1 & 7"), I(6));
}

TEST(ExprValues, BinaryOperatorsAreLeftAssociative) {
  EXPECT_EQ(value_of("10 - 4 - 3"), I(3));
  EXPECT_EQ(value_of("64 / 4 / 2"), I(8));
  EXPECT_EQ(value_of("100 % 7 % 3"), I(2));
  EXPECT_EQ(value_of("256 >> 2 >> 1"), I(32));
}

TEST(ExprValues, ConditionalIsRightAssociative) {
  EXPECT_EQ(value_of("1 ? 2 : 3 ? 4 : 5"), I(2));
  EXPECT_EQ(value_of("0 ? 2 : 0 ? 4 : 5"), I(5));
  EXPECT_EQ(value_of("0 ? 2 : 1 ? 4 : 5"), I(4));
  EXPECT_EQ(value_of("1 ? 0 ? 6 : 7 : 8"), I(7));
}

TEST(ExprValues, EveryOperatorComputesItsCValue) {
  struct Case {
    const char* text;
    int32_t value;
  };
  const Case cases[] = {
      {"7 + 5", 12},  {"7 - 5", 2},    {"7 * 5", 35}, {"7 / 5", 1},  {"7 % 5", 2},
      {"3 << 4", 48}, {"48 >> 4", 3},  {"3 < 4", 1},  {"4 < 4", 0},  {"4 <= 4", 1},
      {"5 <= 4", 0},  {"5 > 4", 1},    {"4 > 4", 0},  {"4 >= 4", 1}, {"3 >= 4", 0},
      {"4 == 4", 1},  {"4 == 5", 0},   {"4 != 5", 1}, {"4 != 4", 0}, {"12 & 10", 8},
      {"12 ^ 10", 6}, {"12 | 10", 14}, {"2 && 3", 1}, {"2 && 0", 0}, {"0 || 0", 0},
      {"0 || 9", 1},  {"-7", -7},      {"+7", 7},     {"!7", 0},     {"!0", 1},
      {"~0", -1},     {"~5", -6},      {"- -3", 3},   {"-(-3)", 3},
  };
  for (const Case& c : cases) EXPECT_EQ(value_of(c.text), I(c.value)) << c.text;
}

TEST(ExprValues, DivisionTruncatesTowardZeroAsInC) {
  EXPECT_EQ(value_of("-7 / 2"), I(-3));
  EXPECT_EQ(value_of("7 / -2"), I(-3));
  EXPECT_EQ(value_of("-7 / -2"), I(3));
  EXPECT_EQ(value_of("-7 % 2"), I(-1));  // the remainder takes the dividend's sign
  EXPECT_EQ(value_of("7 % -2"), I(1));
  EXPECT_EQ(value_of("-7 % -2"), I(-1));
  EXPECT_EQ(value_of("-8 >> 1"), I(-4));  // arithmetic shift of a negative value
  EXPECT_EQ(value_of("-1 >> 31"), I(-1));
}

TEST(ExprValues, ArithmeticHasTheWidthOfItsOperandsType) {
  EXPECT_EQ(value_of("1LL << 40"), LL(int64_t{1} << 40));
  EXPECT_EQ(value_of("65536LL * 65536"), LL(int64_t{1} << 32));
  EXPECT_EQ(value_of("65536u * 65536u"), U(0));  // unsigned int wraps modulo 2^32
  EXPECT_EQ(value_of("65536u * 65536ull"), ULL(uint64_t{1} << 32));
  EXPECT_EQ(value_of("9223372036854775807"), LL(INT64_MAX));
  EXPECT_EQ(value_of("-9223372036854775807 - 1"), LL(INT64_MIN));
  EXPECT_EQ(value_of("2147483647 + 1LL"), LL(2147483648LL));
}

TEST(ExprValues, LogicalOperatorsShortCircuit) {
  EXPECT_EQ(value_of("0 && 1 / 0"), I(0));
  EXPECT_EQ(value_of("1 || 1 % 0"), I(1));
  EXPECT_EQ(value_of("1 ? 5 : 1 / 0"), I(5));
  EXPECT_EQ(value_of("0 ? 1 / 0 : 6"), I(6));
  EXPECT_EQ(value_of("0 && 2147483647 + 1"), I(0));  // the overflow is never evaluated
  EXPECT_EQ(value_of("1 || 1 << 40"), I(1));
  Env env;
  env.names["d"] = I(0);
  EXPECT_EQ(value_of("d != 0 && 64 / d > 1", env), I(0));
}

TEST(ExprValues, ComparisonsAndLogicYieldIntZeroOrOne) {
  EXPECT_EQ(value_of("5u > 3u"), I(1));
  EXPECT_EQ(value_of("5ull == 5"), I(1));
  EXPECT_EQ(value_of("7LL && 0x100000000"), I(1));
  EXPECT_EQ(value_of("!0ull"), I(1));
  EXPECT_EQ(value_of("!4294967296"), I(0));  // no truncation to 32 bits before the test
  EXPECT_EQ(value_of("0x100000000 || 0"), I(1));
  EXPECT_EQ(type_of("threadIdx.x < 4"), CType::Int);
}

// [SECTION] Integer promotions and the usual arithmetic conversions ==============================

TEST(ExprConversions, ThreadIndexMinusOneModulo32IsLane31ForThreadZero) {
  // The issue's example: tile[(threadIdx.x - 1) % 32] is tile[31] for thread 0, not tile[-1].
  EXPECT_EQ(value_of("(threadIdx.x - 1) % 32", thread(0)), U(31));
  EXPECT_EQ(value_of("threadIdx.x - 1", thread(0)), U(0xffffffff));
  EXPECT_EQ(value_of("(threadIdx.x - 1) % 32", thread(5)), U(4));
  EXPECT_EQ(value_of("(threadIdx.x + 31) % 32", thread(0)), U(31));
}

TEST(ExprConversions, GuardThreadIdxMinus16Below8HoldsExactlyForThreads16To23) {
  // threadIdx.x - 16 is unsigned: threads 0..15 wrap to huge values and fail the guard.
  auto p = parse_expr("threadIdx.x - 16 < 8");
  ASSERT_TRUE(p.expr);
  auto signed_guard = parse_expr("(int)threadIdx.x - 16 < 8");
  ASSERT_TRUE(signed_guard.expr);
  for (uint32_t t = 0; t < 64; ++t) {
    auto v = p.expr->eval(thread(t));
    ASSERT_TRUE(v) << t;
    EXPECT_EQ(*v, I(t >= 16 && t <= 23)) << "thread " << t;
    auto s = signed_guard.expr->eval(thread(t));
    ASSERT_TRUE(s) << t;
    EXPECT_EQ(*s, I(t <= 23)) << "thread " << t;  // the cast makes the comparison signed
  }
}

TEST(ExprConversions, SignedOperandsMeetingUnsignedOnesBecomeUnsigned) {
  EXPECT_EQ(value_of("1u - 2"), U(4294967295u));  // the issue's literal example
  EXPECT_EQ(value_of("-1 < 0u"), I(0));           // -1 converts to 4294967295u
  EXPECT_EQ(value_of("-1 < 0LL"), I(1));
  EXPECT_EQ(value_of("-1LL < 0u"), I(1));  // long long holds every unsigned int
  EXPECT_EQ(value_of("-1 < 0ull"), I(0));
  EXPECT_EQ(value_of("-1LL < 0ull"), I(0));
  EXPECT_EQ(value_of("-7 / 2u"), U(2147483644u));  // (2^32 - 7) / 2
  EXPECT_EQ(value_of("-7 % 2u"), U(1));
  EXPECT_EQ(value_of("0x80000000 >> 31"), U(1));  // unsigned: a logical shift
  EXPECT_EQ(value_of("-1 >> 31u"), I(-1));        // a shift has its left operand's type
  EXPECT_EQ(value_of("1 << 2LL"), I(4));
  EXPECT_EQ(value_of("threadIdx.x + 1LL", thread(0)), LL(1));
  EXPECT_EQ(value_of("threadIdx.x - 1LL", thread(0)), LL(-1));
  EXPECT_EQ(value_of("threadIdx.x - 1ull", thread(0)), ULL(~uint64_t{0}));
  EXPECT_EQ(value_of("-threadIdx.x", thread(1)), U(0xffffffff));
  EXPECT_EQ(value_of("~0u"), U(0xffffffff));
  EXPECT_EQ(value_of("-1u"), U(0xffffffff));
}

TEST(ExprConversions, ConditionalTakesTheCommonTypeOfItsBranches) {
  EXPECT_EQ(value_of("threadIdx.x < 16 ? -1 : 1u", thread(0)), U(0xffffffff));
  EXPECT_EQ(value_of("threadIdx.x < 16 ? -1 : 1LL", thread(0)), LL(-1));
  EXPECT_EQ(value_of("threadIdx.x < 16 ? -1 : 1", thread(0)), I(-1));
  EXPECT_EQ(value_of("threadIdx.x < 16 ? 1 : 2ull", thread(20)), ULL(2));
  EXPECT_EQ(type_of("threadIdx.x ? 1 : 2u"), CType::UInt);
}

TEST(ExprConversions, UnsignedArithmeticWrapsAtItsWidth) {
  EXPECT_EQ(value_of("4294967295u + 1"), U(0));
  EXPECT_EQ(value_of("0u - 1"), U(0xffffffff));
  EXPECT_EQ(value_of("18446744073709551615ull + 1"), ULL(0));
  EXPECT_EQ(value_of("0ull - 1"), ULL(~uint64_t{0}));
  EXPECT_EQ(value_of("0x80000000 * 2"), U(0));
  EXPECT_EQ(value_of("0xffffffffu * 0xffffffffu"), U(1));
  EXPECT_EQ(value_of("1u << 31"), U(0x80000000u));
  EXPECT_EQ(value_of("threadIdx.x * 4294967295u", thread(3)), U(0xfffffffd));
}

TEST(ExprConversions, BoundTypeIsTheCTypeOfTheWholeExpression) {
  struct Case {
    const char* text;
    CType type;
  };
  const Case cases[] = {
      {"threadIdx.x * 2", CType::UInt},
      {"warpSize * 2", CType::Int},
      {"threadIdx.x + 1LL", CType::LongLong},
      {"threadIdx.x + 1ull", CType::ULongLong},
      {"blockDim.x * gridDim.x", CType::UInt},
      {"threadIdx.x == 0", CType::Int},
      {"!threadIdx.x", CType::Int},
      {"-threadIdx.x", CType::UInt},
      {"~0u", CType::UInt},
      {"1 << 2LL", CType::Int},
      {"1LL << 2", CType::LongLong},
      {"(char)threadIdx.x", CType::Int},
      {"(unsigned short)1 * 2u", CType::UInt},
      {"(bool)threadIdx.x", CType::Int},
      {"min(1, 2u)", CType::UInt},
      {"max(1LL, 2ull)", CType::ULongLong},
      {"hash(1LL)", CType::UInt},
      {"abs(-1LL)", CType::LongLong},
      {"abs((short)-1)", CType::Int},
      {"1 ? 2 : 3LL", CType::LongLong},
  };
  for (const Case& c : cases) EXPECT_EQ(type_of(c.text), c.type) << c.text;
}

// [SECTION] Literals =============================================================================

TEST(ExprLiterals, AcceptsHexBinaryOctalAndCSuffixes) {
  EXPECT_EQ(value_of("0x1F"), I(31));
  EXPECT_EQ(value_of("0X10"), I(16));
  EXPECT_EQ(value_of("0xffULL"), ULL(255));
  EXPECT_EQ(value_of("0xfull"), ULL(15));  // hex digit f, then suffix ull, as in C
  EXPECT_EQ(value_of("0b101"), I(5));
  EXPECT_EQ(value_of("0B11"), I(3));
  EXPECT_EQ(value_of("010"), I(8));  // C: a leading zero means octal
  EXPECT_EQ(value_of("0"), I(0));
  EXPECT_EQ(value_of("32u"), U(32));
  EXPECT_EQ(value_of("32U"), U(32));
  EXPECT_EQ(value_of("7L"), LL(7));
  EXPECT_EQ(value_of("7ul"), ULL(7));
  EXPECT_EQ(value_of("7LU"), ULL(7));
  EXPECT_EQ(value_of("1ll"), LL(1));
  EXPECT_EQ(value_of("1ULL"), ULL(1));
  EXPECT_EQ(value_of("1llu"), ULL(1));
  EXPECT_EQ(value_of("1uLL"), ULL(1));  // u and LL are cased independently
  EXPECT_EQ(value_of("1Ull"), ULL(1));
}

TEST(ExprLiterals, TakeTheFirstTypeOfTheirSuffixListThatHoldsTheValue) {
  // C++17 [lex.icon] table 7, with long = 64 bits: decimal literals stay signed unless 'u'.
  struct Case {
    const char* text;
    Value value;
  };
  const Case cases[] = {
      {"2147483647", I(INT_MAX)},
      {"2147483648", LL(2147483648LL)},  // the issue's example: long, not unsigned int
      {"4294967295", LL(4294967295LL)},
      {"4294967296", LL(4294967296LL)},
      {"0x7fffffff", I(INT_MAX)},
      {"0x80000000", U(0x80000000u)},  // hex: unsigned int before long
      {"0xffffffff", U(0xffffffffu)},
      {"0x100000000", LL(4294967296LL)},
      {"020000000000", U(0x80000000u)},  // octal 2^31
      {"0b10000000000000000000000000000000", U(0x80000000u)},
      {"0x7fffffffffffffff", LL(INT64_MAX)},
      {"0x8000000000000000", ULL(uint64_t{1} << 63)},
      {"0xffffffffffffffff", ULL(~uint64_t{0})},
      {"2147483648u", U(0x80000000u)},
      {"4294967295u", U(0xffffffffu)},
      {"4294967296u", ULL(uint64_t{1} << 32)},
      {"9223372036854775808u", ULL(uint64_t{1} << 63)},
      {"18446744073709551615u", ULL(~uint64_t{0})},
      {"1l", LL(1)},
      {"0x8000000000000000l", ULL(uint64_t{1} << 63)},  // hex l: long, then unsigned long
      {"0x8000000000000000ll", ULL(uint64_t{1} << 63)},
      {"2147483647u", U(INT_MAX)},
      {"1lu", ULL(1)},
  };
  for (const Case& c : cases) EXPECT_EQ(value_of(c.text), c.value) << c.text;
}

TEST(ExprLiterals, ADecimalLiteralAboveLongLongNeedsTheUnsignedSuffix) {
  ExprError e = parse_error("9223372036854775808");
  EXPECT_EQ(e.column, 1);
  EXPECT_TRUE(contains(e.message, "too large")) << e.message;
  EXPECT_EQ(parse_error("1 + 9223372036854775808ll").column, 5);
  EXPECT_EQ(parse_error("18446744073709551616u").column, 1);  // above 2^64 - 1 for every suffix
  EXPECT_EQ(parse_error("0x10000000000000000").column, 1);
  EXPECT_EQ(value_of("-9223372036854775808u"), ULL(uint64_t{1} << 63));
}

// [SECTION] Casts ================================================================================

TEST(ExprCasts, CastsConvertToTheirType) {
  EXPECT_EQ(value_of("(int)threadIdx.x - 1", thread(0)), I(-1));  // the issue's example
  EXPECT_EQ(value_of("(int)threadIdx.x * 2", thread(5)), I(10));
  EXPECT_EQ(value_of("(unsigned int)(blockDim.x + 1)", thread(5)), U(1025));
  EXPECT_EQ(value_of("(unsigned)-1"), U(0xffffffffu));
  EXPECT_EQ(value_of("(int)4294967295"), I(-1));  // modulo 2^32, as every compiler does it
  EXPECT_EQ(value_of("(int)2147483648"), I(INT_MIN));
  EXPECT_EQ(value_of("(long long)threadIdx.x - 1", thread(0)), LL(-1));
  EXPECT_EQ(value_of("(long)3 + (long long)4"), LL(7));
  EXPECT_EQ(value_of("(long)3 + (long long)4 + (unsigned long long)5 + (size_t)6"), ULL(18));
  EXPECT_EQ(value_of("(unsigned long long)-1"), ULL(~uint64_t{0}));
  EXPECT_EQ(value_of("(uint32_t)-1"), U(0xffffffffu));
  EXPECT_EQ(value_of("(int64_t)0xffffffffffffffff"), LL(-1));
  EXPECT_EQ(value_of("(int)(int)-1"), I(-1));
  EXPECT_EQ(value_of("( const int ) 9"), I(9));
  EXPECT_EQ(value_of("(7)"), I(7));  // a parenthesized value is not a cast
}

TEST(ExprCasts, NarrowCastsTruncateThenPromoteToInt) {
  EXPECT_EQ(value_of("(char)200"), I(-56));  // char is signed on the device and on Linux
  EXPECT_EQ(value_of("(char)-1 < 0"), I(1));
  EXPECT_EQ(value_of("(signed char)-129"), I(127));
  EXPECT_EQ(value_of("(unsigned char)300"), I(44));
  EXPECT_EQ(value_of("(unsigned char)-1 * 2"), I(510));  // promoted to int, not wrapped at 8 bits
  EXPECT_EQ(value_of("(short)40000"), I(-25536));
  EXPECT_EQ(value_of("(unsigned short)-1"), I(65535));
  EXPECT_EQ(value_of("(unsigned short)65535 * (unsigned short)2"), I(131070));
  EXPECT_EQ(value_of("(bool)256"), I(1));  // any nonzero value converts to true
  EXPECT_EQ(value_of("(bool)0x100000000"), I(1));
  EXPECT_EQ(value_of("(bool)0"), I(0));
  EXPECT_EQ(value_of("(unsigned char)threadIdx.x", thread(1023)), I(255));
  EXPECT_EQ(value_of("(unsigned char)threadIdx.x - 256", thread(1023)), I(-1));
}

// [SECTION] Builtins, names and functions ========================================================

TEST(ExprNames, BuiltinsAreUnsignedIntAndWarpSizeIsInt) {
  Env env;
  env.threadIdx[0] = 3, env.threadIdx[1] = 4, env.threadIdx[2] = 5;
  env.blockDim[0] = 32, env.blockDim[1] = 8, env.blockDim[2] = 2;
  env.blockIdx[0] = 6, env.blockIdx[1] = 7, env.blockIdx[2] = 8;
  env.gridDim[0] = 10, env.gridDim[1] = 11, env.gridDim[2] = 12;
  EXPECT_EQ(value_of("threadIdx.x", env), U(3));
  EXPECT_EQ(value_of("threadIdx.y", env), U(4));
  EXPECT_EQ(value_of("threadIdx.z", env), U(5));
  EXPECT_EQ(value_of("blockDim.x * blockDim.y * blockDim.z", env), U(512));
  EXPECT_EQ(value_of("blockIdx.x + blockIdx.y + blockIdx.z", env), U(21));
  EXPECT_EQ(value_of("gridDim.x + gridDim.y + gridDim.z", env), U(33));
  EXPECT_EQ(value_of("warpSize"), I(32));
  EXPECT_EQ(value_of("warpSize - 33"), I(-1));
  EXPECT_EQ(value_of("threadIdx.y * blockDim.x + threadIdx.x", env), U(4 * 32 + 3));
  EXPECT_EQ(value_of("threadIdx . x", env), U(3));  // spaces around '.' are fine in C
}

TEST(ExprNames, NamedValuesKeepTheTypeTheyAreDeclaredWith) {
  Env env;
  env.names["row_idx"] = I(7);
  env.names["BDIMX"] = U(32);
  EXPECT_EQ(value_of("row_idx * BDIMX + 1", env), U(225));
  EXPECT_EQ(value_of("row_idx - 8", env), I(-1));
  env.names["row_idx"] = U(7);
  EXPECT_EQ(value_of("row_idx - 8", env), U(0xffffffffu));
  env.names["big"] = LL(int64_t{1} << 40);
  EXPECT_EQ(value_of("big + row_idx", env), LL((int64_t{1} << 40) + 7));
}

TEST(ExprFunctions, MinAndMaxCompareInTheCommonTypeOfTheirArguments) {
  EXPECT_EQ(value_of("min(3, -4)"), I(-4));
  EXPECT_EQ(value_of("max(3, -4)"), I(3));
  // CUDA's min(int, unsigned int) returns unsigned int: -1 becomes 4294967295.
  EXPECT_EQ(value_of("min(-1, 1u)"), U(1));
  EXPECT_EQ(value_of("max(-1, 1u)"), U(0xffffffffu));
  EXPECT_EQ(value_of("max(threadIdx.x, -1)", thread(0)), U(0xffffffffu));
  EXPECT_EQ(value_of("min(-1LL, 1ull)"), ULL(1));
  EXPECT_EQ(value_of("min(-1LL, 1LL)"), LL(-1));
  EXPECT_EQ(value_of("max((char)-1, (short)-2)"), I(-1));
  EXPECT_EQ(value_of("min(max(1, 2), 3) + abs(-1 - 1)"), I(4));
}

TEST(ExprFunctions, MinAndMaxOfA32And64BitArgumentDoNotBindAsCudaDoesNotCompileThem) {
  // nvcc: "more than one instance of overloaded function min matches" for (int, long long).
  for (const char* text : {"min(1, 2LL)", "max(threadIdx.x, 5ull)", "min((long long)1, 2u)"}) {
    ExprError e = eval_error(text);
    EXPECT_EQ(e.column, 1) << text;
    EXPECT_TRUE(contains(e.message, "no such overload")) << text << ": " << e.message;
  }
  EXPECT_EQ(value_of("min((long long)threadIdx.x, 2LL)", thread(5)), LL(2));
}

TEST(ExprFunctions, AbsKeepsItsSignedType) {
  EXPECT_EQ(value_of("abs(-5)"), I(5));
  EXPECT_EQ(value_of("abs(5)"), I(5));
  EXPECT_EQ(value_of("abs(-5LL)"), LL(5));
  EXPECT_EQ(value_of("abs(-2147483648)"), LL(2147483648LL));  // the literal is a long
  EXPECT_EQ(value_of("abs((char)-3)"), I(3));
  EXPECT_EQ(value_of("abs((int)threadIdx.x - 7)", thread(2)), I(5));
}

TEST(ExprFunctions, HashIsTheFixedLowbias32Mix) {
  // Values of lowbias32 (x ^= x>>16; x *= 0x7feb352d; x ^= x>>15; x *= 0x846ca68b; x ^= x>>16).
  EXPECT_EQ(value_of("hash(0)"), U(0));
  EXPECT_EQ(value_of("hash(1)"), U(1753845952u));
  EXPECT_EQ(value_of("hash(2)"), U(3507691905u));
  EXPECT_EQ(value_of("hash(12345)"), U(2435775735u));
  EXPECT_EQ(value_of("hash(-1)"), U(1734902346u));           // converted to unsigned int first
  EXPECT_EQ(value_of("hash(0x100000001)"), U(1753845952u));  // the low 32 bits: hash(1)
  EXPECT_EQ(value_of("hash(18446744073709551615ull)"), U(1734902346u));
}

TEST(ExprFunctions, HashSpreadsAHistogramsBins) {
  auto p = parse_expr("hash(threadIdx.x) % 256");
  ASSERT_TRUE(p.expr);
  std::vector<int> bins(256, 0);
  for (uint32_t t = 0; t < 1024; ++t) {
    auto v = p.expr->eval(thread(t));
    ASSERT_TRUE(v);
    ASSERT_EQ(v->type, CType::UInt);
    ASSERT_LT(v->bits, 256u);
    ++bins[v->bits];
  }
  int used = 0;
  for (int b : bins) used += b > 0;
  EXPECT_GT(used, 200);  // 1024 hashed threads hit most of 256 bins
}

// [SECTION] Symbols and bound expressions ========================================================

TEST(ExprSymbols, AddingANameGivesItASlotAndAddingItAgainRetypesIt) {
  Symbols s;
  const int i = s.add("i", CType::Int);
  const int n = s.add("n", CType::LongLong);
  EXPECT_NE(i, n);
  EXPECT_EQ(s.size(), 2);
  ASSERT_NE(s.find("n"), nullptr);
  EXPECT_EQ(s.find("n")->slot, n);
  EXPECT_EQ(s.find("n")->type, CType::LongLong);
  EXPECT_EQ(s.find("m"), nullptr);
  EXPECT_EQ(s.add("n", CType::UInt), n);
  EXPECT_EQ(s.find("n")->type, CType::UInt);
  EXPECT_EQ(s.size(), 2);
}

TEST(ExprSymbols, BoundExpressionsReadTheirSlotsWithTheDeclaredTypes) {
  Symbols s;
  const int i = s.add("i", CType::Int);
  const int n = s.add("n", CType::UInt);
  auto p = parse_expr("(i - n) % 32 + threadIdx.x");
  ASSERT_TRUE(p.expr);
  auto b = bind(*p.expr, s);
  ASSERT_TRUE(b.bound) << b.error.message;
  EXPECT_EQ(b.bound->type(), CType::UInt);
  EXPECT_EQ(b.bound->text(), "(i - n) % 32 + threadIdx.x");
  Env env = thread(1);
  env.slots.resize(2);
  env.slots[static_cast<size_t>(i)] = I(0);
  env.slots[static_cast<size_t>(n)] = U(1);
  EXPECT_EQ(b.bound->eval(env), U(32));  // (0u - 1u) % 32 == 31, plus thread 1
  env.slots[static_cast<size_t>(n)] = U(0);
  EXPECT_EQ(b.bound->eval(env), U(1));
  BoundExpr copy = *b.bound;
  EXPECT_EQ(copy.eval(env), U(1));
}

TEST(ExprSymbols, ALoopVariableOfTypeIntGoesNegative) {
  Symbols s;
  const int k = s.add("k", CType::Int);
  auto p = parse_expr("k - 1");
  ASSERT_TRUE(p.expr);
  auto b = bind(*p.expr, s);
  ASSERT_TRUE(b.bound);
  EXPECT_EQ(b.bound->type(), CType::Int);
  Env env;
  env.slots.resize(1);
  env.slots[static_cast<size_t>(k)] = I(0);
  EXPECT_EQ(b.bound->eval(env), I(-1));  // an unsigned loop variable would wrap to 4294967295
}

TEST(ExprSymbols, ExprEvalAndBoundEvalAgree) {
  Symbols s;
  const int x = s.add("x", CType::LongLong);
  auto p = parse_expr("x * 3 - threadIdx.x");
  ASSERT_TRUE(p.expr);
  auto b = bind(*p.expr, s);
  ASSERT_TRUE(b.bound);
  Env env = thread(4);
  env.slots.resize(1);
  env.slots[static_cast<size_t>(x)] = LL(-2);
  env.names["x"] = LL(-2);
  EXPECT_EQ(b.bound->eval(env), LL(-10));
  EXPECT_EQ(p.expr->eval(env), LL(-10));
}

// [SECTION] Evaluation errors ====================================================================

TEST(ExprEvalErrors, UnknownNamePointsAtTheNameAndSuggestsABuiltin) {
  Env env;
  env.names["a"] = I(1);
  ExprError e = eval_error("a + tidx", env);
  EXPECT_EQ(e.column, 5);
  EXPECT_EQ(e.message, "unknown name 'tidx' (did you mean threadIdx.x?)");
}

TEST(ExprEvalErrors, UnknownNameSuggestsANearbyConstant) {
  Env env;
  env.names["row_idx"] = I(1);
  ExprError e = eval_error("2 * row_ix", env);
  EXPECT_EQ(e.column, 5);
  EXPECT_TRUE(contains(e.message, "did you mean row_idx?")) << e.message;
  ExprError far = eval_error("zzzzzz", env);
  EXPECT_EQ(far.message, "unknown name 'zzzzzz'");
}

TEST(ExprEvalErrors, DivisionAndModuloByZeroPointAtTheOperator) {
  ExprError d = eval_error("8 / (threadIdx.x - 3)", thread(3));
  EXPECT_EQ(d.column, 3);
  EXPECT_EQ(d.message, "division by zero");
  ExprError m = eval_error("1 + 8 % 0", thread(3));
  EXPECT_EQ(m.column, 7);
  EXPECT_EQ(m.message, "modulo by zero");
  EXPECT_EQ(eval_error("8u / 0u").column, 4);
  EXPECT_EQ(eval_error("1 + 8ull % (threadIdx.x - 3)", thread(3)).column, 10);
  EXPECT_EQ(value_of("8 / 0x100000000u"), ULL(0));  // 2^32 (unsigned long) is not truncated to 0
}

TEST(ExprEvalErrors, EveryUndefinedBehaviourIsAnErrorAtItsOperator) {
  // C++17 [expr]/4 (overflow), [expr.mul]/4 (division, and a%b when a/b is not representable),
  // [expr.shift]/2-3 (shift counts, left shifts of negative values and out of the unsigned range).
  struct Case {
    const char* text;
    int column;
    const char* says;  // a word the message must contain
  };
  const Case cases[] = {
      {"2147483647 + 1", 12, "overflow"},
      {"-2147483647 - 2", 13, "overflow"},
      {"65536 * 65536", 7, "overflow"},
      {"-(-2147483647 - 1)", 1, "overflow"},
      {"(-2147483647 - 1) / -1", 19, "overflow"},
      {"(-2147483647 - 1) % -1", 19, ""},  // INT_MIN % -1: the quotient is not representable
      {"9223372036854775807 + 1", 21, "overflow"},
      {"-9223372036854775807 - 2", 22, "overflow"},
      {"4294967296 * 4294967296", 12, "overflow"},
      {"-(-9223372036854775807 - 1)", 1, "overflow"},
      {"(-9223372036854775807 - 1) / -1", 28, "overflow"},
      {"(-9223372036854775807 - 1) % -1", 28, ""},
      {"abs(-2147483647 - 1)", 1, ""},
      {"abs(-9223372036854775807 - 1)", 1, ""},
      {"1 / 0", 3, "division by zero"},
      {"1 % 0", 3, "modulo by zero"},
      {"1 << 32", 3, "shift count"},
      {"1 << 63", 3, "shift count"},  // 1 is an int: 63 is not below its 32 bits
      {"1 << 64", 3, "shift count"},
      {"1u >> 32", 4, "shift count"},
      {"1LL << 64", 5, "shift count"},
      {"1 >> -1", 3, "shift count"},
      {"1 << -1LL", 3, "shift count"},
      {"-1 << 1", 4, "negative"},
      {"2 << 31", 3, ""},           // 2 * 2^31 does not fit unsigned int
      {"0x40000000 << 2", 12, ""},  // 2^32 does not fit unsigned int
      {"2LL << 63", 5, ""},         // 2^64 does not fit unsigned long long
      {"threadIdx.x << 32", 13, "shift count"},
  };
  for (const Case& c : cases) {
    ExprError e = eval_error(c.text, thread(0));
    EXPECT_EQ(e.column, c.column) << c.text << ": " << e.message;
    EXPECT_FALSE(e.message.empty()) << c.text;
    EXPECT_TRUE(contains(e.message, c.says)) << c.text << ": " << e.message;
  }
}

TEST(ExprEvalErrors, LeftShiftsThatFitTheUnsignedTypeAreDefined) {
  // C++17 [expr.shift]/2: a non-negative E1 << E2 is defined when E1 * 2^E2 fits the unsigned
  // type of E1's width; the result is that value converted back to the signed type.
  EXPECT_EQ(value_of("1 << 31"), I(INT_MIN));
  EXPECT_EQ(value_of("3 << 30"), I(-1073741824));
  EXPECT_EQ(value_of("0x7fffffff << 1"), I(-2));
  EXPECT_EQ(value_of("0 << 31"), I(0));
  EXPECT_EQ(value_of("1LL << 63"), LL(INT64_MIN));
  EXPECT_EQ(value_of("1 << 31u"), I(INT_MIN));
  EXPECT_EQ(value_of("1u << 31"), U(0x80000000u));
  EXPECT_EQ(value_of("0xffffffffu << 31"), U(0x80000000u));  // unsigned: bits shifted out vanish
  EXPECT_EQ(value_of("(char)1 << 31"), I(INT_MIN));          // promoted to int first
  EXPECT_EQ(value_of("1 << threadIdx.x", thread(31)), I(INT_MIN));
}

TEST(ExprEvalErrors, OverflowIsCheckedInTheOperationsTypeNotIn64Bits) {
  Env env;
  env.names["a"] = I(INT_MAX);
  env.names["u"] = U(0xffffffffu);
  EXPECT_EQ(eval_error("a + 1", env).column, 3);
  EXPECT_EQ(eval_error("a * 2", env).column, 3);
  EXPECT_EQ(value_of("a + 1LL", env), LL(2147483648LL));
  EXPECT_EQ(value_of("u + 1", env), U(0));
  EXPECT_EQ(value_of("a + 1u", env), U(0x80000000u));
  EXPECT_EQ(eval_error("1 + (a + 1)", env).column, 8);
}

TEST(ExprEvalErrors, DefaultConstructedExprReportsInsteadOfCrashing) {
  Expr e;
  ExprError err;
  EXPECT_FALSE(e.eval(Env{}, &err));
  EXPECT_EQ(err.column, 1);
  EXPECT_FALSE(e.eval(Env{}));  // a null error pointer is fine
  EXPECT_TRUE(e.names().empty());
  EXPECT_FALSE(e.uses_thread_index());
}

// [SECTION] Bind errors ==========================================================================

TEST(ExprBindErrors, UnknownNamesAreRefusedWithASuggestion) {
  Symbols s;
  s.add("row_idx", CType::Int);
  ExprError near = bind_error("2 * row_ix", s);
  EXPECT_EQ(near.column, 5);
  EXPECT_EQ(near.message, "unknown name 'row_ix' (did you mean row_idx?)");
  ExprError alias = bind_error("row_idx + tidx", s);
  EXPECT_EQ(alias.column, 11);
  EXPECT_EQ(alias.message, "unknown name 'tidx' (did you mean threadIdx.x?)");
  ExprError far = bind_error("zzzzzz", s);
  EXPECT_EQ(far.column, 1);
  EXPECT_EQ(far.message, "unknown name 'zzzzzz'");
}

TEST(ExprBindErrors, AbsOfAnUnsignedOperandIsRefused) {
  // CUDA has no abs(unsigned): the call is ambiguous; bankviz says so at the call.
  for (const char* text : {"abs(threadIdx.x)", "abs(1u)", "abs(0x80000000)", "abs(1ull)",
                           "abs((size_t)2)", "abs(threadIdx.x - 1)"}) {
    ExprError e = bind_error(text);
    EXPECT_EQ(e.column, 1) << text;
    EXPECT_TRUE(contains(e.message, "abs")) << text << ": " << e.message;
    EXPECT_TRUE(contains(e.message, "unsigned")) << text << ": " << e.message;
  }
  EXPECT_EQ(bind_error("1 + abs(blockDim.x)").column, 5);
  EXPECT_EQ(value_of("abs((int)threadIdx.x)", thread(3)), I(3));  // a cast makes it signed
}

// [SECTION] Parse errors with exact columns ======================================================

TEST(ExprParseErrors, EachMalformedInputNamesItsColumnAndWhatWasExpected) {
  struct Case {
    const char* text;
    int column;
    const char* message;
  };
  const Case cases[] = {
      {"", 1, "expected an expression, found end of input"},
      {"threadIdx.x +", 14, "expected an operand after '+', found end of input"},
      {"2 * (3 + )", 10, "expected an operand after '+', found ')'"},
      {"a + + ", 7, "expected an operand after '+', found end of input"},
      {"(a + b", 7, "expected ')' to close '(' at column 1, found end of input"},
      {"((a) + b", 9, "expected ')' to close '(' at column 1, found end of input"},
      {"a + b)", 6, "unexpected ')' with no matching '('"},
      {"a]", 2, "unexpected ']' with no matching '['"},
      {"threadIdx.x 5", 13, "expected an operator or end of input after the expression, found '5'"},
      {"threadIdx", 10, "expected '.x', '.y' or '.z' after 'threadIdx', found end of input"},
      {"blockDim.w", 10, "'blockDim' has members x, y and z, not 'w'"},
      {"threadIdx.", 11, "expected x, y or z after 'threadIdx.', found end of input"},
      {"threadidx.x", 1, "unknown name 'threadidx' (did you mean threadIdx?)"},
      {"foo.x", 4, "'.' can only follow threadIdx, blockDim, blockIdx or gridDim, not 'foo'"},
      {"99999999999999999999", 1,
       "integer literal '99999999999999999999' is too large (the limit is 18446744073709551615)"},
      {"1 + 9223372036854775808", 5,
       "integer literal '9223372036854775808' is too large for any signed type (the limit is "
       "9223372036854775807; write '9223372036854775808u' for an unsigned literal)"},
      {"1.5", 1, "floating-point literals are not supported: index expressions are integers"},
      {"0x", 3, "expected hex digits after '0x'"},
      {"0b2", 3, "digit '2' is not valid in a binary literal"},
      {"0b", 3, "expected binary digits after '0b'"},
      {"09", 2, "digit '9' is not valid in an octal literal (a leading 0 means octal in C)"},
      {"3q", 2, "invalid suffix 'q' on integer literal (expected u, l, ul, ll or ull)"},
      {"1lL", 2, "invalid suffix 'lL' on integer literal (expected u, l, ul, ll or ull)"},
      {"1uu", 2, "invalid suffix 'uu' on integer literal (expected u, l, ul, ll or ull)"},
      {"a = 1", 3, "unexpected '=': an index expression cannot assign (did you mean '=='?)"},
      {"a @ b", 3, "unexpected character '@'"},
      {"x;", 2, "unexpected ';': write the expression without a semicolon"},
      {"foo(1)", 1, "unknown function 'foo' (functions: min, max, abs, hash)"},
      {"min(1)", 1, "'min' takes 2 arguments, got 1"},
      {"abs(1, 2)", 1, "'abs' takes 1 argument, got 2"},
      {"hash()", 6, "expected an argument for 'hash', found ')'"},
      {"min(1, 2", 9,
       "expected ',' or ')' to close the call to 'min' at column 4, found end of input"},
      {"a ? b", 6, "expected ':' to match '?' at column 3, found end of input"},
      {"()", 2, "expected an expression inside '()', found ')'"},
      {"(float)x", 2, "cast to 'float' is not supported: index expressions are integers"},
      {"(int x)", 6, "expected ')' after type 'int' in the cast at column 1, found 'x'"},
      {"int", 1, "unexpected type name 'int' (a cast is written '(int)x')"},
      {"sizeof(x)", 1, "'sizeof' is a C keyword, not a value"},
      {"input[item]", 6,
       "cannot index 'input' here: only the shared tile's subscripts are modelled (use a let, "
       "a constant or hash() for data-dependent indices)"},
      {"1 + ([3])", 6, "expected a number, a name or '(', found '['"},
      {"a + 1 @", 7, "unexpected character '@'"},
  };
  for (const Case& c : cases) {
    ExprError e = parse_error(c.text);
    EXPECT_EQ(e.column, c.column) << "'" << c.text << "': " << e.message;
    EXPECT_EQ(e.message, c.message) << "'" << c.text << "'";
  }
}

TEST(ExprParseErrors, IncrementAndDecrementAreRefusedNotReadAsTwoSigns) {
  // C++ lexes the longest token ([lex.pptoken]/3): "--a" is a pre-decrement, not -(-a), and
  // "a--1" is a-- followed by 1. The generated kernel pastes the text (lets and loop variables are
  // modifiable ints), so reading these as signs would model an index the kernel does not compute.
  struct Case {
    const char* text;
    int column;
    const char* token;
  };
  const Case cases[] = {
      {"--a", 1, "--"},  {"++a", 1, "++"},   {"a--1", 2, "--"},
      {"a++1", 2, "++"}, {"a+++1", 2, "++"}, {"2 * --i", 5, "--"},
  };
  for (const Case& c : cases) {
    ExprError e = parse_error(c.text);
    EXPECT_EQ(e.column, c.column) << "'" << c.text << "': " << e.message;
    EXPECT_TRUE(contains(e.message, c.token)) << "'" << c.text << "': " << e.message;
  }
  Env env;
  env.names["a"] = I(5);
  EXPECT_EQ(value_of("- -a", env), I(5));  // with a space: two signs, as in C
  EXPECT_EQ(value_of("a - -1", env), I(6));
  EXPECT_EQ(value_of("a+ +1", env), I(6));
}

TEST(ExprParseErrors, AnEarlierSyntaxErrorWinsOverALaterBadCharacter) {
  ExprError e = parse_error("(1 + ) @");
  EXPECT_EQ(e.column, 6);
}

TEST(ExprParseErrors, WhitespaceOnlyIsAnEmptyExpression) {
  ExprError e = parse_error("   ");
  EXPECT_EQ(e.column, 4);
  EXPECT_TRUE(contains(e.message, "expected an expression")) << e.message;
}

TEST(ExprParseErrors, NonAsciiBytesAreNamedNotPrinted) {
  // A character outside ASCII is named by its code point; bytes that are not UTF-8 by their value.
  ExprError e = parse_error("a \xc3\xa9");
  EXPECT_EQ(e.column, 3);
  EXPECT_EQ(e.message, "unexpected character U+00E9 (not ASCII): bankviz reads ASCII here");
  EXPECT_EQ(parse_error("a \xc3(").message, "unexpected character byte 0xC3");
  EXPECT_EQ(parse_error("a \xe2\x80").message, "unexpected character byte 0xE2");
  EXPECT_EQ(parse_error("a \xed\xa0\x80").message,
            "unexpected character byte 0xED");  // a surrogate
}

TEST(ExprParseErrors, TypographyPastedFromADocumentSaysWhatToWrite) {
  // Slides and PDFs print a minus sign, an en dash, a multiplication sign, full-width forms.
  EXPECT_EQ(parse_error("x \xe2\x88\x92 1").message,
            "unexpected character U+2212 (a minus sign): write '-'");
  EXPECT_EQ(parse_error("x \xe2\x80\x93 1").message,
            "unexpected character U+2013 (an en dash): write '-'");
  EXPECT_EQ(parse_error("x \xc3\x97 2").message,
            "unexpected character U+00D7 (a multiplication sign): write 'x' between extents, "
            "'*' to multiply");
  EXPECT_EQ(parse_error("x\xc2\xa0+ 1").message,
            "unexpected character U+00A0 (a no-break space): write a space");
  EXPECT_EQ(parse_error("x \xef\xbc\x8b 1").message,
            "unexpected character U+FF0B (a full-width '+'): write '+'");
  EXPECT_EQ(parse_error("x \xe2\x89\xa4 1").message,
            "unexpected character U+2264 (less than or equal to): write '<='");
  EXPECT_EQ(parse_error("x \xf0\x9f\x98\x80").message,
            "unexpected character U+1F600 (not ASCII): bankviz reads ASCII here");
}

// [SECTION] Robustness ===========================================================================

TEST(ExprRobustness, NestingUpTo200LevelsParses) {
  const std::string ok = std::string(199, '(') + "1" + std::string(199, ')');
  EXPECT_EQ(value_of(ok), I(1));
}

TEST(ExprRobustness, DeeperNestingIsAClearErrorNotAStackOverflow) {
  const std::string deep = std::string(200, '(') + "1" + std::string(200, ')');
  ExprError e = parse_error(deep);
  EXPECT_EQ(e.column, 201);  // at the '1' that would have been level 201
  EXPECT_EQ(e.message, "expression nested too deeply (more than 200 levels)");
  EXPECT_FALSE(parse_expr(std::string(100000, '(')).expr);
  EXPECT_FALSE(parse_expr(std::string(100000, '-') + "1").expr);
  EXPECT_FALSE(parse_expr(std::string(100000, '~') + "1").expr);
  EXPECT_FALSE(parse_expr("min(" + std::string(100000, '(')).expr);
  std::string ternary;
  for (int i = 0; i < 5000; ++i) ternary += "1 ? 2 : ";
  EXPECT_FALSE(parse_expr(ternary + "3").expr);
  std::string casts;
  for (int i = 0; i < 5000; ++i) casts += "(int)";
  EXPECT_FALSE(parse_expr(casts + "3").expr);
}

TEST(ExprRobustness, LongFlatChainsEvaluateWithoutDeepRecursion) {
  std::string sum = "1";
  for (int i = 0; i < 100000; ++i) sum += "+1";
  EXPECT_EQ(value_of(sum), I(100001));
  std::string ands = "1";
  for (int i = 0; i < 100000; ++i) ands += " && 1";
  EXPECT_EQ(value_of(ands), I(1));
}

TEST(ExprRobustness, RandomTokenSoupNeverCrashesAndErrorsStayInsideTheText) {
  const char* pieces[] = {"threadIdx.x", "threadIdx", ".",
                          "a",           "b",         "1",
                          "0x1f",        "07",        "(",
                          ")",           "[",         "]",
                          "+",           "-",         "*",
                          "/",           "%",         "<<",
                          ">>",          "<",         "==",
                          "&&",          "||",        "!",
                          "~",           "?",         ":",
                          ",",           "min",       "hash",
                          "(int)",       "tile",      " ",
                          "=",           "@",         "99999999999999999999",
                          "0",           "64",        "9223372036854775807"};
  std::mt19937 rng(12345);
  Env env;
  env.names["a"] = I(3);
  env.names["b"] = I(-2);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text;
    const int n = static_cast<int>(rng() % 14);
    for (int k = 0; k < n; ++k) text += pieces[rng() % std::size(pieces)];
    const int limit = static_cast<int>(text.size()) + 1;
    auto p = parse_expr(text);
    if (p.expr) {
      ++parsed;
      ExprError err;
      if (!p.expr->eval(env, &err)) {
        EXPECT_GE(err.column, 1) << text;
        EXPECT_LE(err.column, limit) << text;
        EXPECT_FALSE(err.message.empty()) << text;
      }
    } else {
      EXPECT_GE(p.error.column, 1) << text;
      EXPECT_LE(p.error.column, limit) << text;
      EXPECT_FALSE(p.error.message.empty()) << text;
    }
    auto s = parse_subscripts(text, "tile");
    if (!s.ok) {
      EXPECT_GE(s.error.column, 1) << text;
      EXPECT_LE(s.error.column, limit) << text;
      EXPECT_TRUE(s.subscripts.empty()) << text;
    } else {
      EXPECT_GE(s.subscripts.size(), 1u) << text;
      EXPECT_LE(s.subscripts.size(), 3u) << text;
    }
  }
  EXPECT_GT(parsed, 500);  // the soup does exercise the evaluator
}

// [SECTION] Subscripts ===========================================================================

TEST(ExprSubscripts, NamedArrayWithTwoSubscripts) {
  auto s = parse_subscripts("tile[threadIdx.y][threadIdx.x]", "tile");
  ASSERT_TRUE(s.ok) << s.error.message;
  ASSERT_EQ(s.subscripts.size(), 2u);
  EXPECT_EQ(s.subscripts[0].text(), "threadIdx.y");
  EXPECT_EQ(s.subscripts[1].text(), "threadIdx.x");
  Env env;
  env.threadIdx[0] = 5, env.threadIdx[1] = 9;
  EXPECT_EQ(s.subscripts[0].eval(env), U(9));
  EXPECT_EQ(s.subscripts[1].eval(env), U(5));
}

TEST(ExprSubscripts, BareBracketsAndBareExpression) {
  auto b = parse_subscripts(" [ty] [ tx ] ", "tile");
  ASSERT_TRUE(b.ok) << b.error.message;
  ASSERT_EQ(b.subscripts.size(), 2u);
  EXPECT_EQ(b.subscripts[0].names(), std::vector<std::string>{"ty"});
  EXPECT_EQ(b.subscripts[1].text(), "tx");

  auto e = parse_subscripts("row_idx", "tile");
  ASSERT_TRUE(e.ok) << e.error.message;
  ASSERT_EQ(e.subscripts.size(), 1u);
  EXPECT_EQ(e.subscripts[0].text(), "row_idx");

  auto x = parse_subscripts("threadIdx.y * (blockDim.x + 1) + threadIdx.x", "tile");
  ASSERT_TRUE(x.ok) << x.error.message;
  ASSERT_EQ(x.subscripts.size(), 1u);
  Env env;
  env.threadIdx[0] = 2, env.threadIdx[1] = 3, env.blockDim[0] = 32;
  EXPECT_EQ(x.subscripts[0].eval(env), U(3 * 33 + 2));
}

TEST(ExprSubscripts, ThreeDimensionsAndAnyNameWhenNoneIsGiven) {
  auto s = parse_subscripts("vol[1][2][3]", "");
  ASSERT_TRUE(s.ok) << s.error.message;
  EXPECT_EQ(s.subscripts.size(), 3u);
  auto t = parse_subscripts("temp[threadIdx.x]", "temp");
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.subscripts.size(), 1u);
}

TEST(ExprSubscripts, MalformedSubscriptsNameTheirColumn) {
  struct Case {
    const char* text;
    int column;
    const char* message;
  };
  const Case cases[] = {
      {"other[i]", 1, "expected the array 'tile', found 'other'"},
      {"tile[x", 7, "expected ']' after subscript (to close '[' at column 5), found end of input"},
      {"tile[y][x + 1", 14,
       "expected ']' after subscript (to close '[' at column 8), found end of input"},
      {"tile[a b]", 8, "expected ']' after subscript (to close '[' at column 5), found 'b'"},
      {"tile[]", 6, "expected an expression inside '[]', found ']'"},
      {"tile[1][2] + 3", 12, "expected '[' or end of input after subscript, found '+'"},
      {"[1]]", 4, "expected '[' or end of input after subscript, found ']'"},
      {"tile", 5, "expected '[' after 'tile', found end of input"},
      {"tile[1][2][3][4]", 14, "too many subscripts: a tile has at most 3 dimensions"},
      {"", 1, "expected an index such as 'tile[i][j]', '[i][j]' or 'i', found end of input"},
      {"tile[x +]", 9, "expected an operand after '+', found ']'"},
      {"i + 1)", 6, "unexpected ')' with no matching '('"},
      {"tile[(1]", 8, "expected ')' to close '(' at column 6, found ']'"},
      {"tile[1] @", 9, "unexpected character '@'"},
  };
  for (const Case& c : cases) {
    auto s = parse_subscripts(c.text, "tile");
    EXPECT_FALSE(s.ok) << c.text;
    EXPECT_TRUE(s.subscripts.empty()) << c.text;
    EXPECT_EQ(s.error.column, c.column) << "'" << c.text << "': " << s.error.message;
    EXPECT_EQ(s.error.message, c.message) << "'" << c.text << "'";
  }
}

TEST(ExprSubscripts, EvaluationErrorColumnsAreRelativeToTheWholeIndexText) {
  auto s = parse_subscripts("tile[ty][tidx]", "tile");
  ASSERT_TRUE(s.ok);
  Env env;
  env.names["ty"] = I(0);
  ExprError err;
  EXPECT_FALSE(s.subscripts[1].eval(env, &err));
  EXPECT_EQ(err.column, 10);
}

// [SECTION] Names and formatting =================================================================

TEST(ExprIntrospection, NamesListsUserIdentifiersOnceInOrder) {
  auto p = parse_expr("a + b * a + threadIdx.x + min(a, c) + warpSize + blockDim.x");
  ASSERT_TRUE(p.expr);
  EXPECT_EQ(p.expr->names(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(ExprIntrospection, UsesThreadIndexOnlyWhenItMightVaryPerThread) {
  EXPECT_TRUE(parse_expr("threadIdx.x").expr->uses_thread_index());
  EXPECT_TRUE(parse_expr("(threadIdx.z + 1) * 2").expr->uses_thread_index());
  EXPECT_TRUE(parse_expr("N + 1").expr->uses_thread_index());  // a let may depend on threadIdx
  EXPECT_FALSE(parse_expr("blockDim.x * 2").expr->uses_thread_index());
  EXPECT_FALSE(parse_expr("blockIdx.x + warpSize").expr->uses_thread_index());
  EXPECT_FALSE(parse_expr("hash(7) % 32").expr->uses_thread_index());
}

TEST(ExprIntrospection, UsesFunctionNamesTheFunctionsCalled) {
  auto p = parse_expr("hash(threadIdx.x) % 8 + min(1, 2)");
  ASSERT_TRUE(p.expr);
  EXPECT_TRUE(p.expr->uses_function("hash"));
  EXPECT_TRUE(p.expr->uses_function("min"));
  EXPECT_FALSE(p.expr->uses_function("max"));
  EXPECT_FALSE(p.expr->uses_function("abs"));
  EXPECT_FALSE(parse_expr("hash_bins + 1").expr->uses_function("hash"));  // a name, not a call
}

TEST(ExprIntrospection, TextIsTheTrimmedSourceAndCopiesShareIt) {
  auto p = parse_expr("  a + 1  ");
  ASSERT_TRUE(p.expr);
  EXPECT_EQ(p.expr->text(), "a + 1");
  Expr copy = *p.expr;
  Expr moved = std::move(*p.expr);
  Env env;
  env.names["a"] = I(4);
  EXPECT_EQ(copy.eval(env), I(5));
  EXPECT_EQ(moved.eval(env), I(5));
  EXPECT_EQ(copy.text(), "a + 1");
  Expr assigned;
  assigned = copy;
  EXPECT_EQ(assigned.eval(env), I(5));
}

TEST(ExprFormat, ErrorFormatPutsACaretUnderTheColumn) {
  ExprError e{7, "expected ']'"};
  EXPECT_EQ(e.format("tile[x +"), "col 7: expected ']'\n  tile[x +\n        ^");
  ExprError end{9, "expected ']' after subscript"};
  EXPECT_EQ(end.format("tile[x +"), "col 9: expected ']' after subscript\n  tile[x +\n          ^");
}

TEST(ExprFormat, TabsKeepTheCaretAlignedAndNewlinesStayOnOneLine) {
  ExprError e{3, "x"};
  EXPECT_EQ(e.format("\ta\nb"), "col 3: x\n  \ta b\n  \t ^");
  ExprError far{99, "x"};
  EXPECT_EQ(far.format("ab"), "col 99: x\n  ab\n    ^");  // clamped to just past the end
}

TEST(ExprFormat, ParseErrorFormatsAgainstItsInput) {
  const std::string text = "tile[threadIdx.x +]";
  auto s = parse_subscripts(text, "tile");
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.format(text),
            "col 19: expected an operand after '+', found ']'\n  tile[threadIdx.x +]\n"
            "                    ^");
}

TEST(ExprNames, ValidNamesAreCIdentifiersThatAreNotKeywordsOrBuiltins) {
  for (const char* ok : {"row_idx", "_x", "tile", "BDIMX", "t2", "ty", "tidx"})
    EXPECT_TRUE(bankviz::is_valid_name(ok)) << ok;
  for (const char* bad : {"", "9a", "a-b", "a b", "int", "unsigned", "for", "sizeof", "threadIdx",
                          "blockDim", "blockIdx", "gridDim", "warpSize", "min", "hash", "float",
                          "size_t", "uint32_t", "\xc3\xa9"})
    EXPECT_FALSE(bankviz::is_valid_name(bad)) << bad;
}
