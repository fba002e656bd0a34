// The differential test of index expressions: bankviz's evaluator against the host C++ compiler.
//
// gen_expr_cases (run at build time) writes thousands of random expressions and guards over
// the built-in variables, named variables of every promoted type, literals of every base and
// suffix, casts, every operator, ?: and min/max/abs/hash. Each case is compiled (C++17, under the
// undefined-behaviour sanitizer without recovery) into a function of the thread's environment
// (host_cuda.h). For every case and environment:
// - bankviz parses, binds and evaluates the text;
// - bankviz reports undefined behaviour: the compiled function is not called (each such claim
//   runs in a child process, which the sanitizer must abort: the UB is real);
// - bankviz yields a value: the compiled function is called and type and value must agree.
//   Had bankviz missed undefined behaviour, the sanitizer aborts the test here.
// Each case is compiled twice (host_cuda.h): from the very tokens bankviz parses, and with each
// operator behind a function call that the compiler cannot fold (GCC's front end folds some
// undefined operations away even at -O0). Both must give the same value; the second is the one
// that confirms claims of undefined behaviour.
//
// [SECTION] Environments
// [SECTION] Translation to bankviz
// [SECTION] Checking a claim of undefined behaviour
// [SECTION] The test

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <iterator>
#include <string>

#include "bankviz/expr.h"
#include "host_cuda.h"

#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define BANKVIZ_HAVE_DEATH_CALLBACK 1
#endif

namespace bankviz_difftest {
extern const CaseTable* const kCaseTables[];
extern const size_t kCaseTableCount;
}  // namespace bankviz_difftest

namespace {

using bankviz::CType;
using bankviz::Value;
using bankviz_difftest::Case;
using bankviz_difftest::HostEnv;
using bankviz_difftest::HostValue;

// [SECTION] Environments =========================================================================

// Threads at the edges of a warp and a block (0, 31, 32, 1023 and the guard's 16..24), and
// variables from small to extreme. Fields: threadIdx, blockIdx, blockDim, gridDim, warpSize,
// a, b (int), ua, ub (unsigned), la, lb (long long), ula, ulb (unsigned long long).
const HostEnv kEnvs[] = {
    {{0, 0, 0}, {0, 0, 0}, {32, 1, 1}, {1, 1, 1}, 32, 0, 0, 0, 0, 0, 0, 0, 0},
    {{1, 0, 0}, {1, 0, 0}, {32, 2, 1}, {2, 1, 1}, 32, 1, -1, 1, 2, -1, 1, 1, 2},
    {{31, 1, 0}, {3, 0, 0}, {32, 4, 1}, {4, 1, 1}, 32, 31, -32, 31, 32, -31, 32, 31, 33},
    {{32, 3, 1},
     {0, 0, 0},
     {64, 8, 2},
     {1, 1, 1},
     32,
     32,
     -7,
     1023,
     4,
     1LL << 40,
     -(1LL << 33),
     1ULL << 32,
     63},
    {{1023, 0, 0},
     {7, 0, 0},
     {1024, 1, 1},
     {8, 1, 1},
     32,
     1023,
     -1024,
     1024,
     65535,
     4294967296LL,
     -2147483648LL,
     4294967295ULL,
     1ULL << 40},
    {{16, 0, 0}, {2, 0, 0}, {32, 1, 1}, {4, 1, 1}, 32, 16, 24, 16, 8, 16, -16, 16, 8},
    {{23, 2, 0},
     {5, 0, 0},
     {128, 4, 1},
     {9, 1, 1},
     32,
     -23,
     100,
     23,
     100000,
     -100000,
     23,
     7,
     1000000007ULL},
    {{24, 0, 0}, {1, 0, 0}, {32, 32, 1}, {2, 2, 1}, 32, 24, 7, 24, 3, 24, 3, 24, 3},
    {{511, 1, 1},
     {65535, 0, 0},
     {512, 2, 1},
     {65536, 1, 1},
     32,
     65536,
     -65536,
     65536,
     0x7fffffffU,
     1LL << 31,
     -(1LL << 31) - 1,
     1ULL << 31,
     1ULL << 32},
    {{5, 7, 3},
     {12, 0, 0},
     {8, 8, 4},
     {16, 1, 1},
     32,
     100,
     -100,
     100000,
     7,
     123456789012LL,
     -5,
     5,
     99},
    // Extremes: every operator on these overflows or shifts out sooner or later.
    {{1023, 0, 0},
     {0x7fffffffU, 0, 0},
     {1024, 1, 1},
     {0x7fffffffU, 1, 1},
     32,
     INT_MAX,
     INT_MIN,
     UINT_MAX,
     0x80000000U,
     LLONG_MAX,
     LLONG_MIN,
     ULLONG_MAX,
     1ULL << 63},
    {{0, 1023, 63},
     {4, 0, 0},
     {1, 1024, 64},
     {5, 1, 1},
     32,
     -1,
     -2147483647,
     0x7fffffffU,
     3,
     -1,
     -9223372036854775807LL,
     0x7fffffffffffffffULL,
     0},
};
constexpr int kEnvCount = static_cast<int>(std::size(kEnvs));

std::string describe(const HostEnv& e) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "threadIdx=(%u,%u,%u) blockIdx.x=%u blockDim=(%u,%u) gridDim.x=%u a=%d b=%d "
                "ua=%u ub=%u la=%lld lb=%lld ula=%llu ulb=%llu",
                e.threadIdx.x, e.threadIdx.y, e.threadIdx.z, e.blockIdx.x, e.blockDim.x,
                e.blockDim.y, e.gridDim.x, e.a, e.b, e.ua, e.ub, e.la, e.lb, e.ula, e.ulb);
  return buf;
}

// [SECTION] Translation to bankviz ===============================================================

// The named variables with the types HostEnv declares them with.
bankviz::Symbols symbols() {
  bankviz::Symbols s;
  for (const char* n : {"a", "b"}) s.add(n, CType::Int);
  for (const char* n : {"ua", "ub"}) s.add(n, CType::UInt);
  for (const char* n : {"la", "lb"}) s.add(n, CType::LongLong);
  for (const char* n : {"ula", "ulb"}) s.add(n, CType::ULongLong);
  return s;
}

// The same thread as bankviz sees it: slots for bound expressions, names for Expr::eval.
bankviz::Env bankviz_env(const HostEnv& h, const bankviz::Symbols& syms) {
  bankviz::Env env;
  const bankviz_difftest::Dim3* dims[] = {&h.threadIdx, &h.blockIdx, &h.blockDim, &h.gridDim};
  uint32_t* out[] = {env.threadIdx, env.blockIdx, env.blockDim, env.gridDim};
  for (int i = 0; i < 4; ++i)
    out[i][0] = dims[i]->x, out[i][1] = dims[i]->y, out[i][2] = dims[i]->z;
  const std::pair<const char*, Value> values[] = {
      {"a", Value::of(CType::Int, h.a)},
      {"b", Value::of(CType::Int, h.b)},
      {"ua", Value::of_unsigned(CType::UInt, h.ua)},
      {"ub", Value::of_unsigned(CType::UInt, h.ub)},
      {"la", Value::of(CType::LongLong, h.la)},
      {"lb", Value::of(CType::LongLong, h.lb)},
      {"ula", Value::of_unsigned(CType::ULongLong, h.ula)},
      {"ulb", Value::of_unsigned(CType::ULongLong, h.ulb)},
  };
  env.slots.resize(static_cast<size_t>(syms.size()));
  for (const auto& [name, value] : values) {
    env.slots[static_cast<size_t>(syms.find(name)->slot)] = value;
    env.names.emplace(name, value);
  }
  return env;
}

Value as_bankviz(HostValue h) {
  return Value{static_cast<CType>(h.type), h.bits};
}

std::string show(const Value& v) {
  return std::string(bankviz::ctype_name(v.type)) + " " + v.text();
}

// [SECTION] Checking a claim of undefined behaviour ==============================================

// Runs a compiled case in a child process; true when the child does not return normally,
// i.e. the sanitizer (no recovery) stopped it: C++ agrees the evaluation is undefined.
bool host_evaluation_aborts(bankviz_difftest::CaseFn eval, const HostEnv& env) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDERR_FILENO);
    (void)eval(env);
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// When the sanitizer stops the test: the case it was computing, which bankviz called defined.
std::string g_computing;

#ifdef BANKVIZ_HAVE_DEATH_CALLBACK
void say_what_was_computed() {
  std::fprintf(stderr,
               "\nexpr differential: bankviz evaluated this without an error, but its C++ "
               "evaluation is undefined (the sanitizer's report is above):\n  %s\n",
               g_computing.c_str());
}
#endif

// [SECTION] The test =============================================================================

struct Tally {
  int cases = 0, refused = 0, evaluations = 0, agreed = 0, ub = 0, ub_confirmed = 0, failures = 0;
};

// Reports one disagreement (the first few in full, then only counts).
void fail(Tally& t, const std::string& what) {
  if (++t.failures <= 40) ADD_FAILURE() << what;
}

void check_case(const Case& c, const bankviz::Symbols& syms, const bankviz::Env (&envs)[kEnvCount],
                Tally& t) {
  ++t.cases;
  const std::string text = c.text;
  auto parsed = bankviz::parse_expr(text);
  if (!parsed.expr)
    return fail(t, "C++ compiles it, bankviz cannot parse it:\n" + parsed.error.format(text));
  auto bound = bankviz::bind(*parsed.expr, syms);
  if (c.refused_at_bind) {
    ++t.refused;
    if (bound.bound) return fail(t, "abs() of an unsigned operand should not bind: " + text);
    if (bound.error.column != 1)
      fail(t, "the bind error should point at abs (column 1):\n" + bound.error.format(text));
    return;
  }
  if (!bound.bound)
    return fail(t, "C++ compiles it, bankviz cannot bind it:\n" + bound.error.format(text));
  for (int k = 0; k < kEnvCount; ++k) {
    ++t.evaluations;
    const std::string where = text + "\n  env " + std::to_string(k) + ": " + describe(kEnvs[k]);
    bankviz::ExprError err, err_by_name;
    const std::optional<Value> got = bound.bound->eval(envs[k], &err);
    const std::optional<Value> by_name = parsed.expr->eval(envs[k], &err_by_name);
    if (got != by_name || (!got && err.column != err_by_name.column))
      fail(t, "BoundExpr::eval and Expr::eval disagree: " + where);
    if (!got) {
      ++t.ub;
      if (err.column < 1 || err.column > static_cast<int>(text.size()))
        fail(t, "error column outside the text:\n" + err.format(text) + "\n" + where);
      if (host_evaluation_aborts(c.opaque_eval, kEnvs[k]))
        ++t.ub_confirmed;
      else
        fail(t, "bankviz reports '" + err.message + "' (col " + std::to_string(err.column) +
                    ") but C++ evaluates it without undefined behaviour (value " +
                    show(as_bankviz(c.opaque_eval(kEnvs[k]))) + "): " + where);
      continue;
    }
    // Had bankviz missed undefined behaviour, the sanitizer stops the test here (in the opaque
    // spelling at the latest).
    g_computing = where + "\n  bankviz gave " + show(*got);
    const Value expected = as_bankviz(c.eval(kEnvs[k]));
    const Value opaque = as_bankviz(c.opaque_eval(kEnvs[k]));
    if (opaque != expected)
      fail(t, "the two host spellings disagree (a generator bug): " + show(expected) + " vs " +
                  show(opaque) + ": " + where);
    if (*got == expected && got->type == bound.bound->type())
      ++t.agreed;
    else
      fail(t, "C++ gives " + show(expected) + ", bankviz gives " + show(*got) + " (bound type " +
                  bankviz::ctype_name(bound.bound->type()) + "): " + where);
  }
}

TEST(ExprDifferential, AgreesWithTheHostCompilerOnRandomExpressionsAndGuards) {
#ifdef BANKVIZ_HAVE_DEATH_CALLBACK
  __sanitizer_set_death_callback(say_what_was_computed);
#endif
  const bankviz::Symbols syms = symbols();
  bankviz::Env envs[kEnvCount];
  for (int k = 0; k < kEnvCount; ++k) envs[k] = bankviz_env(kEnvs[k], syms);

  Tally t;
  for (size_t i = 0; i < bankviz_difftest::kCaseTableCount; ++i) {
    const bankviz_difftest::CaseTable& table = *bankviz_difftest::kCaseTables[i];
    for (size_t j = 0; j < table.count; ++j) check_case(table.cases[j], syms, envs, t);
  }

  std::printf(
      "expr differential: %d cases (%d refused at bind, as they must be); %d x %d envs = %d "
      "evaluations: %d agreed with C++, %d undefined behaviour skipped (%.1f%%; %d of them "
      "confirmed by the sanitizer); %d failures\n",
      t.cases, t.refused, t.cases - t.refused, kEnvCount, t.evaluations, t.agreed, t.ub,
      100.0 * t.ub / std::max(1, t.evaluations), t.ub_confirmed, t.failures);
  EXPECT_GE(t.cases, 3000);
  EXPECT_EQ(t.failures, 0);
  // The generator keeps most evaluations defined, so agreement means something, and leaves
  // enough undefined ones for the other direction to be tested.
  EXPECT_LT(t.ub, t.evaluations * 3 / 10);
  EXPECT_GT(t.ub, 500);
}

}  // namespace
