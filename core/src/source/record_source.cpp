// record_source.cpp: a user's source prepared for recording (recording.h's recording_source()):
// what cannot be recorded refused by name, the __shared__ declarations rewritten into the
// emulation header's proxies in place (line numbers kept), and a driver appended.
#include <algorithm>
#include <cctype>
#include <map>

#include "bankviz/from_source.h"
#include "bankviz/recording.h"
#include "source/follower.h"
#include "source/kernel.h"

namespace bankviz {

namespace {

// A token of the raw text with where it is (comments, strings and directive lines skipped).
struct RawTok {
  std::string text;
  size_t b = 0, e = 0;
  uint32_t line = 1;
  bool after_directive = false;  // the first token after a directive line
};

std::vector<RawTok> raw_tokens(std::string_view s) {
  std::vector<RawTok> out;
  uint32_t line = 1;
  bool line_start = true, after_directive = false;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) line += s[i++] == '\n';
      i = std::min(s.size(), i + 2);
      continue;
    }
    if (c == '#' && line_start) {  // a directive, with its continuations
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
          ++line;
          ++i;
        }
        ++i;
      }
      after_directive = true;
      continue;
    }
    line_start = false;
    RawTok t;
    t.b = i;
    t.line = line;
    t.after_directive = after_directive;
    after_directive = false;
    if (c == '"' || c == '\'') {
      ++i;
      while (i < s.size() && s[i] != c && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
      i = std::min(s.size(), i + 1);
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    } else if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      i += 2;
    } else {
      ++i;
    }
    t.e = i;
    t.text = std::string(s.substr(t.b, t.e - t.b));
    out.push_back(std::move(t));
  }
  return out;
}

bool warp_intrinsic(const std::string& w) {
  for (const char* p : {"__shfl", "__ballot", "__any", "__all", "__match", "__reduce_",
                        "__activemask", "__syncwarp", "__syncthreads_"})
    if (w.rfind(p, 0) == 0) return true;
  return false;
}

// Why the text cannot be recorded, naming the first such thing; empty when it can. On the GPU
// the warp intrinsics run as they are (only the barriers with a result are refused: the
// recording counts the barriers a thread passes through __syncthreads() alone).
// On the GPU only what the kernel can run counts: the other kernels' bodies (lines in
// `other_kernels`) are compiled but never run; on the CPU the whole file must compile.
std::string unrecordable(const std::vector<RawTok>& t, RecordTarget target,
                         const std::vector<std::pair<uint32_t, uint32_t>>& other_kernels,
                         const std::vector<std::pair<uint32_t, uint32_t>>& functions) {
  const bool gpu = target == RecordTarget::Gpu;
  const std::string who = gpu ? "the GPU recording" : "the CPU recording";
  for (size_t k = 0; k < t.size(); ++k) {
    const std::string& w = t[k].text;
    bool elsewhere = false, in_function = false;
    for (const auto& [first, last] : other_kernels)
      elsewhere = elsewhere || (first <= t[k].line && t[k].line <= last);
    for (const auto& [first, last] : functions)
      in_function = in_function || (first <= t[k].line && t[k].line <= last);
    // A file-scope line runs nothing (`namespace cg = cooperative_groups;`).
    elsewhere = elsewhere || !in_function;
    if (gpu && elsewhere) continue;
    const std::string at = " (line " + std::to_string(t[k].line) + ")";
    if (w == "asm" || w == "__asm__" || w == "__asm")
      return "the kernel holds inline asm" + at + ", whose shared-memory accesses " + who +
             " cannot see";
    if (warp_intrinsic(w) && (!gpu || w.rfind("__syncthreads_", 0) == 0))
      return "the kernel uses " + w + at +
             (gpu ? ", a barrier with a result, which " + who + " does not count"
                  : ", a warp intrinsic, which " + who + " cannot run");
    // On the GPU cooperative groups run as written (tiles, their shuffles), but a barrier
    // through them is not counted as __syncthreads() is: the phases would be wrong.
    const bool cg_sync = (w == "sync" || w.rfind("barrier_", 0) == 0) && k > 0 &&
                         (t[k - 1].text == "." || t[k - 1].text == "::" || t[k - 1].text == ">");
    if (gpu && (cg_sync || w == "this_grid" || w == "grid_group" || w == "this_multi_grid"))
      return "the kernel uses a cooperative-groups " + (cg_sync ? w + "()" : w) + at +
             ", a barrier " + who + " does not count (only __syncthreads() is)";
    if (!gpu && (w == "cooperative_groups" || w == "this_thread_block" || w == "grid_group"))
      return "the kernel uses cooperative groups" + at + ", which " + who + " cannot run";
    if (w.rfind("tex1D", 0) == 0 || w.rfind("tex2D", 0) == 0 || w.rfind("tex3D", 0) == 0 ||
        w.rfind("surf", 0) == 0 || w == "texture")
      return "the kernel uses " + w + at +
             (gpu ? " (textures and surfaces: bankviz passes no texture object)"
                  : " (textures and surfaces are not emulated)");
  }
  return {};
}

struct Decl {
  size_t b = 0, e = 0;  // the declaration's text: from its first word to its ';'
  std::string replacement;
  std::vector<std::string> names;
  std::vector<bool> ranked;  // the name is an array (else a scalar)
  bool dynamic = false;      // extern __shared__
  uint32_t line = 0;
};

// The __shared__ declaration holding token k, rewritten; *why on what cannot be rewritten. On
// the CPU each declarator becomes a static proxy; on the GPU the real __shared__ storage, named
// bv_shared_N (N: the declarator's number, from *next), and a proxy over it with the user's name.
Decl rewrite(std::string_view s, const std::vector<RawTok>& t, size_t k, RecordTarget target,
             uint32_t* next, std::string* why) {
  Decl d;
  size_t b = k;
  while (b > 0 && !t[b].after_directive && t[b - 1].text != ";" && t[b - 1].text != "{" &&
         t[b - 1].text != "}")
    --b;
  size_t e = k;
  int depth = 0;
  for (; e < t.size(); ++e) {
    const std::string& x = t[e].text;
    if (x == "(" || x == "[" || x == "{") ++depth;
    if (x == ")" || x == "]" || x == "}") --depth;
    if ((x == ";" && depth == 0) || depth < 0) break;
  }
  const std::string at = "line " + std::to_string(t[k].line);
  if (e >= t.size() || t[e].text != ";") {
    *why = at + ": a __shared__ declaration without its ';'";
    return d;
  }
  std::string type, align = "0";
  bool ext = false;
  size_t q = b;
  for (; q < e; ++q) {
    const std::string& x = t[q].text;
    if (x == "__shared__" || x == "static" || x == "volatile") continue;
    if (x == "extern") {
      ext = true;
      continue;
    }
    if ((x == "__align__" || x == "alignas") && q + 3 < e && t[q + 1].text == "(" &&
        t[q + 3].text == ")") {
      align = t[q + 2].text;
      q += 3;
      continue;
    }
    const bool last_word = q + 1 >= e || t[q + 1].text == "[" || t[q + 1].text == "," ||
                           t[q + 1].text == ";" || t[q + 1].text == "__align__";
    if (last_word && !type.empty() && !cuda_source::is_type_word(x)) break;
    if (x == "=" || x == "(") {
      *why = at + ": a __shared__ declaration the recording does not know ('" + x + "')";
      return d;
    }
    type += (type.empty() || x == "::" || type.back() == ':' ? "" : " ") + x;
  }
  if (type.empty() || q >= e) {
    *why = at + ": a __shared__ declaration without a name";
    return d;
  }
  const uint32_t line = t[k].line;
  for (; q < e; ++q) {
    const std::string name = t[q].text;
    std::string ext_text;
    ++q;
    for (; q < e && t[q].text != ","; ++q) {
      if (t[q].text == "__align__" && q + 3 < e) {
        align = t[q + 2].text;
        q += 3;
        continue;
      }
      // Tokens apart (`a - -b` must not become `a--b`), brackets never pasting.
      const bool tight = ext_text.empty() || ext_text.back() == '[' || ext_text.back() == ']' ||
                         t[q].text == "[" || t[q].text == "]";
      ext_text += (tight ? "" : " ") + t[q].text;
    }
    const bool ranked = !ext_text.empty();
    if (ranked && ext_text[0] != '[') {
      *why = at + ": a __shared__ declarator the recording does not know (" + name + ext_text + ")";
      return d;
    }
    if (ext && ext_text.rfind("[]", 0) != 0) {
      *why = at + ": an extern __shared__ array without '[]'";
      return d;
    }
    if (target == RecordTarget::Gpu) {
      const std::string n = std::to_string((*next)++), storage = "bv_shared_" + n;
      d.replacement += std::string(ext ? "extern " : "") + "__shared__ " +
                       (align == "0" ? std::string() : "__align__(" + align + ") ") + type + ' ' +
                       storage + ext_text + "; ";
      d.replacement += ranked ? "::bv::Shared<" + type + ext_text + "> " + name + '(' + storage
                              : "::bv::SharedScalar<" + type + "> " + name + "(&" + storage;
      d.replacement += ", " + n + "u); ";
    } else {
      d.replacement += ranked ? "static ::bv::Shared<" + type + ext_text + ", " + align + "> "
                              : "static ::bv::SharedScalar<" + type + ", " + align + "> ";
      d.replacement += name + "(\"" + name + "\", " + std::to_string(line) + "u); ";
    }
    d.names.push_back(name);
    d.ranked.push_back(ranked);
  }
  d.dynamic = ext;
  d.line = line;
  d.b = t[b].b;
  d.e = t[e].e;
  for (size_t i = d.b; i < d.e; ++i)
    if (s[i] == '\n') d.replacement += '\n';
  return d;
}

// Names of __shared__ declarators -> the token ranges where they are in scope.
using Scopes = std::map<std::string, std::vector<std::pair<size_t, size_t>>>;

bool in_scope(const Scopes::value_type& a, size_t k) {
  for (const auto& [b, e] : a.second)
    if (b <= k && k < e) return true;
  return false;
}

// The first use of an array other than by subscript (through a pointer, which is not recorded),
// named in words; empty if none.
std::string pointer_use(const std::vector<RawTok>& t, const Scopes& arrays,
                        const std::string& who) {
  for (size_t k = 0; k < t.size(); ++k) {
    auto a = arrays.find(t[k].text);
    if (a == arrays.end() || (k > 0 && (t[k - 1].text == "." || t[k - 1].text == "->"))) continue;
    if (in_scope(*a, k) && (k + 1 >= t.size() || t[k + 1].text != "["))
      return "line " + std::to_string(t[k].line) + " uses the __shared__ array " + t[k].text +
             " other than by subscript (through a pointer), which " + who + " does not follow";
  }
  return {};
}

// Where each use of a __shared__ scalar in its scope ends (not a member's name, not qualified,
// not a call, not sizeof's operand): recording_source() writes `()` there, the headers' proxy
// giving the scalar as an element on the use's line (`n + t`, `if (n)`, `s[n]`, `n = 5`).
std::vector<size_t> scalar_uses(const std::vector<RawTok>& t, const Scopes& scalars) {
  std::vector<size_t> at;
  for (size_t k = 0; k < t.size(); ++k) {
    auto a = scalars.find(t[k].text);
    if (a == scalars.end() || !in_scope(*a, k)) continue;
    const std::string before = k > 0 ? t[k - 1].text : "";
    const std::string after = k + 1 < t.size() ? t[k + 1].text : "";
    const bool arrow = before == ">" && k > 1 && t[k - 2].text == "-";
    if (before == "." || arrow || before == "::" || after == "(" || after == "::" ||
        (before == "(" && k > 1 && t[k - 2].text == "sizeof"))
      continue;
    at.push_back(t[k].e);
  }
  return at;
}

// Where a member of a shared element is named (`p[t].x`, `q.pos.y` with q a __shared__ struct):
// each `.member` after a subscripted array or a scalar's use, as the (first byte, end) of its two
// tokens and what recording_source() writes there: `.bv_member(&decltype(p[t])::element_type::x)`
// (the headers' element of the member, a pointer to member of the element's type; decltype's
// operand, the access as rewritten, `kChain` in `text`, is not evaluated), a further member of
// that member through decltype of the first.
constexpr char kChain = '\x01';
struct MemberUse {
  size_t b = 0, e = 0;
  size_t chain = 0;  // where the access begins (its array's or scalar's name)
  std::string text;
};
std::vector<MemberUse> member_uses(std::string_view s, const std::vector<RawTok>& t,
                                   const Scopes& arrays, const Scopes& scalars) {
  std::vector<MemberUse> at;
  for (size_t k = 0; k < t.size(); ++k) {
    const bool array = arrays.count(t[k].text) && in_scope(*arrays.find(t[k].text), k);
    const bool scalar = scalars.count(t[k].text) && in_scope(*scalars.find(t[k].text), k);
    if ((!array && !scalar) || (k > 0 && (t[k - 1].text == "." || t[k - 1].text == "::" ||
                                          (t[k - 1].text == ">" && k > 1 && t[k - 2].text == "-"))))
      continue;
    size_t j = k + 1;
    while (array && j < t.size() && t[j].text == "[") {
      int depth = 0;
      for (; j < t.size(); ++j) {
        depth += t[j].text == "[" ? 1 : t[j].text == "]" ? -1 : 0;
        if (depth == 0) break;
      }
      ++j;
    }
    if ((array && j == k + 1) || j > t.size()) continue;
    std::string type = std::string("decltype(") + kChain + ")::element_type";
    while (
        j + 1 < t.size() && t[j].text == "." &&
        (std::isalpha(static_cast<unsigned char>(t[j + 1].text[0])) || t[j + 1].text[0] == '_') &&
        (j + 2 >= t.size() || t[j + 2].text != "(")) {
      MemberUse m{t[j].b, t[j + 1].e, t[k].b, ".bv_member(&" + type + "::" + t[j + 1].text + ")"};
      for (size_t c = m.b; c < m.e; ++c)  // the lines keep their numbers
        if (s[c] == '\n') m.text += '\n';
      type = "decltype(" + type + "::" + t[j + 1].text + ")";
      at.push_back(std::move(m));
      j += 2;
    }
  }
  return at;
}

// Where each subscript of a shared array begins: the end of the array's name before its first
// '[' (recording_source() writes `.bv_site(N)` there, N counting them in the text's order: the
// accesses made through it say which subscript of the line they are).
std::vector<size_t> subscript_sites(const std::vector<RawTok>& t, const Scopes& arrays) {
  std::vector<size_t> at;
  for (size_t k = 0; k + 1 < t.size(); ++k) {
    auto a = arrays.find(t[k].text);
    if (a == arrays.end() || !in_scope(*a, k) || t[k + 1].text != "[") continue;
    if (k > 0 && (t[k - 1].text == "." || t[k - 1].text == "::" ||
                  (t[k - 1].text == ">" && k > 1 && t[k - 2].text == "-")))
      continue;
    at.push_back(t[k].e);
  }
  return at;
}

}  // namespace

std::string recording_source(std::string_view source, const std::string& kernel,
                             const std::string& file_name, std::string* why, RecordTarget target,
                             std::vector<RecordedArray>* declared) {
  if (source.size() > kMaxSourceBytes) {
    *why = file_name + " is larger than 1 MB";
    return {};
  }
  // The kernel's name goes into the driver's code (CPU) or NVRTC's name expression (GPU): a
  // C++ name, or ns::name, or on the GPU a template's instance (from_source.h).
  bool instance = false;
  const std::string name = kernel_function_name(kernel, &instance);
  if (name.empty()) {
    *why = '\'' + kernel.substr(0, 64) + "' is not a kernel's name";
    return {};
  }
  if (instance && target != RecordTarget::Gpu) {
    *why = "the kernel " + kernel.substr(0, 64) +
           " is a template's instance, which the CPU recording does not instantiate (the GPU "
           "recording does)";
    return {};
  }
  // The file's name goes into a #line directive: quotes, backslashes and control bytes left out.
  std::string shown;
  for (const char c : file_name.substr(0, 200))
    shown += c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ? '_' : c;
  const std::vector<RawTok> t = raw_tokens(source);
  // The kernel and its parameters, as from_source reads them.
  const cuda_source::Function* fn = nullptr;
  cuda_source::Prepared p;
  try {
    p = cuda_source::prepare(source);
  } catch (const cuda_source::SourceError& e) {
    *why = file_name + ": " + e.why;
    return {};
  }
  for (const cuda_source::Function& f : p.fns)
    if (f.global && f.name == name) fn = &f;
  if (!fn) {
    *why = "no __global__ function " + kernel + " in " + file_name;
    return {};
  }
  std::vector<std::pair<uint32_t, uint32_t>> other_kernels, functions;
  for (const cuda_source::Function& f : p.fns) {
    functions.push_back({f.first, f.last});
    if (f.global && &f != fn && (f.last < fn->first || f.first > fn->last))
      other_kernels.push_back({f.first, f.last});
  }
  if (std::string u = unrecordable(t, target, other_kernels, functions); !u.empty()) {
    *why = u;
    return {};
  }
  for (size_t k = 0; k + 1 < t.size(); ++k)
    if (t[k].text == "template" && t[k + 1].text == "<") {
      for (size_t q = k + 1; q < t.size() && q < k + 64; ++q)
        if (t[q].text == "__global__" && t[q].line <= fn->first && fn->first - t[q].line < 3 &&
            (target != RecordTarget::Gpu || !instance)) {
          *why =
              "the kernel " + kernel + " is a template (line " + std::to_string(t[k].line) +
              (target == RecordTarget::Gpu ? "): name its instance, --kernel '" + kernel + "<...>'"
                                           : "), which the CPU recording does not instantiate");
          return {};
        }
    }

  // Each token's enclosing block: where a declaration in it stops being in scope.
  std::vector<size_t> block_end(t.size() + 1, t.size());
  {
    std::vector<size_t> open, match(t.size(), t.size());
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k].text == "{") open.push_back(k);
      if (t[k].text == "}" && !open.empty()) {
        match[open.back()] = k;
        open.pop_back();
      }
    }
    std::vector<size_t> ends;
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k].text == "}" && !ends.empty()) ends.pop_back();
      block_end[k] = ends.empty() ? t.size() : ends.back();
      if (t[k].text == "{") ends.push_back(match[k]);
    }
  }
  std::vector<Decl> decls;
  Scopes arrays, scalars;
  uint32_t next = 0;
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k].text != "__shared__") continue;
    // On the GPU another kernel of the file is compiled, never run: its declarations stay as
    // written (real shared memory, whatever it does with them: a pointer, a carved buffer).
    bool elsewhere = false;
    for (const auto& [first, last] : other_kernels)
      elsewhere = elsewhere || (first <= t[k].line && t[k].line <= last);
    if (target == RecordTarget::Gpu && elsewhere) continue;
    // On the GPU the proxy is a local object: a declaration outside every function (a file's
    // __shared__ array) cannot have one.
    bool in_function = false;
    for (const cuda_source::Function& f : p.fns)
      in_function = in_function || (f.first <= t[k].line && t[k].line <= f.last);
    if (target == RecordTarget::Gpu && !in_function) {
      *why = "line " + std::to_string(t[k].line) +
             ": a __shared__ declaration outside a function, which the GPU recording does not "
             "rewrite";
      return {};
    }
    Decl d = rewrite(source, t, k, target, &next, why);
    if (!why->empty()) return {};
    if (next > 256) {
      *why = "more than 256 __shared__ declarators, more than the GPU recording names";
      return {};
    }
    if (declared)
      for (const std::string& n : d.names) declared->push_back({n, d.line, 0, 0, d.dynamic});
    const size_t scope_end = block_end[k];
    while (k < t.size() && t[k].e <= d.e) ++k;
    for (size_t i = 0; i < d.names.size(); ++i)
      (d.ranked[i] ? arrays : scalars)[d.names[i]].push_back({k, scope_end});
    --k;
    decls.push_back(std::move(d));
  }
  if (std::string u = pointer_use(
          t, arrays, target == RecordTarget::Gpu ? "the GPU recording" : "the CPU recording");
      !u.empty()) {
    *why = u;
    return {};
  }

  std::string out = target == RecordTarget::Gpu
                        ? "#line 1 \"" + shown + "\"\n"
                        : "#include \"bankviz_record.h\"\n#line 1 \"" + shown + "\"\n";
  // The edits of the text outside the declarations: each scalar's use followed by (), each
  // array's subscript numbered (.bv_site(N), its site), each member of a shared element through
  // bv_member (in the text's order; a zero-length insertion first).
  struct Edit {
    size_t b, e;
    std::string text;
    size_t chain = std::string::npos;  // a member's: where its access begins (MemberUse)
    bool mark = false;                 // only notes where an access begins in `out`
  };
  std::vector<Edit> edits;
  for (const size_t use : scalar_uses(t, scalars)) edits.push_back({use, use, "()"});
  uint32_t site = 0;
  for (const size_t at_name : subscript_sites(t, arrays))
    edits.push_back({at_name, at_name, ".bv_site(" + std::to_string(++site) + "u)"});
  for (MemberUse& m : member_uses(source, t, arrays, scalars)) {
    edits.push_back({m.chain, m.chain, "", std::string::npos, true});
    edits.push_back({m.b, m.e, std::move(m.text), m.chain, false});
  }
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& x, const Edit& y) {
    return x.b != y.b ? x.b < y.b : (x.e == x.b) > (y.e == y.b);
  });
  size_t at = 0, u = 0;
  std::map<size_t, size_t> access_at;       // an access's beginning -> where it is in `out`
  std::map<size_t, std::string> access_of;  // -> its text as rewritten, on one line
  auto copy_to = [&](size_t end) {          // the source up to `end`, edited
    for (; u < edits.size() && edits[u].b <= end; ++u)
      if (edits[u].b >= at && edits[u].e <= end) {
        Edit& ed = edits[u];
        out.append(source.substr(at, ed.b - at));
        at = ed.e;
        if (ed.mark) {
          access_at.emplace(ed.b, out.size());
          continue;
        }
        if (ed.chain != std::string::npos) {
          auto [a, fresh] = access_of.emplace(ed.chain, std::string());
          if (fresh && access_at.count(ed.chain)) {
            a->second = out.substr(access_at[ed.chain]);
            a->second.erase(a->second.find_last_not_of(" \t\r\n") + 1);
            for (char& c : a->second)
              if (c == '\n' || c == '\r') c = ' ';
          }
          const size_t k = ed.text.find(kChain);
          if (k != std::string::npos) ed.text.replace(k, 1, a->second);
        }
        out += ed.text;
      }
    out.append(source.substr(at, end - at));
    at = end;
  };
  for (const Decl& d : decls) {
    copy_to(d.b);
    out += d.replacement;
    at = d.e;
  }
  copy_to(source.size());
  if (target == RecordTarget::Gpu) return out;  // launched as the user's kernel is profiled
  out += "\n#line 1 \"bankviz-record-driver\"\nstatic void bv_call() {\n  " + kernel + "(";
  for (size_t i = 0; i < fn->params.size(); ++i)
    out += std::string(i ? ", " : "") + "::bv::Arg{" + std::to_string(i) + "}";
  out += R"();
}
int main(int argc, char** argv) {
  if (argc < 6) return 2;
  const dim3 block(static_cast<unsigned>(std::atol(argv[1])), static_cast<unsigned>(std::atol(argv[2])),
                   static_cast<unsigned>(std::atol(argv[3])));
  for (int i = 6; i < argc; ++i) ::bv::int_args.push_back(std::atoll(argv[i]));
  ::bv::kernel_call = bv_call;
  return ::bv::run_block(block, static_cast<size_t>(std::atoll(argv[4])),
                         std::strtoull(argv[5], nullptr, 10));
}
)";
  return out;
}

}  // namespace bankviz
