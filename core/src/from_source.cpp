// from_source.cpp: a line of a user's CUDA source as a scenario (from_source.h). The stages live
// in source/: tokens.h (lexer and preprocessor), kernel.h (functions), follower.h (the kernel
// followed for one block); here the followed accesses become a scenario.
#include "bankviz/from_source.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/printable.h"
#include "source/follower.h"

namespace bankviz {

using namespace cuda_source;

namespace {

std::set<std::string> identifiers(std::string_view t) {
  std::set<std::string> out;
  for (size_t i = 0; i < t.size();) {
    if (ident_start(t[i]) && (i == 0 || t[i - 1] != '.')) {
      const size_t b = i;
      while (i < t.size() && ident_char(t[i])) ++i;
      out.insert(std::string(t.substr(b, i - b)));
    } else {
      ++i;
    }
  }
  return out;
}

std::string trimmed_line(std::string_view source, uint32_t line) {
  size_t b = 0;
  for (uint32_t n = 1; n < line && b != std::string_view::npos; ++n) {
    b = source.find('\n', b);
    if (b != std::string_view::npos) ++b;
  }
  if (b == std::string_view::npos || b > source.size()) return {};
  size_t e = source.find('\n', b);
  std::string l(source.substr(b, (e == std::string_view::npos ? source.size() : e) - b));
  while (!l.empty() && std::isspace(static_cast<unsigned char>(l.front()))) l.erase(0, 1);
  while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.pop_back();
  return l.substr(0, 120);
}

// The scenario of line `line` from what following its kernel found, checked and analyzable; or
// why not.
SourceScenario build_scenario(const Followed& f, std::string_view source, uint32_t line,
                              const SourceLaunch& launch, const std::string& file_name) {
  SourceScenario out;
  const std::string at = "line " + std::to_string(line);
  if (!f.refusal.empty()) {
    out.why = f.refusal;
    return out;
  }
  if (f.steps.empty()) {
    out.why = !f.names_array ? at + " does not access a __shared__ array"
                             : at + " does not execute in this launch (a condition or loop around "
                                    "it is false for every thread)";
    return out;
  }

  Scenario s;
  s.name = "line-" + std::to_string(line);
  s.title = file_name + " line " + std::to_string(line) + ": " + trimmed_line(source, line);
  for (int d = 0; d < 3; ++d) s.block[d] = launch.block[d];
  // The arrays the line uses, where the compiled kernel puts them (measured on an H200,
  // tools/truth30/dynbase*.cu): the static arrays in declaration order, each after the one before
  // (aligned to its element or __align__), whether or not this line uses them; every extern array
  // at one place after them, the static end rounded up to 16 bytes (extern arrays alias).
  s.tiles.clear();
  int64_t base = 0;
  bool dynamic = false;
  std::map<std::string, int64_t> placed;
  for (const std::string& name : f.array_order) {
    const TileDecl& d = f.arrays.at(name).decl;
    if (d.dynamic) continue;
    const int64_t al = std::max<int64_t>(d.elem_bytes(), f.arrays.at(name).align);
    base = (base + al - 1) / al * al;
    placed[name] = base;
    base += d.bytes();
  }
  const int64_t extern_base = (base + 15) / 16 * 16;
  for (const std::string& name : f.array_order) {
    if (!f.used_tiles.count(name)) continue;
    TileDecl d = f.arrays.at(name).decl;
    dynamic = dynamic || d.dynamic;
    const int64_t al = std::max<int64_t>({d.elem_bytes(), f.arrays.at(name).align, 16});
    d.base = d.dynamic ? (extern_base + al - 1) / al * al : placed.at(name);
    s.tiles.push_back(d);
  }
  s.steps = f.steps;
  // The lets the steps need (a let needs the lets before it).
  std::set<std::string> need;
  for (const Step& st : s.steps) {
    auto a = identifiers(st.index), b = identifiers(st.guard);
    need.insert(a.begin(), a.end());
    need.insert(b.begin(), b.end());
  }
  std::vector<Let> used;
  for (auto it = f.lets.rbegin(); it != f.lets.rend(); ++it)
    if (need.count(it->name)) {
      const auto more = identifiers(it->expr);
      need.insert(more.begin(), more.end());
      used.insert(used.begin(), *it);
    }
  s.lets = used;
  for (const auto& [name, value] : f.constants)
    if (need.count(name)) s.constants.push_back({name, value});
  int accesses = 0;
  for (const Step& st : s.steps) accesses += st.is_memory() ? 1 : 0;
  s.description = "Made from line " + std::to_string(line) + " of " + file_name +
                  " by following its kernel for one block of " + std::to_string(launch.block[0]) +
                  "x" + std::to_string(launch.block[1]) + "x" + std::to_string(launch.block[2]) +
                  " threads: " + std::to_string(accesses) +
                  (accesses == 1 ? " shared access" : " shared accesses") +
                  " (every time the line executes, in order), the integer locals as lets, "
                  "per-thread conditions as guards.";
  if (s.tiles.size() > 1 || dynamic)
    s.description +=
        " The arrays are placed as the compiler places them: the static ones one after another in "
        "declaration order, an extern one after them at a multiple of 16 bytes.";
  if (dynamic)
    s.description += " The extern array's size is the launch's dynamic shared memory (" +
                     std::to_string(launch.dynamic_shared) + " bytes).";
  if (std::vector<Diagnostic> d = check(s); !d.empty()) {
    out.why = at + " as a scenario: " + d.front().format();
    return out;
  }
  AnalysisResult a = analyze(s);
  if (!a.analysis) {
    out.why = at + " as a scenario does not analyze" +
              (a.errors.empty() ? std::string() : ": " + a.errors.front().format());
    return out;
  }
  out.scenario = std::move(s);
  return out;
}

}  // namespace

namespace {

SourceScenario line_scenario(std::string_view source, uint32_t line, const SourceLaunch& launch,
                             const std::string& file_name) {
  SourceScenario out;
  const std::string at = "line " + std::to_string(line);
  if (source.size() > kMaxSourceBytes) {
    out.why = file_name + " is larger than 1 MB";
    return out;
  }
  try {
    const Prepared p = prepare(source);
    if (line < 1 || line > p.lines) {
      out.why = "no line " + std::to_string(line) + " in " + file_name;
      return out;
    }
    const Function* fn = nullptr;
    for (const Function& f : p.fns)
      if (f.first <= line && line <= f.last) fn = &f;
    if (!fn) {
      out.why = at + " is not inside a __global__ function of " + file_name;
      return out;
    }
    if (!fn->global) {
      out.why = at + " is in the __device__ function " + fn->name +
                ", which bankviz does not follow on its own: open the kernel's line that calls it";
      return out;
    }
    return build_scenario(follow_kernel(p, *fn, line, launch), source, line, launch, file_name);
  } catch (const SourceError& e) {
    out.why = file_name + ": " + e.why;
  }
  return out;
}

}  // namespace

// A reason quotes the user's text (a type's spelling, a name): its control bytes are not printed.
SourceScenario scenario_from_source_line(std::string_view source, uint32_t line,
                                         const SourceLaunch& launch, const std::string& file_name) {
  SourceScenario out = line_scenario(source, line, launch, file_name);
  out.why = replace_controls(out.why, '?');
  return out;
}

std::string kernel_function_name(const std::string& kernel, bool* instance) {
  if (instance) *instance = false;
  if (kernel.empty() || kernel.size() > 256) return {};
  const size_t open = kernel.find('<');
  const std::string path = kernel.substr(0, open);
  // A C++ name, optionally qualified with ::.
  auto qualified = [](const std::string& n) {
    bool start = true;
    for (size_t i = 0; i < n.size(); ++i) {
      const char c = n[i];
      if (c == ':' && i + 1 < n.size() && n[i + 1] == ':' && !start) {
        ++i;
        start = true;
        continue;
      }
      const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      const bool digit = c >= '0' && c <= '9';
      if (!(alpha || (digit && !start))) return false;
      start = false;
    }
    return !n.empty() && !start;
  };
  if (!qualified(path)) return {};
  if (open != std::string::npos) {
    if (kernel.back() != '>' || kernel.size() < open + 3) return {};
    const std::string args = kernel.substr(open + 1, kernel.size() - open - 2);
    size_t b = 0;
    while (b <= args.size()) {
      size_t e = args.find(',', b);
      if (e == std::string::npos) e = args.size();
      std::string a = args.substr(b, e - b);
      a.erase(0, a.find_first_not_of(' '));
      a.erase(a.find_last_not_of(' ') + 1);
      const bool negative = !a.empty() && a[0] == '-';
      if (negative) a.erase(0, 1);
      if (a.empty() || (negative && !(a[0] >= '0' && a[0] <= '9'))) return {};
      if (a[0] >= '0' && a[0] <= '9') {  // an integer literal, with its suffix
        for (const char c : a)
          if (!std::isalnum(static_cast<unsigned char>(c))) return {};
      } else {  // a type's or a constant's name: qualified names apart by spaces
        size_t w = 0;
        while (w < a.size()) {
          size_t x = a.find(' ', w);
          if (x == std::string::npos) x = a.size();
          if (x > w && !qualified(a.substr(w, x - w))) return {};
          w = x + 1;
        }
      }
      b = e + 1;
    }
    if (instance) *instance = true;
  }
  return path.substr(path.rfind(':') == std::string::npos ? 0 : path.rfind(':') + 1);
}

namespace {

// The __global__ function `kernel` (ns::name: its last part; a template's instance: its
// template) of the prepared source, or null with why it is not there (control bytes of the
// user's name shown as '?').
const Function* find_kernel(const Prepared& p, const std::string& kernel,
                            const std::string& file_name, std::string* why) {
  const std::string name = kernel_function_name(kernel);
  for (const Function& f : p.fns)
    if (f.global && f.name == name) return &f;
  *why = replace_controls("no __global__ function " + kernel + " in " + file_name, '?');
  return nullptr;
}

std::vector<SourceLine> kernel_lines(std::string_view source, const std::string& kernel,
                                     const SourceLaunch& launch, const std::string& file_name,
                                     std::string* why) {
  std::vector<SourceLine> out;
  if (source.size() > kMaxSourceBytes) {
    *why = file_name + " is larger than 1 MB";
    return out;
  }
  try {
    const Prepared p = prepare(source);
    const Function* fn = find_kernel(p, kernel, file_name, why);
    if (!fn) return out;
    // The names declared __shared__ (a declarator: followed by '[', ',', ';' or __align__).
    // At file scope or in the kernel (other functions' blocks are skipped).
    std::set<std::string> names;
    for (size_t k = 0; k < p.raw.size(); ++k) {
      if (p.raw[k].text == "{" && (k + 1 < fn->body_b || k >= fn->body_e)) {
        k = p.match[k];
        continue;
      }
      if (p.raw[k].text != "__shared__") continue;
      for (size_t q = k + 1; q + 1 < p.raw.size() && p.raw[q].text != ";"; ++q) {
        if (p.raw[q].text == "[" || p.raw[q].text == "(") {
          q = p.match[q];
          continue;
        }
        const std::string& nx = p.raw[q + 1].text;
        if (p.raw[q].kind == Tok::Ident && !is_type_word(p.raw[q].text) &&
            (nx == "[" || nx == "," || nx == ";" || nx == "__align__"))
          names.insert(p.raw[q].text);
      }
    }
    std::set<uint32_t> lines;
    for (size_t k = fn->body_b; k < fn->body_e; ++k) {
      if (p.raw[k].text == "__shared__") {  // a declaration, not an access
        while (k < fn->body_e && p.raw[k].text != ";") ++k;
        continue;
      }
      if (p.raw[k].kind == Tok::Ident && names.count(p.raw[k].text)) lines.insert(p.raw[k].line);
    }
    for (uint32_t l : lines) {
      SourceLine sl;
      sl.line = l;
      SourceScenario s =
          build_scenario(follow_kernel(p, *fn, l, launch), source, l, launch, file_name);
      sl.scenario = std::move(s.scenario);
      sl.why = std::move(s.why);
      out.push_back(std::move(sl));
    }
  } catch (const SourceError& e) {
    *why = file_name + ": " + e.why;
  }
  return out;
}

}  // namespace

std::vector<SourceLine> shared_lines_of_kernel(std::string_view source, const std::string& kernel,
                                               const SourceLaunch& launch,
                                               const std::string& file_name, std::string* why) {
  std::vector<SourceLine> out = kernel_lines(source, kernel, launch, file_name, why);
  for (SourceLine& l : out) l.why = replace_controls(l.why, '?');
  *why = replace_controls(*why, '?');
  return out;
}

std::vector<TileDecl> shared_arrays_of_kernel(std::string_view source, const std::string& kernel,
                                              const SourceLaunch& launch,
                                              const std::string& file_name, std::string* why) {
  std::vector<TileDecl> out;
  if (source.size() > kMaxSourceBytes) {
    *why = file_name + " is larger than 1 MB";
    return out;
  }
  try {
    const Prepared p = prepare(source);
    const Function* fn = find_kernel(p, kernel, file_name, why);
    if (!fn) return out;
    // Followed to its closing brace: every declaration the follower reaches.
    const Followed f = follow_kernel(p, *fn, fn->last, launch);
    for (const std::string& a : f.array_order) {
      const Array& arr = f.arrays.at(a);
      if (arr.why.empty() && arr.decl.check().empty()) out.push_back(arr.decl);
    }
  } catch (const SourceError& e) {
    *why = replace_controls(file_name + ": " + e.why, '?');
  }
  return out;
}

std::vector<std::string> kernels_in_source(std::string_view source) {
  std::vector<std::string> out;
  if (source.size() > kMaxSourceBytes) return out;
  try {
    for (const Function& f : prepare(source).fns)
      if (f.global && std::find(out.begin(), out.end(), f.name) == out.end()) out.push_back(f.name);
  } catch (const SourceError&) {
    out.clear();
  }
  return out;
}

ModelFigures model_figures(const Scenario& s) {
  ModelFigures m;
  const AnalysisResult a = analyze(s);
  if (!a.analysis) return m;
  for (size_t e = 0; e < a.analysis->steps.size(); ++e) {
    const int step = static_cast<int>(e);
    m.instructions += a.analysis->step_instructions(step);
    m.wavefronts += a.analysis->step_wavefronts(step);
    m.ideal += a.analysis->step_ideal(step);
  }
  return m;
}

}  // namespace bankviz
