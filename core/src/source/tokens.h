// tokens.h: the tokens of a user's CUDA source and its preprocessor (from_source.h's first stage).
// The lexer (comments, strings, `\` continuations; no regular expressions, so linear in the
// text's length), the macro table, macro expansion as the preprocessor does it, and the
// conditional groups. Internal to core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace bankviz::cuda_source {

struct Tok {
  enum Kind : uint8_t { Ident, Number, Punct, Literal };
  Kind kind = Punct;
  std::string text;
  uint32_t line = 0;
  bool space_before = false;  // whitespace (or a comment) before it
};

struct Macro {
  bool function = false;
  std::vector<std::string> params;
  std::vector<Tok> body;
};

// Thrown for what makes the whole file unreadable (nesting too deep, expansion too large).
struct SourceError {
  std::string why;
};

inline bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The tokens t[b, e) as text, one space between them.
std::string join(const std::vector<Tok>& t, size_t b, size_t e);

// The macro table over the text: a name's definitions in order with the token index they start
// at (nullopt: #undef), so that a use sees the definition before it.
class Macros {
 public:
  void define(const std::string& name, size_t at, std::optional<Macro> m) {
    defs_[name].push_back({at, std::move(m)});
  }
  const Macro* find(const std::string& name, size_t at) const {
    auto it = defs_.find(name);
    if (it == defs_.end()) return nullptr;
    const Macro* m = nullptr;
    for (const auto& [pos, def] : it->second) {
      if (pos > at) break;
      m = def ? &*def : nullptr;
    }
    return m;
  }
  // A macro whose whole body is one unsuffixed decimal literal (`#define BDIMX 32`) stays a name
  // in the scenario: a constant of the literal's type (Constant::type() gives the same).
  static std::optional<int64_t> plain_constant(const Macro& m) {
    if (m.function || m.body.size() != 1 || m.body[0].kind != Tok::Number) return std::nullopt;
    const std::string& t = m.body[0].text;
    if (t.size() > 18 || (t.size() > 1 && t[0] == '0')) return std::nullopt;
    int64_t v = 0;
    for (char c : t) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  }

 private:
  std::map<std::string, std::vector<std::pair<size_t, std::optional<Macro>>>> defs_;
};

inline constexpr int kMaxMacroDepth = 64;
inline constexpr size_t kMaxExpandedTokens = size_t{1} << 20;
inline constexpr int kMaxNesting = 256;

// Expands macros in t[b, e) as the preprocessor does (arguments substituted, then the result
// rescanned with the macro itself not expanded again). Names of plain constants stay.
class Expander {
 public:
  Expander(const Macros& m, std::map<std::string, int64_t>* constants)
      : macros_(m), constants_(constants) {}

  // t[b, e) expanded; at: the position of t[b] in the text (the definitions in force there).
  std::vector<Tok> expand(const std::vector<Tok>& t, size_t b, size_t e, size_t at);

 private:
  void run(const std::vector<Tok>& t, size_t b, size_t e, size_t at, std::set<std::string>& active,
           int depth, std::vector<Tok>& out);
  void push(std::vector<Tok>& out, const Tok& t);
  const Macros& macros_;
  std::map<std::string, int64_t>* constants_;
  size_t count_ = 0;
};

// The text's tokens with its directives applied: #define / #undef recorded in `macros`, the
// tokens of #if/#ifdef/#ifndef groups not taken dropped. An #if that cannot be evaluated makes
// `*uncertain` say so (the lines after it cannot be trusted).
std::vector<Tok> preprocess(std::string_view src, Macros& macros, std::string* uncertain);

}  // namespace bankviz::cuda_source
