// tile.h: a shared-memory array declaration, as the kernel writes it, and where its elements live.
//
//   __shared__ int tile[32][32 + 1];           rows=32, cols=32, pad=1 (padding in elements)
//   extern __shared__ float temp[];            dynamic, 1-D, length given at launch
//
// (i0, i1, i2) -> element offset (row-major, last dimension widened by pad)
//   -> swizzled element offset (CuTe Swizzle<B,M,S>) -> byte offset = base + off * elem_bytes
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankviz {

struct ElemType {
  std::string_view name;  // C spelling: "int", "float2", "unsigned char"
  int bytes;              // 1, 2, 4, 8, 16
  int lanes;              // scalar components: float4 -> 4
  bool is_float;
};
const std::vector<ElemType>& elem_types();
const ElemType* find_elem_type(std::string_view name);  // accepts "char", "int4", "double", ...

// CuTe's Swizzle<B,M,S> on element offsets: the B bits at position M+S are XORed into the B bits
// at position M.  off -> off ^ ((off & (((1<<B)-1) << (M+S))) >> S).  B=0 is the identity.
struct Swizzle {
  int bits = 0, base = 0, shift = 0;
  int64_t apply(int64_t off) const;
  bool identity() const { return bits == 0; }
  std::string text() const;  // "Swizzle<3,0,3>"
};

// A tile's element -> byte mapping with the element size looked up once: what hot loops call.
//   byte = base + swizzle(element) * elem_bytes
struct TileLayout {
  int64_t base = 0;
  int64_t elem_bytes = 4;
  Swizzle swizzle;
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

  const ElemType& type() const;  // elem must be valid (see check)
  int elem_bytes() const;
  std::vector<int64_t> padded_dims() const;  // last dimension + pad
  int64_t elements() const;                  // product of padded_dims
  int64_t bytes() const;                     // elements * elem_bytes
  // (subscripts) -> element offset before swizzle, or nullopt if any subscript is out of bounds
  // (of the padded extents; writing into padding is legal C and is allowed).
  std::optional<int64_t> linear(const std::vector<int64_t>& subscripts) const;
  int64_t byte_offset(int64_t linear_elem) const;  // base + swizzle(linear) * elem_bytes
  TileLayout layout() const;                       // the same mapping, for hot loops
  // The element-sized memory slot a byte of the tile falls in, counted from base: what races
  // and the CPU reference key on (memory, whatever subscripts reached it). byte >= base.
  int64_t slot_of_byte(uint32_t byte) const {
    return (static_cast<int64_t>(byte) - base) / elem_bytes();
  }
  // The element (linear, before the swizzle) held in a slot: the inverse of byte_offset (a CuTe
  // swizzle is its own inverse). For the views of accesses wider than one element.
  int64_t element_at_slot(int64_t slot) const { return swizzle.apply(slot); }
  // (element offset) -> subscripts in the padded array; for the tile view's grid.
  std::vector<int64_t> unlinear(int64_t linear_elem) const;
  bool is_padding(int64_t linear_elem) const;           // in a padding column
  std::string element_name(int64_t linear_elem) const;  // "tile[3][31]", for messages
  // The declaration as C: "__shared__ int tile[32][32 + 1];" / "extern __shared__ int tile[];";
  // a swizzled tile is declared flat ("__shared__ int tile[32 * 32];") and indexed through its
  // swizzle function (kernels/codegen.h).
  std::string declaration() const;
  // Empty when valid; else a message naming the field (unknown type, rank, size, alignment).
  std::string check() const;
};

}  // namespace bankviz
