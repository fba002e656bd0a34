// record_source.cpp: a user's source prepared for recording (recording.h's recording_source()):
// what cannot be recorded refused by name, the __shared__ declarations rewritten into the
// emulation header's proxies in place (line numbers kept), and a driver appended.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

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
    // The CPU recording's header runs the warp intrinsics as CUDA defines them (the lanes of
    // the mask meet); the barriers with a result are counted by neither recording.
    if (warp_intrinsic(w) && w.rfind("__syncthreads_", 0) == 0)
      return "the kernel uses " + w + at + ", a barrier with a result, which " + who +
             " does not count";
    // On the GPU cooperative groups run as written (tiles, their shuffles); a block's barrier
    // through them (`block.sync()`, `cg::sync(block)`, `cg::this_thread_block().sync()`) is
    // counted as __syncthreads() is (the header counts cooperative groups' `__barrier_sync(0)`),
    // a tile's is a warp's (no phase). Not counted: the split arrive/wait barriers, a grid's,
    // a cluster's.
    const bool cg_split = w.rfind("barrier_", 0) == 0 && k > 0 &&
                          (t[k - 1].text == "." || t[k - 1].text == "::" || t[k - 1].text == ">");
    if ((cg_split || w == "this_grid" || w == "grid_group" || w == "this_multi_grid" ||
         w == "this_cluster" || w == "cluster_group") &&
        (gpu || !elsewhere))
      return "the kernel uses a cooperative-groups " + (cg_split ? w + "()" : w) + at +
             ", a barrier " + who + " does not count (a block's sync() and __syncthreads() are)";
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

bool is_name(const std::string& w) {
  return !w.empty() && (std::isalpha(static_cast<unsigned char>(w[0])) || w[0] == '_');
}

// The first use of an array other than by subscript, named in words; empty if none. A use inside
// `allowed` (a rewritten pointer declaration's initializer, an argument passed to a rewritten
// parameter of a helper) makes a pointer proxy (a cast there, `(T*)s + 4`, a raw pointer that the
// proxy finds in shared memory again, its array not said); a pointer proxy (`pointers`) may be
// moved, compared and assigned, but not dereferenced by `*p` or `p->`, which have no line of their
// own to record.
std::string pointer_use(const std::vector<RawTok>& t, const Scopes& arrays, const Scopes& pointers,
                        const std::vector<std::pair<size_t, size_t>>& allowed,
                        const std::set<size_t>& derefs, const std::string& who) {
  auto inside = [&](size_t k) {
    for (const auto& [b, e] : allowed)
      if (b <= k && k < e) return true;
    return false;
  };
  for (size_t k = 0; k < t.size(); ++k) {
    if (k > 0 && (t[k - 1].text == "." || (t[k - 1].text == ">" && k > 1 && t[k - 2].text == "-")))
      continue;
    const std::string at = "line " + std::to_string(t[k].line);
    auto p = pointers.find(t[k].text);
    if (p != pointers.end() && in_scope(*p, k)) {
      const std::string before = k > 0 ? t[k - 1].text : ";";
      const std::string before2 = k > 1 ? t[k - 2].text : ";";
      const bool deref = before == "*" && !is_name(before2) && before2 != ")" && before2 != "]" &&
                         !derefs.count(k);
      const bool arrow = k + 2 < t.size() && t[k + 1].text == "-" && t[k + 2].text == ">";
      if (deref || arrow)
        return at + " dereferences the pointer " + t[k].text + " into shared memory (" +
               (deref ? "*" + t[k].text : t[k].text + "->") + "), which " + who +
               " does not follow: write " + t[k].text + "[0]";
      continue;
    }
    auto a = arrays.find(t[k].text);
    if (a == arrays.end() || !in_scope(*a, k) || inside(k)) continue;
    if (k + 1 < t.size() && t[k + 1].text == "[") continue;
    return at + " uses the __shared__ array " + t[k].text +
           " other than by subscript (through a pointer " + who +
           " does not follow: a pointer declared from it, `T* p = ...;`, or a parameter of a "
           "__device__ function it is passed to, is followed)";
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

// The declarations of pointers into shared memory, rewritten into the headers' pointer proxy
// (`::bv::Ptr<T>`): a local `T *p = INIT;` whose initializer names a shared array or another such
// pointer (its cast, `reinterpret_cast<U*>(X)` or `(U*)X`, written `::bv::ptr_cast<U>(X)`, and its
// value passed through `::bv::declared(INIT, ...)`, which names an array carved by a cast), and the
// parameter `T *p` (or `T p[]`) of a __device__ function called with such an argument. Only
// declarations change; the expressions that use them are the user's.
struct PointerEdit {
  size_t b, e;  // bytes of the source replaced (b == e: inserted)
  std::string text;
};
struct Pointers {
  Scopes names;                                    // the proxies, where they are in scope
  std::vector<std::pair<size_t, size_t>> allowed;  // tokens where a shared array may decay
  std::set<size_t> derefs;                         // proxies' `*p` written `p[0]` (their name)
  std::vector<PointerEdit> edits;
};

// The type of a declaration's words t[b, e) for `::bv::Ptr<...>`: volatile left out (each access
// of a proxy is an access of memory), `::` kept tight; empty where a word is no type's.
std::string pointee_type(const std::vector<RawTok>& t, size_t b, size_t e) {
  std::string type;
  for (size_t q = b; q < e; ++q) {
    const std::string& x = t[q].text;
    if (x == "volatile" || x == "__restrict__" || x == "__restrict" || x == "restrict") continue;
    if (!is_name(x) && x != "::") return {};
    for (const char* k :
         {"return", "if",     "else",       "for",      "while",    "do",       "case",
          "goto",   "delete", "throw",      "sizeof",   "new",      "typedef",  "using",
          "static", "extern", "__shared__", "template", "typename", "operator", "auto"})
      if (x == k) return {};
    type += (type.empty() || x == "::" || type.back() == ':' ? "" : " ") + x;
  }
  return type;
}

// Each bracket token's partner ((), [], {}), t.size() where it has none.
std::vector<size_t> bracket_partners(const std::vector<RawTok>& t) {
  std::vector<size_t> match(t.size(), t.size());
  std::vector<size_t> open;
  for (size_t k = 0; k < t.size(); ++k) {
    const std::string& x = t[k].text;
    if (x == "(" || x == "[" || x == "{") open.push_back(k);
    if ((x == ")" || x == "]" || x == "}") && !open.empty()) {
      match[open.back()] = k;
      match[k] = open.back();
      open.pop_back();
    }
  }
  return match;
}

// pointer_declarations()'s work: to a fixed point, the parameters of helpers called with a shared
// array or a proxy, and the local pointers initialized from one, become proxies.
class PointerRewriter {
 public:
  PointerRewriter(const std::vector<RawTok>& t, const Scopes& arrays,
                  const std::vector<size_t>& block_end, RecordTarget target,
                  const std::vector<std::pair<uint32_t, uint32_t>>& skipped, uint32_t* next,
                  std::vector<RecordedArray>* declared)
      : t_(t),
        arrays_(arrays),
        block_end_(block_end),
        target_(target),
        skipped_(skipped),
        next_(next),
        declared_(declared),
        match_(bracket_partners(t)),
        decl_done_(t.size(), false) {}

  Pointers run(const std::vector<cuda_source::Function>& fns) {
    find_helpers(fns);
    // To a fixed point (a helper passing its proxy on, a pointer declared from a proxy
    // parameter), at most 64 rounds: each round is one pass over the text.
    int rounds = 0;
    for (bool changed = true; changed && rounds < 64; ++rounds) {
      changed = false;
      for (Def& d : defs_) changed |= proxy_parameters(d);
      changed |= proxy_local_declarations();
    }
    expression_casts();
    dereferences();
    return std::move(out_);
  }

 private:
  // A helper's definition: name token, '(' and ')' of the parameters, '{' of the body.
  struct Def {
    size_t name, open, close, body;
    std::vector<std::pair<size_t, size_t>> params;
    std::vector<bool> done;
  };

  bool named(size_t k) const {  // token k names a shared array or a proxy in scope
    const std::vector<RawTok>& t = t_;
    if (k > 0 && (t[k - 1].text == "." || t[k - 1].text == "::" ||
                  (t[k - 1].text == ">" && k > 1 && t[k - 2].text == "-")))
      return false;
    auto a = arrays_.find(t[k].text);
    if (a != arrays_.end() && in_scope(*a, k)) return true;
    auto p = out_.names.find(t[k].text);
    return p != out_.names.end() && in_scope(*p, k);
  }

  bool is_skipped(size_t k) const {
    for (const auto& [first, last] : skipped_)
      if (first <= t_[k].line && t_[k].line <= last) return true;
    return false;
  }

  std::string make(const std::string& name, uint32_t line) {
    if (target_ == RecordTarget::Gpu) {
      const uint32_t n = (*next_)++;
      if (declared_) declared_->push_back({name, line, 0, 0, false});
      return ", " + std::to_string(n) + "u)";
    }
    return ", \"" + name + "\", " + std::to_string(line) + "u)";
  }

  // The __device__ functions' definitions and their parameters; each name followed by '(' ->
  // where (a definition or a call): one pass over the text.
  void find_helpers(const std::vector<cuda_source::Function>& fns) {
    const std::vector<RawTok>& t = t_;
    for (size_t q = 0; q + 1 < t.size(); ++q)
      if (is_name(t[q].text) && t[q + 1].text == "(") before_paren_[t[q].text].push_back(q);
    for (const cuda_source::Function& f : fns) {
      if (f.global) continue;
      const auto named_here = before_paren_.find(f.name);
      if (named_here == before_paren_.end()) continue;
      for (const size_t q : named_here->second) {
        if (match_[q + 1] >= t.size()) continue;
        size_t r = match_[q + 1] + 1;
        while (r < t.size() && t[r].text != "{" && t[r].text != ";") ++r;
        if (r >= t.size() || t[r].text != "{" || t[r].line != f.first || match_[r] >= t.size())
          continue;
        Def d{q, q + 1, match_[q + 1], r, {}, {}};
        size_t b = q + 2;
        for (size_t k = q + 2; k <= d.close; ++k) {
          if (t[k].text == "(" || t[k].text == "[" || t[k].text == "{" || t[k].text == "<") {
            if (t[k].text != "<" && match_[k] < t.size()) k = match_[k];
            continue;
          }
          if (t[k].text == "," || k == d.close) {
            if (k > b) d.params.push_back({b, k});
            b = k + 1;
          }
        }
        d.done.assign(d.params.size(), false);
        defs_.push_back(std::move(d));
        break;
      }
    }
  }

  // Calls of helper d passing a shared array or a proxy: that parameter becomes a proxy.
  bool proxy_parameters(Def& d) {
    const std::vector<RawTok>& t = t_;
    bool changed = false;
    for (const size_t k : before_paren_[t[d.name].text]) {
      if (k == d.name || match_[k + 1] >= t.size() || is_skipped(k) ||
          (k > 0 && (t[k - 1].text == "." || t[k - 1].text == "::")))
        continue;
      size_t b = k + 2, i = 0;
      const size_t close = match_[k + 1];
      for (size_t q = k + 2; q <= close; ++q) {
        if ((t[q].text == "(" || t[q].text == "[" || t[q].text == "{") && match_[q] < t.size()) {
          q = match_[q];
          if (q != close) continue;
        }
        if (t[q].text != "," && q != close) continue;
        bool shared = false;
        for (size_t a = b; a < q; ++a) shared = shared || named(a);
        if (shared && i < d.params.size()) {
          out_.allowed.push_back({b, q});
          if (!d.done[i] && proxy_parameter(d, i)) changed = true;
        }
        b = q + 1;
        ++i;
      }
    }
    return changed;
  }

  // Parameter i of d, `T *name` or `T name[]`, as `::bv::Ptr<T> name`: false if it is neither.
  bool proxy_parameter(Def& d, size_t i) {
    const std::vector<RawTok>& t = t_;
    const auto [pb, pe] = d.params[i];
    size_t star = pe;
    for (size_t x = pb; x < pe; ++x)
      if (t[x].text == "*") star = x;
    size_t nm = pe - 1;
    std::string type;
    if (star < pe) {
      nm = star + 1;
      while (nm < pe && !is_name(t[nm].text)) ++nm;
      while (nm + 1 < pe &&
             (t[nm].text == "const" || t[nm].text == "__restrict__" || t[nm].text == "__restrict" ||
              t[nm].text == "restrict" || t[nm].text == "volatile"))
        ++nm;
      if (nm + 1 == pe) type = pointee_type(t, pb, star);
    } else if (pe - pb >= 4 && t[pe - 1].text == "]" && t[pe - 2].text == "[") {
      nm = pe - 3;
      type = pointee_type(t, pb, nm);
    }
    if (type.empty() || !is_name(t[nm].text)) return false;
    d.done[i] = true;
    out_.edits.push_back({t[pb].b, t[pe - 1].e, "::bv::Ptr<" + type + "> " + t[nm].text});
    out_.names[t[nm].text].push_back({d.body, match_[d.body] + 1});
    return true;
  }

  // Local declarations `T *name = INIT;` whose INIT names a shared array or a proxy.
  bool proxy_local_declarations() {
    const std::vector<RawTok>& t = t_;
    bool changed = false;
    for (size_t k = 0; k < t.size(); ++k) {
      if (decl_done_[k] || is_skipped(k) ||
          !(k == 0 || t[k].after_directive || t[k - 1].text == ";" || t[k - 1].text == "{" ||
            t[k - 1].text == "}"))
        continue;
      size_t star = k;
      while (star < t.size() && (is_name(t[star].text) || t[star].text == "::")) ++star;
      if (star == k || star + 3 >= t.size() || t[star].text != "*") continue;
      size_t nm = star + 1;
      while (nm < t.size() && (t[nm].text == "const" || t[nm].text == "__restrict__" ||
                               t[nm].text == "__restrict" || t[nm].text == "volatile"))
        ++nm;
      if (nm + 2 >= t.size() || !is_name(t[nm].text) || t[nm + 1].text != "=") continue;
      const std::string type = pointee_type(t, k, star);
      if (type.empty()) continue;
      const size_t ib = nm + 2;
      size_t ie = ib;
      bool comma = false, shared = false;
      for (; ie < t.size() && t[ie].text != ";"; ++ie) {
        if ((t[ie].text == "(" || t[ie].text == "[" || t[ie].text == "{") &&
            match_[ie] < t.size()) {
          for (size_t a = ie; a < match_[ie]; ++a) shared = shared || named(a);
          ie = match_[ie];
          continue;
        }
        comma = comma || t[ie].text == ",";
        shared = shared || named(ie);
      }
      if (ie >= t.size() || comma || !shared) continue;
      decl_done_[k] = true;
      changed = true;
      out_.allowed.push_back({ib, ie});
      out_.edits.push_back({t[k].b, t[nm].b, "::bv::Ptr<" + type + "> "});
      out_.edits.push_back({t[ib].b, t[ib].b, "::bv::declared("});
      const std::string closing = cast_edits(ib, ie);
      if (!closing.empty()) out_.edits.push_back({t[ie].b, t[ie].b, closing});
      out_.edits.push_back({t[ie].b, t[ie].b, make(t[nm].text, t[nm].line)});
      out_.names[t[nm].text].push_back({ie + 1, block_end_[k]});
    }
    return changed;
  }

  // The cast of the whole initializer t[ib, ie), if it is one, as `::bv::ptr_cast<U>(`: the
  // edits, and what closes the call after the initializer ("" when nothing does).
  std::string cast_edits(size_t ib, size_t ie) {
    const std::vector<RawTok>& t = t_;
    if ((t[ib].text == "reinterpret_cast" || t[ib].text == "static_cast") &&
        t[ib + 1].text == "<") {
      size_t gt = ib + 2;
      while (gt < ie && t[gt].text != ">") ++gt;
      if (gt + 1 < ie && t[gt - 1].text == "*" && t[gt + 1].text == "(" &&
          match_[gt + 1] == ie - 1) {
        const std::string u = pointee_type(t, ib + 2, gt - 1);
        if (!u.empty()) {
          out_.edits.push_back({t[ib].b, t[gt + 1].e, "::bv::ptr_cast<" + u + ">("});
          cast_done_.insert(ib);
        }
      }
      return {};
    }
    if (!(t[ib].text == "(" && match_[ib] < ie && match_[ib] > ib + 2 &&
          t[match_[ib] - 1].text == "*"))
      return {};
    const size_t cl = match_[ib];
    // The operand: `&`? NAME ([...] | .member)* or (...), the rest of the initializer.
    size_t q = cl + 1;
    bool simple = false;
    if (q < ie && t[q].text == "(" && match_[q] == ie - 1) {
      simple = true;
    } else {
      if (q < ie && t[q].text == "&") ++q;
      if (q < ie && is_name(t[q].text)) {
        ++q;
        while (q < ie) {
          if (t[q].text == "[" && match_[q] < ie) {
            q = match_[q] + 1;
          } else if (t[q].text == "." && q + 1 < ie && is_name(t[q + 1].text)) {
            q += 2;
          } else {
            break;
          }
        }
        simple = q == ie;
      }
    }
    const std::string u = simple ? pointee_type(t, ib + 1, cl - 1) : std::string();
    if (u.empty()) return {};
    out_.edits.push_back({t[ib].b, t[cl].e, "::bv::ptr_cast<" + u + ">("});
    cast_done_.insert(ib);
    return ")";
  }

  // The end (one past) of a C-style cast's operand that starts at q: `&`? NAME ([...] | .member)*
  // or (...); q itself where it is neither.
  size_t cast_operand_end(size_t q) const {
    const std::vector<RawTok>& t = t_;
    if (q < t.size() && t[q].text == "(" && match_[q] < t.size()) return match_[q] + 1;
    const size_t from = q;
    if (q < t.size() && t[q].text == "&") ++q;
    if (q >= t.size() || !is_name(t[q].text)) return from;
    ++q;
    while (q < t.size()) {
      if (t[q].text == "[" && match_[q] < t.size()) {
        q = match_[q] + 1;
      } else if (t[q].text == "." && q + 1 < t.size() && is_name(t[q + 1].text)) {
        q += 2;
      } else {
        break;
      }
    }
    return q;
  }

  // Whether the `*` at token k is unary (a dereference), not a product.
  bool unary_star(size_t k) const {
    const std::vector<RawTok>& t = t_;
    if (t[k].text != "*") return false;
    if (k == 0) return true;
    const std::string& b = t[k - 1].text;
    for (const char* w : {"return", "case", "sizeof", "else", "do"})
      if (b == w) return true;
    const bool operand_end =
        is_name(b) || b == ")" || b == "]" || std::isdigit(static_cast<unsigned char>(b[0])) ||
        b[0] == '\'' || b[0] == '"' || ((b == "+" || b == "-") && k >= 2 && t[k - 2].text == b);
    return !operand_end;
  }

  // `*p` of a proxy p (not `*p++`, `*p[i]`, `*p.x`, `*p->x`, a call): written `p[0]`, its element
  // on this line, as the proxy's subscript makes it.
  void dereferences() {
    const std::vector<RawTok>& t = t_;
    for (size_t k = 1; k < t.size(); ++k) {
      if (!is_name(t[k].text) || !unary_star(k - 1) || is_skipped(k)) continue;
      auto p = out_.names.find(t[k].text);
      if (p == out_.names.end() || !in_scope(*p, k)) continue;
      if (k + 1 < t.size()) {
        const std::string& a = t[k + 1].text;
        const std::string a2 = k + 2 < t.size() ? t[k + 2].text : "";
        if (a == "[" || a == "(" || a == "." || a == "::" || ((a == "+" || a == "-") && a2 == a) ||
            (a == "-" && a2 == ">"))
          continue;
      }
      out_.derefs.insert(k);
      out_.edits.push_back({t[k - 1].b, t[k - 1].e, ""});
      out_.edits.push_back({t[k].e, t[k].e, "[0]"});
    }
  }

  // A cast inside an expression of a pointer into shared memory to another element type
  // (`reinterpret_cast<float4*>(&tile[r][c])[0]`, `*(int2*)&s[i]`), as a declaration's cast:
  // `::bv::ptr_cast<U>(X)`, a proxy whose elements are U's (each access sizeof(U) bytes, as the
  // compiler's LDS/STS of that width), its array the one X points into; a `*` before the cast
  // becomes `[0]` after it (an element on the line the cast is written on).
  void expression_casts() {
    const std::vector<RawTok>& t = t_;
    for (size_t k = 0; k + 3 < t.size(); ++k) {
      if (cast_done_.count(k) || is_skipped(k)) continue;
      size_t head_end = 0, xb = 0, xe = 0, end = 0;  // head [k, head_end]; operand [xb, xe)
      std::string u;
      bool c_style = false;
      if ((t[k].text == "reinterpret_cast" || t[k].text == "static_cast") && t[k + 1].text == "<") {
        size_t gt = k + 2;
        while (gt < t.size() && gt < k + 32 && t[gt].text != ">") ++gt;
        if (gt + 1 >= t.size() || t[gt].text != ">" || t[gt - 1].text != "*" ||
            t[gt + 1].text != "(" || match_[gt + 1] >= t.size())
          continue;
        u = pointee_type(t, k + 2, gt - 1);
        head_end = gt + 1, xb = gt + 2, xe = match_[gt + 1], end = xe;
      } else if (t[k].text == "(" && match_[k] < t.size() && match_[k] > k + 2 &&
                 t[match_[k] - 1].text == "*") {
        const size_t cl = match_[k];
        xe = cast_operand_end(cl + 1);
        if (xe == cl + 1) continue;
        u = pointee_type(t, k + 1, cl - 1);
        head_end = cl, xb = cl + 1, end = xe - 1, c_style = true;
      } else {
        continue;
      }
      bool shared = false;
      for (size_t a = xb; a < xe; ++a) shared = shared || named(a);
      if (u.empty() || !shared) continue;
      cast_done_.insert(k);
      out_.allowed.push_back({xb, xe});
      const bool deref = k > 0 && unary_star(k - 1);
      if (deref) out_.edits.push_back({t[k - 1].b, t[k - 1].e, ""});
      out_.edits.push_back({t[k].b, t[head_end].e, "::bv::ptr_cast<" + u + ">("});
      if (c_style) out_.edits.push_back({t[end].e, t[end].e, ")"});
      if (deref) out_.edits.push_back({t[end].e, t[end].e, "[0]"});
      // `cast(...)[i].x`, `((U*)X)[i].x`: the member of the element, an access of its own bytes
      // (bv_member).
      size_t lo = k, hi = end;
      while (lo > 0 && hi + 1 < t.size() && t[lo - 1].text == "(" && match_[lo - 1] == hi + 1)
        --lo, ++hi;
      const size_t sub = hi + 1;
      if (!deref && sub < t.size() && t[sub].text == "[" && match_[sub] + 2 < t.size() &&
          t[match_[sub] + 1].text == "." && is_name(t[match_[sub] + 2].text)) {
        const size_t dot = match_[sub] + 1;
        out_.edits.push_back(
            {t[dot].b, t[dot + 1].e, ".bv_member(&" + u + "::" + t[dot + 1].text + ")"});
      }
    }
  }

  const std::vector<RawTok>& t_;
  const Scopes& arrays_;
  const std::vector<size_t>& block_end_;
  RecordTarget target_;
  const std::vector<std::pair<uint32_t, uint32_t>>& skipped_;
  uint32_t* next_;
  std::vector<RecordedArray>* declared_;
  std::vector<size_t> match_;
  std::map<std::string, std::vector<size_t>> before_paren_;
  std::vector<Def> defs_;
  std::vector<bool> decl_done_;
  std::set<size_t> cast_done_;  // the casts already written ::bv::ptr_cast (their first token)
  Pointers out_;
};

Pointers pointer_declarations(const std::vector<RawTok>& t, const Scopes& arrays,
                              const std::vector<cuda_source::Function>& fns,
                              const std::vector<size_t>& block_end, RecordTarget target,
                              const std::vector<std::pair<uint32_t, uint32_t>>& skipped,
                              uint32_t* next, std::vector<RecordedArray>* declared) {
  return PointerRewriter(t, arrays, block_end, target, skipped, next, declared).run(fns);
}

// The template<...> heading `fn` (a __global__ within 3 lines of its brace), named: "the kernel K
// is a template (line N): ..."; empty if it is none.
std::string template_line(const std::vector<RawTok>& t, const cuda_source::Function& fn,
                          const std::string& kernel, RecordTarget) {
  for (size_t k = 0; k + 1 < t.size(); ++k)
    if (t[k].text == "template" && t[k + 1].text == "<") {
      // The heading's declaration: up to its first `;`, `{` or `}` (not a later function's).
      for (size_t q = k + 1; q < t.size() && q < k + 64; ++q) {
        if (t[q].text == ";" || t[q].text == "{" || t[q].text == "}") break;
        if (t[q].text == "__global__" && t[q].line <= fn.first && fn.first - t[q].line < 3)
          return "the kernel " + kernel.substr(0, 64) + " is a template (line " +
                 std::to_string(t[k].line) + "): name its instance, --kernel '" +
                 kernel.substr(0, 64) + "<...>'";
      }
    }
  return {};
}

// Each token's enclosing block: where a declaration in it stops being in scope (the token past
// its closing brace; t.size() at file scope).
std::vector<size_t> block_ends(const std::vector<RawTok>& t) {
  std::vector<size_t> block_end(t.size() + 1, t.size());
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
  return block_end;
}

// Every __shared__ declaration the recording rewrites (rewrite()): into decls, its arrays and
// scalars with their scopes, each declarator named (*next, declared). False with *why where one
// cannot be.
bool shared_declarations(std::string_view source, const std::vector<RawTok>& t,
                         const std::vector<cuda_source::Function>& fns,
                         const std::vector<std::pair<uint32_t, uint32_t>>& other_kernels,
                         const std::vector<size_t>& block_end, RecordTarget target,
                         std::vector<Decl>& decls, Scopes& arrays, Scopes& scalars, uint32_t* next,
                         std::vector<RecordedArray>* declared, std::string* why) {
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
    for (const cuda_source::Function& f : fns)
      in_function = in_function || (f.first <= t[k].line && t[k].line <= f.last);
    if (target == RecordTarget::Gpu && !in_function) {
      *why = "line " + std::to_string(t[k].line) +
             ": a __shared__ declaration outside a function, which the GPU recording does not "
             "rewrite";
      return false;
    }
    std::string bad;  // rewrite()'s refusal (*why may hold an earlier call's words)
    Decl d = rewrite(source, t, k, target, next, &bad);
    if (!bad.empty()) {
      *why = bad;
      return false;
    }
    if (*next > 256) {
      *why = "more than 256 __shared__ declarators, more than the GPU recording names";
      return false;
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
  return true;
}

// The CPU recording's driver after the user's source: the kernel called with one ::bv::Arg per
// parameter, for the block and the arguments main() is given.
// The source with the other __global__ functions' bodies blanked (the lines between their
// braces, preprocessor lines kept, every line kept): the CPU recording compiles and runs the one
// kernel it records, so what another kernel of the file does (a cast of a shared array, inline
// asm, an intrinsic) neither refuses nor breaks it. A kernel calls no other kernel.
std::string without_other_kernels(std::string_view source, const std::string& name) {
  cuda_source::Prepared p;
  try {
    p = cuda_source::prepare(source);
  } catch (const cuda_source::SourceError&) {
    return std::string(source);  // recording_source() says why
  }
  std::vector<std::pair<uint32_t, uint32_t>> blank;
  for (const cuda_source::Function& f : p.fns)
    if (f.global && f.name != name && f.last > f.first + 1)
      blank.push_back({f.first + 1, f.last - 1});
  std::string out(source);
  uint32_t line = 1;
  for (size_t b = 0; b < out.size();) {
    size_t e = out.find('\n', b);
    if (e == std::string::npos) e = out.size();
    const size_t text = out.find_first_not_of(" \t", b);
    const bool directive = text < e && out[text] == '#';
    const bool continued = e > b && out[e - 1] == '\\';
    bool inside = false;
    for (const auto& [first, last] : blank) inside = inside || (first <= line && line <= last);
    if (inside && !directive && !continued)
      for (size_t i = b; i < e; ++i) out[i] = ' ';
    b = e + 1;
    ++line;
  }
  return out;
}

std::string cpu_driver(const std::string& kernel, size_t params) {
  std::string out =
      std::string("\n#line 1 \"bankviz-record-driver\"\nstatic void bv_call() {\n  ") + kernel +
      "(";
  for (size_t i = 0; i < params; ++i)
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

}  // namespace

std::string recording_source(std::string_view source, const std::string& kernel,
                             const std::string& file_name, std::string* why, RecordTarget target,
                             std::vector<RecordedArray>* declared) {
  if (source.size() > kMaxSourceBytes) {
    *why = file_name + " is larger than 1 MB";
    return {};
  }
  // The kernel's name goes into the driver's code (CPU: the call instantiates a template's
  // instance) or NVRTC's name expression (GPU): a C++ name, or ns::name, or a template's instance
  // whose arguments are integer literals and names alone (from_source.h kernel_function_name()).
  bool instance = false;
  const std::string name = kernel_function_name(kernel, &instance);
  if (name.empty()) {
    *why = '\'' + kernel.substr(0, 64) + "' is not a kernel's name";
    return {};
  }
  const std::string own = target == RecordTarget::Cpu ? without_other_kernels(source, name) : "";
  if (target == RecordTarget::Cpu) source = own;
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
  if (!instance)
    if (std::string u = template_line(t, *fn, kernel, target); !u.empty()) {
      *why = u;
      return {};
    }

  const std::vector<size_t> block_end = block_ends(t);
  std::vector<Decl> decls;
  Scopes arrays, scalars;
  uint32_t next = 0;
  if (!shared_declarations(source, t, p.fns, other_kernels, block_end, target, decls, arrays,
                           scalars, &next, declared, why))
    return {};
  // Pointers into shared memory: declarations rewritten into the headers' proxy. On the GPU the
  // other kernels are compiled as written.
  Pointers ptrs = pointer_declarations(
      t, arrays, p.fns, block_end, target,
      target == RecordTarget::Gpu ? other_kernels : std::vector<std::pair<uint32_t, uint32_t>>{},
      &next, declared);
  if (next > 256) {
    *why = "more than 256 __shared__ declarators and pointers, more than the GPU recording names";
    return {};
  }
  if (std::string u =
          pointer_use(t, arrays, ptrs.names, ptrs.allowed, ptrs.derefs,
                      target == RecordTarget::Gpu ? "the GPU recording" : "the CPU recording");
      !u.empty()) {
    *why = u;
    return {};
  }
  // Subscripts and members of a pointer are numbered and rewritten as an array's are.
  Scopes subscripted = arrays;
  for (const auto& [name, ranges] : ptrs.names)
    subscripted[name].insert(subscripted[name].end(), ranges.begin(), ranges.end());

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
  for (const size_t at_name : subscript_sites(t, subscripted))
    edits.push_back({at_name, at_name, ".bv_site(" + std::to_string(++site) + "u)"});
  for (MemberUse& m : member_uses(source, t, subscripted, scalars)) {
    edits.push_back({m.chain, m.chain, "", std::string::npos, true});
    edits.push_back({m.b, m.e, std::move(m.text), m.chain, false});
  }
  for (PointerEdit& pe : ptrs.edits) edits.push_back({pe.b, pe.e, std::move(pe.text)});
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
  return out + cpu_driver(kernel, fn->params.size());
}

std::string template_without_instance(std::string_view source, const std::string& kernel,
                                      RecordTarget target) {
  bool instance = false;
  const std::string name = kernel_function_name(kernel, &instance);
  if (name.empty() || instance || source.size() > kMaxSourceBytes) return {};
  cuda_source::Prepared p;
  try {
    p = cuda_source::prepare(source);
  } catch (const cuda_source::SourceError&) {
    return {};
  }
  for (const cuda_source::Function& f : p.fns)
    if (f.global && f.name == name) return template_line(raw_tokens(source), f, kernel, target);
  return {};
}

}  // namespace bankviz
