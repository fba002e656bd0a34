// layout.h: CuTe layouts as a tile's map, (coordinate) -> element offset, and the text that names
// them, as CuTe prints them:
//
//   (8,64):(64,1)                      8 x 64 row-major: (i,j) -> 64*i + j
//   ((8,4),64):((64,512),1)            mode 0 is nested: i -> (i%8, i/8) -> 64*(i%8) + 512*(i/8)
//   Sw<3,3,3> o (8,64):(64,1)          a swizzle composed on top, on the element offset (CuTe)
//   Sw<3,4,3,bytes> o (8,64):(64,1)    the same swizzle written on byte offsets (half: 2 bytes)
//   SW128 o (8,64):(64,1)              TMA/GMMA's 128-byte swizzle mode = Sw<3,4,3,bytes>
//
// Semantics are CuTe's (cute/layout.hpp, cute/int_tuple.hpp, cute/swizzle.hpp): the tile takes one
// subscript per top-level mode; a nested mode's one integer is split colexicographically (its
// first sub-mode varies fastest, the last takes the quotient); the offset is the inner product of
// the split coordinate with the strides; a composed swizzle then permutes that offset. The tile
// is declared flat over the layout's image, cosize = max offset + 1 elements.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankviz {

// CuTe's Swizzle<B,M,S> on element offsets: the B bits at position M+S are XORed into the B bits
// at position M.  off -> off ^ ((off & (((1<<B)-1) << (M+S))) >> S).  B=0 is the identity.
struct Swizzle {
  int bits = 0, base = 0, shift = 0;
  int64_t apply(int64_t off) const;
  bool identity() const { return bits == 0; }
  std::string text() const;  // "Swizzle<3,0,3>"
  friend bool operator==(const Swizzle&, const Swizzle&) = default;
};

// A mode of a layout: a leaf (shape, stride) or a tuple of modes (nested).
struct LayoutMode {
  int64_t shape = 1, stride = 0;  // a leaf's; a tuple's shape is the product of its leaves'
  std::vector<LayoutMode> modes;  // non-empty: a nested mode
  bool leaf() const { return modes.empty(); }
  int64_t size() const;  // product of the leaves' shapes
  friend bool operator==(const LayoutMode&, const LayoutMode&) = default;
};

// One leaf in colexicographic order: what the evaluation walks.
struct LayoutLeaf {
  int64_t shape = 1, stride = 0;
  friend bool operator==(const LayoutLeaf&, const LayoutLeaf&) = default;
};

struct CuteLayout {
  std::vector<LayoutMode> modes;  // top-level modes: the tile's subscripts, 1 to 3
  // Per top-level mode, its leaves in colexicographic order (derived from modes by flatten()).
  std::vector<std::vector<LayoutLeaf>> leaves;
  std::shared_ptr<const std::vector<int32_t>> inverse;

  // Fills leaves from modes, and the inverse (offset -> first coordinate, row-major over the
  // extents; -1 for a hole), shared between copies, when the image is small (cosize <= 2^20).
  void flatten();
  std::vector<int64_t> extents() const;  // per top-level mode its size: the tile's dims
  int64_t size() const;                  // product of extents (the coordinates)
  // (subscript of top-level mode m) -> its share of the offset: i is split colexicographically
  // over the mode's leaves (the last leaf takes the quotient, as CuTe's idx2crd does).
  int64_t mode_offset(size_t m, int64_t i) const;
  // (subscripts) -> element offset, before any swizzle. Subscripts must be in range.
  int64_t offset(const std::vector<int64_t>& subscripts) const;
  int64_t min_offset() const;                // the smallest offset (negative strides make it < 0)
  int64_t cosize() const;                    // max offset + 1: the elements the flat array needs
  int64_t element_at(int64_t offset) const;  // the inverse above; -1 without one
  std::string text() const;                  // "((8,4),64):((64,512),1)"
  friend bool operator==(const CuteLayout& a, const CuteLayout& b) { return a.modes == b.modes; }
};

// Limits on what a layout text may hold, so parsing and evaluation stay small.
inline constexpr size_t kMaxLayoutText = 512;  // characters
inline constexpr int kMaxLayoutDepth = 4;      // parentheses inside the top-level tuple
inline constexpr int kMaxLayoutLeaves = 16;
inline constexpr int64_t kMaxLayoutStride = int64_t{1} << 24;

// The units a swizzle is written in. CuTe applies Swizzle<B,M,S> to the element offset; TMA and
// GMMA (and many write-ups) state it on byte offsets: on an element of 2^k bytes the byte
// swizzle <B,M,S> is the element swizzle <B,M-k,S>.
enum class SwizzleUnit { Elements, Bytes };

// The TMA / GMMA swizzle modes by name: 16-byte units XORed by bits 7.. of the byte offset.
struct NamedSwizzle {
  std::string_view name;  // "SW128"
  Swizzle bytes;          // on byte offsets: Swizzle<3,4,3>
};
const std::vector<NamedSwizzle>& named_swizzles();  // SW32, SW64, SW128

// A swizzle on bytes -> on elements of elem_bytes (a power of two); nullopt when it moves bits
// below the element (M < log2(elem_bytes)), which no element swizzle can express.
std::optional<Swizzle> swizzle_bytes_to_elements(const Swizzle& on_bytes, int elem_bytes);
Swizzle swizzle_elements_to_bytes(const Swizzle& on_elements, int elem_bytes);
// "Sw<3,3,3> on 2-byte elements = Sw<3,4,3> on bytes (SW128)": both units, and the name.
std::string swizzle_units_text(const Swizzle& on_elements, int elem_bytes);

struct LayoutParse {
  std::optional<CuteLayout> layout;
  Swizzle swizzle;    // in elements (B=0: none composed)
  // The swizzle acts on the shared-memory address, as CuTe's swizzle pointer and TMA apply it
  // (written with smem_ptr, or as SW32 / SW64 / SW128, TMA's modes): the tile's base enters it.
  bool on_address = false;
  std::string error;  // set when !layout: "column 7: expected ',' or ')'"
};
// Parses "[SWIZZLE o [0 o]] SHAPE[:STRIDE]" for an element of elem_bytes bytes, where SWIZZLE is
// Sw<B,M,S> or Swizzle<B,M,S> (elements, CuTe's unit), Sw<B,M,S,bytes> (bytes), or SW32 / SW64 /
// SW128; CuTe's printed form is accepted as is ("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)": static
// integers with '_', the offset _0). Without ":STRIDE" the strides are CuTe's default, compact
// and colexicographic (LayoutLeft). Checks the limits above; the image is checked by
// TileDecl::check.
LayoutParse parse_layout(std::string_view text, int elem_bytes);

// The canonical text: "Sw<3,3,3> o (8,64):(64,1)" (swizzle in elements, as CuTe prints it), or
// the layout alone. With address_elem_bytes > 0 the swizzle acts on the address of elements of
// that size, written as CuTe prints a swizzle pointer, on bytes:
// "Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)".
std::string layout_text(const CuteLayout& layout, const Swizzle& swizzle,
                        int address_elem_bytes = 0);

// A coordinate as CuTe writes it: "(3,5)" for the subscripts; a nested mode's integer also in
// its natural form, "(13,5) = ((5,1),5)".
std::string coordinate_text(const CuteLayout& layout, const std::vector<int64_t>& subscripts);

// Two coordinates that share one offset (the layout is not injective: a broadcast), or nullopt.
// The layout must be valid (offsets in [0, cosize), cosize bounded).
struct LayoutAlias {
  std::vector<int64_t> a, b;
  int64_t offset = 0;
};
std::optional<LayoutAlias> first_alias(const CuteLayout& layout);

}  // namespace bankviz
