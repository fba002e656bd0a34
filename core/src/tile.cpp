// tile.cpp: shared-memory array declarations and where their elements live.
//
// [SECTION] TileDecl geometry
// [SECTION] TileDecl declaration text and checks
//
// (i0, i1, i2) -> element (row-major over the padded extents)
//   -> storage offset (the element, or a CuTe layout of the subscripts: layout.h)
//   -> CuTe swizzle of the storage offset -> byte offset = base + swizzled * elem_bytes
// Banks are then chosen from the byte offset by the architecture (arch.h), not here.

#include "bankviz/tile.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

#include "bankviz/expr.h"

namespace bankviz {

namespace {

// Hopper's largest shared-memory allocation for one block (228 KB per SM, 1 KB reserved by the
// system per block): 227 KB, opted into with cudaFuncAttributeMaxDynamicSharedMemorySize.
constexpr int64_t kMaxBlockSharedBytes = 227 * 1024;

}  // namespace

// [SECTION] TileDecl geometry ====================================================================

namespace {

int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::numeric_limits<int64_t>::max();
  return r;
}

}  // namespace

const ElemType& TileDecl::type() const {
  const ElemType* t = find_elem_type(elem);
  // A stand-in when elem is unknown, so geometry never dereferences nothing; check() reports it.
  return t ? *t : *find_elem_type("int");
}

int TileDecl::elem_bytes() const {
  return type().bytes;
}

std::vector<int64_t> TileDecl::padded_dims() const {
  std::vector<int64_t> d = dims;
  if (!d.empty()) d.back() += pad;
  return d;
}

int64_t TileDecl::elements() const {
  if (dims.empty()) return 0;
  int64_t n = 1;
  for (int64_t d : padded_dims()) n = saturating_mul(n, std::max<int64_t>(d, 0));
  return n;
}

int64_t TileDecl::storage_elements() const {
  if (cute) return cute->cosize();
  return elements();
}

int64_t TileDecl::bytes() const {
  return saturating_mul(storage_elements(), elem_bytes());
}

// (i0, i1, i2) -> i0 * (D1 * (D2+pad)) + i1 * (D2+pad) + i2, over the padded extents.
std::optional<int64_t> TileDecl::linear(const std::vector<int64_t>& subscripts) const {
  const std::vector<int64_t> d = padded_dims();
  if (subscripts.size() != d.size() || d.empty()) return std::nullopt;
  int64_t off = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    if (subscripts[i] < 0 || subscripts[i] >= d[i]) return std::nullopt;
    off = saturating_mul(off, d[i]) + subscripts[i];
  }
  return off;
}

// element -> (i0, i1, i2) row-major over the extents -> the layout's inner product.
int64_t TileLayout::storage(int64_t linear_elem) const {
  if (!cute) return linear_elem;
  int64_t off = 0, rest = linear_elem;
  for (size_t d = extents.size(); d-- > 0;) {
    const int64_t i = d == 0 ? rest : rest % extents[d];
    rest = d == 0 ? 0 : rest / extents[d];
    off += cute->mode_offset(d, i);
  }
  return off;
}

int64_t TileLayout::swizzled_offset(int64_t off) const {
  if (!swizzle_on_address || elem_bytes <= 0) return swizzle.apply(off);
  const int64_t at = base / elem_bytes;  // exact: check() keeps base a multiple of elem_bytes
  return swizzle.apply(at + off) - at;
}

int64_t TileLayout::byte_offset(int64_t linear_elem) const {
  return base + saturating_mul(swizzled_offset(storage(linear_elem)), elem_bytes);
}

TileLayout TileDecl::layout() const {
  TileLayout l{base, elem_bytes(), swizzle, swizzle_on_address, cute, {}};
  if (cute) l.extents = cute->extents();
  return l;
}

// slot -> swizzled offset -> (un)swizzled offset (a CuTe swizzle is its own inverse) -> the
// element the layout puts there.
int64_t TileDecl::element_at_slot(int64_t slot) const {
  const int64_t off = swizzled_offset(slot);
  return cute ? cute->element_at(off) : off;
}

int64_t TileDecl::storage(int64_t linear_elem) const {
  return layout().storage(linear_elem);
}

int64_t TileDecl::byte_offset(int64_t linear_elem) const {
  return layout().byte_offset(linear_elem);
}

int64_t TileDecl::swizzled_offset(int64_t off) const {
  TileLayout l;
  l.base = base, l.elem_bytes = elem_bytes(), l.swizzle = swizzle;
  l.swizzle_on_address = swizzle_on_address;
  return l.swizzled_offset(off);
}

// element offset -> (i0, i1, i2) in the padded array; the outermost index is not bounded.
std::vector<int64_t> TileDecl::unlinear(int64_t linear_elem) const {
  const std::vector<int64_t> d = padded_dims();
  std::vector<int64_t> out(d.size(), 0);
  int64_t rest = linear_elem;
  for (size_t i = d.size(); i-- > 1;) {
    const int64_t extent = std::max<int64_t>(d[i], 1);
    int64_t q = rest / extent, r = rest % extent;
    if (r < 0) r += extent, q -= 1;  // floor division, so negative offsets stay consistent
    out[i] = r;
    rest = q;
  }
  if (!out.empty()) out[0] = rest;
  return out;
}

std::string TileDecl::element_name(int64_t linear_elem) const {
  std::string out = name;
  if (cute) {
    // CuTe's call syntax for a coordinate: tile(3,31).
    const std::vector<int64_t> sub = unlinear(linear_elem);
    out += '(';
    for (size_t i = 0; i < sub.size(); ++i) {
      if (i) out += ',';  // not ("," + string): GCC 12 -O3 warns -Wrestrict falsely on it
      out += std::to_string(sub[i]);
    }
    return out + ')';
  }
  for (int64_t v : unlinear(linear_elem)) out += '[' + std::to_string(v) + ']';
  return out;
}

bool TileDecl::is_padding(int64_t linear_elem) const {
  if (pad <= 0 || dims.empty()) return false;
  const std::vector<int64_t> idx = unlinear(linear_elem);
  return idx.back() >= dims.back();
}

// [SECTION] TileDecl declaration text and checks =================================================

std::string TileDecl::set_layout(std::string_view text) {
  LayoutParse p = parse_layout(text, elem_bytes());
  if (!p.layout) return p.error;
  dims = p.layout->extents();
  pad = 0;
  swizzle = p.swizzle;
  swizzle_on_address = p.on_address && !p.swizzle.identity();
  cute = std::move(p.layout);
  return {};
}

std::string TileDecl::layout_text() const {
  return cute ? bankviz::layout_text(*cute, swizzle, swizzle_on_address ? elem_bytes() : 0)
              : std::string();
}

std::string TileDecl::layout_note() const {
  if (!cute || !check().empty()) return {};
  const std::optional<LayoutAlias> a = first_alias(*cute);
  if (!a) return {};
  return "layout: not injective (a broadcast): " + name + coordinate_text(*cute, a->a) + " and " +
         name + coordinate_text(*cute, a->b) + " share element offset " +
         std::to_string(a->offset) + "; a store to one is a store to the other";
}

std::string TileDecl::declaration() const {
  const std::string type_name = normalize_spaces(elem);
  if (dynamic) return "extern __shared__ " + type_name + " " + name + "[];";
  std::string out = "__shared__ " + type_name + " " + name;
  // A CuTe layout: flat over its image, indexed through the layout's function (codegen.h).
  if (cute) return out + "[" + std::to_string(storage_elements()) + "];";
  if (!swizzle.identity()) {
    // Swizzled: declared flat and indexed through the swizzle function, as CuTe code does.
    std::string n;
    for (size_t i = 0; i < dims.size(); ++i) {
      std::string d = std::to_string(dims[i]);
      if (i + 1 == dims.size() && pad > 0)
        d = dims.size() > 1 ? "(" + d + " + " + std::to_string(pad) + ")"
                            : d + " + " + std::to_string(pad);
      n += (i ? " * " : "") + d;
    }
    return out + "[" + n + "];";
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    out += '[';
    out += std::to_string(dims[i]);
    if (i + 1 == dims.size() && pad > 0) out += " + " + std::to_string(pad);
    out += "]";
  }
  return out + ";";
}

// A CuTe layout's own checks, before the byte count (its cosize) is computed.
std::string TileDecl::check_cute() const {
  const std::string lt = "layout '" + cute->text() + "'";
  if (cute->modes.empty() || cute->modes.size() > 3 || cute->leaves.size() != cute->modes.size())
    return "layout: a tile's layout has 1 to 3 top-level modes";
  if (dynamic)
    return "dynamic: a CuTe-laid-out tile is a static array declared flat over the layout's "
           "image; use dynamic only without a layout";
  if (pad != 0)
    return "pad: a CuTe layout has no padding of its own: write it into the strides, e.g. "
           "(32,32):(33,1)";
  if (dims != cute->extents())
    return "dims: a tile with a " + lt + " has the layout's extents as dims";
  if (cute->min_offset() < 0)
    return "layout: " + lt + " reaches offset " + std::to_string(cute->min_offset()) +
           " (negative strides): the image must start at offset 0";
  return {};
}

std::string TileDecl::check() const {
  if (!is_valid_name(name)) return "name: '" + name + "' is not a valid C identifier for an array";
  const ElemType* t = find_elem_type(elem);
  if (!t) {
    std::string known;
    for (const ElemType& e : elem_types()) {
      if (e.name.find(' ') != std::string_view::npos || e.name.starts_with("_")) continue;
      known += (known.empty() ? "" : ", ") + std::string(e.name);
    }
    return "elem: unknown element type '" + elem + "' (known: " + known + ")";
  }
  if (dims.empty() || dims.size() > 3)
    return "dims: a tile has 1 to 3 dimensions, got " + std::to_string(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] <= 0)
      return "dims[" + std::to_string(i) + "]: every extent must be positive, got " +
             std::to_string(dims[i]);
  // Bounds before any arithmetic: an extent or a padding past what fits in a block's shared
  // memory is an error, never an overflowing product (undefined behaviour).
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] > kMaxBlockSharedBytes)
      return "dims[" + std::to_string(i) + "]: " + std::to_string(dims[i]) +
             " elements cannot fit in the 227 KB one block may use";
  if (pad < 0) return "pad: padding must be 0 or more elements, got " + std::to_string(pad);
  if (pad > kMaxBlockSharedBytes)
    return "pad: " + std::to_string(pad) + " elements cannot fit in the 227 KB one block may use";
  if (cute) {
    if (std::string e = check_cute(); !e.empty()) return e;
  }
  if (dynamic && dims.size() != 1)
    return "dynamic: an extern __shared__ array is 1-D (declared 'T " + name +
           "[]'), but dims has " + std::to_string(dims.size()) + " extents";
  if (base < 0) return "base: the byte offset must be 0 or more, got " + std::to_string(base);
  if (base % t->bytes != 0)
    return "base: byte offset " + std::to_string(base) + " is not a multiple of " +
           std::to_string(t->bytes) + " (the size of " + std::string(t->name) +
           "); CUDA aligns every shared array to its element type";
  const int64_t total = saturating_mul(storage_elements(), t->bytes);  // a layout: its cosize
  if (total > kMaxBlockSharedBytes || base > kMaxBlockSharedBytes - total)
    return "dims: the tile needs " + std::to_string(total) + " bytes at offset " +
           std::to_string(base) + ", more than the " + std::to_string(kMaxBlockSharedBytes) +
           " bytes (227 KB) one block may use on Hopper";
  if (swizzle.bits < 0 || swizzle.bits > 16)
    return "swizzle: " + swizzle.text() + " needs B (bits) in 0..16";
  if (!swizzle.identity()) {
    if (swizzle.base < 0 || swizzle.base > 16)
      return "swizzle: " + swizzle.text() + " needs M (base) in 0..16";
    if (swizzle.shift < -16 || swizzle.shift > 16)  // before negating it (INT_MIN)
      return "swizzle: " + swizzle.text() + " needs |S| (shift) in B..16";
    const int mag = swizzle.shift < 0 ? -swizzle.shift : swizzle.shift;
    if (mag < swizzle.bits || mag > 16)
      return "swizzle: " + swizzle.text() +
             " needs |S| (shift) in B..16, so the bits read and the bits flipped do not overlap";
    // The swizzle permutes aligned blocks of 2^(B+M+|S|) elements (of the address, when it acts
    // on one: the base enters). A partial block at either end may send elements past the array:
    // find the first such element.
    const int64_t n = storage_elements();
    const int64_t block = int64_t{1} << (swizzle.bits + swizzle.base + mag);
    const int64_t at = swizzle_on_address ? base / t->bytes : 0;
    auto first_out = [&](int64_t from, int64_t to) -> std::string {
      for (int64_t i = from; i < to; ++i) {
        const int64_t moved = swizzled_offset(i);
        if (moved < 0 || moved >= n)
          return "swizzle: " + swizzle.text() + (swizzle_on_address ? " on the address" : "") +
                 " moves element " + std::to_string(i) + " to " + std::to_string(moved) +
                 (moved < 0 ? ", before the start of the " : ", past the end of the ") +
                 std::to_string(n) + "-element array (" +
                 (swizzle_on_address ? "make the base and the element count multiples of "
                                     : "make the element count a multiple of ") +
                 std::to_string(block) + (swizzle_on_address ? " elements)" : ")");
      }
      return {};
    };
    const int64_t head = std::min(n, (block - at % block) % block);  // before the first block
    const int64_t tail_from = std::max(head, n - (at + n) % block);  // the last, partial one
    if (std::string e = first_out(0, head); !e.empty()) return e;
    if (std::string e = first_out(tail_from, n); !e.empty()) return e;
  }
  return {};
}

}  // namespace bankviz
