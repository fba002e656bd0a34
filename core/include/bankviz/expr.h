// expr.h: C integer expressions over thread indices, with CUDA C++'s meaning.
//
// Grammar (C precedence):
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
// INT: decimal, 0x hex, 0b binary or 0 octal, with C's u/U/l/L/ll/LL suffixes.
// NAME '.' NAME: threadIdx.x, blockDim.y, ... Functions: min, max, abs, hash (a fixed 32-bit
// integer hash, for data-dependent indices such as a histogram's bins).
//
// Semantics are CUDA C++'s (nvcc/NVRTC, C++17), checked against the host compiler by a
// differential test:
// - Every value has a C type (CType). threadIdx/blockIdx/blockDim/gridDim members are
//   `unsigned int`, warpSize is `int`, literals take C's first fitting type for their suffix and
//   base, names have the type of their declaration (constants: their literal's type; lets: the
//   declared type; loop variables: int).
// - Integer promotions and the usual arithmetic conversions: `threadIdx.x - 1` is unsigned and
//   wraps to 4294967295 for thread 0; `threadIdx.x - 16 < 8` compares unsigned.
// - Casts are honoured: (char), (unsigned char), (short), (unsigned short) and (bool) convert and
//   then promote to int; (int), (unsigned), (long long), (unsigned long long) and their spellings
//   (long, size_t, int32_t, uint64_t, ...) convert. long is 64 bits, as on Linux and the device.
// - Unsigned arithmetic wraps. What C++ leaves undefined is an evaluation error naming the column
//   of the operator: signed overflow, division or modulo by zero, INT_MIN / -1, a shift count
//   that is negative or not less than the promoted left operand's width, a left shift of a
//   negative value or into a value that its unsigned type cannot hold, abs() of the minimum.
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

// [SECTION] Types and values ====================================================================

// The four arithmetic types a C integer expression computes in once integer promotion is done.
// Narrower types (char, short, bool) exist only as cast targets: their values promote to int.
// long and unsigned long are 64 bits (LP64, as in device code) and compute as long long does.
enum class CType : uint8_t { Int, UInt, LongLong, ULongLong };
const char* ctype_name(CType t);     // "int", "unsigned int", "long long", "unsigned long long"
constexpr int ctype_bits(CType t) {  // 32 or 64
  return t == CType::Int || t == CType::UInt ? 32 : 64;
}
constexpr bool ctype_signed(CType t) {
  return t == CType::Int || t == CType::LongLong;
}
// A declaration's type as a user writes it ("int", "unsigned", "unsigned int", "long long",
// "size_t", "uint32_t", ...); nullopt for anything else (narrow types included: a let or a loop
// variable is at least an int).
std::optional<CType> parse_ctype(std::string_view spelling);
// The usual arithmetic conversions: the common type of two promoted operands.
CType common_type(CType a, CType b);

// A C integer value: its type and its bits, sign-extended (signed types) or zero-extended
// (unsigned types) to 64, so `bits` read as int64_t is the value for every type but an
// unsigned long long above INT64_MAX.
struct Value {
  CType type = CType::Int;
  uint64_t bits = 0;

  // The value v converted to type t as C converts (modulo 2^width; to a signed type as every
  // compiler does it: two's complement).
  static Value of(CType t, int64_t v);
  static Value of_unsigned(CType t, uint64_t v);
  bool is_negative() const { return ctype_signed(type) && static_cast<int64_t>(bits) < 0; }
  // The mathematical value as an int64_t, when it has one (not for unsigned long long values
  // above INT64_MAX).
  std::optional<int64_t> to_int64() const {
    if (type == CType::ULongLong && bits > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(bits);
  }
  bool truthy() const { return bits != 0; }
  std::string text() const;  // "-1", "4294967295"
  friend bool operator==(const Value&, const Value&) = default;
};
Value convert(Value v, CType to);  // C's conversion to `to` (modular)

// [SECTION] Names and the per-thread environment ================================================

// The names an expression may use, each with its C type and a slot in Env::slots. Built once per
// scenario (constants, then lets in order, then loop variables) and bound into expressions.
class Symbols {
 public:
  struct Entry {
    std::string name;
    CType type = CType::Int;
    int slot = 0;
  };
  // Adds a name (or returns the existing one's slot, changing its type) and returns its slot.
  int add(std::string_view name, CType type);
  const Entry* find(std::string_view name) const;
  const std::vector<Entry>& entries() const { return entries_; }
  int size() const { return static_cast<int>(entries_.size()); }

 private:
  std::vector<Entry> entries_;
};

// What one thread sees: the built-in variables (unsigned int, as in CUDA) and the values of the
// Symbols' slots (slots[i] belongs to the entry with slot i, already of its type).
struct Env {
  uint32_t threadIdx[3] = {0, 0, 0};
  uint32_t blockDim[3] = {1, 1, 1};
  uint32_t blockIdx[3] = {0, 0, 0};
  uint32_t gridDim[3] = {1, 1, 1};
  std::vector<Value> slots;
  // For Expr::eval only (tests and one-off evaluations): named values, bound on every call.
  std::map<std::string, Value, std::less<>> names;
};

class Expr {
 public:
  Expr();
  ~Expr();
  Expr(const Expr&);
  Expr& operator=(const Expr&);
  Expr(Expr&&) noexcept;
  Expr& operator=(Expr&&) noexcept;

  // Binds env.names (each name has its value's type) and evaluates: for tests and one-off
  // evaluations. Hot loops bind once (bind()) and call BoundExpr::eval.
  std::optional<Value> eval(const Env& env, ExprError* error = nullptr) const;
  std::string text() const;                // the source text this was parsed from
  std::vector<std::string> names() const;  // identifiers used (not threadIdx etc.)
  bool uses_thread_index() const;          // mentions threadIdx (or a name we cannot see into)
  bool uses_block_index() const;           // mentions blockIdx or gridDim (or a name)
  bool uses_builtin() const;  // mentions threadIdx, blockDim, blockIdx, gridDim or warpSize
  bool uses_function(std::string_view name) const;  // calls min, max, abs or hash by that name

  struct Node;

 private:
  friend struct ExprParser;
  friend struct BindImpl;
  std::shared_ptr<const Node> root_;
  std::string text_;
};

// An Expr with its names resolved to slots and every node typed: what runs once per thread.
class BoundExpr {
 public:
  BoundExpr();
  ~BoundExpr();
  BoundExpr(const BoundExpr&);
  BoundExpr& operator=(const BoundExpr&);
  BoundExpr(BoundExpr&&) noexcept;
  BoundExpr& operator=(BoundExpr&&) noexcept;

  CType type() const;  // the expression's C type
  // Evaluates for one thread. Errors (undefined behaviour in C++, see the top of this file) carry
  // the column of the operator or function.
  std::optional<Value> eval(const Env& env, ExprError* error = nullptr) const;
  // The same for hot loops (the trace): the value's bits (a Value of type() with these bits is
  // what eval() returns), or false with *error set. No optional is built and returned in memory.
  bool eval_bits(const Env& env, uint64_t& bits, ExprError* error = nullptr) const;
  const std::string& text() const;
  // What one evaluation costs, in nodes visited (the model's work budget counts these).
  int64_t cost() const;
  // The slots (names) the expression reads, sorted, each once.
  std::vector<int> slots() const;

  struct Program;

 private:
  friend struct BindImpl;
  std::shared_ptr<const Program> program_;
};

struct BindResult {
  std::optional<BoundExpr> bound;
  ExprError error;  // set when !bound: an unknown name (with a suggestion), abs() of an unsigned
};
// Resolves names against `symbols` and types every node.
BindResult bind(const Expr& expr, const Symbols& symbols);

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

// Valid C identifier, not a C++ keyword or alternative token (and, or, ...), not `defined`, not
// reserved to the implementation (a double underscore anywhere, or _ and a capital first:
// __LINE__, __syncthreads), not a builtin (threadIdx, blockDim, ...), not a CUDA type (float2,
// int4, dim3, half: is_cuda_type_name() in expr.cpp).
bool is_valid_name(std::string_view name);

}  // namespace bankviz
