// fuzz_expr: the expression language (core/expr.h). The input is one expression's text.
//
// Parses it as an expression and as subscripts, binds it to a few typed names, and evaluates it
// for threads at the edges (thread 0, the last thread of a 1024-thread block, extreme values in
// every name). Properties, besides no crash, leak or undefined behaviour (ASan + UBSan):
// - an error's column lies within the text (or just past its end) and format() renders it;
// - a bound expression and Expr::eval (which binds env.names itself) agree: the same value, or
//   both fail with the same message;
// - a value has the type bind() gave the expression;
// - Expr::text() parses again into an expression with the same values.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "bankviz/expr.h"
#include "check.h"

using namespace bankviz;

namespace {

struct Name {
  const char* name;
  CType type;
};
// What a scenario's constants, lets and loop variables look like.
constexpr Name kNames[] = {{"N", CType::Int},     {"M", CType::LongLong}, {"row", CType::UInt},
                           {"col", CType::Int},   {"i", CType::Int},      {"big", CType::ULongLong},
                           {"lane", CType::UInt}, {"neg", CType::Int}};
constexpr int kNameCount = static_cast<int>(sizeof(kNames) / sizeof(kNames[0]));

// Values at the edges of every type, chosen per environment and slot.
constexpr int64_t kEdges[] = {0,
                              1,
                              -1,
                              31,
                              32,
                              33,
                              1023,
                              std::numeric_limits<int32_t>::max(),
                              std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min()};
constexpr int kEdgeCount = static_cast<int>(sizeof(kEdges) / sizeof(kEdges[0]));

Env make_env(int variant) {
  Env env;
  switch (variant) {
    case 0:  // thread 0 of a 32x32 block
      env.blockDim[0] = 32, env.blockDim[1] = 32;
      break;
    case 1:  // the last thread of a 1024x1 block in the last block of a big grid
      env.threadIdx[0] = 1023, env.blockDim[0] = 1024;
      env.blockIdx[0] = 65535, env.gridDim[0] = 65536;
      break;
    default:  // a 3-D block
      env.threadIdx[0] = 7, env.threadIdx[1] = 3, env.threadIdx[2] = 63;
      env.blockDim[0] = 8, env.blockDim[1] = 4, env.blockDim[2] = 64;
      env.blockIdx[1] = 2, env.gridDim[1] = 3;
      break;
  }
  for (int s = 0; s < kNameCount; ++s) {
    const Value v = Value::of(kNames[s].type, kEdges[(variant * 5 + s * 3) % kEdgeCount]);
    env.slots.push_back(v);
    env.names.emplace(kNames[s].name, v);
  }
  return env;
}

void check_error(const ExprError& e, std::string_view text) {
  FUZZ_CHECK(!e.message.empty(), "an error without a message");
  FUZZ_CHECK(e.column >= 0 && e.column <= static_cast<int>(text.size()) + 1,
             "column " + std::to_string(e.column) + " outside the text: " + e.message);
  (void)e.format(text);
}

void check_expr(const Expr& expr, const Symbols& symbols, std::string_view text) {
  (void)expr.names(), (void)expr.uses_thread_index(), (void)expr.uses_block_index();
  (void)expr.uses_function("hash");
  const BindResult b = bind(expr, symbols);
  if (!b.bound) {
    check_error(b.error, text);
    return;
  }
  for (int variant = 0; variant < 3; ++variant) {
    const Env env = make_env(variant);
    ExprError bound_error, named_error;
    const auto bound = b.bound->eval(env, &bound_error);
    const auto named = expr.eval(env, &named_error);
    FUZZ_CHECK(bound.has_value() == named.has_value(),
               "bound and named evaluation disagree on failing: " + bound_error.message + " / " +
                   named_error.message);
    if (bound) {
      FUZZ_CHECK(*bound == *named, "bound " + bound->text() + " != named " + named->text());
      FUZZ_CHECK(bound->type == b.bound->type(), std::string("value of type ") +
                                                     ctype_name(bound->type) + ", bound as " +
                                                     ctype_name(b.bound->type()));
      (void)bound->text();
    } else {
      FUZZ_CHECK(bound_error.message == named_error.message,
                 bound_error.message + " / " + named_error.message);
      check_error(bound_error, text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const Symbols symbols = [] {
    Symbols s;
    for (const Name& n : kNames) s.add(n.name, n.type);
    return s;
  }();
  const ExprParse p = parse_expr(text);
  if (p.expr) {
    check_expr(*p.expr, symbols, text);
    // text() (the source without surrounding blanks) is the same expression.
    FUZZ_CHECK(text.find(p.expr->text()) != std::string_view::npos, "text() is not in the input");
    const ExprParse again = parse_expr(p.expr->text());
    FUZZ_CHECK(again.expr, "text() does not parse: " + again.error.message);
    for (int variant = 0; variant < 3; ++variant) {
      const Env env = make_env(variant);
      const auto a = p.expr->eval(env), b = again.expr->eval(env);
      FUZZ_CHECK(a == b, "text() evaluates differently: '" + p.expr->text() + "'");
    }
  } else {
    check_error(p.error, text);
  }
  const SubscriptParse sp = parse_subscripts(text, "tile");
  if (sp.ok) {
    for (const Expr& e : sp.subscripts) check_expr(e, symbols, text);
  } else {
    check_error(sp.error, text);
  }
  (void)is_valid_name(text);
  (void)parse_ctype(text);
  return 0;
}
