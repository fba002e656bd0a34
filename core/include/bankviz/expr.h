// expr.h: C integer expressions over thread indices, as a student writes them in a kernel.
//
// Grammar (C precedence, all arithmetic in 64-bit signed integers):
//   expr   := cond
//   cond   := lor ('?' expr ':' cond)?
//   lor    := land ('||' land)*          land := bor ('&&' bor)*
//   bor    := bxor ('|' bxor)*           bxor := band ('^' band)*
//   band   := eq ('&' eq)*               eq   := rel (('=='|'!=') rel)*
//   rel    := shift (('<'|'<='|'>'|'>=') shift)*
//   shift  := add (('<<'|'>>') add)*     add  := mul (('+'|'-') mul)*
//   mul    := unary (('*'|'/'|'%') unary)*
//   unary  := ('-'|'+'|'!'|'~') unary | '(' type ')' unary | primary
//   primary:= INT | NAME ('.' NAME)? | NAME '(' expr (',' expr)* ')' | '(' expr ')'
// INT: decimal or 0x hex, optional u/U/l/L suffixes. NAME '.' NAME: threadIdx.x, blockDim.y, ...
// Casts like (int) or (unsigned int) are accepted and ignored. Functions: min, max, abs,
// hash (a fixed 32-bit integer hash, for data-dependent indices such as a histogram's bins).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankviz {

// A parse or evaluation error. column is 1-based within the text that was parsed.
struct ExprError {
  int column = 0;
  std::string message;  // says what was expected: "expected ')' to close '(' at column 3"
  std::string format(std::string_view text) const;  // "col 7: ...\n  tile[x +]\n        ^"
};

// The values a thread sees: built-in variables and named constants/lets.
struct Env {
  int64_t threadIdx[3] = {0, 0, 0};
  int64_t blockDim[3] = {1, 1, 1};
  int64_t blockIdx[3] = {0, 0, 0};
  int64_t gridDim[3] = {1, 1, 1};
  std::map<std::string, int64_t, std::less<>> names;  // constants and evaluated lets
};

class Expr {
 public:
  Expr();
  ~Expr();
  Expr(const Expr&);
  Expr& operator=(const Expr&);
  Expr(Expr&&) noexcept;
  Expr& operator=(Expr&&) noexcept;

  // Evaluates for one thread. Errors: unknown name, division or modulo by zero, shift out of
  // range; the column points at the offending token.
  std::optional<int64_t> eval(const Env& env, ExprError* error = nullptr) const;
  std::string text() const;                // the source text this was parsed from
  std::vector<std::string> names() const;  // identifiers used (not threadIdx etc.)
  bool uses_thread_index() const;          // mentions threadIdx (or a name we cannot see into)

  struct Node;

 private:
  friend struct ExprParser;
  std::shared_ptr<const Node> root_;
  std::string text_;
};

struct ExprParse {
  std::optional<Expr> expr;
  ExprError error;  // set when !expr
};

// Parses a whole expression; trailing text is an error.
ExprParse parse_expr(std::string_view text);

// Parses an access written as subscripts, with or without the array name:
//   "tile[threadIdx.y][threadIdx.x]", "[ty][tx]", or a bare "row_idx" (one subscript).
// If array_name is non-empty and the text starts with a different name, that is an error.
struct SubscriptParse {
  std::vector<Expr> subscripts;
  ExprError error;
  bool ok = false;
};
SubscriptParse parse_subscripts(std::string_view text, std::string_view array_name);

// Valid C identifier, not a keyword or builtin (threadIdx, blockDim, ...).
bool is_valid_name(std::string_view name);

}  // namespace bankviz
