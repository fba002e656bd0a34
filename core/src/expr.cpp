// expr.cpp: the index-expression language of expr.h: lexer, recursive-descent parser, evaluator.
//
// [SECTION] AST
// [SECTION] Vocabulary (builtins, functions, type words, keywords)
// [SECTION] Lexer
// [SECTION] Parser
// [SECTION] Types and values
// [SECTION] Symbols
// [SECTION] Binding: names to slots, a C type for every node
// [SECTION] Evaluator
// [SECTION] Expr and BoundExpr value types
// [SECTION] Public entry points
//
// Every user input either parses or yields an ExprError with a 1-based column and a message
// saying what was expected. Nesting is limited (kMaxDepth) so no input can exhaust the stack;
// binary operators of one precedence level are kept as a flat chain, so "a+b+c+..." of any length
// does not deepen the tree either.

#include "bankviz/expr.h"
#include "bankviz/pasted.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

namespace bankviz {

// [SECTION] AST ==================================================================================

namespace {

// In the order of kOpSpelling below.
enum class OpKind {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  BitAnd,
  BitXor,
  BitOr,
  LogAnd,
  LogOr,
  Neg,
  Plus,
  Not,
  BitNot
};

enum class Builtin { ThreadIdx, BlockDim, BlockIdx, GridDim, WarpSize };

enum class Func { Min, Max, Abs, Hash };

constexpr int kMaxDepth = 200;

}  // namespace

// The target of a cast: the four promoted types, and the narrow ones whose value promotes to int.
enum class CastTo { Bool, SChar, UChar, Short, UShort, Int, UInt, LongLong, ULongLong };

struct Expr::Node {
  enum class Kind { Int, Builtin, Name, Call, Unary, Chain, Cond, Cast };
  Kind kind = Kind::Int;
  int column = 1;                        // the token this node stands for (operator, name, literal)
  Value value;                           // Int: the literal, typed by C's rules
  CastTo cast = CastTo::Int;             // Cast
  Builtin builtin = Builtin::ThreadIdx;  // Builtin
  int axis = 0;                          // Builtin: 0=x 1=y 2=z
  std::string name;                      // Name, Call
  Func func = Func::Min;                 // Call
  OpKind op = OpKind::Neg;               // Unary
  std::vector<std::shared_ptr<const Node>> kids;  // Unary/Cast 1, Call args, Chain operands, Cond 3
  std::vector<std::pair<OpKind, int>> ops;        // Chain: ops[i] joins kids[i] and kids[i+1]
};

using NodeP = std::shared_ptr<const Expr::Node>;

// [SECTION] Vocabulary ===========================================================================

namespace {

struct BuiltinName {
  std::string_view name;
  Builtin builtin;
};
constexpr std::array<BuiltinName, 5> kBuiltins = {{
    {"threadIdx", Builtin::ThreadIdx},
    {"blockDim", Builtin::BlockDim},
    {"blockIdx", Builtin::BlockIdx},
    {"gridDim", Builtin::GridDim},
    {"warpSize", Builtin::WarpSize},
}};

struct FuncName {
  std::string_view name;
  Func func;
  int arity;
};
constexpr std::array<FuncName, 4> kFuncs = {{
    {"min", Func::Min, 2},
    {"max", Func::Max, 2},
    {"abs", Func::Abs, 1},
    {"hash", Func::Hash, 1},
}};

// Words that may make up a cast's type: "(unsigned int)", "(long long)", "(size_t)".
constexpr std::string_view kIntTypeWords[] = {
    "int",     "unsigned", "signed",   "long",    "short",    "char",    "size_t",   "int8_t",
    "uint8_t", "int16_t",  "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "const"};
constexpr std::string_view kFloatTypeWords[] = {"float", "double", "half", "bool"};

constexpr std::string_view kKeywords[] = {
    "auto",     "break",     "case",    "char",     "const",    "continue", "default",   "do",
    "double",   "else",      "enum",    "extern",   "float",    "for",      "goto",      "if",
    "inline",   "int",       "long",    "register", "restrict", "return",   "short",     "signed",
    "sizeof",   "static",    "struct",  "switch",   "typedef",  "union",    "unsigned",  "void",
    "volatile", "while",     "bool",    "true",     "false",    "class",    "namespace", "template",
    "typename", "this",      "new",     "delete",   "operator", "using",    "try",       "catch",
    "throw",    "constexpr", "nullptr", "decltype", "alignas",  "alignof",  "virtual",   "friend",
    "public",   "private"};

bool is_int_type_word(std::string_view w) {
  return std::find(std::begin(kIntTypeWords), std::end(kIntTypeWords), w) !=
         std::end(kIntTypeWords);
}
bool is_float_type_word(std::string_view w) {
  return std::find(std::begin(kFloatTypeWords), std::end(kFloatTypeWords), w) !=
         std::end(kFloatTypeWords);
}
bool is_keyword(std::string_view w) {
  return std::find(std::begin(kKeywords), std::end(kKeywords), w) != std::end(kKeywords);
}
const BuiltinName* find_builtin(std::string_view w) {
  for (const auto& b : kBuiltins)
    if (b.name == w) return &b;
  return nullptr;
}
const FuncName* find_func(std::string_view w) {
  for (const auto& f : kFuncs)
    if (f.name == w) return &f;
  return nullptr;
}

// A cast's or declaration's type words ("unsigned short", "long long int", "const size_t") -> the
// type; nullopt for combinations C does not have ("short long", "signed unsigned", "int int").
std::optional<CastTo> cast_target(std::string_view spelling) {
  int n_unsigned = 0, n_signed = 0, n_long = 0, n_short = 0, n_char = 0, n_int = 0, words = 0;
  std::string_view alone;  // a typedef or bool, which must stand alone
  size_t i = 0;
  while (i < spelling.size()) {
    while (i < spelling.size() && std::isspace(static_cast<unsigned char>(spelling[i]))) ++i;
    size_t j = i;
    while (j < spelling.size() && !std::isspace(static_cast<unsigned char>(spelling[j]))) ++j;
    const std::string_view w = spelling.substr(i, j - i);
    i = j;
    if (w.empty() || w == "const") continue;
    ++words;
    if (w == "unsigned")
      ++n_unsigned;
    else if (w == "signed")
      ++n_signed;
    else if (w == "long")
      ++n_long;
    else if (w == "short")
      ++n_short;
    else if (w == "char")
      ++n_char;
    else if (w == "int")
      ++n_int;
    else
      alone = w;
  }
  if (words == 0) return std::nullopt;
  if (!alone.empty()) {
    if (words != 1) return std::nullopt;
    static constexpr std::pair<std::string_view, CastTo> kNamed[] = {
        {"bool", CastTo::Bool},          {"int8_t", CastTo::SChar},
        {"uint8_t", CastTo::UChar},      {"int16_t", CastTo::Short},
        {"uint16_t", CastTo::UShort},    {"int32_t", CastTo::Int},
        {"uint32_t", CastTo::UInt},      {"int64_t", CastTo::LongLong},
        {"uint64_t", CastTo::ULongLong}, {"size_t", CastTo::ULongLong}};
    for (const auto& [name, to] : kNamed)
      if (name == alone) return to;
    return std::nullopt;
  }
  if (n_unsigned + n_signed > 1 || n_int > 1 || n_short > 1 || n_char > 1 || n_long > 2)
    return std::nullopt;
  const bool u = n_unsigned == 1;
  if (n_char) {
    if (n_short || n_long || n_int) return std::nullopt;
    return u ? CastTo::UChar : CastTo::SChar;  // plain char is signed (x86-64 and nvcc)
  }
  if (n_short) {
    if (n_long) return std::nullopt;
    return u ? CastTo::UShort : CastTo::Short;
  }
  if (n_long) return u ? CastTo::ULongLong : CastTo::LongLong;  // long is 64 bits (LP64)
  return u ? CastTo::UInt : CastTo::Int;
}

// The type a cast's value has: its own for the four promoted types, int for the narrow ones
// (integer promotion).
CType cast_type(CastTo c) {
  switch (c) {
    case CastTo::UInt:
      return CType::UInt;
    case CastTo::LongLong:
      return CType::LongLong;
    case CastTo::ULongLong:
      return CType::ULongLong;
    default:
      return CType::Int;  // int itself, and the narrow types after integer promotion
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Common shorthands students write for the built-in variables.
std::string_view alias_for(std::string_view name) {
  static const std::array<std::pair<std::string_view, std::string_view>, 16> kAliases = {{
      {"tid", "threadIdx.x"},
      {"tidx", "threadIdx.x"},
      {"tx", "threadIdx.x"},
      {"lane", "threadIdx.x"},
      {"tidy", "threadIdx.y"},
      {"ty", "threadIdx.y"},
      {"tidz", "threadIdx.z"},
      {"tz", "threadIdx.z"},
      {"bx", "blockIdx.x"},
      {"by", "blockIdx.y"},
      {"bid", "blockIdx.x"},
      {"bdx", "blockDim.x"},
      {"bdy", "blockDim.y"},
      {"ntid", "blockDim.x"},
      {"warpsize", "warpSize"},
      {"WARP_SIZE", "warpSize"},
  }};
  for (const auto& [from, to] : kAliases)
    if (from == name) return to;
  return {};
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// "unknown name 'tidx' (did you mean threadIdx.x?)"
std::string unknown_name_message(std::string_view name, const Symbols& symbols) {
  std::string msg = "unknown name '" + std::string(name) + "'";
  std::string best;
  if (auto a = alias_for(name); !a.empty()) {
    best = std::string(a);
  } else {
    size_t best_d = std::max<size_t>(1, std::min<size_t>(2, name.size() / 2)) + 1;
    for (const Symbols::Entry& known : symbols.entries()) {
      size_t d = edit_distance(lower(name), lower(known.name));
      if (d < best_d) best_d = d, best = known.name;
    }
  }
  if (!best.empty()) msg += " (did you mean " + best + "?)";
  return msg;
}

// [SECTION] Lexer ================================================================================

enum class Tok { End, Int, Name, Punct, Error };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;  // punctuation or name spelling; for Error, unused
  int column = 1;         // 1-based
  Value value;            // Int: the literal's value and C type
  std::string error;      // Error: what is wrong here
};

std::string quote_char(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (std::isprint(u)) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
  return buf;
}

// C's type of an integer literal of value v, suffix (lower case) and radix: the first of these
// that holds the value (long is 64 bits). Decimal literals without 'u' stay signed; hex, octal and
// binary ones may become unsigned. nullopt: too large for any type the suffix allows.
std::optional<CType> literal_type(uint64_t v, std::string_view suffix, int radix) {
  const bool is_unsigned = suffix.find('u') != std::string_view::npos;
  const bool is_long = suffix.find('l') != std::string_view::npos;
  const bool decimal = radix == 10;
  constexpr uint64_t kIntMax = 0x7fffffffu, kUIntMax = 0xffffffffu;
  constexpr uint64_t kLLMax = 0x7fffffffffffffffu;
  if (!is_long && !is_unsigned && v <= kIntMax) return CType::Int;
  if (!is_long && (is_unsigned || !decimal) && v <= kUIntMax) return CType::UInt;
  if (!is_unsigned && v <= kLLMax) return CType::LongLong;
  if (is_unsigned || !decimal) return CType::ULongLong;
  return std::nullopt;
}

// Lexes the whole text; stops at the first bad token with an Error token (the parser reports it
// only when it gets there, so an earlier syntax error wins).
std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  auto col = [](size_t at) { return static_cast<int>(std::min<size_t>(at, 1u << 30)) + 1; };
  auto fail = [&](size_t at, std::string msg) {
    Token t;
    t.kind = Tok::Error;
    t.column = col(at);
    t.error = std::move(msg);
    out.push_back(std::move(t));
  };
  while (true) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size()) break;
    const size_t start = i;
    const char c = s[i];
    const auto is_ident = [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    };
    if (std::isdigit(static_cast<unsigned char>(c))) {
      // INT: decimal, 0x hex, 0b binary or C octal (leading 0), then u/U/l/L suffixes.
      int radix = 10;
      if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        radix = 16, i += 2;
      } else if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
        radix = 2, i += 2;
      } else if (c == '0') {
        radix = 8, i += 1;
      }
      uint64_t v = 0;
      bool too_big = false;
      size_t digits = 0;
      while (i < s.size()) {
        const unsigned char d = static_cast<unsigned char>(s[i]);
        int dv = -1;
        if (std::isdigit(d))
          dv = d - '0';
        else if (radix == 16 && std::isxdigit(d))
          dv = std::tolower(d) - 'a' + 10;
        if (dv < 0) break;
        if (dv >= radix) {
          fail(i, "digit '" + std::string(1, s[i]) + "' is not valid in " +
                      (radix == 8 ? "an octal literal (a leading 0 means octal in C)"
                                  : "a binary literal"));
          return out;
        }
        if (v > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(dv)) /
                    static_cast<uint64_t>(radix))
          too_big = true;
        else
          v = v * static_cast<uint64_t>(radix) + static_cast<uint64_t>(dv);
        ++i, ++digits;
      }
      if (radix != 8 && radix != 10 && digits == 0) {
        fail(i, std::string("expected ") + (radix == 16 ? "hex" : "binary") + " digits after '" +
                    std::string(s.substr(start, 2)) + "'");
        return out;
      }
      if (i < s.size() && s[i] == '.') {
        fail(start, "floating-point literals are not supported: index expressions are integers");
        return out;
      }
      size_t suffix = i;
      while (i < s.size() && is_ident(s[i])) ++i;
      std::string_view suf = s.substr(suffix, i - suffix);
      // C allows u, l, ll in either order and case, but "lL" and "Ll" are not "ll".
      const std::string ls = lower(suf);
      static const std::set<std::string> kSuffixes = {"", "u", "l", "ul", "lu", "ll", "ull", "llu"};
      const bool mixed_ll = ls.find("ll") != std::string::npos &&
                            suf.find("ll") == std::string_view::npos &&
                            suf.find("LL") == std::string_view::npos;
      if (!kSuffixes.count(ls) || mixed_ll) {
        fail(suffix, "invalid suffix '" + std::string(suf) +
                         "' on integer literal (expected u, l, ul, ll or ull)");
        return out;
      }
      const std::string spelled(s.substr(start, i - start));
      if (too_big) {
        fail(start,
             "integer literal '" + spelled + "' is too large (the limit is 18446744073709551615)");
        return out;
      }
      const std::optional<CType> type = literal_type(v, ls, radix);
      if (!type) {
        fail(start, "integer literal '" + spelled +
                        "' is too large for any signed type (the limit is 9223372036854775807; "
                        "write '" +
                        spelled + "u' for an unsigned literal)");
        return out;
      }
      Token t;
      t.kind = Tok::Int;
      t.text = s.substr(start, i - start);
      t.column = col(start);
      t.value = Value::of_unsigned(*type, v);
      out.push_back(t);
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i < s.size() && is_ident(s[i])) ++i;
      Token t;
      t.kind = Tok::Name;
      t.text = s.substr(start, i - start);
      t.column = col(start);
      out.push_back(t);
      continue;
    }
    static constexpr std::array<std::string_view, 8> kTwo = {
        "<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
    std::string_view two = s.substr(i, 2);
    if (two == "++" || two == "--") {
      // C++ lexes the longest token: "--a" is a decrement, not -(-a). An index expression
      // cannot change a variable (the kernel would compute another index than the model).
      fail(i, "unexpected '" + std::string(two) + "': an index expression cannot " +
                  (two == "++" ? "increment" : "decrement") + " a variable (for two signs write '" +
                  std::string(1, two[0]) + " " + std::string(1, two[0]) + "')");
      return out;
    }
    if (std::find(kTwo.begin(), kTwo.end(), two) != kTwo.end()) {
      out.push_back(Token{Tok::Punct, two, col(start), {}, {}});
      i += 2;
      continue;
    }
    static constexpr std::string_view kOne = "()[],.?:+-*/%<>&|^!~";
    if (kOne.find(c) != std::string_view::npos) {
      out.push_back(Token{Tok::Punct, s.substr(i, 1), col(start), {}, {}});
      i += 1;
      continue;
    }
    if (c == '=') {
      fail(i, "unexpected '=': an index expression cannot assign (did you mean '=='?)");
    } else if (c == ';') {
      fail(i, "unexpected ';': write the expression without a semicolon");
    } else if (c == '\'' || c == '"') {
      fail(i, "unexpected " + quote_char(c) + ": character and string literals are not supported");
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      fail(i, "unexpected character " + non_ascii_hint(s.substr(i)));
    } else {
      fail(i, "unexpected character " + quote_char(c));
    }
    return out;
  }
  Token end;
  end.kind = Tok::End;
  end.column = col(s.size());
  out.push_back(end);
  return out;
}

struct ParseFail {
  ExprError error;
};

}  // namespace

// [SECTION] Parser ===============================================================================

// Recursive descent over the token list; throws ParseFail on the first error.
struct ExprParser {
  std::string_view text;
  std::vector<Token> toks;
  size_t pos = 0;
  int depth = 0;

  explicit ExprParser(std::string_view t) : text(t), toks(lex(t)) {}

  const Token& peek(size_t ahead = 0) const { return toks[std::min(pos + ahead, toks.size() - 1)]; }
  bool at(std::string_view punct) const {
    return peek().kind == Tok::Punct && peek().text == punct;
  }
  bool at_end() const { return peek().kind == Tok::End; }
  const Token& take() {
    const Token& t = peek();
    if (t.kind == Tok::Error) fail(t.column, t.error);
    if (pos < toks.size() - 1) ++pos;
    return t;
  }

  [[noreturn]] static void fail(int column, std::string message) {
    throw ParseFail{ExprError{column, std::move(message)}};
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return "end of input";
    return "'" + std::string(t.text) + "'";
  }
  // Reports a lexer error if the parser has reached it, else the given message.
  [[noreturn]] void fail_here(std::string message) const {
    const Token& t = peek();
    if (t.kind == Tok::Error) fail(t.column, t.error);
    fail(t.column, std::move(message) + ", found " + describe(t));
  }

  struct DepthGuard {
    ExprParser& p;
    explicit DepthGuard(ExprParser& parser) : p(parser) {
      if (++p.depth > kMaxDepth)
        fail(p.peek().column,
             "expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    }
    ~DepthGuard() { --p.depth; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  static std::shared_ptr<Expr::Node> make(Expr::Node::Kind kind, int column) {
    auto n = std::make_shared<Expr::Node>();
    n->kind = kind;
    n->column = column;
    return n;
  }

  // cond := lor ('?' expr ':' cond)?
  NodeP parse_cond() {
    DepthGuard guard(*this);
    NodeP c = parse_level(0);
    if (!at("?")) return c;
    const int q = take().column;
    NodeP a = parse_cond();
    if (!at(":")) fail_here("expected ':' to match '?' at column " + std::to_string(q));
    take();
    NodeP b = parse_cond();
    auto n = make(Expr::Node::Kind::Cond, q);
    n->kids = {c, a, b};
    return n;
  }

  // Binary levels from loosest to tightest; each is a left-associative chain.
  struct Level {
    std::array<std::pair<std::string_view, OpKind>, 4> ops;
    int count;
  };
  static const Level& level(int i) {
    static const std::array<Level, 10> kLevels = {{
        {{{{"||", OpKind::LogOr}}}, 1},
        {{{{"&&", OpKind::LogAnd}}}, 1},
        {{{{"|", OpKind::BitOr}}}, 1},
        {{{{"^", OpKind::BitXor}}}, 1},
        {{{{"&", OpKind::BitAnd}}}, 1},
        {{{{"==", OpKind::Eq}, {"!=", OpKind::Ne}}}, 2},
        {{{{"<", OpKind::Lt}, {"<=", OpKind::Le}, {">", OpKind::Gt}, {">=", OpKind::Ge}}}, 4},
        {{{{"<<", OpKind::Shl}, {">>", OpKind::Shr}}}, 2},
        {{{{"+", OpKind::Add}, {"-", OpKind::Sub}}}, 2},
        {{{{"*", OpKind::Mul}, {"/", OpKind::Div}, {"%", OpKind::Mod}}}, 3},
    }};
    return kLevels[i];
  }

  NodeP parse_level(int li) {
    if (li == 10) return parse_unary();
    NodeP first = parse_level(li + 1);
    std::shared_ptr<Expr::Node> chain;
    const Level& lv = level(li);
    while (peek().kind == Tok::Punct) {
      const OpKind* found = nullptr;
      for (int k = 0; k < lv.count; ++k)
        if (peek().text == lv.ops[k].first) found = &lv.ops[k].second;
      if (!found) break;
      const int column = take().column;
      if (!chain) {
        chain = make(Expr::Node::Kind::Chain, column);
        chain->kids.push_back(first);
      }
      chain->ops.emplace_back(*found, column);
      chain->kids.push_back(parse_level(li + 1));
    }
    if (chain) return chain;
    return first;
  }

  bool cast_ahead() const {
    if (!at("(")) return false;
    const Token& t = peek(1);
    return t.kind == Tok::Name && (is_int_type_word(t.text) || is_float_type_word(t.text));
  }

  // unary := ('-'|'+'|'!'|'~') unary | '(' type ')' unary | primary
  NodeP parse_unary() {
    static constexpr std::array<std::pair<std::string_view, OpKind>, 4> kUnary = {
        {{"-", OpKind::Neg}, {"+", OpKind::Plus}, {"!", OpKind::Not}, {"~", OpKind::BitNot}}};
    for (const auto& [spelling, op] : kUnary) {
      if (!at(spelling)) continue;
      DepthGuard guard(*this);
      const int column = take().column;
      auto n = make(Expr::Node::Kind::Unary, column);
      n->op = op;
      n->kids = {parse_unary()};
      return n;
    }
    if (cast_ahead()) {
      DepthGuard guard(*this);
      const int open = take().column;
      std::string type;
      int first_word = peek().column;
      while (peek().kind == Tok::Name &&
             (is_int_type_word(peek().text) || is_float_type_word(peek().text))) {
        const Token& w = take();
        if (is_float_type_word(w.text) && w.text != "bool")
          fail(w.column, "cast to '" + std::string(w.text) +
                             "' is not supported: index expressions are integers");
        if (!type.empty()) type += ' ';
        type += w.text;
      }
      if (!at(")"))
        fail_here("expected ')' after type '" + type + "' in the cast at column " +
                  std::to_string(open));
      take();
      const std::optional<CastTo> to = cast_target(type);
      if (!to) fail(first_word, "'" + type + "' is not an integer type C knows");
      auto n = make(Expr::Node::Kind::Cast, open);
      n->cast = *to;
      n->kids = {parse_unary()};
      return n;
    }
    return parse_primary();
  }

  [[noreturn]] void fail_operand() const {
    const Token& prev = toks[pos > 0 ? pos - 1 : 0];
    const bool after_operator = prev.text != "(" && prev.text != "[" && prev.text != "," &&
                                prev.text != ")" && prev.text != "]";
    if (pos > 0 && prev.kind == Tok::Punct && after_operator)
      fail_here("expected an operand after '" + std::string(prev.text) + "'");
    fail_here("expected a number, a name or '('");
  }

  // primary := INT | NAME ('.' NAME)? | NAME '(' expr (',' expr)* ')' | '(' expr ')'
  NodeP parse_primary() {
    const Token& t = peek();
    if (t.kind == Tok::Int) {
      take();
      auto n = make(Expr::Node::Kind::Int, t.column);
      n->value = t.value;
      return n;
    }
    if (at("(")) {
      const int open = take().column;
      if (at(")")) fail_here("expected an expression inside '()'");
      NodeP inner = parse_cond();
      if (!at(")")) fail_here("expected ')' to close '(' at column " + std::to_string(open));
      take();
      return inner;
    }
    if (t.kind != Tok::Name) fail_operand();
    take();
    const std::string name(t.text);
    if (const BuiltinName* b = find_builtin(name)) {
      auto n = make(Expr::Node::Kind::Builtin, t.column);
      n->builtin = b->builtin;
      if (b->builtin == Builtin::WarpSize) return n;
      if (!at(".")) fail_here("expected '.x', '.y' or '.z' after '" + name + "'");
      take();
      const Token& m = peek();
      if (m.kind != Tok::Name) fail_here("expected x, y or z after '" + name + ".'");
      if (m.text != "x" && m.text != "y" && m.text != "z")
        fail(m.column, "'" + name + "' has members x, y and z, not '" + std::string(m.text) + "'");
      take();
      n->axis = m.text[0] - 'x';
      return n;
    }
    if (is_int_type_word(name) || is_float_type_word(name))
      fail(t.column, "unexpected type name '" + name + "' (a cast is written '(int)x')");
    if (is_keyword(name)) fail(t.column, "'" + name + "' is a C keyword, not a value");
    if (at("(")) {
      const FuncName* f = find_func(name);
      if (!f) fail(t.column, "unknown function '" + name + "' (functions: min, max, abs, hash)");
      const int open = take().column;
      auto n = make(Expr::Node::Kind::Call, t.column);
      n->name = name;
      n->func = f->func;
      if (at(")")) fail_here("expected an argument for '" + name + "'");
      n->kids.push_back(parse_cond());
      while (at(",")) {
        take();
        n->kids.push_back(parse_cond());
      }
      if (!at(")"))
        fail_here("expected ',' or ')' to close the call to '" + name + "' at column " +
                  std::to_string(open));
      take();
      if (static_cast<int>(n->kids.size()) != f->arity)
        fail(t.column, "'" + name + "' takes " + std::to_string(f->arity) + " argument" +
                           (f->arity == 1 ? "" : "s") + ", got " + std::to_string(n->kids.size()));
      return n;
    }
    if (at(".")) {
      for (const auto& b : kBuiltins)
        if (lower(b.name) == lower(name))
          fail(t.column, "unknown name '" + name + "' (did you mean " + std::string(b.name) + "?)");
      fail(peek().column,
           "'.' can only follow threadIdx, blockDim, blockIdx or gridDim, not '" + name + "'");
    }
    if (at("["))
      fail(peek().column, "cannot index '" + name +
                              "' here: only the shared tile's subscripts are modelled (use a "
                              "let, a constant or hash() for data-dependent indices)");
    auto n = make(Expr::Node::Kind::Name, t.column);
    n->name = name;
    return n;
  }

  // Whole-input checks -------------------------------------------------------------------------
  void expect_end(std::string_view what) {
    if (at_end()) return;
    if (peek().kind == Tok::Error) take();
    if (at(")")) fail(peek().column, "unexpected ')' with no matching '('");
    if (at("]")) fail(peek().column, "unexpected ']' with no matching '['");
    fail_here("expected an operator or end of input after " + std::string(what));
  }
  void expect_not_empty() {
    if (at_end()) fail(peek().column, "expected an expression, found end of input");
  }

  Expr make_expr(NodeP root, int from_col, int to_col) const {
    Expr e;
    e.root_ = std::move(root);
    const size_t a = static_cast<size_t>(std::max(from_col, 1) - 1);
    const size_t b = std::min(static_cast<size_t>(std::max(to_col, 1) - 1), text.size());
    e.text_ = a < b ? std::string(text.substr(a, b - a)) : std::string();
    while (!e.text_.empty() && std::isspace(static_cast<unsigned char>(e.text_.back())))
      e.text_.pop_back();
    return e;
  }
};

// [SECTION] Types and values ====================================================================

const char* ctype_name(CType t) {
  switch (t) {
    case CType::Int:
      return "int";
    case CType::UInt:
      return "unsigned int";
    case CType::LongLong:
      return "long long";
    case CType::ULongLong:
      return "unsigned long long";
  }
  return "?";
}

std::optional<CType> parse_ctype(std::string_view spelling) {
  const std::optional<CastTo> to = cast_target(spelling);
  // Narrow types and bool are not declaration types here: they promote to int.
  if (!to || (*to != CastTo::Int && cast_type(*to) == CType::Int)) return std::nullopt;
  return cast_type(*to);
}

// The usual arithmetic conversions (C17 6.3.1.8) on promoted operands: the same type stays; of
// two signed or two unsigned types the wider wins; an unsigned type at least as wide as the signed
// one wins; a wider signed type (long long against unsigned int) holds every value and wins.
CType common_type(CType a, CType b) {
  if (a == b) return a;
  if (ctype_signed(a) == ctype_signed(b)) return ctype_bits(a) >= ctype_bits(b) ? a : b;
  const CType u = ctype_signed(a) ? b : a, sg = ctype_signed(a) ? a : b;
  return ctype_bits(u) >= ctype_bits(sg) ? u : sg;
}

namespace {

// x's low bits as a value of type t: sign-extended for signed types, zero-extended for unsigned.
uint64_t normalize(CType t, uint64_t x) {
  switch (t) {
    case CType::Int:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(x & 0xffffffffu)));
    case CType::UInt:
      return x & 0xffffffffu;
    case CType::LongLong:
    case CType::ULongLong:
      return x;
  }
  return x;
}

}  // namespace

Value Value::of(CType t, int64_t v) {
  return {t, normalize(t, static_cast<uint64_t>(v))};
}

Value Value::of_unsigned(CType t, uint64_t v) {
  return {t, normalize(t, v)};
}

std::string Value::text() const {
  return ctype_signed(type) ? std::to_string(static_cast<int64_t>(bits)) : std::to_string(bits);
}

Value convert(Value v, CType to) {
  return {to, normalize(to, v.bits)};
}

// [SECTION] Symbols ==============================================================================

int Symbols::add(std::string_view name, CType type) {
  for (Entry& e : entries_)
    if (e.name == name) {
      e.type = type;
      return e.slot;
    }
  entries_.push_back({std::string(name), type, static_cast<int>(entries_.size())});
  return entries_.back().slot;
}

const Symbols::Entry* Symbols::find(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

// [SECTION] Binding: names to slots, a C type for every node =====================================

// A bound expression is a flat array of typed nodes; kids are indices. Chains stay flat (one node
// with a list of links), so "a+b+c+..." of any length evaluates without deep recursion.
struct BoundExpr::Program {
  struct Link {
    OpKind op = OpKind::Add;
    int column = 1;
    CType operand = CType::Int;  // both sides convert to this (shifts: the left side's type)
    CType result = CType::Int;
    int kid = 0;
  };
  struct Node {
    Expr::Node::Kind kind = Expr::Node::Kind::Int;
    CType type = CType::Int;     // the node's C type
    CType operand = CType::Int;  // Call (min/max), Cond: the common type of the operands
    int column = 1;
    Value value;   // Int
    int slot = 0;  // Name
    Builtin builtin = Builtin::ThreadIdx;
    int axis = 0;
    Func func = Func::Min;
    OpKind op = OpKind::Neg;
    CastTo cast = CastTo::Int;
    std::array<int, 3> kids{};  // Unary/Cast/Call/Cond; Chain: kids[0] is the first operand
    std::vector<Link> links;    // Chain
  };
  std::vector<Node> nodes;
  int root = 0;
  std::string text;
};

namespace {

struct BindFail {
  ExprError error;
};

}  // namespace

struct BindImpl {
  using Program = BoundExpr::Program;
  using Kind = Expr::Node::Kind;
  const Symbols& symbols;
  Program& p;

  [[noreturn]] static void fail(int column, std::string message) {
    throw BindFail{ExprError{column, std::move(message)}};
  }

  int add(Program::Node n) {
    p.nodes.push_back(std::move(n));
    return static_cast<int>(p.nodes.size()) - 1;
  }
  CType type_of(int i) const { return p.nodes[static_cast<size_t>(i)].type; }

  int bind(const Expr::Node& n) {
    Program::Node b;
    b.kind = n.kind;
    b.column = n.column;
    switch (n.kind) {
      case Kind::Int:
        b.value = n.value;
        b.type = n.value.type;
        break;
      case Kind::Builtin:
        b.builtin = n.builtin;
        b.axis = n.axis;
        b.type = n.builtin == Builtin::WarpSize ? CType::Int : CType::UInt;
        break;
      case Kind::Name: {
        const Symbols::Entry* e = symbols.find(n.name);
        if (!e) fail(n.column, unknown_name_message(n.name, symbols));
        b.slot = e->slot;
        b.type = e->type;
        break;
      }
      case Kind::Cast:
        b.cast = n.cast;
        b.kids[0] = bind(*n.kids[0]);
        b.type = cast_type(n.cast);
        break;
      case Kind::Unary:
        b.op = n.op;
        b.kids[0] = bind(*n.kids[0]);
        b.type = n.op == OpKind::Not ? CType::Int : type_of(b.kids[0]);
        break;
      case Kind::Call: {
        b.func = n.func;
        for (size_t i = 0; i < n.kids.size(); ++i) b.kids[i] = bind(*n.kids[i]);
        const CType a = type_of(b.kids[0]);
        if (n.func == Func::Min || n.func == Func::Max) {
          const CType c = type_of(b.kids[1]);
          // CUDA's min/max overloads pair same-width arguments (int/unsigned int, long long/
          // unsigned long long): a 32-bit with a 64-bit argument is ambiguous and won't compile.
          if (ctype_bits(a) != ctype_bits(c))
            fail(n.column, std::string(n.func == Func::Min ? "min" : "max") + "() of " +
                               ctype_name(a) + " and " + ctype_name(c) +
                               ": CUDA C++ has no such overload (the call is ambiguous); cast "
                               "one argument so both are 32-bit or both 64-bit");
          b.operand = b.type = common_type(a, c);
        } else if (n.func == Func::Abs) {
          if (!ctype_signed(a))
            fail(n.column, std::string("abs() of an ") + ctype_name(a) +
                               " value: CUDA C++ has no abs() for unsigned types (the call is "
                               "ambiguous); cast it, e.g. abs((int)x)");
          b.type = a;
        } else {  // hash(unsigned int) -> unsigned int
          b.type = CType::UInt;
        }
        break;
      }
      case Kind::Cond:
        for (size_t i = 0; i < 3; ++i) b.kids[i] = bind(*n.kids[i]);
        b.operand = b.type = common_type(type_of(b.kids[1]), type_of(b.kids[2]));
        break;
      case Kind::Chain: {
        b.kids[0] = bind(*n.kids[0]);
        CType acc = type_of(b.kids[0]);
        for (size_t i = 0; i < n.ops.size(); ++i) {
          Program::Link l;
          l.op = n.ops[i].first;
          l.column = n.ops[i].second;
          l.kid = bind(*n.kids[i + 1]);
          const CType r = type_of(l.kid);
          switch (l.op) {
            case OpKind::Shl:
            case OpKind::Shr:
              l.operand = l.result = acc;  // the promoted left operand's type
              break;
            case OpKind::Lt:
            case OpKind::Le:
            case OpKind::Gt:
            case OpKind::Ge:
            case OpKind::Eq:
            case OpKind::Ne:
              l.operand = common_type(acc, r);
              l.result = CType::Int;
              break;
            case OpKind::LogAnd:
            case OpKind::LogOr:
              l.operand = l.result = CType::Int;
              break;
            default:
              l.operand = l.result = common_type(acc, r);
              break;
          }
          acc = l.result;
          b.links.push_back(l);
        }
        b.type = acc;
        break;
      }
    }
    return add(std::move(b));
  }

  static BindResult run(const Expr& expr, const Symbols& symbols) {
    BindResult r;
    if (!expr.root_) {
      r.error = ExprError{1, "expected an expression, found an empty one"};
      return r;
    }
    auto program = std::make_shared<Program>();
    try {
      BindImpl b{symbols, *program};
      program->root = b.bind(*expr.root_);
    } catch (const BindFail& f) {
      r.error = f.error;
      return r;
    }
    program->text = expr.text();
    BoundExpr e;
    e.program_ = std::move(program);
    r.bound = std::move(e);
    return r;
  }
};

BindResult bind(const Expr& expr, const Symbols& symbols) {
  return BindImpl::run(expr, symbols);
}

// [SECTION] Evaluator ============================================================================

namespace {

struct EvalFail {
  ExprError error;
};

[[noreturn]] void eval_fail(int column, std::string message) {
  throw EvalFail{ExprError{column, std::move(message)}};
}

const char* op_spelling(OpKind op) {
  static constexpr const char* kOpSpelling[] = {"+",  "-",  "*",  "/",  "%",  "<<", ">>", "<",
                                                "<=", ">",  ">=", "==", "!=", "&",  "^",  "|",
                                                "&&", "||", "-",  "+",  "!",  "~"};
  return kOpSpelling[static_cast<int>(op)];
}

// "signed overflow: 2147483647 + 1 does not fit in int (undefined in C)"
[[noreturn, gnu::cold, gnu::noinline]] void overflow(OpKind op, Value a, Value b, int column) {
  eval_fail(column, "signed overflow: " + a.text() + " " + op_spelling(op) + " " + b.text() +
                        " does not fit in " + ctype_name(a.type) + " (undefined behaviour in C)");
}

// A fixed 32-bit integer mix (Chris Wellons' lowbias32): data-dependent but reproducible indices,
// e.g. a histogram's bins. hash(0) == 0.
uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

int64_t as_signed(uint64_t bits) {
  return static_cast<int64_t>(bits);
}

// The evaluator computes on bits alone: every node's C type is known once it is bound (the
// Program's types), and a value's bits are already sign- or zero-extended to 64 for its type
// (Value), so a conversion to type t is normalize(t, bits) whatever the source type. Values are
// built (with their type) only for an error message.

// a OP b with both already converted to type t (arithmetic and bitwise operators).
uint64_t arithmetic(OpKind op, CType t, uint64_t a, uint64_t b, int column) {
  const bool sgn = ctype_signed(t);
  const bool narrow = ctype_bits(t) == 32;
  if (op == OpKind::Div || op == OpKind::Mod) {
    if (b == 0) eval_fail(column, op == OpKind::Div ? "division by zero" : "modulo by zero");
    // A power-of-two divisor of a value that is not negative (the usual `% 32`): a mask or a
    // shift, exactly what the division gives, without a 64-bit divide per lane.
    if ((b & (b - 1)) == 0 && !(sgn && (as_signed(a) < 0 || as_signed(b) < 0)))
      return normalize(t, op == OpKind::Div ? a >> __builtin_ctzll(b) : a & (b - 1));
    if (sgn) {
      const int64_t x = as_signed(a), y = as_signed(b);
      const int64_t min = narrow ? INT32_MIN : INT64_MIN;
      // also a % b: C leaves both undefined
      if (x == min && y == -1) overflow(op, Value{t, a}, Value{t, b}, column);
      return normalize(t, static_cast<uint64_t>(op == OpKind::Div ? x / y : x % y));  // truncation
    }
    return normalize(t, op == OpKind::Div ? a / b : a % b);
  }
  if (sgn && (op == OpKind::Add || op == OpKind::Sub || op == OpKind::Mul)) {
    const int64_t x = as_signed(a), y = as_signed(b);
    int64_t r = 0;
    bool over = op == OpKind::Add   ? __builtin_add_overflow(x, y, &r)
                : op == OpKind::Sub ? __builtin_sub_overflow(x, y, &r)
                                    : __builtin_mul_overflow(x, y, &r);
    if (narrow) over = over || r < INT32_MIN || r > INT32_MAX;
    if (over) overflow(op, Value{t, a}, Value{t, b}, column);
    return normalize(t, static_cast<uint64_t>(r));
  }
  switch (op) {
    case OpKind::Add:
      return normalize(t, a + b);  // unsigned arithmetic wraps
    case OpKind::Sub:
      return normalize(t, a - b);
    case OpKind::Mul:
      return normalize(t, a * b);
    case OpKind::BitAnd:
      return normalize(t, a & b);
    case OpKind::BitXor:
      return normalize(t, a ^ b);
    case OpKind::BitOr:
      return normalize(t, a | b);
    default:
      break;
  }
  eval_fail(column, "internal error: not an arithmetic operator");
}

// a << b, a >> b: the result has a's (promoted) type t; b (of type tb) only counts.
uint64_t shift(OpKind op, CType t, uint64_t a, CType tb, uint64_t b, int column) {
  const int width = ctype_bits(t);
  const Value count{tb, b};
  if (count.is_negative() || b >= static_cast<uint64_t>(width))
    eval_fail(column, "shift count " + count.text() + " is out of range for " + ctype_name(t) +
                          " (0 to " + std::to_string(width - 1) + "; undefined behaviour in C)");
  const int n = static_cast<int>(b);
  if (op == OpKind::Shr)  // arithmetic for negative signed values, as nvcc and gcc do
    return ctype_signed(t) ? normalize(t, static_cast<uint64_t>(as_signed(a) >> n))
                           : normalize(t, a >> n);
  if (ctype_signed(t)) {
    // C++17 [expr.shift]: E1 << E2 of a signed E1 is defined only for E1 >= 0 with E1 * 2^E2
    // representable in the corresponding unsigned type; that value is then converted back.
    const Value left{t, a};
    if (left.is_negative())
      eval_fail(column, "left shift of the negative value " + left.text() +
                            " (undefined behaviour in C and C++17)");
    if (n > 0 && (a >> (width - n)) != 0)
      eval_fail(column, left.text() + " << " + count.text() + " does not fit in " + ctype_name(t) +
                            " (undefined behaviour in C)");
  }
  return normalize(t, a << n);
}

bool compare(OpKind op, CType t, uint64_t a, uint64_t b) {
  const bool sgn = ctype_signed(t);
  const auto lt = [&](uint64_t x, uint64_t y) { return sgn ? as_signed(x) < as_signed(y) : x < y; };
  switch (op) {
    case OpKind::Lt:
      return lt(a, b);
    case OpKind::Le:
      return !lt(b, a);
    case OpKind::Gt:
      return lt(b, a);
    case OpKind::Ge:
      return !lt(a, b);
    case OpKind::Eq:
      return a == b;
    default:
      return a != b;
  }
}

uint64_t cast_bits(CastTo c, uint64_t v) {
  switch (c) {
    case CastTo::Bool:
      return v != 0;
    case CastTo::SChar:
      return static_cast<uint64_t>(int64_t{static_cast<int8_t>(v & 0xffu)});
    case CastTo::UChar:
      return v & 0xffu;
    case CastTo::Short:
      return static_cast<uint64_t>(int64_t{static_cast<int16_t>(v & 0xffffu)});
    case CastTo::UShort:
      return v & 0xffffu;
    default:
      return normalize(cast_type(c), v);
  }
}

uint64_t truth(bool b) {
  return b ? 1 : 0;
}

// The evaluator's own undefined behaviour, said out of line: the hot function keeps no string.
[[noreturn, gnu::cold, gnu::noinline]] void negation_overflow(int column, CType t, uint64_t a) {
  eval_fail(column, "signed overflow: -(" + Value{t, a}.text() + ") does not fit in " +
                        ctype_name(t) + " (undefined behaviour in C)");
}
[[noreturn, gnu::cold, gnu::noinline]] void abs_overflow(int column, CType t, uint64_t a) {
  eval_fail(column, "abs(" + Value{t, a}.text() + ") does not fit in " + ctype_name(t) +
                        " (undefined behaviour in C)");
}
[[noreturn, gnu::cold, gnu::noinline]] void unbound_name(int column) {
  eval_fail(column, "internal error: no value for a bound name");
}

struct Evaluator {
  using Kind = Expr::Node::Kind;
  using Node = BoundExpr::Program::Node;
  const BoundExpr::Program& p;
  const Env& env;

  const Node& node(int index) const { return p.nodes[static_cast<size_t>(index)]; }

  // Operands that are leaves (literals, names, threadIdx) are read inline by the operator that
  // uses them rather than through a recursive call: most operands of an index expression are
  // leaves, and the call's indirect branch is what a tree walker pays for (BENCHMARKS.md).
  uint64_t operand(int index) const {
    const Node& n = node(index);
    if (n.kind == Kind::Int) return n.value.bits;
    if (n.kind == Kind::Name && static_cast<size_t>(n.slot) < env.slots.size())
      return env.slots[static_cast<size_t>(n.slot)].bits;
    if (n.kind == Kind::Builtin && n.builtin == Builtin::ThreadIdx) return env.threadIdx[n.axis];
    return eval(index);
  }

  // The node's value: its bits, of the node's type (n.type).
  uint64_t eval(int index) const {
    const Node& n = node(index);
    switch (n.kind) {
      case Kind::Int:
        return n.value.bits;
      case Kind::Builtin: {
        const int a = n.axis;
        switch (n.builtin) {
          case Builtin::ThreadIdx:
            return env.threadIdx[a];
          case Builtin::BlockDim:
            return env.blockDim[a];
          case Builtin::BlockIdx:
            return env.blockIdx[a];
          case Builtin::GridDim:
            return env.gridDim[a];
          case Builtin::WarpSize:
            return 32;
        }
        break;
      }
      case Kind::Name:
        // Env: a slot's value is of its name's type, the type this node was bound with.
        if (static_cast<size_t>(n.slot) >= env.slots.size()) unbound_name(n.column);
        return env.slots[static_cast<size_t>(n.slot)].bits;
      case Kind::Cast:
        return cast_bits(n.cast, operand(n.kids[0]));
      case Kind::Unary: {
        const uint64_t a = operand(n.kids[0]);
        const CType t = node(n.kids[0]).type;
        switch (n.op) {
          case OpKind::Neg:
            if (ctype_signed(t)) {
              const int64_t min = ctype_bits(t) == 32 ? INT32_MIN : INT64_MIN;
              if (as_signed(a) == min) negation_overflow(n.column, t, a);
              return normalize(t, static_cast<uint64_t>(-as_signed(a)));
            }
            return normalize(t, 0 - a);
          case OpKind::Plus:
            return a;
          case OpKind::Not:
            return truth(a == 0);
          case OpKind::BitNot:
            return normalize(t, ~a);
          default:
            break;
        }
        break;
      }
      case Kind::Call: {
        const uint64_t a = operand(n.kids[0]);
        switch (n.func) {
          case Func::Min:
          case Func::Max: {
            const uint64_t x = normalize(n.operand, a);
            const uint64_t y = normalize(n.operand, operand(n.kids[1]));
            const bool x_less = compare(OpKind::Lt, n.operand, x, y);
            return (n.func == Func::Min) == x_less ? x : y;
          }
          case Func::Abs: {
            const CType t = node(n.kids[0]).type;
            const int64_t min = ctype_bits(t) == 32 ? INT32_MIN : INT64_MIN;
            if (as_signed(a) == min) abs_overflow(n.column, t, a);
            return normalize(
                t, static_cast<uint64_t>(as_signed(a) < 0 ? -as_signed(a) : as_signed(a)));
          }
          case Func::Hash:
            return hash32(static_cast<uint32_t>(a));
        }
        break;
      }
      case Kind::Chain: {
        uint64_t acc = operand(n.kids[0]);
        for (const BoundExpr::Program::Link& l : n.links) {
          if (l.op == OpKind::LogAnd || l.op == OpKind::LogOr) {
            // Short-circuit as C does: "x != 0 && 64 / x" must not divide by zero.
            if (l.op == OpKind::LogAnd && acc == 0) return 0;
            if (l.op == OpKind::LogOr && acc != 0) return 1;
            acc = truth(operand(l.kid) != 0);
            continue;
          }
          const uint64_t b = operand(l.kid);
          switch (l.op) {
            case OpKind::Shl:
            case OpKind::Shr:  // acc is of the promoted left operand's type, l.operand
              acc = shift(l.op, l.operand, acc, node(l.kid).type, b, l.column);
              break;
            case OpKind::Lt:
            case OpKind::Le:
            case OpKind::Gt:
            case OpKind::Ge:
            case OpKind::Eq:
            case OpKind::Ne:
              acc = truth(
                  compare(l.op, l.operand, normalize(l.operand, acc), normalize(l.operand, b)));
              break;
            default:
              acc = arithmetic(l.op, l.operand, normalize(l.operand, acc), normalize(l.operand, b),
                               l.column);
              break;
          }
        }
        return acc;
      }
      case Kind::Cond:
        return normalize(n.operand,
                         operand(n.kids[0]) != 0 ? operand(n.kids[1]) : operand(n.kids[2]));
    }
    eval_fail(n.column, "internal error: unknown expression node");
  }
};

void collect_names(const Expr::Node& n, std::vector<std::string>& out) {
  if (n.kind == Expr::Node::Kind::Name && std::find(out.begin(), out.end(), n.name) == out.end())
    out.push_back(n.name);
  for (const auto& k : n.kids) collect_names(*k, out);
}

bool mentions_thread(const Expr::Node& n) {
  if (n.kind == Expr::Node::Kind::Name) return true;  // a let may depend on threadIdx
  if (n.kind == Expr::Node::Kind::Builtin && n.builtin == Builtin::ThreadIdx) return true;
  for (const auto& k : n.kids)
    if (mentions_thread(*k)) return true;
  return false;
}

bool mentions_block(const Expr::Node& n) {
  if (n.kind == Expr::Node::Kind::Builtin &&
      (n.builtin == Builtin::BlockIdx || n.builtin == Builtin::GridDim))
    return true;
  for (const auto& k : n.kids)
    if (mentions_block(*k)) return true;
  return false;
}

bool mentions_builtin(const Expr::Node& n) {
  if (n.kind == Expr::Node::Kind::Builtin) return true;
  for (const auto& k : n.kids)
    if (mentions_builtin(*k)) return true;
  return false;
}

bool calls(const Expr::Node& n, std::string_view name) {
  if (n.kind == Expr::Node::Kind::Call && n.name == name) return true;
  for (const auto& k : n.kids)
    if (calls(*k, name)) return true;
  return false;
}

}  // namespace

// [SECTION] Expr and BoundExpr value types =======================================================

Expr::Expr() = default;
Expr::~Expr() = default;
Expr::Expr(const Expr&) = default;
Expr& Expr::operator=(const Expr&) = default;
Expr::Expr(Expr&&) noexcept = default;
Expr& Expr::operator=(Expr&&) noexcept = default;

std::optional<Value> Expr::eval(const Env& env, ExprError* error) const {
  Symbols symbols;
  Env bound_env = env;
  bound_env.slots.clear();
  for (const auto& [name, value] : env.names) {
    symbols.add(name, value.type);
    bound_env.slots.push_back(value);
  }
  BindResult b = bind(*this, symbols);
  if (!b.bound) {
    if (error) *error = b.error;
    return std::nullopt;
  }
  return b.bound->eval(bound_env, error);
}

std::string Expr::text() const {
  return text_;
}

std::vector<std::string> Expr::names() const {
  std::vector<std::string> out;
  if (root_) collect_names(*root_, out);
  return out;
}

bool Expr::uses_thread_index() const {
  return root_ && mentions_thread(*root_);
}

bool Expr::uses_block_index() const {
  return root_ && mentions_block(*root_);
}

bool Expr::uses_builtin() const {
  return root_ && mentions_builtin(*root_);
}

bool Expr::uses_function(std::string_view name) const {
  return root_ && calls(*root_, name);
}

BoundExpr::BoundExpr() = default;
BoundExpr::~BoundExpr() = default;
BoundExpr::BoundExpr(const BoundExpr&) = default;
BoundExpr& BoundExpr::operator=(const BoundExpr&) = default;
BoundExpr::BoundExpr(BoundExpr&&) noexcept = default;
BoundExpr& BoundExpr::operator=(BoundExpr&&) noexcept = default;

CType BoundExpr::type() const {
  return program_ ? program_->nodes[static_cast<size_t>(program_->root)].type : CType::Int;
}

int64_t BoundExpr::cost() const {
  if (!program_) return 0;
  int64_t n = static_cast<int64_t>(program_->nodes.size());
  for (const Program::Node& node : program_->nodes) n += static_cast<int64_t>(node.links.size());
  return n;
}

std::vector<int> BoundExpr::slots() const {
  std::vector<int> out;
  if (!program_) return out;
  for (const Program::Node& node : program_->nodes)
    if (node.kind == Expr::Node::Kind::Name) out.push_back(node.slot);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const std::string& BoundExpr::text() const {
  static const std::string kEmpty;
  return program_ ? program_->text : kEmpty;
}

std::optional<Value> BoundExpr::eval(const Env& env, ExprError* error) const {
  if (!program_) {
    if (error) *error = ExprError{1, "expected an expression, found an empty one"};
    return std::nullopt;
  }
  uint64_t bits = 0;
  if (!eval_bits(env, bits, error)) return std::nullopt;
  return Value{type(), bits};
}

bool BoundExpr::eval_bits(const Env& env, uint64_t& bits, ExprError* error) const {
  if (!program_) {
    if (error) *error = ExprError{1, "expected an expression, found an empty one"};
    return false;
  }
  const Program& p = *program_;
  const Program::Node& root = p.nodes[static_cast<size_t>(p.root)];
  if (root.kind == Expr::Node::Kind::Builtin && root.builtin == Builtin::ThreadIdx) {
    bits = env.threadIdx[root.axis];  // a bare threadIdx.x: no evaluator to set up
    return true;
  }
  try {
    bits = Evaluator{p, env}.eval(p.root);
    return true;
  } catch (const EvalFail& f) {
    if (error) *error = f.error;
    return false;
  }
}

// [SECTION] Public entry points ==================================================================

std::string ExprError::format(std::string_view text) const {
  std::string out;
  if (column > 0) out += "col " + std::to_string(column) + ": ";
  out += message;
  if (column <= 0) return out;
  std::string line(text);
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::string caret;
  const size_t at = std::min(static_cast<size_t>(column - 1), line.size());
  for (size_t i = 0; i < at; ++i) caret += line[i] == '\t' ? '\t' : ' ';
  out += "\n  " + line + "\n  " + caret + "^";
  return out;
}

ExprParse parse_expr(std::string_view text) {
  ExprParse result;
  ExprParser p(text);
  try {
    p.expect_not_empty();
    const int from = p.peek().column;
    NodeP root = p.parse_cond();
    p.expect_end("the expression");
    result.expr = p.make_expr(std::move(root), from, static_cast<int>(text.size()) + 1);
  } catch (const ParseFail& f) {
    result.error = f.error;
  }
  return result;
}

SubscriptParse parse_subscripts(std::string_view text, std::string_view array_name) {
  SubscriptParse result;
  ExprParser p(text);
  try {
    if (p.at_end())
      ExprParser::fail(p.peek().column,
                       "expected an index such as 'tile[i][j]', '[i][j]' or 'i', found end of "
                       "input");
    const Token& first = p.peek();
    if (first.kind == Tok::Name && p.peek(1).kind == Tok::Punct && p.peek(1).text == "[") {
      if (!array_name.empty() && first.text != array_name)
        ExprParser::fail(first.column, "expected the array '" + std::string(array_name) +
                                           "', found '" + std::string(first.text) + "'");
      p.take();
    } else if (first.kind == Tok::Name && !array_name.empty() && first.text == array_name &&
               p.peek(1).kind == Tok::End) {
      p.take();
      p.fail_here("expected '[' after '" + std::string(array_name) + "'");
    }
    if (p.at("[")) {
      while (p.at("[")) {
        const int open = p.take().column;
        if (result.subscripts.size() == 3)
          ExprParser::fail(open, "too many subscripts: a tile has at most 3 dimensions");
        if (p.at("]")) p.fail_here("expected an expression inside '[]'");
        const int from = p.peek().column;
        NodeP root = p.parse_cond();
        if (!p.at("]"))
          p.fail_here("expected ']' after subscript (to close '[' at column " +
                      std::to_string(open) + ")");
        const int to = p.peek().column;
        p.take();
        result.subscripts.push_back(p.make_expr(std::move(root), from, to));
      }
      if (!p.at_end()) {
        if (p.peek().kind == Tok::Error) p.take();
        p.fail_here("expected '[' or end of input after subscript");
      }
    } else {
      const int from = p.peek().column;
      NodeP root = p.parse_cond();
      p.expect_end("the index");
      result.subscripts.push_back(
          p.make_expr(std::move(root), from, static_cast<int>(text.size()) + 1));
    }
    result.ok = true;
  } catch (const ParseFail& f) {
    result.subscripts.clear();
    result.error = f.error;
  }
  return result;
}

// The rest of C++20's keywords (kKeywords has those an expression may meet), its alternative
// tokens (`and` is &&), and the preprocessor's `defined`: a constant becomes a #define and a let a
// local variable of the generated kernel, and neither may be one of these.
constexpr std::string_view kOtherReservedWords[] = {
    "and",      "and_eq",        "asm",         "bitand",
    "bitor",    "char8_t",       "char16_t",    "char32_t",
    "co_await", "co_return",     "co_yield",    "compl",
    "concept",  "consteval",     "constinit",   "const_cast",
    "defined",  "dynamic_cast",  "explicit",    "export",
    "mutable",  "noexcept",      "not",         "not_eq",
    "or",       "or_eq",         "protected",   "reinterpret_cast",
    "requires", "static_assert", "static_cast", "thread_local",
    "typeid",   "wchar_t",       "xor",         "xor_eq",
    "import",   "module",        "NULL",        "main"};

// CUDA's own type names (the vector types char1 ... double4, dim3, half, bfloat16): a constant or
// tile named float2 would be a declaration of that type's name in the generated kernel, which
// does not compile.
bool is_cuda_type_name(std::string_view name) {
  for (std::string_view t : {"dim3", "half", "half2", "nv_bfloat16", "nv_bfloat162", "cudaStream_t",
                             "cudaError_t", "uint", "ushort", "ulong", "uchar"})
    if (name == t) return true;
  if (name.size() < 2 || name.back() < '1' || name.back() > '4') return false;
  const std::string_view base = name.substr(0, name.size() - 1);
  for (std::string_view b : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                             "longlong", "ulonglong", "float", "double"})
    if (base == b) return true;
  return false;
}

bool is_valid_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  if (is_cuda_type_name(name)) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  if (is_keyword(name) || is_int_type_word(name) || is_float_type_word(name)) return false;
  if (std::find(std::begin(kOtherReservedWords), std::end(kOtherReservedWords), name) !=
      std::end(kOtherReservedWords))
    return false;
  // Reserved to the implementation in C and C++: a double underscore anywhere, or an underscore
  // and a capital first (__LINE__, __syncthreads, __CUDA_ARCH__, _Pragma).
  if (name.find("__") != std::string_view::npos ||
      (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
    return false;
  if (find_builtin(name) || find_func(name)) return false;
  return true;
}

std::string non_ascii_hint(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  if (i == text.size()) return {};
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  char code[24];
  std::snprintf(code, sizeof code, "byte 0x%02X", byte(i));
  const unsigned char b0 = byte(i);
  const size_t n = b0 >= 0xF0 && b0 < 0xF5 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
  uint32_t cp = n == 4 ? b0 & 0x07u : n == 3 ? b0 & 0x0Fu : b0 & 0x1Fu;
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= text.size() || (byte(i + k) & 0xC0) != 0x80) return code;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (n == 0 || (n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return code;
  std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cp));
  static const std::pair<uint32_t, const char*> kLookalikes[] = {
      {0x2212, "a minus sign): write '-'"},
      {0x2013, "an en dash): write '-'"},
      {0x2014, "an em dash): write '-'"},
      {0x2010, "a hyphen): write '-'"},
      {0x00D7, "a multiplication sign): write 'x' between extents, '*' to multiply"},
      {0x00F7, "a division sign): write '/'"},
      {0x2215, "a division slash): write '/'"},
      {0x2026, "an ellipsis): write '..' for a range"},
      {0x2218, "a ring operator): write 'o' to compose"},
      {0x00A0, "a no-break space): write a space"},
      {0x2009, "a thin space): write a space"},
      {0x202F, "a no-break space): write a space"},
      {0x200B, "a zero-width space): delete it"},
      {0xFEFF, "a byte-order mark): delete it"},
      {0x2264, "less than or equal to): write '<='"},
      {0x2265, "greater than or equal to): write '>='"},
      {0x2260, "not equal to): write '!='"},
      {0x226A, "much less than): write '<<'"},
      {0x226B, "much greater than): write '>>'"},
      {0x2018, "a quotation mark): write none"},
      {0x2019, "a quotation mark): write none"},
      {0x201C, "a quotation mark): write none"},
      {0x201D, "a quotation mark): write none"}};
  for (const auto& [point, what] : kLookalikes)
    if (cp == point) return std::string(code) + " (" + what;
  if (cp >= 0xFF01 && cp <= 0xFF5E) {  // the full-width forms of ASCII's printable characters
    const char ascii = static_cast<char>(cp - 0xFEE0);
    return std::string(code) + " (a full-width '" + ascii + "'): write '" + ascii + "'";
  }
  return std::string(code) + " (not ASCII): bankviz reads ASCII here";
}

}  // namespace bankviz
