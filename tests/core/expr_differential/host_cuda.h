// host_cuda.h: what the differential test's generated expressions compile against on the host.
//
// The generated translation units are C++17 (what NVRTC compiles) and are built with
// -fsanitize=undefined -fno-sanitize-recover=all, so an expression whose C++ evaluation is
// undefined aborts the process instead of yielding a value. Each case is written twice:
// BANKVIZ_TEXT_AND_EVAL(expr) stringizes the tokens (the text bankviz parses) and compiles the
// same tokens into a function over the thread's environment (the value C++ computes);
// BANKVIZ_EVAL(opaque) compiles the same computation with each operator behind a function call
// (op_mul, ...), which the compiler cannot fold, so the sanitizer sees every operation.
//
// The environment has the names of a kernel: threadIdx, blockIdx, blockDim, gridDim (members
// `unsigned int`, as in CUDA), warpSize (`int`) and named variables of each promoted type, as
// lets, constants and loop variables are declared in the generated kernel.
//
// This header is C++17 and includes nothing of bankviz: the runner (C++20) translates
// HostValue into bankviz::Value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bankviz_difftest {

struct Dim3 {
  unsigned int x, y, z;
};

// One thread's view. The named variables and their C types (the generator uses the same table).
struct HostEnv {
  Dim3 threadIdx, blockIdx, blockDim, gridDim;
  int warpSize;
  int a, b;                     // int
  unsigned int ua, ub;          // unsigned int
  long long la, lb;             // long long
  unsigned long long ula, ulb;  // unsigned long long
};

// The promoted C type of a result, in the order of bankviz::CType.
enum class HostType : int { Int, UInt, LongLong, ULongLong };

// A result: its type and its bits, sign- or zero-extended to 64 as bankviz::Value holds them.
struct HostValue {
  HostType type;
  uint64_t bits;
};

// long is 64 bits (LP64, like device code): it computes as long long does.
template <class T>
HostValue host_value(T v) {
  static_assert(std::is_integral_v<T> && sizeof(T) >= sizeof(int),
                "an expression's value has a promoted type");
  constexpr bool kSigned = std::is_signed_v<T>;
  const HostType type = sizeof(T) == 4 ? (kSigned ? HostType::Int : HostType::UInt)
                                       : (kSigned ? HostType::LongLong : HostType::ULongLong);
  const uint64_t bits =
      kSigned ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
  return {type, bits};
}

// The environment is passed by value: the sanitizer checks every access through a reference
// (null, alignment), which doubles the generated code's compile time.
using CaseFn = HostValue (*)(HostEnv);

// One generated case (gen_expr_cases.cpp):
//   {BANKVIZ_TEXT_AND_EVAL(text), BANKVIZ_EVAL(opaque), false}
struct Case {
  const char* text;      // the expression exactly as C++ saw it (stringized)
  CaseFn eval;           // the value C++ computes for text
  CaseFn opaque_eval;    // the same computation with each operator behind a function call
  bool refused_at_bind;  // abs() of an unsigned operand: bankviz must refuse to bind it
};

struct CaseTable {
  const Case* cases;
  size_t count;
};

// [SECTION] Operators behind function calls =====================================================

// The opaque spelling of a case calls these instead of writing the operator. Unoptimized and not
// inlined, each computes `a OP b` on its parameters at run time, so the sanitizer sees every
// operation: GCC's front end folds some undefined operations away even at -O0 (`0 * -x` is 0,
// `(short)(x * y)` becomes a 16-bit multiply, `x - 431 < 0` becomes `x < 431`). The parameters
// keep their types (a char stays char until the operator promotes it), so the arithmetic is the
// same as in the natural spelling.
#define BANKVIZ_DIFFTEST_BINARY(name, op) \
  template <class A, class B>             \
  [[gnu::noinline]] auto name(A a, B b) { \
    return a op b;                        \
  }
BANKVIZ_DIFFTEST_BINARY(op_mul, *)
BANKVIZ_DIFFTEST_BINARY(op_div, /)
BANKVIZ_DIFFTEST_BINARY(op_mod, %)
BANKVIZ_DIFFTEST_BINARY(op_add, +)
BANKVIZ_DIFFTEST_BINARY(op_sub, -)
BANKVIZ_DIFFTEST_BINARY(op_shl, <<)
BANKVIZ_DIFFTEST_BINARY(op_shr, >>)
BANKVIZ_DIFFTEST_BINARY(op_lt, <)
BANKVIZ_DIFFTEST_BINARY(op_le, <=)
BANKVIZ_DIFFTEST_BINARY(op_gt, >)
BANKVIZ_DIFFTEST_BINARY(op_ge, >=)
BANKVIZ_DIFFTEST_BINARY(op_eq, ==)
BANKVIZ_DIFFTEST_BINARY(op_ne, !=)
BANKVIZ_DIFFTEST_BINARY(op_and, &)
BANKVIZ_DIFFTEST_BINARY(op_xor, ^)
BANKVIZ_DIFFTEST_BINARY(op_or, |)
#undef BANKVIZ_DIFFTEST_BINARY

template <class A>
[[gnu::noinline]] auto op_neg(A a) {
  return -a;
}

// [SECTION] CUDA's functions, on the host ========================================================

// min and max: CUDA's overloads (crt/math_functions.hpp) take both operands to their common
// type, i.e. the usual arithmetic conversions, for every pair they accept. Pairs that mix a 32-bit
// and a 64-bit operand (min(int, long long), min(unsigned, long long), ...) match more than one
// CUDA overload, which nvcc rejects as ambiguous; bankviz applies the usual arithmetic conversions
// to them as well, and so does this helper.
template <class A, class B>
auto min(A a, B b) {
  using C = decltype(a + b);
  return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(a) : static_cast<C>(b);
}
template <class A, class B>
auto max(A a, B b) {
  using C = decltype(a + b);
  return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(b) : static_cast<C>(a);
}

// abs: int -> int, long long -> long long; narrow operands promote to int. The negation is
// written out so that abs(INT_MIN) is the signed overflow it is (the sanitizer sees it).
inline int abs(int x) {
  return x < 0 ? -x : x;
}
inline long abs(long x) {
  return x < 0 ? -x : x;
}
inline long long abs(long long x) {
  return x < 0 ? -x : x;
}
unsigned abs(unsigned) = delete;  // ambiguous in CUDA; a bind error in bankviz
unsigned long abs(unsigned long) = delete;
unsigned long long abs(unsigned long long) = delete;

// hash: the generated kernel's `__device__ unsigned int hash(unsigned int x)` (lowbias32).
inline unsigned int hash(unsigned int x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

}  // namespace bankviz_difftest

// The names a kernel's expression sees, bound from the environment.
#define BANKVIZ_DIFFTEST_NAMES(env)                        \
  [[maybe_unused]] const Dim3 threadIdx = env.threadIdx;   \
  [[maybe_unused]] const Dim3 blockIdx = env.blockIdx;     \
  [[maybe_unused]] const Dim3 blockDim = env.blockDim;     \
  [[maybe_unused]] const Dim3 gridDim = env.gridDim;       \
  [[maybe_unused]] const int warpSize = env.warpSize;      \
  [[maybe_unused]] const int a = env.a;                    \
  [[maybe_unused]] const int b = env.b;                    \
  [[maybe_unused]] const unsigned int ua = env.ua;         \
  [[maybe_unused]] const unsigned int ub = env.ub;         \
  [[maybe_unused]] const long long la = env.la;            \
  [[maybe_unused]] const long long lb = env.lb;            \
  [[maybe_unused]] const unsigned long long ula = env.ula; \
  [[maybe_unused]] const unsigned long long ulb = env.ulb;

// The value C++ computes for an expression over the names above. Unary + gives a narrow or bool
// result (a comparison, a cast to char) its promoted type, as bankviz does.
#define BANKVIZ_EVAL(...)              \
  [](HostEnv env_) {                   \
    BANKVIZ_DIFFTEST_NAMES(env_)       \
    return host_value(+(__VA_ARGS__)); \
  }

// The text bankviz parses and the value C++ computes, from the same tokens.
#define BANKVIZ_TEXT_AND_EVAL(...) #__VA_ARGS__, BANKVIZ_EVAL(__VA_ARGS__)

// abs() of an unsigned operand: bankviz must refuse it at bind time; the host compiler checks
// here that the operand really is unsigned (so the case is not a generator mistake).
#define BANKVIZ_ABS_OF_UNSIGNED(...)                                                    \
  "abs(" #__VA_ARGS__ ")", [](HostEnv env_) {                                           \
    BANKVIZ_DIFFTEST_NAMES(env_)                                                        \
    static_assert(std::is_unsigned_v<decltype(+(__VA_ARGS__))>, "operand is unsigned"); \
    return host_value(+(__VA_ARGS__));                                                  \
  }
