// expr.cpp: the index-expression language of expr.h: lexer, recursive-descent parser, evaluator.
//
// [SECTION] AST
// [SECTION] Vocabulary (builtins, functions, type words, keywords)
// [SECTION] Lexer
// [SECTION] Parser
// [SECTION] Evaluator
// [SECTION] Expr value type
// [SECTION] Public entry points
//
// Every user input either parses or yields an ExprError with a 1-based column and a message
// saying what was expected. Nesting is limited (kMaxDepth) so no input can exhaust the stack;
// binary operators of one precedence level are kept as a flat chain, so "a+b+c+..." of any length
// does not deepen the tree either.

#include "bankviz/expr.h"

#include <algorithm>
#include <array>
#include <cctype>
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

struct Expr::Node {
  enum class Kind { Int, Builtin, Name, Call, Unary, Chain, Cond };
  Kind kind = Kind::Int;
  int column = 1;                        // the token this node stands for (operator, name, literal)
  int64_t value = 0;                     // Int
  Builtin builtin = Builtin::ThreadIdx;  // Builtin
  int axis = 0;                          // Builtin: 0=x 1=y 2=z
  std::string name;                      // Name, Call
  Func func = Func::Min;                 // Call
  OpKind op = OpKind::Neg;               // Unary
  std::vector<std::shared_ptr<const Node>> kids;  // Unary 1, Call args, Chain operands, Cond 3
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
std::string unknown_name_message(std::string_view name, const Env& env) {
  std::string msg = "unknown name '" + std::string(name) + "'";
  std::string best;
  if (auto a = alias_for(name); !a.empty()) {
    best = std::string(a);
  } else {
    size_t best_d = std::max<size_t>(1, std::min<size_t>(2, name.size() / 2)) + 1;
    for (const auto& [known, value] : env.names) {
      size_t d = edit_distance(lower(name), lower(known));
      if (d < best_d) best_d = d, best = known;
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
  int64_t value = 0;      // Int
  std::string error;      // Error: what is wrong here
};

std::string quote_char(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (std::isprint(u)) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
  return buf;
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
        if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - dv) / radix)
          too_big = true;
        else
          v = v * radix + dv;
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
      if (too_big) {
        fail(start, "integer literal '" + std::string(s.substr(start, i - start)) +
                        "' is too large (the limit is 9223372036854775807)");
        return out;
      }
      Token t;
      t.kind = Tok::Int;
      t.text = s.substr(start, i - start);
      t.column = col(start);
      t.value = static_cast<int64_t>(v);
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
    if (std::find(kTwo.begin(), kTwo.end(), two) != kTwo.end()) {
      out.push_back(Token{Tok::Punct, two, col(start), 0, {}});
      i += 2;
      continue;
    }
    static constexpr std::string_view kOne = "()[],.?:+-*/%<>&|^!~";
    if (kOne.find(c) != std::string_view::npos) {
      out.push_back(Token{Tok::Punct, s.substr(i, 1), col(start), 0, {}});
      i += 1;
      continue;
    }
    if (c == '=') {
      fail(i, "unexpected '=': an index expression cannot assign (did you mean '=='?)");
    } else if (c == ';') {
      fail(i, "unexpected ';': write the expression without a semicolon");
    } else if (c == '\'' || c == '"') {
      fail(i, "unexpected " + quote_char(c) + ": character and string literals are not supported");
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
      while (peek().kind == Tok::Name &&
             (is_int_type_word(peek().text) || is_float_type_word(peek().text))) {
        const Token& w = take();
        if (is_float_type_word(w.text))
          fail(w.column, "cast to '" + std::string(w.text) +
                             "' is not supported: index expressions are integers");
        if (!type.empty()) type += ' ';
        type += w.text;
      }
      if (!at(")"))
        fail_here("expected ')' after type '" + type + "' in the cast at column " +
                  std::to_string(open));
      take();
      return parse_unary();  // casts are accepted and ignored: all arithmetic is int64
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

[[noreturn]] void overflow(OpKind op, int column) {
  eval_fail(column, std::string("result of '") + op_spelling(op) + "' overflows 64-bit integers");
}

// A fixed 32-bit integer mix (Chris Wellons' lowbias32): data-dependent but reproducible indices,
// e.g. a histogram's bins. hash(0) == 0; the result is in [0, 2^32).
int64_t hash32(int64_t v) {
  uint32_t x = static_cast<uint32_t>(v);
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return static_cast<int64_t>(x);
}

int64_t binary(OpKind op, int64_t a, int64_t b, int column) {
  int64_t r = 0;
  switch (op) {
    case OpKind::Add:
      if (__builtin_add_overflow(a, b, &r)) overflow(op, column);
      return r;
    case OpKind::Sub:
      if (__builtin_sub_overflow(a, b, &r)) overflow(op, column);
      return r;
    case OpKind::Mul:
      if (__builtin_mul_overflow(a, b, &r)) overflow(op, column);
      return r;
    case OpKind::Div:  // C: truncation toward zero
      if (b == 0) eval_fail(column, "division by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1) overflow(op, column);
      return a / b;
    case OpKind::Mod:  // C: the sign follows the dividend
      if (b == 0) eval_fail(column, "modulo by zero");
      if (b == -1) return 0;
      return a % b;
    case OpKind::Shl:
    case OpKind::Shr:
      if (b < 0 || b > 63)
        eval_fail(column, "shift count " + std::to_string(b) + " is out of range (0 to 63)");
      if (op == OpKind::Shl) return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
      return a >> b;  // arithmetic shift for negatives, as nvcc does for signed int
    case OpKind::Lt:
      return a < b;
    case OpKind::Le:
      return a <= b;
    case OpKind::Gt:
      return a > b;
    case OpKind::Ge:
      return a >= b;
    case OpKind::Eq:
      return a == b;
    case OpKind::Ne:
      return a != b;
    case OpKind::BitAnd:
      return a & b;
    case OpKind::BitXor:
      return a ^ b;
    case OpKind::BitOr:
      return a | b;
    default:
      break;
  }
  eval_fail(column, "internal error: not a binary operator");
}

int64_t eval_node(const Expr::Node& n, const Env& env) {
  using Kind = Expr::Node::Kind;
  switch (n.kind) {
    case Kind::Int:
      return n.value;
    case Kind::Builtin:
      switch (n.builtin) {
        case Builtin::ThreadIdx:
          return env.threadIdx[n.axis];
        case Builtin::BlockDim:
          return env.blockDim[n.axis];
        case Builtin::BlockIdx:
          return env.blockIdx[n.axis];
        case Builtin::GridDim:
          return env.gridDim[n.axis];
        case Builtin::WarpSize:
          return 32;
      }
      break;
    case Kind::Name: {
      auto it = env.names.find(n.name);
      if (it == env.names.end()) eval_fail(n.column, unknown_name_message(n.name, env));
      return it->second;
    }
    case Kind::Call: {
      const int64_t a = eval_node(*n.kids[0], env);
      switch (n.func) {
        case Func::Min:
          return std::min(a, eval_node(*n.kids[1], env));
        case Func::Max:
          return std::max(a, eval_node(*n.kids[1], env));
        case Func::Abs:
          if (a == std::numeric_limits<int64_t>::min())
            eval_fail(n.column, "result of 'abs' overflows 64-bit integers");
          return a < 0 ? -a : a;
        case Func::Hash:
          return hash32(a);
      }
      break;
    }
    case Kind::Unary: {
      const int64_t a = eval_node(*n.kids[0], env);
      switch (n.op) {
        case OpKind::Neg:
          if (a == std::numeric_limits<int64_t>::min()) overflow(n.op, n.column);
          return -a;
        case OpKind::Plus:
          return a;
        case OpKind::Not:
          return !a;
        case OpKind::BitNot:
          return ~a;
        default:
          break;
      }
      break;
    }
    case Kind::Chain: {
      int64_t acc = eval_node(*n.kids[0], env);
      for (size_t i = 0; i < n.ops.size(); ++i) {
        const auto [op, column] = n.ops[i];
        if (op == OpKind::LogAnd || op == OpKind::LogOr) {
          // Short-circuit as C does: "x != 0 && 64 / x" must not divide by zero.
          if (op == OpKind::LogAnd && !acc) return 0;
          if (op == OpKind::LogOr && acc) return 1;
          acc = eval_node(*n.kids[i + 1], env) != 0;
          continue;
        }
        acc = binary(op, acc, eval_node(*n.kids[i + 1], env), column);
      }
      return acc;
    }
    case Kind::Cond:
      return eval_node(*n.kids[0], env) ? eval_node(*n.kids[1], env) : eval_node(*n.kids[2], env);
  }
  eval_fail(n.column, "internal error: unknown expression node");
}

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

}  // namespace

// [SECTION] Expr value type ======================================================================

Expr::Expr() = default;
Expr::~Expr() = default;
Expr::Expr(const Expr&) = default;
Expr& Expr::operator=(const Expr&) = default;
Expr::Expr(Expr&&) noexcept = default;
Expr& Expr::operator=(Expr&&) noexcept = default;

std::optional<int64_t> Expr::eval(const Env& env, ExprError* error) const {
  if (!root_) {
    if (error) *error = ExprError{1, "expected an expression, found an empty one"};
    return std::nullopt;
  }
  try {
    return eval_node(*root_, env);
  } catch (const EvalFail& f) {
    if (error) *error = f.error;
    return std::nullopt;
  }
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

bool is_valid_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  if (is_keyword(name) || is_int_type_word(name) || is_float_type_word(name)) return false;
  if (find_builtin(name) || find_func(name)) return false;
  return true;
}

}  // namespace bankviz
