// Index expressions as a kernel writes them: values, C semantics, and the errors a student sees.
//
// [SECTION] Helpers
// [SECTION] Values and precedence
// [SECTION] Literals and casts
// [SECTION] Builtins, names and functions
// [SECTION] Evaluation errors
// [SECTION] Parse errors with exact columns
// [SECTION] Robustness (deep nesting, long chains, random input)
// [SECTION] Subscripts
// [SECTION] Names and formatting

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bankviz/expr.h"

using bankviz::Env;
using bankviz::Expr;
using bankviz::ExprError;
using bankviz::parse_expr;
using bankviz::parse_subscripts;

// [SECTION] Helpers ==============================================================================

namespace {

// Parses and evaluates; fails the test on any error.
int64_t value_of(const std::string& text, const Env& env = {}) {
  auto p = parse_expr(text);
  EXPECT_TRUE(p.expr.has_value()) << text << ": " << p.error.format(text);
  if (!p.expr) return -424242;
  ExprError err;
  auto v = p.expr->eval(env, &err);
  EXPECT_TRUE(v.has_value()) << text << ": " << err.format(text);
  return v ? static_cast<int64_t>(v->bits) : -424242;
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
    EXPECT_FALSE(v.has_value()) << "'" << text << "' should fail, gave " << (v ? v->text() : "");
  }
  return err;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

// [SECTION] Values and precedence ================================================================

TEST(ExprValues, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(value_of("2 + 3 * 4"), 14);
  EXPECT_EQ(value_of("(2 + 3) * 4"), 20);
  EXPECT_EQ(value_of("-2 * 3"), -6);
}

TEST(ExprValues, FollowsCPrecedenceAcrossAllLevels) {
  EXPECT_EQ(value_of("1 << 2 + 1"), 8);  // + before <<
  EXPECT_EQ(value_of("1 + 2 << 1"), 6);
  EXPECT_EQ(value_of("1 << 3 < 9"), 1);      // << before <
  EXPECT_EQ(value_of("2 < 3 == 1"), 1);      // < before ==
  EXPECT_EQ(value_of("6 & 3 == 3"), 0);      // == before &: 6 & 1
  EXPECT_EQ(value_of("1 | 2 ^ 3 & 1"), 3);   // & before ^ before |
  EXPECT_EQ(value_of("4 | 1 && 0"), 0);      // | before &&
  EXPECT_EQ(value_of("1 || 0 && 0"), 1);     // && before ||
  EXPECT_EQ(value_of("0 || 1 ? 7 : 8"), 7);  // || before ?:
  EXPECT_EQ(value_of("!0 + 1"), 2);          // unary before binary
  EXPECT_EQ(value_of("~1 & 7"), 6);
}

TEST(ExprValues, BinaryOperatorsAreLeftAssociative) {
  EXPECT_EQ(value_of("10 - 4 - 3"), 3);
  EXPECT_EQ(value_of("64 / 4 / 2"), 8);
  EXPECT_EQ(value_of("100 % 7 % 3"), 2);
  EXPECT_EQ(value_of("256 >> 2 >> 1"), 32);
}

TEST(ExprValues, ConditionalIsRightAssociative) {
  EXPECT_EQ(value_of("1 ? 2 : 3 ? 4 : 5"), 2);
  EXPECT_EQ(value_of("0 ? 2 : 0 ? 4 : 5"), 5);
  EXPECT_EQ(value_of("0 ? 2 : 1 ? 4 : 5"), 4);
  EXPECT_EQ(value_of("1 ? 0 ? 6 : 7 : 8"), 7);
}

TEST(ExprValues, EveryOperatorComputesItsCValue) {
  struct Case {
    const char* text;
    int64_t value;
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
  for (const Case& c : cases) EXPECT_EQ(value_of(c.text), c.value) << c.text;
}

TEST(ExprValues, DivisionTruncatesTowardZeroAsInC) {
  EXPECT_EQ(value_of("-7 / 2"), -3);
  EXPECT_EQ(value_of("7 / -2"), -3);
  EXPECT_EQ(value_of("-7 / -2"), 3);
  EXPECT_EQ(value_of("-7 % 2"), -1);  // the remainder takes the dividend's sign
  EXPECT_EQ(value_of("7 % -2"), 1);
  EXPECT_EQ(value_of("-7 % -2"), -1);
  EXPECT_EQ(value_of("-8 >> 1"), -4);  // arithmetic shift of a negative value
}

TEST(ExprValues, ArithmeticIs64Bit) {
  EXPECT_EQ(value_of("1LL << 40"), int64_t{1} << 40);
  EXPECT_EQ(value_of("65536LL * 65536"), int64_t{1} << 32);
  EXPECT_EQ(value_of("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(value_of("-9223372036854775807 - 1"), INT64_MIN);
}

TEST(ExprValues, LogicalOperatorsShortCircuit) {
  EXPECT_EQ(value_of("0 && 1 / 0"), 0);
  EXPECT_EQ(value_of("1 || 1 % 0"), 1);
  EXPECT_EQ(value_of("1 ? 5 : 1 / 0"), 5);
  EXPECT_EQ(value_of("0 ? 1 / 0 : 6"), 6);
  Env env;
  env.names["d"] = bankviz::Value::of(bankviz::CType::LongLong, 0);
  EXPECT_EQ(value_of("d != 0 && 64 / d > 1", env), 0);
}

// [SECTION] Literals and casts ===================================================================

TEST(ExprLiterals, AcceptsHexBinaryOctalAndCSuffixes) {
  EXPECT_EQ(value_of("0x1F"), 31);
  EXPECT_EQ(value_of("0X10"), 16);
  EXPECT_EQ(value_of("0xffULL"), 255);
  EXPECT_EQ(value_of("0xfull"), 15);  // hex digit f, then suffix ull, as in C
  EXPECT_EQ(value_of("0b101"), 5);
  EXPECT_EQ(value_of("010"), 8);  // C: a leading zero means octal
  EXPECT_EQ(value_of("0"), 0);
  EXPECT_EQ(value_of("32u"), 32);
  EXPECT_EQ(value_of("32U"), 32);
  EXPECT_EQ(value_of("7L"), 7);
  EXPECT_EQ(value_of("7ul"), 7);
  EXPECT_EQ(value_of("7LU"), 7);
  EXPECT_EQ(value_of("1ll"), 1);
  EXPECT_EQ(value_of("1ULL"), 1);
  EXPECT_EQ(value_of("1llu"), 1);
}

TEST(ExprLiterals, CastsAreAcceptedAndIgnored) {
  Env env;
  env.threadIdx[0] = 5;
  env.blockDim[0] = 32;
  EXPECT_EQ(value_of("(int)threadIdx.x * 2", env), 10);
  EXPECT_EQ(value_of("(unsigned int)(blockDim.x + 1)", env), 33);
  EXPECT_EQ(value_of("(unsigned)threadIdx.x", env), 5);
  EXPECT_EQ(value_of("(long)3 + (long long)4 + (unsigned long long)5 + (size_t)6"), 18);
  EXPECT_EQ(value_of("( const int ) 9"), 9);
  EXPECT_EQ(value_of("(int)(int)-1"), -1);  // ignored: no wrap to unsigned
  EXPECT_EQ(value_of("(7)"), 7);            // a parenthesized value is not a cast
}

// [SECTION] Builtins, names and functions ========================================================

TEST(ExprNames, BuiltinsReadTheThreadsEnvironment) {
  Env env;
  env.threadIdx[0] = 3, env.threadIdx[1] = 4, env.threadIdx[2] = 5;
  env.blockDim[0] = 32, env.blockDim[1] = 8, env.blockDim[2] = 2;
  env.blockIdx[0] = 6, env.blockIdx[1] = 7, env.blockIdx[2] = 8;
  env.gridDim[0] = 10, env.gridDim[1] = 11, env.gridDim[2] = 12;
  EXPECT_EQ(value_of("threadIdx.x", env), 3);
  EXPECT_EQ(value_of("threadIdx.y", env), 4);
  EXPECT_EQ(value_of("threadIdx.z", env), 5);
  EXPECT_EQ(value_of("blockDim.x * blockDim.y * blockDim.z", env), 512);
  EXPECT_EQ(value_of("blockIdx.x + blockIdx.y + blockIdx.z", env), 21);
  EXPECT_EQ(value_of("gridDim.x + gridDim.y + gridDim.z", env), 33);
  EXPECT_EQ(value_of("warpSize"), 32);
  EXPECT_EQ(value_of("threadIdx.y * blockDim.x + threadIdx.x", env), 4 * 32 + 3);
  EXPECT_EQ(value_of("threadIdx . x", env), 3);  // spaces around '.' are fine in C
}

TEST(ExprNames, NamedConstantsAndLetsComeFromTheEnv) {
  Env env;
  env.names["row_idx"] = bankviz::Value::of(bankviz::CType::LongLong, 7);
  env.names["BDIMX"] = bankviz::Value::of(bankviz::CType::LongLong, 32);
  EXPECT_EQ(value_of("row_idx * BDIMX + 1", env), 225);
}

TEST(ExprFunctions, MinMaxAbsHash) {
  EXPECT_EQ(value_of("min(3, -4)"), -4);
  EXPECT_EQ(value_of("max(3, -4)"), 3);
  EXPECT_EQ(value_of("abs(-5)"), 5);
  EXPECT_EQ(value_of("abs(5)"), 5);
  EXPECT_EQ(value_of("min(max(1, 2), 3) + abs(-1 - 1)"), 4);
}

TEST(ExprFunctions, HashIsTheFixedLowbias32Mix) {
  // Values of lowbias32 (x ^= x>>16; x *= 0x7feb352d; x ^= x>>15; x *= 0x846ca68b; x ^= x>>16).
  EXPECT_EQ(value_of("hash(0)"), 0);
  EXPECT_EQ(value_of("hash(1)"), 1753845952);
  EXPECT_EQ(value_of("hash(2)"), 3507691905);
  EXPECT_EQ(value_of("hash(12345)"), 2435775735);
  EXPECT_EQ(value_of("hash(-1)"), 1734902346);  // the low 32 bits are hashed
}

TEST(ExprFunctions, HashIsNonNegativeAndSpreadsAHistogramsBins) {
  auto p = parse_expr("hash(threadIdx.x) % 256");
  ASSERT_TRUE(p.expr);
  std::vector<int> bins(256, 0);
  for (int t = 0; t < 1024; ++t) {
    Env env;
    env.threadIdx[0] = t;
    auto v = p.expr->eval(env);
    ASSERT_TRUE(v);
    ASSERT_LT(v->bits, 256u);
    ++bins[v->bits];
  }
  int used = 0;
  for (int b : bins) used += b > 0;
  EXPECT_GT(used, 200);  // 1024 hashed threads hit most of 256 bins
}

// [SECTION] Evaluation errors ====================================================================

TEST(ExprEvalErrors, UnknownNamePointsAtTheNameAndSuggestsABuiltin) {
  ExprError e = eval_error("a + tidx", [] {
    Env env;
    env.names["a"] = bankviz::Value::of(bankviz::CType::LongLong, 1);
    return env;
  }());
  EXPECT_EQ(e.column, 5);
  EXPECT_EQ(e.message, "unknown name 'tidx' (did you mean threadIdx.x?)");
}

TEST(ExprEvalErrors, UnknownNameSuggestsANearbyConstant) {
  Env env;
  env.names["row_idx"] = bankviz::Value::of(bankviz::CType::LongLong, 1);
  ExprError e = eval_error("2 * row_ix", env);
  EXPECT_EQ(e.column, 5);
  EXPECT_TRUE(contains(e.message, "did you mean row_idx?")) << e.message;
  ExprError far = eval_error("zzzzzz", env);
  EXPECT_EQ(far.message, "unknown name 'zzzzzz'");
}

TEST(ExprEvalErrors, DivisionAndModuloByZeroPointAtTheOperator) {
  Env env;
  env.threadIdx[0] = 3;
  ExprError d = eval_error("8 / (threadIdx.x - 3)", env);
  EXPECT_EQ(d.column, 3);
  EXPECT_EQ(d.message, "division by zero");
  ExprError m = eval_error("1 + 8 % 0", env);
  EXPECT_EQ(m.column, 7);
  EXPECT_EQ(m.message, "modulo by zero");
}

TEST(ExprEvalErrors, ShiftsOutOfRangeAreErrors) {
  ExprError a = eval_error("1 << 64");
  EXPECT_EQ(a.column, 3);
  EXPECT_TRUE(contains(a.message, "shift count 64 is out of range")) << a.message;
  ExprError b = eval_error("1 >> -1");
  EXPECT_EQ(b.column, 3);
  EXPECT_TRUE(contains(b.message, "shift count -1")) << b.message;
  EXPECT_EQ(value_of("1LL << 63"), INT64_MIN);  // C++17: fits unsigned long long
}

TEST(ExprEvalErrors, OverflowIsReportedNotWrapped) {
  EXPECT_EQ(eval_error("9223372036854775807 + 1").column, 21);
  EXPECT_EQ(eval_error("-9223372036854775807 - 2").column, 22);
  EXPECT_EQ(eval_error("4294967296 * 4294967296").column, 12);
  EXPECT_EQ(eval_error("-(-9223372036854775807 - 1)").column, 1);
  EXPECT_EQ(eval_error("(-9223372036854775807 - 1) / -1").column, 28);
  EXPECT_EQ(eval_error("abs(-9223372036854775807 - 1)").column, 1);
  EXPECT_EQ(eval_error("(-9223372036854775807 - 1) % -1").column, 28);  // undefined in C
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
  ExprError e = parse_error("a \xc3\xa9");
  EXPECT_EQ(e.column, 3);
  EXPECT_EQ(e.message, "unexpected character byte 0xC3");
}

// [SECTION] Robustness ===========================================================================

TEST(ExprRobustness, NestingUpTo200LevelsParses) {
  const std::string ok = std::string(199, '(') + "1" + std::string(199, ')');
  EXPECT_EQ(value_of(ok), 1);
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
  EXPECT_EQ(value_of(sum), 100001);
  std::string ands = "1";
  for (int i = 0; i < 100000; ++i) ands += " && 1";
  EXPECT_EQ(value_of(ands), 1);
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
  env.names["a"] = bankviz::Value::of(bankviz::CType::LongLong, 3);
  env.names["b"] = bankviz::Value::of(bankviz::CType::LongLong, -2);
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
  EXPECT_EQ(static_cast<int64_t>(s.subscripts[0].eval(env)->bits), 9);
  EXPECT_EQ(static_cast<int64_t>(s.subscripts[1].eval(env)->bits), 5);
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
  EXPECT_EQ(static_cast<int64_t>(x.subscripts[0].eval(env)->bits), 3 * 33 + 2);
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
  env.names["ty"] = bankviz::Value::of(bankviz::CType::LongLong, 0);
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

TEST(ExprIntrospection, TextIsTheTrimmedSourceAndCopiesShareIt) {
  auto p = parse_expr("  a + 1  ");
  ASSERT_TRUE(p.expr);
  EXPECT_EQ(p.expr->text(), "a + 1");
  Expr copy = *p.expr;
  Expr moved = std::move(*p.expr);
  Env env;
  env.names["a"] = bankviz::Value::of(bankviz::CType::LongLong, 4);
  EXPECT_EQ(static_cast<int64_t>(copy.eval(env)->bits), 5);
  EXPECT_EQ(static_cast<int64_t>(moved.eval(env)->bits), 5);
  EXPECT_EQ(copy.text(), "a + 1");
  Expr assigned;
  assigned = copy;
  EXPECT_EQ(static_cast<int64_t>(assigned.eval(env)->bits), 5);
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
