// layout.cpp: CuTe layouts, (coordinate) -> element offset, and their text.
//
// [SECTION] Swizzle
// [SECTION] Swizzle units and the TMA/GMMA modes
// [SECTION] Layout evaluation
// [SECTION] Text
// [SECTION] Parsing
// [SECTION] Aliases (broadcast layouts)
//
// CuTe's definitions (cute/layout.hpp, cute/stride.hpp, cute/int_tuple.hpp): a layout is a shape
// and a stride of the same profile; its function maps a coordinate to the inner product of the
// coordinate with the stride. An integer coordinate of a tuple mode is first split
// colexicographically (idx2crd): the first sub-mode varies fastest and the last takes what is
// left. A Swizzle composed on top (ComposedLayout<Swizzle, _0, Layout>) permutes the offset.

#include "bankviz/layout.h"
#include "bankviz/pasted.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace bankviz {

// [SECTION] Swizzle ==============================================================================

// CuTe swizzle.hpp, Swizzle<B,M,S>:
//   yyy_msk = ((1<<B)-1) << (M + max(0,S))      the B bits that select the permutation
//   zzz_msk = ((1<<B)-1) << (M - min(0,S))      the B bits that get XORed
//   off ^ shiftr(off & yyy_msk, S)              shiftr by a negative S shifts left
// With M=0 on element offsets and S=B, each row of 2^S elements gets its columns XORed with the
// row number: the classic conflict-free transpose layout without padding.
int64_t Swizzle::apply(int64_t off) const {
  if (bits <= 0 || bits > 30 || base < 0 || base > 30 || shift < -30 || shift > 30) return off;
  const uint64_t bit_msk = (uint64_t{1} << bits) - 1;
  const uint64_t yyy_msk = bit_msk << (base + std::max(0, shift));
  const uint64_t u = static_cast<uint64_t>(off);
  const uint64_t moved = shift >= 0 ? (u & yyy_msk) >> shift : (u & yyy_msk) << -shift;
  return static_cast<int64_t>(u ^ moved);
}

std::string Swizzle::text() const {
  return "Swizzle<" + std::to_string(bits) + "," + std::to_string(base) + "," +
         std::to_string(shift) + ">";
}

// [SECTION] Swizzle units and the TMA/GMMA modes =================================================

namespace {

int log2_exact(int v) {
  int k = 0;
  while ((1 << k) < v) ++k;
  return k;
}

std::string sw_text(const Swizzle& z) {
  return "Sw<" + std::to_string(z.bits) + "," + std::to_string(z.base) + "," +
         std::to_string(z.shift) + ">";
}

}  // namespace

const std::vector<NamedSwizzle>& named_swizzles() {
  // CUTLASS cute/atom/mma_traits_sm90_gmma.hpp (Layout_K_SW32/64/128_Atom) and the TMA
  // CU_TENSOR_MAP_SWIZZLE_32B/64B/128B modes: 16-byte chunks (M=4 on bytes) XORed with the bits
  // of the 128-byte row number (S=3), over 2, 4 or 8 chunks (B=1, 2, 3).
  static const std::vector<NamedSwizzle> kNamed = {
      {"SW32", {1, 4, 3}},
      {"SW64", {2, 4, 3}},
      {"SW128", {3, 4, 3}},
  };
  return kNamed;
}

// Byte offset = element offset * 2^k, so bit p of the byte offset is bit p-k of the element
// offset: the byte swizzle <B,M,S> is the element swizzle <B,M-k,S>.
std::optional<Swizzle> swizzle_bytes_to_elements(const Swizzle& on_bytes, int elem_bytes) {
  if (on_bytes.identity()) return Swizzle{};
  const int k = log2_exact(elem_bytes);
  const int low = on_bytes.base - std::min(0, on_bytes.shift);  // the lowest bit it touches
  if (on_bytes.base < k || low < k) return std::nullopt;
  return Swizzle{on_bytes.bits, on_bytes.base - k, on_bytes.shift};
}

Swizzle swizzle_elements_to_bytes(const Swizzle& on_elements, int elem_bytes) {
  if (on_elements.identity()) return {};
  return {on_elements.bits, on_elements.base + log2_exact(elem_bytes), on_elements.shift};
}

std::string swizzle_units_text(const Swizzle& on_elements, int elem_bytes) {
  if (on_elements.identity()) return "no swizzle";
  const Swizzle b = swizzle_elements_to_bytes(on_elements, elem_bytes);
  std::string out = sw_text(on_elements) + " on " + std::to_string(elem_bytes) +
                    "-byte elements = " + sw_text(b) + " on bytes";
  for (const NamedSwizzle& n : named_swizzles())
    if (n.bytes == b) out += " (" + std::string(n.name) + ")";
  return out;
}

// [SECTION] Layout evaluation ====================================================================

int64_t LayoutMode::size() const {
  if (leaf()) return shape;
  int64_t n = 1;
  for (const LayoutMode& m : modes) n *= m.size();
  return n;
}

namespace {

void collect_leaves(const LayoutMode& m, std::vector<LayoutLeaf>& out) {
  if (m.leaf()) {
    out.push_back({m.shape, m.stride});
    return;
  }
  for (const LayoutMode& k : m.modes) collect_leaves(k, out);
}

}  // namespace

void CuteLayout::flatten() {
  leaves.assign(modes.size(), {});
  for (size_t i = 0; i < modes.size(); ++i) collect_leaves(modes[i], leaves[i]);
  inverse.reset();
  constexpr int64_t kMaxInverse = int64_t{1} << 20;
  if (modes.empty() || min_offset() < 0 || cosize() > kMaxInverse || size() > kMaxInverse) return;
  auto inv = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(cosize()), -1);
  const std::vector<int64_t> ext = extents();
  std::vector<int64_t> sub(ext.size());
  for (int64_t e = 0; e < size(); ++e) {
    int64_t rest = e;
    for (size_t d = ext.size(); d-- > 0;) sub[d] = rest % ext[d], rest /= ext[d];
    int32_t& slot = (*inv)[static_cast<size_t>(offset(sub))];
    if (slot < 0) slot = static_cast<int32_t>(e);
  }
  inverse = std::move(inv);
}

int64_t CuteLayout::element_at(int64_t off) const {
  if (!inverse || off < 0 || off >= static_cast<int64_t>(inverse->size())) return -1;
  return (*inverse)[static_cast<size_t>(off)];
}

std::vector<int64_t> CuteLayout::extents() const {
  std::vector<int64_t> e;
  for (const LayoutMode& m : modes) e.push_back(m.size());
  return e;
}

int64_t CuteLayout::size() const {
  int64_t n = 1;
  for (const LayoutMode& m : modes) n *= m.size();
  return n;
}

// i -> (i % s0, i / s0 % s1, ..., i / (s0 * ... * s_{n-2})) -> sum of coordinate * stride.
int64_t CuteLayout::mode_offset(size_t m, int64_t i) const {
  const std::vector<LayoutLeaf>& l = leaves[m];
  int64_t off = 0;
  for (size_t k = 0; k < l.size(); ++k) {
    if (k + 1 == l.size()) {
      off += i * l[k].stride;
    } else {
      off += (i % l[k].shape) * l[k].stride;
      i /= l[k].shape;
    }
  }
  return off;
}

int64_t CuteLayout::offset(const std::vector<int64_t>& subscripts) const {
  int64_t off = 0;
  for (size_t m = 0; m < subscripts.size() && m < leaves.size(); ++m)
    off += mode_offset(m, subscripts[m]);
  return off;
}

int64_t CuteLayout::min_offset() const {
  int64_t lo = 0;
  for (const auto& l : leaves)
    for (const LayoutLeaf& x : l) lo += std::min<int64_t>(0, (x.shape - 1) * x.stride);
  return lo;
}

int64_t CuteLayout::cosize() const {
  int64_t hi = 0;
  for (const auto& l : leaves)
    for (const LayoutLeaf& x : l) hi += std::max<int64_t>(0, (x.shape - 1) * x.stride);
  return hi + 1;
}

// [SECTION] Text =================================================================================

namespace {

void mode_text(const LayoutMode& m, bool stride, std::string& out) {
  if (m.leaf()) {
    out += std::to_string(stride ? m.stride : m.shape);
    return;
  }
  out += '(';
  for (size_t i = 0; i < m.modes.size(); ++i) {
    if (i) out += ',';
    mode_text(m.modes[i], stride, out);
  }
  out += ')';
}

std::string profile_text(const std::vector<LayoutMode>& modes, bool stride) {
  if (modes.size() == 1 && modes[0].leaf())
    return std::to_string(stride ? modes[0].stride : modes[0].shape);
  std::string out = "(";
  for (size_t i = 0; i < modes.size(); ++i) {
    if (i) out += ',';
    mode_text(modes[i], stride, out);
  }
  return out + ')';
}

// i -> its natural coordinate in mode m, as CuTe's idx2crd splits it: "(5,1)".
void natural_text(const LayoutMode& m, int64_t i, std::string& out) {
  if (m.leaf()) {
    out += std::to_string(i);
    return;
  }
  out += '(';
  for (size_t k = 0; k < m.modes.size(); ++k) {
    if (k) out += ',';
    if (k + 1 == m.modes.size()) {
      natural_text(m.modes[k], i, out);
    } else {
      const int64_t n = m.modes[k].size();
      natural_text(m.modes[k], i % n, out);
      i /= n;
    }
  }
  out += ')';
}

}  // namespace

std::string CuteLayout::text() const {
  return profile_text(modes, false) + ':' + profile_text(modes, true);
}

std::string layout_text(const CuteLayout& layout, const Swizzle& swizzle, int address_elem_bytes) {
  if (swizzle.identity()) return layout.text();
  if (address_elem_bytes > 0)
    return sw_text(swizzle_elements_to_bytes(swizzle, address_elem_bytes)) + " o smem_ptr[" +
           std::to_string(8 * address_elem_bytes) + "b](unset) o " + layout.text();
  return sw_text(swizzle) + " o " + layout.text();
}

std::string coordinate_text(const CuteLayout& layout, const std::vector<int64_t>& subscripts) {
  std::string plain = "(", natural = "(";
  bool nested = false;
  for (size_t m = 0; m < subscripts.size() && m < layout.modes.size(); ++m) {
    if (m) plain += ',', natural += ',';
    plain += std::to_string(subscripts[m]);
    natural_text(layout.modes[m], subscripts[m], natural);
    nested |= !layout.modes[m].leaf();
  }
  plain += ')', natural += ')';
  return nested ? plain + " = " + natural : plain;
}

// [SECTION] Parsing ==============================================================================

namespace {

struct Tuple {
  bool leaf = true;
  int64_t value = 0;
  std::vector<Tuple> kids;
};

class LayoutParser {
 public:
  explicit LayoutParser(std::string_view s) : s_(s) {}

  LayoutParse run(int elem_bytes) {
    LayoutParse r;
    if (s_.size() > kMaxLayoutText) {
      r.error = "the layout text has " + std::to_string(s_.size()) + " characters, more than " +
                std::to_string(kMaxLayoutText);
      return r;
    }
    ws();
    if (at_end()) return fail_with(r, "empty: expected a layout like (8,64):(64,1)");
    if (peek() == 'S') {
      const size_t start = i_;
      Swizzle raw;
      Unit unit = kUnsaid;
      if (!swizzle(raw, unit)) return fail_with(r);
      const size_t end = i_;
      ws();
      if (!eat('o')) {
        const std::string pasted = non_ascii_hint(s_.substr(i_, 4));
        return fail_with(r, "expected 'o' (composition) after the swizzle" +
                                (pasted.empty() ? std::string() : ", not " + pasted));
      }
      ws();
      // Through a swizzle pointer, or a TMA mode by name: the swizzle acts on the address.
      r.on_address = named_;
      if (smem_ptr()) {
        r.on_address = true;
        if (unit == kUnsaid) unit = kBytes;
      }
      if (!error_.empty()) return fail_with(r);
      if (unit != kBytes) {
        r.swizzle = raw;
      } else {
        const size_t resume = i_;
        const std::string what = std::string(s_.substr(start, end - start)) + " (on bytes)";
        if (!to_elements(raw, elem_bytes, start, what, r.swizzle)) return fail_with(r);
        i_ = resume;
      }
      // CuTe prints ComposedLayout with its offset: "Sw<3,4,3> o _0 o (8,64):(64,1)".
      const size_t save = i_;
      eat('_');
      if (eat('0')) {
        ws();
        if (eat('o')) {
          ws();
        } else {
          i_ = save;
        }
      } else {
        i_ = save;
      }
    }
    CuteLayout l;
    if (!layout(l)) return fail_with(r);
    ws();
    if (!at_end()) {
      const std::string pasted = non_ascii_hint(s_.substr(i_, 4));
      return fail_with(
          r, "unexpected text after the layout" + (pasted.empty() ? std::string() : ": " + pasted));
    }
    r.layout = std::move(l);
    return r;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
  bool named_ = false;  // the swizzle was a TMA mode by name (SW32, SW64, SW128)

  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  void ws() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool eat_word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  bool fail(const std::string& msg) {
    if (error_.empty()) error_ = "column " + std::to_string(i_ + 1) + ": " + msg;
    return false;
  }
  LayoutParse& fail_with(LayoutParse& r, const std::string& msg = {}) {
    if (!msg.empty()) fail(msg);
    r.error = error_;
    r.layout.reset();
    return r;
  }

  // [_][-]digits, as CuTe prints static (_64) and dynamic (64) integers.
  bool integer(int64_t& v, bool allow_negative) {
    ws();
    eat('_');
    const bool neg = allow_negative && eat('-');
    if (!std::isdigit(static_cast<unsigned char>(peek())))
      return fail(allow_negative ? "expected an integer" : "expected a positive integer or '('");
    v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      v = v * 10 + (s_[i_++] - '0');
      if (v > (int64_t{1} << 40)) return fail("integer too large");
    }
    if (neg) v = -v;
    return true;
  }

  bool tuple(Tuple& t, int depth, bool stride) {
    ws();
    if (!eat('(')) {
      t.leaf = true;
      return integer(t.value, stride);
    }
    if (depth > kMaxLayoutDepth)
      return fail("modes nest deeper than " + std::to_string(kMaxLayoutDepth) + " levels");
    t.leaf = false;
    for (;;) {
      Tuple& k = t.kids.emplace_back();
      if (!tuple(k, depth + 1, stride)) return false;
      ws();
      if (eat(')')) return true;
      if (!eat(',')) return fail("expected ',' or ')'");
    }
  }

  // Sw<B,M,S>, Swizzle<B,M,S> (elements unless a swizzle pointer follows), Sw<B,M,S,bytes>,
  // Sw<B,M,S,elements>, SW32 / SW64 / SW128 (bytes). Gives the swizzle as written and its unit.
  enum Unit { kUnsaid, kElements, kBytes };
  bool swizzle(Swizzle& out, Unit& unit) {
    for (const NamedSwizzle& n : named_swizzles()) {
      const size_t save = i_;
      if (eat_word(n.name) && !std::isalnum(static_cast<unsigned char>(peek()))) {
        out = n.bytes, unit = kBytes, named_ = true;
        return true;
      }
      i_ = save;
    }
    if (!eat_word("Swizzle<") && !eat_word("Sw<"))
      return fail("expected a swizzle: Sw<B,M,S>, Sw<B,M,S,bytes>, SW32, SW64 or SW128");
    int64_t v[3] = {};
    for (int k = 0; k < 3; ++k) {
      if (k) {
        ws();
        if (!eat(',')) return fail("expected ',' (Sw<B,M,S>)");
      }
      if (!integer(v[k], k == 2)) return false;
      if (v[k] > 30 || v[k] < -30) return fail("swizzle parameters are small (B, M, |S| <= 16)");
    }
    out = Swizzle{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2])};
    unit = kUnsaid;
    ws();
    if (eat(',')) {
      ws();
      if (eat_word("bytes")) {
        unit = kBytes;
      } else if (eat_word("elements") || eat_word("elems")) {
        unit = kElements;
      } else {
        return fail("expected the unit: bytes or elements");
      }
      ws();
    }
    if (!eat('>')) return fail("expected '>'");
    return true;
  }

  // CuTe prints a swizzle applied through a shared-memory pointer (GMMA atoms, swizzle_ptr.hpp)
  // as "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)": that swizzle acts on the pointer,
  // i.e. on byte addresses. True when one was skipped.
  bool smem_ptr() {
    if (!eat_word("smem_ptr[")) return false;
    while (!at_end() && peek() != ']') ++i_;
    eat(']');
    ws();
    if (eat('(')) {
      while (!at_end() && peek() != ')') ++i_;
      eat(')');
    }
    ws();
    if (!eat('o')) return fail("expected 'o' after smem_ptr[...]");
    ws();
    return true;
  }

  bool to_elements(const Swizzle& on_bytes, int elem_bytes, size_t start, const std::string& what,
                   Swizzle& out) {
    std::optional<Swizzle> e = swizzle_bytes_to_elements(on_bytes, elem_bytes);
    if (!e) {
      i_ = start;
      return fail(what + " moves bits below one " + std::to_string(elem_bytes) +
                  "-byte element (M must be at least " + std::to_string(log2_exact(elem_bytes)) +
                  "): no element swizzle does that");
    }
    out = *e;
    return true;
  }

  bool to_modes(const Tuple& shape, const Tuple* stride, LayoutMode& m) {
    if (shape.leaf) {
      if (stride && !stride->leaf)
        return fail("the stride is a tuple where the shape has the integer " +
                    std::to_string(shape.value) + " (shape and stride must have one profile)");
      if (shape.value < 1)
        return fail("every shape is at least 1, got " + std::to_string(shape.value));
      m.shape = shape.value;
      m.stride = stride ? stride->value : 0;
      return true;
    }
    if (stride && (stride->leaf || stride->kids.size() != shape.kids.size()))
      return fail("the stride's profile differs from the shape's (a tuple of " +
                  std::to_string(shape.kids.size()) + " in the shape)");
    m.modes.resize(shape.kids.size());
    for (size_t k = 0; k < shape.kids.size(); ++k)
      if (!to_modes(shape.kids[k], stride ? &stride->kids[k] : nullptr, m.modes[k])) return false;
    return true;
  }

  bool layout(CuteLayout& l) {
    Tuple shape, stride;
    if (!tuple(shape, 0, false)) return false;
    ws();
    const bool has_stride = eat(':');
    if (has_stride && !tuple(stride, 0, true)) return false;
    const std::vector<Tuple> top = shape.leaf ? std::vector<Tuple>{shape} : shape.kids;
    const std::vector<Tuple> top_stride = !has_stride   ? std::vector<Tuple>{}
                                          : stride.leaf ? std::vector<Tuple>{stride}
                                                        : stride.kids;
    if (has_stride && (shape.leaf != stride.leaf || top.size() != top_stride.size()))
      return fail("the stride's profile differs from the shape's: " + std::to_string(top.size()) +
                  " mode(s) in the shape, " + std::to_string(stride.leaf ? 1 : top_stride.size()) +
                  " in the stride");
    if (top.empty() || top.size() > 3)
      return fail("a tile takes 1 to 3 subscripts: the layout has " + std::to_string(top.size()) +
                  " top-level modes (group modes with parentheses)");
    l.modes.resize(top.size());
    for (size_t m = 0; m < top.size(); ++m)
      if (!to_modes(top[m], has_stride ? &top_stride[m] : nullptr, l.modes[m])) return false;
    l.flatten();
    size_t leaves = 0;
    int64_t size = 1;
    for (const auto& ls : l.leaves) {
      leaves += ls.size();
      for (const LayoutLeaf& x : ls) {
        if (x.stride > kMaxLayoutStride || x.stride < -kMaxLayoutStride)
          return fail("stride " + std::to_string(x.stride) + " is beyond +-2^24");
        size = std::min<int64_t>(size * std::min<int64_t>(x.shape, int64_t{1} << 30),
                                 int64_t{1} << 40);
      }
    }
    if (leaves > static_cast<size_t>(kMaxLayoutLeaves))
      return fail("the layout has " + std::to_string(leaves) + " integer modes, more than " +
                  std::to_string(kMaxLayoutLeaves));
    constexpr int64_t kMaxCoordinates = 227 * 1024;
    if (size > kMaxCoordinates)
      return fail("the layout has " + std::to_string(size) + " coordinates, more than " +
                  std::to_string(kMaxCoordinates) + " (227 KB of 1-byte elements)");
    if (!has_stride) {
      // CuTe's default stride: compact, colexicographic (LayoutLeft) over all leaves in order.
      int64_t s = 1;
      auto assign = [&](auto&& self, LayoutMode& m) -> void {
        if (m.leaf()) {
          m.stride = s;
          s *= m.shape;
          return;
        }
        for (LayoutMode& k : m.modes) self(self, k);
      };
      for (LayoutMode& m : l.modes) assign(assign, m);
      l.flatten();
    }
    return true;
  }
};

}  // namespace

LayoutParse parse_layout(std::string_view text, int elem_bytes) {
  return LayoutParser(text).run(elem_bytes);
}

// [SECTION] Aliases (broadcast layouts) ==========================================================

std::optional<LayoutAlias> first_alias(const CuteLayout& layout) {
  if (layout.min_offset() < 0 || layout.cosize() > (int64_t{1} << 24)) return std::nullopt;
  const std::vector<int64_t> ext = layout.extents();
  const int64_t n = layout.size();
  std::vector<int32_t> first(static_cast<size_t>(layout.cosize()), -1);
  std::vector<int64_t> sub(ext.size());
  auto subscripts = [&](int64_t e) {
    for (size_t d = ext.size(); d-- > 0;) sub[d] = e % ext[d], e /= ext[d];
    return sub;
  };
  for (int64_t e = 0; e < n; ++e) {
    const int64_t off = layout.offset(subscripts(e));
    int32_t& f = first[static_cast<size_t>(off)];
    if (f >= 0) return LayoutAlias{subscripts(f), subscripts(e), off};
    f = static_cast<int32_t>(e);
  }
  return std::nullopt;
}

}  // namespace bankviz
