// from_source.cpp: a line of a user's CUDA source as a scenario (from_source.h).
#include "bankviz/from_source.h"

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/tile.h"

namespace bankviz {

namespace {

// Lines longer than this are not matched against the declaration patterns (std::regex
// backtracks; a kernel's declarations are short): such a line is left out, never a hang.
constexpr size_t kMaxMatchedLine = 1024;

// The source's lines, comments removed (// to the end of the line; /* */ within one line).
std::vector<std::string> code_lines(std::string_view source) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= source.size()) {
    size_t nl = source.find('\n', start);
    if (nl == std::string_view::npos) nl = source.size();
    std::string l(source.substr(start, nl - start));
    for (size_t a; (a = l.find("/*")) != std::string::npos;) {
      const size_t b = l.find("*/", a + 2);
      l.erase(a, b == std::string::npos ? std::string::npos : b + 2 - a);
    }
    if (size_t c = l.find("//"); c != std::string::npos) l.erase(c);
    out.push_back(std::move(l));
    start = nl + 1;
  }
  return out;
}

// A constant integer expression of numbers, #define'd names, + - * / and parentheses.
struct ConstEval {
  const std::map<std::string, int64_t>& defs;
  std::string_view t;
  size_t i = 0;
  bool ok = true;
  void skip() {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  }
  int64_t primary() {
    skip();
    if (i < t.size() && t[i] == '(') {
      ++i;
      const int64_t v = sum();
      skip();
      if (i < t.size() && t[i] == ')')
        ++i;
      else
        ok = false;
      return v;
    }
    if (i < t.size() && t[i] == '-') {
      ++i;
      return -primary();
    }
    const size_t b = i;
    while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
    const std::string w(t.substr(b, i - b));
    if (w.empty()) {
      ok = false;
      return 0;
    }
    if (std::isdigit(static_cast<unsigned char>(w[0]))) {
      int64_t v = 0;
      for (char c : w) {
        if (!std::isdigit(static_cast<unsigned char>(c)) || v > (int64_t{1} << 40)) {
          ok = false;
          return 0;
        }
        v = v * 10 + (c - '0');
      }
      return v;
    }
    auto it = defs.find(w);
    if (it == defs.end()) ok = false;
    return it == defs.end() ? 0 : it->second;
  }
  int64_t product() {
    int64_t v = primary();
    for (skip(); ok && i < t.size() && (t[i] == '*' || t[i] == '/'); skip()) {
      const char o = t[i++];
      const int64_t r = primary();
      if (o == '/' && r == 0) ok = false;
      if (!ok || std::abs(v) > (int64_t{1} << 30) || std::abs(r) > (int64_t{1} << 30)) {
        ok = false;
        return 0;
      }
      v = o == '*' ? v * r : v / r;
    }
    return v;
  }
  int64_t sum() {
    int64_t v = product();
    for (skip(); ok && i < t.size() && (t[i] == '+' || t[i] == '-'); skip()) {
      const char o = t[i++];
      const int64_t r = product();
      v = o == '+' ? v + r : v - r;
    }
    return v;
  }
};

std::optional<int64_t> const_value(std::string_view text,
                                   const std::map<std::string, int64_t>& defs) {
  ConstEval e{defs, text};
  const int64_t v = e.sum();
  e.skip();
  if (!e.ok || e.i != text.size()) return std::nullopt;
  return v;
}

std::set<std::string> identifiers(std::string_view t) {
  std::set<std::string> out;
  for (size_t i = 0; i < t.size();) {
    if (std::isalpha(static_cast<unsigned char>(t[i])) || t[i] == '_') {
      const size_t b = i;
      while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
      out.insert(std::string(t.substr(b, i - b)));
    } else {
      ++i;
    }
  }
  return out;
}

// The subscripts after position `p` (at '['): "[a][b]", balanced; npos-terminated on error.
std::string subscripts_at(const std::string& l, size_t p, size_t* end) {
  std::string out;
  while (p < l.size() && l[p] == '[') {
    int depth = 0;
    size_t q = p;
    for (; q < l.size(); ++q) {
      if (l[q] == '[') ++depth;
      if (l[q] == ']' && --depth == 0) break;
    }
    if (q >= l.size()) return {};
    out += l.substr(p, q + 1 - p);
    p = q + 1;
    while (p < l.size() && l[p] == ' ') ++p;
  }
  *end = p;
  return out;
}

}  // namespace

SourceScenario scenario_from_source_line(std::string_view source, uint32_t line,
                                         std::string_view op, const int64_t block[3],
                                         const std::string& file_name) {
  SourceScenario out;
  const std::vector<std::string> lines = code_lines(source);
  if (line < 1 || line > lines.size()) {
    out.why = "no line " + std::to_string(line) + " in " + file_name;
    return out;
  }
  // #define NAME INTEGER-EXPRESSION (in order: later ones may use earlier ones).
  std::map<std::string, int64_t> defs;
  static const std::regex define_re(R"(^\s*#\s*define\s+([A-Za-z_]\w*)\s+(.+?)\s*$)");
  std::smatch m;
  for (const std::string& l : lines)
    if (l.size() <= kMaxMatchedLine && l.find('#') != std::string::npos &&
        std::regex_match(l, m, define_re))
      if (auto v = const_value(m[2].str(), defs); v && std::abs(*v) < (int64_t{1} << 31))
        defs[m[1].str()] = *v;

  // The arrays declared __shared__ before the line.
  struct Array {
    TileDecl decl;
    bool guessed = false;
  };
  std::map<std::string, Array> arrays;
  static const std::regex shared_re(
      R"((extern\s+)?__shared__\s+([A-Za-z_][\w ]*?)\s+([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)+);)");
  for (uint32_t k = 0; k < line; ++k) {
    const std::string& l = lines[k];
    if (l.size() > kMaxMatchedLine || l.find("__shared__") == std::string::npos) continue;
    for (auto it = std::sregex_iterator(l.begin(), l.end(), shared_re);
         it != std::sregex_iterator(); ++it) {
      const std::smatch& d = *it;
      std::string type = std::regex_replace(d[2].str(), std::regex(R"(\s+)"), " ");
      if (!find_elem_type(type)) continue;
      Array a;
      a.decl.name = d[3].str();
      a.decl.elem = type;
      std::vector<std::string> ext;
      const std::string b = d[4].str();
      for (size_t p = 0; (p = b.find('[', p)) != std::string::npos; ++p)
        ext.push_back(b.substr(p + 1, b.find(']', p) - p - 1));
      if (d[1].matched) {
        if (ext.size() != 1) continue;
        a.decl.dynamic = true;
        a.decl.dims = {block[0] * block[1] * block[2]};
        a.guessed = true;
      } else {
        a.decl.dims.clear();
        bool ok = true;
        for (size_t e = 0; e < ext.size(); ++e) {
          std::string text = ext[e];
          // The last extent as `A + B` with B a constant: A elements and B of padding.
          if (e + 1 == ext.size())
            if (size_t plus = text.rfind('+'); plus != std::string::npos)
              if (auto pad = const_value(text.substr(plus + 1), defs))
                if (auto main = const_value(text.substr(0, plus), defs); main && *pad > 0) {
                  a.decl.dims.push_back(*main);
                  a.decl.pad = *pad;
                  continue;
                }
          auto v = const_value(text, defs);
          if (!v || *v < 1)
            ok = false;
          else
            a.decl.dims.push_back(*v);
        }
        if (!ok || a.decl.dims.empty() || a.decl.dims.size() > 3) continue;
      }
      arrays[a.decl.name] = a;
    }
  }
  if (arrays.empty()) {
    out.why =
        "no __shared__ array with constant extents is declared before line " + std::to_string(line);
    return out;
  }

  // The access on the line: the first of the wanted op, else the first.
  const std::string& l = lines[line - 1];
  if (l.size() > kMaxMatchedLine) {
    out.why = "line " + std::to_string(line) + " is longer than " +
              std::to_string(kMaxMatchedLine) + " characters";
    return out;
  }
  struct Access {
    std::string array, subs;
    StepKind kind;
  };
  std::vector<Access> found;
  for (const auto& [name, a] : arrays) {
    for (size_t p = 0; (p = l.find(name, p)) != std::string::npos; p += name.size()) {
      const bool word_start = p == 0 || !(std::isalnum(static_cast<unsigned char>(l[p - 1])) ||
                                          l[p - 1] == '_' || l[p - 1] == '.');
      size_t q = p + name.size();
      while (q < l.size() && l[q] == ' ') ++q;
      if (!word_start || q >= l.size() || l[q] != '[') continue;
      size_t end = 0;
      const std::string subs = subscripts_at(l, q, &end);
      if (subs.empty()) continue;
      StepKind kind = StepKind::Load;
      const std::string before = l.substr(0, p);
      if (std::regex_search(before, std::regex(R"(atomic\w*\s*\(\s*&\s*\(?\s*$)")))
        kind = StepKind::Atomic;
      else if (end < l.size() && l[end] == '=' && (end + 1 >= l.size() || l[end + 1] != '='))
        kind = StepKind::Store;
      found.push_back({name, subs, kind});
    }
  }
  if (found.empty()) {
    out.why = "line " + std::to_string(line) +
              " does not index a __shared__ array declared "
              "with constant extents";
    return out;
  }
  const StepKind want = op == "st"     ? StepKind::Store
                        : op == "atom" ? StepKind::Atomic
                                       : StepKind::Load;
  const Access* pick = &found.front();
  for (const Access& a : found)
    if (a.kind == want) {
      pick = &a;
      break;
    }

  // Integer locals declared before the line in its function, as lets (those the access needs).
  uint32_t fn = line - 1;
  while (fn > 0 && lines[fn].find("__global__") == std::string::npos &&
         lines[fn].find("__device__") == std::string::npos)
    --fn;
  static const std::regex let_re(
      R"(^\s*(?:const\s+)?(unsigned\s+int|unsigned|int|long\s+long|unsigned\s+long\s+long|size_t)\s+([A-Za-z_]\w*)\s*=\s*([^;]+);\s*$)");
  std::vector<Let> lets;
  for (uint32_t k = fn; k + 1 < line; ++k)
    if (lines[k].size() <= kMaxMatchedLine && std::regex_match(lines[k], m, let_re)) {
      std::string type = std::regex_replace(m[1].str(), std::regex(R"(\s+)"), " ");
      if (type == "unsigned") type = "unsigned int";
      if (type == "size_t") type = "unsigned long long";
      lets.push_back(Let(m[2].str(), m[3].str(), type));
    }
  std::set<std::string> need = identifiers(pick->subs);
  std::vector<Let> used;
  for (auto it = lets.rbegin(); it != lets.rend(); ++it)  // a let needs the lets before it
    if (need.count(it->name)) {
      const std::set<std::string> more = identifiers(it->expr);
      need.insert(more.begin(), more.end());
      used.insert(used.begin(), *it);
    }

  Scenario s;
  s.name = "line-" + std::to_string(line);
  std::string text = lines[line - 1];
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(0, 1);
  s.title = file_name + " line " + std::to_string(line) + ": " + text.substr(0, 120);
  s.description = "Made from line " + std::to_string(line) + " of " + file_name +
                  ": its __shared__ declaration, the #defines and the integer locals before it, "
                  "and the block as launched.";
  if (arrays.at(pick->array).guessed)
    s.description +=
        " The extern __shared__ array is taken as one element per thread of the "
        "block (its size is the launch's).";
  s.tiles = {arrays.at(pick->array).decl};
  for (int d = 0; d < 3; ++d) s.block[d] = block[d];
  for (const auto& [name, value] : defs)
    if (need.count(name)) s.constants.push_back({name, value});
  s.lets = used;
  Step st;
  st.kind = pick->kind;
  st.tile = pick->array;
  st.index = pick->array + pick->subs;
  s.steps = {st};
  if (std::vector<Diagnostic> d = check(s); !d.empty()) {
    out.why = "line " + std::to_string(line) + " as a scenario: " + d.front().format();
    return out;
  }
  AnalysisResult a = analyze(s);
  if (!a.analysis) {
    out.why = "line " + std::to_string(line) + " as a scenario does not analyze" +
              (a.errors.empty() ? std::string() : ": " + a.errors.front().format());
    return out;
  }
  out.scenario = std::move(s);
  return out;
}

}  // namespace bankviz
