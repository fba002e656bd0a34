// kernel.cpp: brackets and functions of a preprocessed source (kernel.h).
#include "source/kernel.h"

#include <algorithm>

namespace bankviz::cuda_source {

// The matching bracket of every bracket in t, or a SourceError.
std::vector<size_t> match_brackets(const std::vector<Tok>& t) {
  std::vector<size_t> match(t.size(), 0), open;
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k].kind != Tok::Punct) continue;
    const std::string& x = t[k].text;
    if (x == "(" || x == "[" || x == "{") {
      open.push_back(k);
      if (open.size() > static_cast<size_t>(kMaxNesting))
        throw SourceError{"line " + std::to_string(t[k].line) + " nests brackets more than " +
                          std::to_string(kMaxNesting) + " deep"};
    } else if (x == ")" || x == "]" || x == "}") {
      const char want = x == ")" ? '(' : x == "]" ? '[' : '{';
      if (open.empty() || t[open.back()].text[0] != want)
        throw SourceError{"line " + std::to_string(t[k].line) + ": unbalanced '" + x + "'"};
      match[open.back()] = k;
      match[k] = open.back();
      open.pop_back();
    }
  }
  if (!open.empty())
    throw SourceError{"line " + std::to_string(t[open.back()].line) + ": '" + t[open.back()].text +
                      "' is not closed"};
  return match;
}

std::vector<Function> functions(const std::vector<Tok>& t, const std::vector<size_t>& match) {
  std::vector<Function> out;
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k].text != "__global__" && t[k].text != "__device__") continue;
    Function f;
    f.global = t[k].text == "__global__";
    size_t q = k + 1;
    for (; q < t.size() && t[q].text != ";" && t[q].text != "{" && t[q].text != "="; ++q) {
      if (t[q].text != "(") continue;
      if (q > 0 && (t[q - 1].text == "__launch_bounds__" || t[q - 1].text == "__align__" ||
                    t[q - 1].text == "alignas")) {
        q = match[q];
        continue;
      }
      f.name = t[q - 1].text;
      // Parameters, split at top-level commas: the last name is the parameter's, the words
      // before it its type.
      std::vector<std::string> words;
      Param cur;
      auto done = [&] {
        if (!words.empty()) {
          cur.name = words.back();
          words.pop_back();
          for (const std::string& w : words)
            if (w != "const" && w != "volatile" && w != "__restrict__" && w != "__restrict")
              cur.type += (cur.type.empty() ? "" : " ") + w;
          f.params.push_back(cur);
        }
        words.clear();
        cur = Param{};
      };
      for (size_t p = q + 1; p < match[q]; ++p) {
        if (t[p].text == "(" || t[p].text == "[") {
          cur.pointer = true;
          p = match[p];
          continue;
        }
        if (t[p].text == "*" || t[p].text == "&" || t[p].text == "<") cur.pointer = true;
        if (t[p].kind == Tok::Ident) words.push_back(t[p].text);
        if (t[p].text == ",") done();
      }
      done();
      q = match[q] + 1;
      while (q < t.size() && t[q].text != "{" && t[q].text != ";") ++q;
      break;
    }
    if (q < t.size() && t[q].text == "{" && !f.name.empty()) {
      f.body_b = q + 1;
      f.body_e = match[q];
      f.first = t[q].line;
      f.last = t[match[q]].line;
      out.push_back(f);
      k = match[q];
    }
  }
  return out;
}
Prepared prepare(std::string_view source) {
  Prepared p;
  p.lines = static_cast<uint32_t>(std::count(source.begin(), source.end(), '\n')) +
            (source.empty() || source.back() == '\n' ? 0 : 1);
  p.raw = preprocess(source, p.macros, &p.uncertain);
  p.match = match_brackets(p.raw);
  p.fns = functions(p.raw, p.match);
  return p;
}
}  // namespace bankviz::cuda_source
