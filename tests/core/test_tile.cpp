// Tile declarations: element sizes, where each element lives (padding, base, swizzle), the C
// declaration text, and the checks on what a user types.
//
// [SECTION] Element types
// [SECTION] Swizzle
// [SECTION] Geometry
// [SECTION] Declaration text
// [SECTION] Checks

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "../test_support.h"
#include "bankviz/tile.h"

using bankviz::test::contains;

using bankviz::ElemType;
using bankviz::find_elem_type;
using bankviz::Swizzle;
using bankviz::TileDecl;

namespace {

TileDecl tile(std::string elem, std::vector<int64_t> dims, int64_t pad = 0) {
  TileDecl t;
  t.elem = std::move(elem);
  t.dims = std::move(dims);
  t.pad = pad;
  return t;
}

// 4-byte bank of an element: byte offset / 4 % 32.
int64_t bank_of(const TileDecl& t, std::vector<int64_t> subscripts) {
  auto lin = t.linear(subscripts);
  EXPECT_TRUE(lin.has_value());
  return t.byte_offset(lin.value_or(0)) / 4 % 32;
}

}  // namespace

// [SECTION] Element types =========================================================================

TEST(ElemTypes, SizesMatchCudaForEverySpelling) {
  const std::pair<const char*, int> cases[] = {
      {"char", 1},          {"signed char", 1},
      {"unsigned char", 1}, {"uchar", 1},
      {"short", 2},         {"unsigned short", 2},
      {"ushort", 2},        {"half", 2},
      {"int", 4},           {"unsigned", 4},
      {"unsigned int", 4},  {"uint", 4},
      {"float", 4},         {"short2", 4},
      {"char4", 4},         {"double", 8},
      {"long long", 8},     {"unsigned long long", 8},
      {"int2", 8},          {"float2", 8},
      {"uint2", 8},         {"int4", 16},
      {"float4", 16},       {"uint4", 16},
      {"double2", 16},      {"  unsigned   int ", 4},
      {"uint32_t", 4},      {"int64_t", 8},
  };
  for (const auto& [name, bytes] : cases) {
    const ElemType* t = find_elem_type(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->bytes, bytes) << name;
  }
}

TEST(ElemTypes, VectorTypesKnowTheirLanesAndFloatness) {
  EXPECT_EQ(find_elem_type("float4")->lanes, 4);
  EXPECT_TRUE(find_elem_type("float4")->is_float());
  EXPECT_EQ(find_elem_type("int2")->lanes, 2);
  EXPECT_FALSE(find_elem_type("int2")->is_float());
  EXPECT_EQ(find_elem_type("double")->lanes, 1);
  EXPECT_TRUE(find_elem_type("double")->is_float());
}

TEST(ElemTypes, UnknownSpellingsAreNotFound) {
  for (const char* bad : {"", "flaot", "int3", "float3", "unsigned float", "Int", "void"})
    EXPECT_EQ(find_elem_type(bad), nullptr) << bad;
}

TEST(ElemTypes, EveryListedTypeIsAPowerOfTwoUpTo16AndFindsItself) {
  std::set<std::string_view> names;
  for (const ElemType& t : bankviz::elem_types()) {
    EXPECT_TRUE(t.bytes == 1 || t.bytes == 2 || t.bytes == 4 || t.bytes == 8 || t.bytes == 16)
        << t.name;
    EXPECT_EQ(t.bytes % t.lanes, 0) << t.name;
    EXPECT_EQ(find_elem_type(t.name), &t) << t.name;
    EXPECT_TRUE(names.insert(t.name).second) << "duplicate " << t.name;
  }
}

// [SECTION] Swizzle ===============================================================================

TEST(Swizzle, ThreeZeroThreeXorsEachRowIntoItsColumnsOnAnEightByEightTile) {
  // Row-major 8x8: offset = row * 8 + col. Swizzle<3,0,3> reads bits 3..5 (the row) and XORs
  // them into bits 0..2 (the column): (row, col) -> (row, col ^ row).
  const Swizzle s{3, 0, 3};
  EXPECT_EQ(s.apply(0 * 8 + 5), 0 * 8 + 5);  // row 0 unchanged
  EXPECT_EQ(s.apply(1 * 8 + 0), 1 * 8 + 1);
  EXPECT_EQ(s.apply(2 * 8 + 3), 2 * 8 + 1);
  EXPECT_EQ(s.apply(5 * 8 + 6), 5 * 8 + 3);
  EXPECT_EQ(s.apply(7 * 8 + 7), 7 * 8 + 0);
  EXPECT_EQ(s.apply(64 + 1 * 8 + 0), 64 + 1 * 8 + 1);  // the pattern repeats every 64 elements
  for (int row = 0; row < 8; ++row) {
    std::set<int64_t> cols;
    for (int col = 0; col < 8; ++col) {
      const int64_t to = s.apply(row * 8 + col);
      EXPECT_EQ(to / 8, row);  // stays in its row
      cols.insert(to % 8);
    }
    EXPECT_EQ(cols.size(), 8u);  // a permutation of the row
  }
}

TEST(Swizzle, BaseAndShiftPlaceTheBitsAsInCute) {
  // Swizzle<2,1,3>: bits 4..5 XOR into bits 1..2.
  const Swizzle a{2, 1, 3};
  EXPECT_EQ(a.apply(0b110000), 0b110110);
  EXPECT_EQ(a.apply(0b010001), 0b010011);
  EXPECT_EQ(a.apply(0b001111), 0b001111);  // bits 4..5 clear: unchanged
  // Swizzle<3,4,3> (CuTe's 128-byte swizzle on 16-byte units of half): bit 7 -> bit 4.
  const Swizzle b{3, 4, 3};
  EXPECT_EQ(b.apply(128), 144);
  EXPECT_EQ(b.apply(0b1110000000), 0b1111110000);
}

TEST(Swizzle, NegativeShiftMovesLowBitsUp) {
  // Swizzle<2,0,-3>: yyy = bits 0..1, shifted left by 3 into bits 3..4.
  const Swizzle s{2, 0, -3};
  EXPECT_EQ(s.apply(1), 1 + 8);
  EXPECT_EQ(s.apply(3), 3 + 24);
  EXPECT_EQ(s.apply(8), 8);
  EXPECT_EQ(s.apply(9), 1);
}

TEST(Swizzle, ValidSwizzlesAreInvolutions) {
  for (const Swizzle s : {Swizzle{3, 0, 3}, Swizzle{2, 1, 3}, Swizzle{3, 4, 3}, Swizzle{2, 0, -3},
                          Swizzle{1, 2, 5}, Swizzle{4, 0, 4}})
    for (int64_t off = 0; off < 4096; ++off)
      ASSERT_EQ(s.apply(s.apply(off)), off) << s.text() << " at " << off;
}

TEST(Swizzle, ZeroBitsIsTheIdentityAndTextIsCuteSpelling) {
  const Swizzle none{};
  EXPECT_TRUE(none.identity());
  EXPECT_EQ(none.apply(12345), 12345);
  EXPECT_EQ(Swizzle({0, 4, 3}).apply(200), 200);
  EXPECT_FALSE(Swizzle({3, 0, 3}).identity());
  EXPECT_EQ(Swizzle({3, 0, 3}).text(), "Swizzle<3,0,3>");
  EXPECT_EQ(Swizzle({2, 0, -3}).text(), "Swizzle<2,0,-3>");
}

// [SECTION] Geometry ==============================================================================

TEST(TileGeometry, RowMajorLinearWithBoundsOnEachExtent) {
  const TileDecl t = tile("int", {32, 32});
  EXPECT_EQ(t.elements(), 1024);
  EXPECT_EQ(t.bytes(), 4096);
  EXPECT_EQ(t.linear({0, 0}), 0);
  EXPECT_EQ(t.linear({1, 2}), 34);
  EXPECT_EQ(t.linear({31, 31}), 1023);
  EXPECT_EQ(t.linear({32, 0}), std::nullopt);
  EXPECT_EQ(t.linear({0, 32}), std::nullopt);  // no wrapping into the next row
  EXPECT_EQ(t.linear({0, -1}), std::nullopt);
  EXPECT_EQ(t.linear({-1, 0}), std::nullopt);
  EXPECT_EQ(t.linear({5}), std::nullopt);  // wrong number of subscripts
  EXPECT_EQ(t.linear({1, 2, 3}), std::nullopt);
}

TEST(TileGeometry, PaddingWidensRowsAndIsAddressable) {
  const TileDecl t = tile("int", {32, 32}, 1);
  EXPECT_EQ(t.padded_dims(), (std::vector<int64_t>{32, 33}));
  EXPECT_EQ(t.elements(), 32 * 33);
  EXPECT_EQ(t.bytes(), 32 * 33 * 4);
  EXPECT_EQ(t.linear({1, 0}), 33);
  EXPECT_EQ(t.linear({1, 32}), 65);  // the padding column: legal C, allowed
  EXPECT_EQ(t.linear({1, 33}), std::nullopt);
  EXPECT_TRUE(t.is_padding(32));
  EXPECT_FALSE(t.is_padding(33));
  EXPECT_TRUE(t.is_padding(65));
  EXPECT_FALSE(tile("int", {32, 32}).is_padding(32));
  EXPECT_EQ(t.unlinear(65), (std::vector<int64_t>{1, 32}));
  EXPECT_EQ(t.unlinear(0), (std::vector<int64_t>{0, 0}));
}

TEST(TileGeometry, PaddingByOneWordSpreadsAColumnOverAllBanks) {
  // The classic transpose fix: tile[32][33]; reading column 0 walks 33 words per row.
  std::set<int64_t> padded, plain;
  for (int64_t row = 0; row < 32; ++row) {
    padded.insert(bank_of(tile("int", {32, 32}, 1), {row, 0}));
    plain.insert(bank_of(tile("int", {32, 32}), {row, 0}));
  }
  EXPECT_EQ(padded.size(), 32u);
  EXPECT_EQ(plain.size(), 1u);  // every row of an unpadded 32-int row starts in bank 0
}

TEST(TileGeometry, SwizzleAlsoSpreadsAColumnOverBanks) {
  TileDecl t = tile("float", {8, 8});
  t.swizzle = {3, 0, 3};
  std::set<int64_t> banks;
  for (int64_t row = 0; row < 8; ++row) banks.insert(bank_of(t, {row, 0}));
  EXPECT_EQ(banks.size(), 8u);
}

TEST(TileGeometry, ByteOffsetAppliesSwizzleThenElementSizeThenBase) {
  TileDecl t = tile("float4", {8, 8});
  t.base = 1024;
  EXPECT_EQ(t.byte_offset(9), 1024 + 9 * 16);
  t.swizzle = {3, 0, 3};
  EXPECT_EQ(t.byte_offset(8), 1024 + 9 * 16);  // (1,0) -> (1,1)
  EXPECT_EQ(tile("double", {4}).byte_offset(3), 24);
  EXPECT_EQ(tile("char", {64}).byte_offset(3), 3);
}

TEST(TileGeometry, ThreeDimensionalTilesAreRowMajor) {
  const TileDecl t = tile("float", {2, 3, 4}, 1);
  EXPECT_EQ(t.padded_dims(), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(t.linear({1, 2, 3}), 1 * 15 + 2 * 5 + 3);
  EXPECT_EQ(t.linear({1, 2, 4}), 29);  // padding
  EXPECT_EQ(t.linear({1, 3, 0}), std::nullopt);
  EXPECT_EQ(t.unlinear(28), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(t.is_padding(29));
  for (int64_t i = 0; i < t.elements(); ++i) EXPECT_EQ(t.linear(t.unlinear(i)), i);
}

TEST(TileGeometry, DynamicTileIsOneDimensional) {
  TileDecl t = tile("int", {1024});
  t.dynamic = true;
  EXPECT_EQ(t.linear({1023}), 1023);
  EXPECT_EQ(t.linear({1024}), std::nullopt);
  EXPECT_EQ(t.unlinear(7), std::vector<int64_t>{7});
}

TEST(TileGeometry, UnknownElementTypeFallsBackInsteadOfCrashing) {
  const TileDecl t = tile("flaot", {4, 4});
  EXPECT_EQ(t.elem_bytes(), 4);
  EXPECT_EQ(t.bytes(), 64);
  EXPECT_FALSE(t.check().empty());
}

TEST(TileGeometry, HugeExtentsSaturateInsteadOfOverflowing) {
  const TileDecl t = tile("double", {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(t.elements(), INT64_MAX);
  EXPECT_EQ(t.bytes(), INT64_MAX);
  EXPECT_TRUE(contains(t.check(), "227 KB")) << t.check();
}

// [SECTION] Declaration text ======================================================================

TEST(TileDeclaration, WrittenAsTheKernelWouldDeclareIt) {
  EXPECT_EQ(tile("int", {32, 32}).declaration(), "__shared__ int tile[32][32];");
  EXPECT_EQ(tile("int", {32, 32}, 1).declaration(), "__shared__ int tile[32][32 + 1];");
  EXPECT_EQ(tile("float4", {2, 3, 4}).declaration(), "__shared__ float4 tile[2][3][4];");
  TileDecl temp = tile("float", {768});
  temp.name = "temp";
  EXPECT_EQ(temp.declaration(), "__shared__ float temp[768];");
  temp.dynamic = true;
  EXPECT_EQ(temp.declaration(), "extern __shared__ float temp[];");
  EXPECT_EQ(tile("unsigned   int", {16}, 2).declaration(), "__shared__ unsigned int tile[16 + 2];");
}

// [SECTION] Checks ================================================================================

TEST(TileCheck, SeedDeclarationsAreValid) {
  EXPECT_EQ(tile("int", {32, 32}).check(), "");
  EXPECT_EQ(tile("int", {32, 32}, 1).check(), "");
  EXPECT_EQ(tile("int", {16, 32}, 2).check(), "");
  EXPECT_EQ(tile("float", {3 * 1024}).check(), "");
  TileDecl dyn = tile("int", {1024}, 32);
  dyn.dynamic = true;
  EXPECT_EQ(dyn.check(), "");
  TileDecl sw = tile("float", {32, 32});
  sw.swizzle = {3, 0, 3};
  EXPECT_EQ(sw.check(), "");
}

TEST(TileCheck, EachProblemIsNamedByItsField) {
  EXPECT_TRUE(contains(tile("flaot", {4}).check(), "elem: unknown element type 'flaot'"));
  EXPECT_TRUE(contains(tile("int", {}).check(), "dims: a tile has 1 to 3 dimensions, got 0"));
  EXPECT_TRUE(contains(tile("int", {2, 2, 2, 2}).check(), "got 4"));
  EXPECT_TRUE(contains(tile("int", {32, 0}).check(), "dims[1]: every extent must be positive"));
  EXPECT_TRUE(contains(tile("int", {-3}).check(), "dims[0]"));
  EXPECT_TRUE(contains(tile("int", {32}, -1).check(), "pad:"));
  TileDecl bad_name = tile("int", {4});
  bad_name.name = "my tile";
  EXPECT_TRUE(contains(bad_name.check(), "name: 'my tile'"));
  bad_name.name = "threadIdx";
  EXPECT_TRUE(contains(bad_name.check(), "name:"));
}

TEST(TileCheck, DynamicArraysMustBeOneDimensional) {
  TileDecl t = tile("int", {32, 32});
  t.dynamic = true;
  EXPECT_TRUE(contains(t.check(), "dynamic: an extern __shared__ array is 1-D")) << t.check();
}

TEST(TileCheck, BaseMustBeAlignedToTheElement) {
  TileDecl t = tile("int", {32});
  t.base = 2;
  EXPECT_TRUE(contains(t.check(), "base: byte offset 2 is not a multiple of 4")) << t.check();
  t.base = 8;
  EXPECT_EQ(t.check(), "");
  TileDecl v = tile("float4", {32});
  v.base = 8;
  EXPECT_TRUE(contains(v.check(), "not a multiple of 16")) << v.check();
  v.base = 48;
  EXPECT_EQ(v.check(), "");
  v.base = -16;
  EXPECT_TRUE(contains(v.check(), "base:")) << v.check();
}

TEST(TileCheck, SizeIsLimitedToHoppers227KBPerBlock) {
  EXPECT_EQ(tile("int", {227 * 256}).check(), "");  // exactly 227 KB
  const std::string over = tile("int", {227 * 256 + 1}).check();
  EXPECT_TRUE(contains(over, "227 KB")) << over;
  EXPECT_TRUE(contains(over, "Hopper")) << over;
  const std::string square = tile("int", {256, 256}).check();  // 256 KB
  EXPECT_TRUE(contains(square, "262144 bytes")) << square;
  TileDecl shifted = tile("int", {227 * 256});
  shifted.base = 4;  // the last element would end past 227 KB
  EXPECT_FALSE(shifted.check().empty());
}

TEST(TileCheck, SwizzleParametersMustBeSane) {
  TileDecl t = tile("int", {32, 32});
  t.swizzle = {3, 0, 2};  // the bits read overlap the bits flipped
  EXPECT_TRUE(contains(t.check(), "swizzle: Swizzle<3,0,2>")) << t.check();
  t.swizzle = {-1, 0, 3};
  EXPECT_TRUE(contains(t.check(), "swizzle:")) << t.check();
  t.swizzle = {3, -1, 3};
  EXPECT_TRUE(contains(t.check(), "swizzle:")) << t.check();
  t.swizzle = {3, 0, 40};
  EXPECT_TRUE(contains(t.check(), "swizzle:")) << t.check();
  t.swizzle = {2, 0, -3};
  EXPECT_EQ(t.check(), "");
}

TEST(TileCheck, SwizzleThatSendsElementsPastTheEndIsRejected) {
  // 100 ints with Swizzle<3,0,3>: element 96 is (row 12, col 0) of 8-wide rows; row 12 is row 4
  // of its 64-element block, so it moves to 96 ^ 4 = 100, past the end.
  TileDecl t = tile("int", {100});
  t.swizzle = {3, 0, 3};
  EXPECT_TRUE(contains(t.check(), "moves element 96 to 100")) << t.check();
  // A partial last block made of whole 8-element rows stays inside: 32 x 33 = 1056 = 16.5 * 64.
  TileDecl padded = tile("int", {32, 32}, 1);
  padded.swizzle = {3, 0, 3};
  EXPECT_EQ(padded.check(), "");
}

TEST(TileCheck, HugePaddingExtentsAndShiftsAreErrorsNotOverflow) {
  // These once overflowed (undefined behaviour) inside the checks themselves (issue 11).
  TileDecl pad = tile("int", {32, 32}, INT64_MAX);
  EXPECT_TRUE(contains(pad.check(), "pad:")) << pad.check();
  TileDecl dims = tile("int", {INT64_MAX, INT64_MAX});
  EXPECT_TRUE(contains(dims.check(), "dims[0]:")) << dims.check();
  TileDecl swz = tile("int", {32, 32});
  swz.swizzle = Swizzle{1, 0, INT32_MIN};
  EXPECT_TRUE(contains(swz.check(), "shift")) << swz.check();
}
