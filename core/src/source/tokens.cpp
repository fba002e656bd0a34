// tokens.cpp: the lexer, macro expansion and the conditional groups (tokens.h).
#include "source/tokens.h"

#include <algorithm>
#include <cctype>

#include "bankviz/expr.h"

namespace bankviz::cuda_source {

namespace {

// The lexer: tokens of the text (comments and `\` newlines removed), directives kept apart.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  // Tokens up to the end of the logical line (for a directive) or of the text.
  // `directive`: stop at a newline that is not escaped.
  std::vector<Tok> run(bool directive, size_t* pos, uint32_t* line) {
    std::vector<Tok> out;
    size_t i = *pos;
    uint32_t ln = *line;
    bool line_start = !directive;
    bool space = false;
    while (i < s_.size()) {
      const char c = s_[i];
      if (c == '\\' && i + 1 < s_.size() && s_[i + 1] == '\n') {
        i += 2;
        ++ln;
        space = true;
        continue;
      }
      if (c == '\n') {
        if (directive) break;
        ++i;
        ++ln;
        line_start = space = true;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        space = true;
        continue;
      }
      if ((c == '/' && i + 1 < s_.size() && (s_[i + 1] == '/' || s_[i + 1] == '*'))) space = true;
      if (c == '/' && i + 1 < s_.size() && s_[i + 1] == '/') {
        while (i < s_.size() && s_[i] != '\n') {
          if (s_[i] == '\\' && i + 1 < s_.size() && s_[i + 1] == '\n') ++ln, ++i;
          ++i;
        }
        continue;
      }
      if (c == '/' && i + 1 < s_.size() && s_[i + 1] == '*') {
        i += 2;
        while (i < s_.size() && !(s_[i] == '*' && i + 1 < s_.size() && s_[i + 1] == '/')) {
          if (s_[i] == '\n') ++ln;
          ++i;
        }
        i = std::min(s_.size(), i + 2);
        continue;
      }
      if (c == '#' && line_start) {
        // A directive: its tokens to the end of the logical line.
        size_t p = i + 1;
        uint32_t l2 = ln;
        std::vector<Tok> d = run(true, &p, &l2);
        if (!d.empty()) d.front().line = ln;
        directives.push_back({out.size(), std::move(d), ln});
        i = p;
        ln = l2;
        continue;
      }
      line_start = false;
      Tok t;
      t.line = ln;
      t.space_before = space;
      space = false;
      const size_t b = i;
      if (ident_start(c)) {
        while (i < s_.size() && ident_char(s_[i])) ++i;
        t.kind = Tok::Ident;
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && i + 1 < s_.size() &&
                  std::isdigit(static_cast<unsigned char>(s_[i + 1])))) {
        while (i < s_.size() &&
               (ident_char(s_[i]) || s_[i] == '.' ||
                ((s_[i] == '+' || s_[i] == '-') &&
                 (s_[i - 1] == 'e' || s_[i - 1] == 'E' || s_[i - 1] == 'p' || s_[i - 1] == 'P'))))
          ++i;
        t.kind = Tok::Number;
      } else if (c == '"' || c == '\'') {
        ++i;
        while (i < s_.size() && s_[i] != c && s_[i] != '\n') i += s_[i] == '\\' ? 2 : 1;
        i = std::min(s_.size(), i + 1);
        t.kind = Tok::Literal;
      } else {
        static const char* const kLong[] = {
            "<<=", ">>=", "...", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
            "--",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "->", "::", "##"};
        size_t n = 1;
        for (const char* p : kLong) {
          const std::string_view v(p);
          if (s_.substr(i, v.size()) == v) {
            n = v.size();
            break;
          }
        }
        i += n;
        t.kind = Tok::Punct;
      }
      t.text = std::string(s_.substr(b, i - b));
      out.push_back(std::move(t));
    }
    *pos = i;
    *line = ln;
    return out;
  }

  struct Directive {
    size_t at;  // index of the next token of the text
    std::vector<Tok> toks;
    uint32_t line;
  };
  std::vector<Directive> directives;

 private:
  std::string_view s_;
};

}  // namespace

std::string join(const std::vector<Tok>& t, size_t b, size_t e) {
  std::string out;
  for (size_t k = b; k < e && k < t.size(); ++k) {
    if (!out.empty()) out += ' ';
    out += t[k].text;
  }
  return out;
}

std::vector<Tok> Expander::expand(const std::vector<Tok>& t, size_t b, size_t e, size_t at) {
  std::vector<Tok> out;
  std::set<std::string> active;
  run(t, b, e, at, active, 0, out);
  return out;
}

void Expander::run(const std::vector<Tok>& t, size_t b, size_t e, size_t at,
                   std::set<std::string>& active, int depth, std::vector<Tok>& out) {
  if (depth > kMaxMacroDepth) throw SourceError{"macros nest more than 64 deep"};
  for (size_t k = b; k < e; ++k) {
    const Tok& tok = t[k];
    const size_t pos = depth == 0 ? at + (k - b) : at;
    const Macro* m =
        tok.kind == Tok::Ident && !active.count(tok.text) ? macros_.find(tok.text, pos) : nullptr;
    if (m == nullptr) {
      push(out, tok);
      continue;
    }
    if (auto v = Macros::plain_constant(*m)) {
      (*constants_)[tok.text] = *v;
      push(out, tok);
      continue;
    }
    std::vector<Tok> body;
    if (!m->function) {
      body = m->body;
    } else {
      if (k + 1 >= e || t[k + 1].text != "(") {  // a function-like macro's name alone
        push(out, tok);
        continue;
      }
      // The arguments, split at top-level commas.
      std::vector<std::vector<Tok>> args(1);
      int d = 0;
      size_t q = k + 2;
      for (; q < e; ++q) {
        const std::string& x = t[q].text;
        if (t[q].kind == Tok::Punct && (x == "(" || x == "[" || x == "{")) ++d;
        if (t[q].kind == Tok::Punct && (x == ")" || x == "]" || x == "}")) {
          if (d == 0) break;
          --d;
        }
        if (d == 0 && x == "," && t[q].kind == Tok::Punct)
          args.emplace_back();
        else
          args.back().push_back(t[q]);
      }
      if (q >= e)
        throw SourceError{"line " + std::to_string(tok.line) + ": macro " + tok.text +
                          "( is not closed"};
      if (m->params.empty() && args.size() == 1 && args[0].empty()) args.clear();
      if (args.size() != m->params.size())
        throw SourceError{"line " + std::to_string(tok.line) + ": macro " + tok.text + " takes " +
                          std::to_string(m->params.size()) + " arguments, given " +
                          std::to_string(args.size())};
      for (const Tok& bt : m->body) {
        if (bt.text == "#" || bt.text == "##")
          throw SourceError{"macro " + tok.text +
                            " uses # or ## (stringizing, pasting), which bankviz does not "
                            "follow"};
        auto p = std::find(m->params.begin(), m->params.end(), bt.text);
        if (bt.kind == Tok::Ident && p != m->params.end()) {
          const auto& a = args[static_cast<size_t>(p - m->params.begin())];
          body.insert(body.end(), a.begin(), a.end());
        } else {
          body.push_back(bt);
        }
      }
      k = q;
    }
    for (Tok& x : body) x.line = tok.line;  // the line table names the use
    active.insert(tok.text);
    run(body, 0, body.size(), pos, active, depth + 1, out);
    active.erase(tok.text);
  }
}

void Expander::push(std::vector<Tok>& out, const Tok& t) {
  if (++count_ > kMaxExpandedTokens) throw SourceError{"macros expand to more than 1M tokens"};
  out.push_back(t);
}

// The text's tokens with its directives applied: #define / #undef recorded in `macros`, the
// tokens of #if/#ifdef/#ifndef groups not taken dropped. An #if that cannot be evaluated makes
// `*uncertain` say so (the lines after it cannot be trusted).
std::vector<Tok> preprocess(std::string_view src, Macros& macros, std::string* uncertain) {
  Lexer lx(src);
  size_t pos = 0;
  uint32_t line = 1;
  std::vector<Tok> raw = lx.run(false, &pos, &line);
  std::vector<Tok> out;
  out.reserve(raw.size());
  struct Group {
    bool taking, any_taken, parent_taking;
  };
  std::vector<Group> stack;
  auto taking = [&] { return stack.empty() || stack.back().taking; };
  size_t next = 0;
  std::map<std::string, int64_t> ignored;
  auto eval_if = [&](const std::vector<Tok>& d, uint32_t ln) -> bool {
    // defined X / defined(X) first, then the macros, then an integer expression.
    std::vector<Tok> t;
    for (size_t k = 1; k < d.size(); ++k) {
      if (d[k].text == "defined") {
        size_t n = k + 1;
        const bool paren = n < d.size() && d[n].text == "(";
        if (paren) ++n;
        Tok one;
        one.kind = Tok::Number;
        one.line = ln;
        // A character, not a one-character literal (GCC 12's false -Wrestrict at -O3).
        one.text = std::string(1, n < d.size() && macros.find(d[n].text, out.size()) ? '1' : '0');
        t.push_back(one);
        k = n + (paren ? 1 : 0);
        continue;
      }
      t.push_back(d[k]);
    }
    Expander ex(macros, &ignored);
    std::vector<Tok> x = ex.expand(t, 0, t.size(), out.size());
    std::string text;
    for (const Tok& tok : x) {
      // Names left after expansion are 0 in #if, as the preprocessor has it; a constant too.
      if (auto c = ignored.find(tok.text); c != ignored.end())
        text += ' ' + std::to_string(c->second);
      else
        text += ' ' + (tok.kind == Tok::Ident ? std::string("0") : tok.text);
    }
    ExprParse p = parse_expr(text);
    std::optional<Value> v;
    if (p.expr) v = p.expr->eval(Env{});
    if (!v) {
      if (uncertain->empty())
        *uncertain = "the #if on line " + std::to_string(ln) + " cannot be evaluated";
      return true;
    }
    return v->truthy();
  };
  for (size_t k = 0; k <= raw.size(); ++k) {
    while (next < lx.directives.size() && lx.directives[next].at == k) {
      const auto& dir = lx.directives[next++];
      const std::vector<Tok>& d = dir.toks;
      const std::string w = d.empty() ? "" : d[0].text;
      if (w == "if" || w == "ifdef" || w == "ifndef") {
        bool c = false;
        if (taking()) {
          if (w == "if")
            c = eval_if(d, dir.line);
          else
            c = (d.size() > 1 && macros.find(d[1].text, out.size())) == (w == "ifdef");
        }
        stack.push_back({taking() && c, c, taking()});
      } else if (w == "elif" || w == "else") {
        if (stack.empty()) continue;
        Group& g = stack.back();
        bool c = !g.any_taken;
        if (c && w == "elif" && g.parent_taking) c = eval_if(d, dir.line);
        g.taking = g.parent_taking && c;
        g.any_taken = g.any_taken || c;
      } else if (w == "endif") {
        if (!stack.empty()) stack.pop_back();
      } else if (!taking()) {
        continue;
      } else if (w == "define" && d.size() >= 2 && d[1].kind == Tok::Ident) {
        Macro m;
        size_t b = 2;
        // Function-like when '(' follows the name with no space between.
        if (d.size() > 2 && d[2].text == "(" && !d[2].space_before) {
          m.function = true;
          size_t q = 3;
          for (; q < d.size() && d[q].text != ")"; ++q)
            if (d[q].kind == Tok::Ident) m.params.push_back(d[q].text);
          b = q + 1;
        }
        for (size_t q = b; q < d.size(); ++q) m.body.push_back(d[q]);
        macros.define(d[1].text, out.size(), std::move(m));
      } else if (w == "undef" && d.size() >= 2) {
        macros.define(d[1].text, out.size(), std::nullopt);
      }
    }
    if (k < raw.size() && taking()) out.push_back(std::move(raw[k]));
  }
  return out;
}
}  // namespace bankviz::cuda_source
