// tile.h: a shared-memory array declaration, as the kernel writes it, and where its elements live.
//
//   __shared__ int tile[32][32 + 1];           rows=32, cols=32, pad=1 (padding in elements)
//   extern __shared__ float temp[];            dynamic, 1-D, length given at launch
//
// (i0, i1, i2) -> element (row-major over the extents, the last widened by pad: the tile's own
//   numbering of its elements, what the views draw)
//   -> storage offset (the same, or a CuTe layout's (shape):(stride) map, layout.h)
//   -> swizzled offset (CuTe Swizzle<B,M,S>) -> byte offset = base + off * elem_bytes
// The swizzle acts on the element offset (a CuTe ComposedLayout, Sw<B,M,S> o layout) or on the
// shared-memory address (CuTe's swizzle pointer, TMA and GMMA: Sw<B,M,S> o smem_ptr o layout,
// SW32/SW64/SW128): then the tile's base enters the swizzle, swizzle(base + off) - base in
// elements (swizzled_offset(), the one place that decides it).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/kinds.h"  // ElemType, elem_types(), find_elem_type()
#include "bankviz/layout.h"

namespace bankviz {

// A tile's element -> byte mapping with the element size looked up once: what hot loops call.
//   byte = base + swizzle(storage(element)) * elem_bytes
struct TileLayout {
  int64_t base = 0;
  int64_t elem_bytes = 4;
  Swizzle swizzle;
  bool swizzle_on_address = false;  // TileDecl's
  std::optional<CuteLayout> cute;  // with its extents (row-major element -> subscripts)
  std::vector<int64_t> extents;
  int64_t storage(int64_t linear_elem) const;  // element -> offset before the swizzle
  // offset before the swizzle -> after it, counted from the tile's element 0: swizzle(off) on
  // offsets, swizzle(base / elem_bytes + off) - base / elem_bytes on addresses. Its own inverse.
  int64_t swizzled_offset(int64_t off) const;
  int64_t byte_offset(int64_t linear_elem) const;
};

struct TileDecl {
  std::string name = "tile";
  std::string elem = "int";              // an elem_types() name
  std::vector<int64_t> dims = {32, 32};  // 1 to 3 extents, outermost first (without padding)
  int64_t pad = 0;                       // extra elements per innermost row
  int64_t base = 0;                      // byte offset of element 0 in the block's shared window
  bool dynamic = false;                  // extern __shared__ T name[]; 1-D, length dims[0] (+pad)
  Swizzle swizzle;
  // The swizzle acts on the shared-memory address (CuTe's swizzle pointer, TMA), not on the
  // tile's offset: the base enters it. Set by a layout text with smem_ptr or SW32/SW64/SW128,
  // or the scenario's "swizzle": {"on": "address"}.
  bool swizzle_on_address = false;
  // A CuTe layout (layout.h) in place of the row-major map: dims are its top-level modes' sizes,
  // pad is 0, and the array is declared flat over the layout's image (cosize elements).
  std::optional<CuteLayout> cute;

  const ElemType& type() const;  // elem must be valid (see check)
  int elem_bytes() const;
  std::vector<int64_t> padded_dims() const;  // last dimension + pad
  int64_t elements() const;                  // product of padded_dims: the tile's elements
  int64_t storage_elements() const;          // what the array holds: elements, or the cosize
  int64_t bytes() const;                     // storage_elements * elem_bytes
  // (subscripts) -> element offset before swizzle, or nullopt if any subscript is out of bounds
  // (of the padded extents; writing into padding is legal C and is allowed).
  std::optional<int64_t> linear(const std::vector<int64_t>& subscripts) const;
  // (element) -> offset in the array before the swizzle: the element itself, or the CuTe layout
  // of its subscripts. Two elements of a broadcast layout share one offset, so one memory slot
  // (slot_of_byte below: what races and the CPU reference key on).
  int64_t storage(int64_t linear_elem) const;
  int64_t byte_offset(int64_t linear_elem) const;  // base + swizzled(storage) * elem_bytes
  int64_t swizzled_offset(int64_t off) const;      // TileLayout's, on this tile
  TileLayout layout() const;                       // the same mapping, for hot loops
  // The element-sized memory slot a byte of the tile falls in, counted from base: what races
  // and the CPU reference key on (memory, whatever subscripts reached it). byte >= base.
  int64_t slot_of_byte(uint32_t byte) const {
    return (static_cast<int64_t>(byte) - base) / elem_bytes();
  }
  // The element (linear, before the swizzle) held in a slot: the inverse of byte_offset (a CuTe
  // swizzle is its own inverse). For the views of accesses wider than one element.
  // On a CuTe-laid-out tile, the first coordinate (row-major) the layout maps there; -1 where it
  // maps none (a hole of a non-compact layout).
  int64_t element_at_slot(int64_t slot) const;
  // (element offset) -> subscripts in the padded array; for the tile view's grid.
  std::vector<int64_t> unlinear(int64_t linear_elem) const;
  bool is_padding(int64_t linear_elem) const;  // in a padding column
  // "tile[3][31]", for messages; a CuTe-laid-out tile's as CuTe writes it, "tile(3,31)".
  std::string element_name(int64_t linear_elem) const;
  // Parses a layout text (layout.h, parse_layout) for this tile's element type and makes it the
  // tile's map: cute, swizzle (none composed: the identity), dims = its extents, pad = 0. On an
  // error returns it and changes nothing.
  std::string set_layout(std::string_view text);
  // The layout text as the scenario stores it ("Sw<3,3,3> o (8,64):(64,1)"); empty without one.
  std::string layout_text() const;
  // A broadcast layout's first two coordinates that share an offset, in words; empty otherwise.
  std::string layout_note() const;
  // The declaration as C: "__shared__ int tile[32][32 + 1];" / "extern __shared__ int tile[];";
  // a swizzled tile is declared flat ("__shared__ int tile[32 * 32];") and indexed through its
  // swizzle function, a CuTe-laid-out one flat over its image ("__shared__ half tile[512];") and
  // indexed through its layout function (kernels/codegen.h).
  std::string declaration() const;
  // Empty when valid; else a message naming the field (unknown type, rank, size, alignment).
  std::string check() const;

 private:
  std::string check_cute() const;
};

}  // namespace bankviz
