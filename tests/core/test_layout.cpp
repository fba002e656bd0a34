// CuTe layouts as a tile's map: parsing, CuTe's evaluation (checked against examples worked by
// hand from CuTe's own documentation), swizzle units, limits, the tile built on a layout, the
// scenario JSON and the trace / race model going through it.
//
// [SECTION] CuTe's documented examples
// [SECTION] Swizzle units and named modes
// [SECTION] Parse errors and limits
// [SECTION] Tiles laid out by CuTe
// [SECTION] Scenario JSON and the analysis

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "../test_support.h"
#include "bankviz/analysis.h"
#include "bankviz/hazard.h"
#include "bankviz/layout.h"
#include "bankviz/scenario.h"
#include "bankviz/tile.h"
#include "bankviz/trace.h"

using bankviz::test::contains;

using namespace bankviz;

namespace {

CuteLayout layout(const std::string& text, int elem_bytes = 4) {
  LayoutParse p = parse_layout(text, elem_bytes);
  EXPECT_TRUE(p.layout) << text << ": " << p.error;
  return p.layout.value_or(CuteLayout{});
}

std::string error_of(const std::string& text, int elem_bytes = 4) {
  LayoutParse p = parse_layout(text, elem_bytes);
  EXPECT_FALSE(p.layout) << text;
  return p.error;
}

// The offsets of a rank-2 layout as print_layout shows them: row i, column j.
std::vector<std::vector<int64_t>> table(const CuteLayout& l) {
  const std::vector<int64_t> e = l.extents();
  std::vector<std::vector<int64_t>> t(static_cast<size_t>(e[0]));
  for (int64_t i = 0; i < e[0]; ++i)
    for (int64_t j = 0; j < e[1]; ++j) t[static_cast<size_t>(i)].push_back(l.offset({i, j}));
  return t;
}

TileDecl laid_out(const std::string& elem, const std::string& text) {
  TileDecl t;
  t.elem = elem;
  const std::string err = t.set_layout(text);
  EXPECT_EQ(err, "") << text;
  return t;
}

}  // namespace

// [SECTION] CuTe's documented examples ===========================================================

// CUTLASS media/docs/cpp/cute/01_layout.md: "(4,2):(1,4)" is the column-major 4x2 matrix
//   0 4 / 1 5 / 2 6 / 3 7, and "((2,2),2):((4,1),2)" splits the rows into two modes:
//   0 2 / 4 6 / 1 3 / 5 7.
TEST(CuteLayout, ColumnMajorAndSplitRowExamplesFromCuteDocs) {
  EXPECT_EQ(table(layout("(4,2):(1,4)")),
            (std::vector<std::vector<int64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(table(layout("((2,2),2):((4,1),2)")),
            (std::vector<std::vector<int64_t>>{{0, 2}, {4, 6}, {1, 3}, {5, 7}}));
}

// 01_layout.md's print_layout of s2xh4 = (2,(2,2)):(4,(2,1)): a nested column mode takes one
// integer j, split colexicographically (j % 2, j / 2) -> 2 * (j % 2) + 1 * (j / 2).
TEST(CuteLayout, NestedColumnModeSplitsItsIntegerColexicographically) {
  EXPECT_EQ(table(layout("(2,(2,2)):(4,(2,1))")),
            (std::vector<std::vector<int64_t>>{{0, 2, 1, 3}, {4, 6, 5, 7}}));
}

// Without a stride CuTe's default is LayoutLeft: compact, first mode fastest.
TEST(CuteLayout, ShapeAloneIsCuteDefaultColumnMajor) {
  EXPECT_EQ(layout("(4,2)"), layout("(4,2):(1,4)"));
  EXPECT_EQ(layout("((2,2),3)"), layout("((2,2),3):((1,2),4)"));
}

// The brief's example: ((8,4),64):((64,512),1) is 32 rows of 64, the row index split into
// (i % 8, i / 8), so row i starts at 64 * (i % 8) + 512 * (i / 8): the same as (32,64):(64,1).
TEST(CuteLayout, SplitRowModeOfTheRowMajorTileIsTheRowMajorTile) {
  const CuteLayout a = layout("((8,4),64):((64,512),1)");
  const CuteLayout b = layout("(32,64):(64,1)");
  EXPECT_EQ(a.extents(), (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(a.cosize(), 2048);
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 64; ++j) ASSERT_EQ(a.offset({i, j}), b.offset({i, j})) << i << "," << j;
  // But a different split is a different layout: rows 8 apart are 64 apart.
  const CuteLayout c = layout("((4,8),64):((512,64),1)");
  EXPECT_EQ(c.offset({1, 0}), 512);
  EXPECT_EQ(c.offset({4, 0}), 64);
}

TEST(CuteLayout, PrintsAsCuteDoesAndReadsCutePrintedForm) {
  EXPECT_EQ(layout("((8,4),64):((64,512),1)").text(), "((8,4),64):((64,512),1)");
  EXPECT_EQ(layout("8:2").text(), "8:2");
  EXPECT_EQ(layout("(8):(2)").text(), "8:2");
  // cute::print of a ComposedLayout: static integers with '_', the offset _0 in the middle.
  LayoutParse p = parse_layout("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)", 2);
  ASSERT_TRUE(p.layout) << p.error;
  EXPECT_EQ(layout_text(*p.layout, p.swizzle), "Sw<3,4,3> o (8,64):(64,1)");
  EXPECT_EQ(coordinate_text(layout("((8,4),64):((64,512),1)"), {13, 5}), "(13,5) = ((5,1),5)");
  EXPECT_EQ(coordinate_text(layout("(8,64):(64,1)"), {3, 5}), "(3,5)");
}

// [SECTION] Swizzle units and named modes ========================================================

// Swizzle<3,4,3> on byte offsets of 2-byte elements == Swizzle<3,3,3> on element offsets: the
// byte offset is 2 * element, so every bit moves up one.
TEST(CuteSwizzle, ByteSwizzleOfHalfIsElementSwizzleOneBitLower) {
  LayoutParse p = parse_layout("Sw<3,4,3,bytes> o (8,64):(64,1)", 2);
  ASSERT_TRUE(p.layout) << p.error;
  EXPECT_EQ(p.swizzle, (Swizzle{3, 3, 3}));
  const Swizzle on_bytes{3, 4, 3};
  for (int64_t e = 0; e < 512; ++e) ASSERT_EQ(on_bytes.apply(2 * e), 2 * p.swizzle.apply(e)) << e;
  EXPECT_EQ(swizzle_units_text(p.swizzle, 2),
            "Sw<3,3,3> on 2-byte elements = Sw<3,4,3> on bytes (SW128)");
}

TEST(CuteSwizzle, NamedTmaModesAreSixteenByteChunksInElementUnits) {
  const std::pair<const char*, Swizzle> bytes[] = {
      {"SW32", {1, 4, 3}}, {"SW64", {2, 4, 3}}, {"SW128", {3, 4, 3}}};
  for (const auto& [name, on_bytes] : bytes) {
    for (int elem : {1, 2, 4, 8, 16}) {
      LayoutParse p = parse_layout(std::string(name) + " o (8,64):(64,1)", elem);
      ASSERT_TRUE(p.layout) << name << " " << elem << ": " << p.error;
      for (int64_t e = 0; e < 4096; ++e)
        ASSERT_EQ(on_bytes.apply(e * elem), p.swizzle.apply(e) * elem) << name << " " << e;
    }
  }
}

// CuTe prints a GMMA atom's swizzle through a shared-memory pointer, which swizzles byte
// addresses: "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)" on half is Sw<3,3,3> on
// element offsets, the same as SW128; without the pointer the same text swizzles elements.
TEST(CuteSwizzle, SwizzleThroughASmemPointerActsOnBytes) {
  LayoutParse p = parse_layout("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", 2);
  ASSERT_TRUE(p.layout) << p.error;
  EXPECT_EQ(p.swizzle, (Swizzle{3, 3, 3}));
  EXPECT_EQ(parse_layout("SW128 o (8,64):(64,1)", 2).swizzle, p.swizzle);
  EXPECT_EQ(parse_layout("Sw<3,4,3> o _0 o (8,64):(64,1)", 2).swizzle, (Swizzle{3, 4, 3}));
  EXPECT_EQ(parse_layout("Sw<3,4,3,elements> o smem_ptr[16b](unset) o (8,64):(64,1)", 2).swizzle,
            (Swizzle{3, 4, 3}));
}

TEST(CuteSwizzle, ByteSwizzleFinerThanTheElementIsRefused) {
  // Swizzle<3,1,3> on bytes flips bits 1..3 of the byte offset: inside one 4-byte int.
  EXPECT_TRUE(contains(error_of("Sw<3,1,3,bytes> o (8,8):(8,1)", 4), "below one 4-byte element"));
}

// [SECTION] Parse errors and limits ==============================================================

TEST(CuteLayout, ParseErrorsSayWhereAndWhat) {
  EXPECT_TRUE(contains(error_of("(8,64):(64)"), "profile"));
  EXPECT_TRUE(contains(error_of("((8,4),64):(64,1)"), "profile"));
  EXPECT_TRUE(contains(error_of("(8,64:(64,1)"), "column 6: expected ',' or ')'"));
  EXPECT_TRUE(contains(error_of("(2,2,2,2):(1,2,4,8)"), "1 to 3 subscripts"));
  EXPECT_TRUE(contains(error_of("(0,4):(4,1)"), "at least 1"));
  EXPECT_TRUE(contains(error_of("(8,8):(8,1) junk"), "unexpected text"));
  EXPECT_TRUE(contains(error_of("Sw<3,3> o (8,8):(8,1)"), "expected ','"));
  EXPECT_TRUE(contains(error_of("Sw<3,3,3> (8,8):(8,1)"), "expected 'o'"));
  EXPECT_TRUE(contains(error_of(""), "empty"));
  EXPECT_TRUE(contains(error_of("(((((((2))))))):1"), "nest deeper"));
  EXPECT_TRUE(contains(error_of("(4,4):(1,99999999)"), "beyond"));
  EXPECT_TRUE(contains(error_of("(1024,1024):(1024,1)"), "coordinates"));
  EXPECT_TRUE(contains(error_of(std::string(600, '(')), "characters"));
  EXPECT_TRUE(contains(error_of("((2,2,2,2,2,2,2,2,2),(2,2,2,2,2,2,2,2))"), "integer modes"));
}

// [SECTION] Tiles laid out by CuTe ===============================================================

TEST(CuteTile, TileTakesTheLayoutsExtentsAndIsDeclaredFlatOverItsImage) {
  const TileDecl t = laid_out("half", "Sw<3,3,3> o ((8,4),64):((64,512),1)");
  EXPECT_EQ(t.check(), "");
  EXPECT_EQ(t.dims, (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(t.storage_elements(), 2048);
  EXPECT_EQ(t.bytes(), 4096);
  EXPECT_EQ(t.declaration(), "__shared__ half tile[2048];");
  EXPECT_EQ(t.element_name(*t.linear({13, 5})), "tile(13,5)");
  // (13,5) -> 64 * 5 + 512 * 1 + 5 = 837 -> Swizzle<3,3,3>: bits 6..8 (= 5) XOR into bits 3..5.
  EXPECT_EQ(t.storage(*t.linear({13, 5})), 837);
  EXPECT_EQ(t.byte_offset(*t.linear({13, 5})), 2 * (837 ^ (5 << 3)));
}

TEST(CuteTile, NonCompactLayoutDeclaresItsCosize) {
  // Column-major 8x8 with a padded column: (i,j) -> i + 9j, cosize 7 + 63 + 1 = 71.
  const TileDecl t = laid_out("float", "(8,8):(1,9)");
  EXPECT_EQ(t.storage_elements(), 71);
  EXPECT_EQ(t.layout_note(), "");
}

TEST(CuteTile, BroadcastLayoutIsAllowedButSaysWhichCoordinatesShare) {
  const TileDecl t = laid_out("float", "(4,32):(0,1)");
  EXPECT_EQ(t.check(), "");
  EXPECT_EQ(t.storage_elements(), 32);
  EXPECT_TRUE(contains(t.layout_note(), "not injective")) << t.layout_note();
  EXPECT_TRUE(contains(t.layout_note(), "tile(0,0) and tile(1,0) share element offset 0"))
      << t.layout_note();
}

TEST(CuteTile, ChecksNameTheFieldAndTheFix) {
  TileDecl t = laid_out("float", "(8,8):(-8,1)");
  EXPECT_TRUE(contains(t.check(), "negative strides")) << t.check();
  t = laid_out("float", "(8,8):(8,1)");
  t.pad = 1;
  EXPECT_TRUE(contains(t.check(), "pad:")) << t.check();
  t.pad = 0;
  t.dims = {8, 9};
  EXPECT_TRUE(contains(t.check(), "dims:")) << t.check();
  t = laid_out("float", "(8,8):(8,1)");
  t.dynamic = true;
  EXPECT_TRUE(contains(t.check(), "dynamic:")) << t.check();
  t = laid_out("double", "(256,256):(256,1)");  // 512 KB
  EXPECT_TRUE(contains(t.check(), "227 KB")) << t.check();
  // A swizzle that sends the last partial block past the image.
  t = laid_out("float", "Sw<3,3,-3> o (9,8):(8,1)");
  EXPECT_TRUE(contains(t.check(), "past the end")) << t.check();
}

// [SECTION] Scenario JSON and the analysis =======================================================

namespace {

// A warp's 32 lanes read column 0 of rows 0..7 (lanes l and l + 8 share a word).
Scenario half_tile_scenario(const std::string& layout_text) {
  const std::string json =
      R"j({"name": "cute", "block": [32, 1, 1], "tiles": [{"name": "tile", "elem": "half", )j"
      R"j("layout": ")j" +
      layout_text +
      R"j("}], "steps": [{"kind": "store", "index": "tile[threadIdx.x % 8][0]"},)j"
      R"j({"kind": "sync"}, {"kind": "load", "index": "tile[threadIdx.x % 8][0]"}]})j";
  ScenarioLoad l = scenario_from_json(json);
  EXPECT_TRUE(l.scenario) << (l.errors.empty() ? "" : l.errors[0].format());
  return l.scenario.value_or(Scenario{});
}

std::string first_error_path(const std::string& tile_json) {
  ScenarioLoad l = scenario_from_json(R"j({"name": "x", "tiles": [)j" + tile_json +
                                      R"j(], "steps": [{"kind": "load", "index": "[0][0]"}]})j");
  EXPECT_FALSE(l.scenario) << tile_json;
  return l.errors.empty() ? "" : l.errors[0].path;
}

}  // namespace

TEST(CuteScenario, LayoutFieldRoundTripsThroughJson) {
  const Scenario s = half_tile_scenario("Sw<3,4,3,bytes> o ((8,4),64):((64,512),1)");
  ASSERT_EQ(s.tiles.size(), 1u);
  ASSERT_TRUE(s.tiles[0].cute);
  EXPECT_EQ(s.tiles[0].swizzle, (Swizzle{3, 3, 3}));
  const std::string text = scenario_to_json(s);
  EXPECT_TRUE(contains(text, R"j("layout": "Sw<3,3,3> o ((8,4),64):((64,512),1)")j")) << text;
  ScenarioLoad back = scenario_from_json(text);
  ASSERT_TRUE(back.scenario);
  EXPECT_EQ(back.scenario->tiles[0].cute, s.tiles[0].cute);
  EXPECT_EQ(back.scenario->tiles[0].swizzle, s.tiles[0].swizzle);
  EXPECT_EQ(scenario_to_json(*back.scenario), text);
}

TEST(CuteScenario, BadLayoutFieldIsAnErrorAtItsPath) {
  EXPECT_EQ(first_error_path(R"j({"layout": "(8,8):(8)"})j"), "tiles[0].layout");
  EXPECT_EQ(first_error_path(R"j({"layout": "Sw<3,0,3> o (8,8):(8,1)", )j"
                             R"j("swizzle": {"bits": 1, "base": 0, "shift": 1}})j"),
            "tiles[0].swizzle");
  EXPECT_EQ(first_error_path(R"j({"layout": "(8,8):(8,1)", "dims": [8, 4]})j"), "tiles[0].dims");
}

// The trace goes through the tile's layout: a row-major half tile read down a column is an 8-way
// conflict (rows of 128 bytes all start in bank 0); SW128 moves row r's first 16-byte chunk to
// chunk r, 8 different banks.
TEST(CuteScenario, AnalysisSeesTheLayoutAndItsSwizzle) {
  const AnalysisResult plain = analyze(half_tile_scenario("(8,64):(64,1)"));
  const AnalysisResult swizzled = analyze(half_tile_scenario("SW128 o (8,64):(64,1)"));
  ASSERT_TRUE(plain.analysis);
  ASSERT_TRUE(swizzled.analysis);
  const AccessResult& p = plain.analysis->warps[2][0].result;
  const AccessResult& q = swizzled.analysis->warps[2][0].result;
  EXPECT_GT(p.wavefronts, q.wavefronts);
  EXPECT_EQ(q.wavefronts, q.ideal);
}

// Two coordinates of a broadcast layout are one element of memory: stores from two warps to
// them race, though their coordinates differ.
TEST(CuteScenario, BroadcastLayoutStoresFromTwoWarpsRace) {
  ScenarioLoad l = scenario_from_json(
      R"j({"name": "b", "block": [64, 1, 1], "tiles": [{"name": "tile", "elem": "float", )j"
      R"j("layout": "(2,32):(0,1)"}], "steps": [{"kind": "store", )j"
      R"j("index": "tile[threadIdx.x / 32][threadIdx.x % 32]"}]})j");
  ASSERT_TRUE(l.scenario) << l.errors[0].format();
  const AnalysisResult a = analyze(*l.scenario);
  ASSERT_TRUE(a.analysis);
  ASSERT_FALSE(a.analysis->hazards.examples.empty());
  const std::string& words = a.analysis->hazards.examples[0].message;
  EXPECT_NE(words.find("writes tile(0,0)"), std::string::npos) << words;
  EXPECT_NE(words.find("writes tile(1,0)"), std::string::npos) << words;
}

// [SECTION] Random layouts ========================================================================

namespace {

// An independent evaluation, straight from CuTe's definition on the nested tree: idx2crd splits
// an integer over a tuple mode's children (all but the last take i % size, the last the rest),
// recursively, and crd2idx is the inner product with the strides.
int64_t tree_offset(const LayoutMode& m, int64_t i) {
  if (m.leaf()) return i * m.stride;
  int64_t off = 0;
  for (size_t k = 0; k < m.modes.size(); ++k) {
    if (k + 1 == m.modes.size()) return off + tree_offset(m.modes[k], i);
    const int64_t n = m.modes[k].size();
    off += tree_offset(m.modes[k], i % n);
    i /= n;
  }
  return off;
}

struct Rng {
  uint64_t x;
  uint64_t next() { return x = x * 6364136223846793005ull + 1442695040888963407ull, x >> 33; }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
};

// A random mode as text: shape and stride side by side, nesting up to `depth`.
void random_mode(Rng& r, int depth, std::string& shape, std::string& stride) {
  if (depth == 0 || r.below(3) != 0) {
    shape += std::to_string(1 + r.below(4));
    stride += std::to_string(r.below(40));
    return;
  }
  const int64_t n = 1 + r.below(3);
  shape += '(', stride += '(';
  for (int64_t k = 0; k < n; ++k) {
    if (k) shape += ',', stride += ',';
    random_mode(r, depth - 1, shape, stride);
  }
  shape += ')', stride += ')';
}

}  // namespace

TEST(CuteLayout, RandomLayoutsEvaluateAsCuteDefinesAndRoundTripThroughTheirText) {
  Rng r{12345};
  for (int iter = 0; iter < 500; ++iter) {
    const int rank = 1 + static_cast<int>(r.below(3));
    std::string shape = "(", stride = "(";
    for (int m = 0; m < rank; ++m) {
      if (m) shape += ',', stride += ',';
      random_mode(r, 2, shape, stride);
    }
    shape += ')', stride += ')';
    std::string text = shape + ":" + stride;
    if (r.below(2)) text = "Sw<" + std::to_string(1 + r.below(3)) + ",0,3> o " + text;
    SCOPED_TRACE(text);
    LayoutParse p = parse_layout(text, 4);
    ASSERT_TRUE(p.layout) << p.error;
    const CuteLayout& l = *p.layout;
    // Round trip: the canonical text parses back to the same layout and swizzle.
    LayoutParse back = parse_layout(layout_text(l, p.swizzle), 4);
    ASSERT_TRUE(back.layout) << back.error;
    EXPECT_EQ(*back.layout, l);
    EXPECT_EQ(back.swizzle, p.swizzle);
    // Every coordinate: the flattened evaluation equals the tree's, inside [0, cosize).
    const std::vector<int64_t> ext = l.extents();
    std::vector<int64_t> sub(ext.size(), 0);
    for (int64_t e = 0; e < l.size(); ++e) {
      int64_t rest = e, want = 0;
      for (size_t d = ext.size(); d-- > 0;) sub[d] = rest % ext[d], rest /= ext[d];
      for (size_t d = 0; d < ext.size(); ++d) want += tree_offset(l.modes[d], sub[d]);
      ASSERT_EQ(l.offset(sub), want) << e;
      ASSERT_GE(want, 0);
      ASSERT_LT(want, l.cosize());
    }
  }
}

TEST(CuteLayout, GarbageNeverParsesIntoSomethingThatDoesNotRoundTrip) {
  Rng r{777};
  const std::string alphabet = "()_,:-0123456789 oSwBytesSW128<>smem_ptr[]";
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text;
    const int64_t n = r.below(24);
    for (int64_t k = 0; k < n; ++k) text += alphabet[static_cast<size_t>(r.below(alphabet.size()))];
    LayoutParse p = parse_layout(text, 2);
    if (!p.layout) {
      EXPECT_FALSE(p.error.empty()) << text;
      continue;
    }
    ++parsed;
    LayoutParse back = parse_layout(layout_text(*p.layout, p.swizzle), 2);
    ASSERT_TRUE(back.layout) << text << " -> " << layout_text(*p.layout, p.swizzle);
    EXPECT_EQ(*back.layout, *p.layout) << text;
  }
  EXPECT_GT(parsed, 0);
}

// The views light every element a wide access (a 16-byte ldmatrix row) covers through
// element_at_slot: on a laid-out tile that is the layout's inverse, after the swizzle's.
TEST(CuteTile, ElementAtSlotInvertsTheLayoutAndItsSwizzle) {
  for (const char* text :
       {"((8,4),64):((64,512),1)", "Sw<3,3,3> o (32,64):(64,1)", "(64,32):(1,64)"}) {
    SCOPED_TRACE(text);
    const TileDecl t = laid_out("half", text);
    ASSERT_EQ(t.check(), "");
    for (int64_t e = 0; e < t.elements(); ++e)
      ASSERT_EQ(t.element_at_slot(t.slot_of_byte(static_cast<uint32_t>(t.byte_offset(e)))), e);
  }
  const TileDecl holes = laid_out("float", "(8,8):(1,9)");  // offsets 8, 17, ... hold nothing
  EXPECT_EQ(holes.element_at_slot(8), -1);
  EXPECT_EQ(holes.element_at_slot(9), *holes.linear({0, 1}));
}

// [SECTION] Swizzles on the address

// CuTe's swizzle pointer and TMA apply Swizzle<B,M,S> to the shared-memory byte address, so the
// tile's base enters it: a half tile at byte 512 under SW128 (Sw<3,4,3> on bytes) has element 0
// at 512 ^ ((512 >> 7 & 7) << 4) = 576; under the same swizzle on the element offset at 512.
TEST(SwizzleOnAddress, TheBaseEntersTheSwizzle) {
  TileDecl addr = laid_out("half", "SW128 o (8,64):(64,1)");
  TileDecl off = laid_out("half", "Sw<3,4,3,bytes> o (8,64):(64,1)");
  EXPECT_TRUE(addr.swizzle_on_address);
  EXPECT_FALSE(off.swizzle_on_address);
  EXPECT_EQ(addr.swizzle, off.swizzle);
  addr.base = off.base = 512;
  ASSERT_EQ(addr.check(), "");
  ASSERT_EQ(off.check(), "");
  EXPECT_EQ(addr.byte_offset(0), 576);
  EXPECT_EQ(off.byte_offset(0), 512);
  // Every element is where the byte swizzle of its address puts it, and the views' inverse
  // (element_at_slot) finds it there.
  const Swizzle bytes{3, 4, 3};
  for (int64_t e = 0; e < addr.elements(); ++e) {
    ASSERT_EQ(addr.byte_offset(e), bytes.apply(512 + 2 * e)) << e;
    ASSERT_EQ(addr.element_at_slot(addr.slot_of_byte(static_cast<uint32_t>(addr.byte_offset(e)))),
              e);
  }
  // At a multiple of the period (1024 bytes) the two agree.
  addr.base = off.base = 2048;
  for (int64_t e = 0; e < addr.elements(); ++e)
    ASSERT_EQ(addr.byte_offset(e), off.byte_offset(e)) << e;
}

TEST(SwizzleOnAddress, SmemPointerTextRoundTripsAndOffsetsStayOffsets) {
  LayoutParse p = parse_layout("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", 2);
  ASSERT_TRUE(p.layout);
  EXPECT_TRUE(p.on_address);
  EXPECT_EQ(p.swizzle, (Swizzle{3, 3, 3}));
  EXPECT_TRUE(parse_layout("SW64 o (8,64):(64,1)", 2).on_address);
  EXPECT_FALSE(parse_layout("Sw<3,3,3> o (8,64):(64,1)", 2).on_address);
  EXPECT_FALSE(parse_layout("Sw<3,4,3,bytes> o (8,64):(64,1)", 2).on_address);
  const TileDecl t = laid_out("half", "SW128 o (8,64):(64,1)");
  EXPECT_EQ(t.layout_text(), "Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)");
  const TileDecl back = laid_out("half", t.layout_text());
  EXPECT_TRUE(back.swizzle_on_address);
  EXPECT_EQ(back.swizzle, t.swizzle);
}

TEST(SwizzleOnAddress, ScenarioJsonKeepsWhereTheSwizzleActs) {
  Scenario s = half_tile_scenario("SW128 o (8,64):(64,1)");
  s.tiles[0].base = 384;
  const std::string text = scenario_to_json(s);
  EXPECT_TRUE(contains(text, "smem_ptr[16b](unset)")) << text;
  ScenarioLoad back = scenario_from_json(text);
  ASSERT_TRUE(back.scenario);
  EXPECT_TRUE(back.scenario->tiles[0].swizzle_on_address);
  EXPECT_EQ(scenario_to_json(*back.scenario), text);
  // A plain tile's swizzle object: "on": "address" or "offset", nothing else.
  s = Scenario{};
  s.tiles[0].swizzle = {3, 0, 3};
  s.tiles[0].swizzle_on_address = true;
  s.tiles[0].base = 128;
  s.steps.resize(1);
  s.steps[0].index = "tile[threadIdx.y][threadIdx.x]";
  const std::string plain = scenario_to_json(s);
  EXPECT_TRUE(contains(plain, R"("on": "address")")) << plain;
  back = scenario_from_json(plain);
  ASSERT_TRUE(back.scenario);
  EXPECT_TRUE(back.scenario->tiles[0].swizzle_on_address);
  EXPECT_EQ(first_error_path(R"j({"dims": [64], "swizzle": {"bits": 1, "base": 0, "shift": 1, )j"
                             R"j("on": "pointer"}})j"),
            "tiles[0].swizzle.on");
}

// The base may sit anywhere in the swizzle's period: a tile whose first or last period is
// partial may send elements outside itself, which check() names (on the offset only the end
// can be partial).
TEST(SwizzleOnAddress, CheckFindsElementsMovedOutsideAPartialPeriod) {
  TileDecl t;
  t.elem = "int";
  t.dims = {8};
  t.swizzle = {3, 0, 3};
  t.swizzle_on_address = true;
  t.base = 4;  // element address 1..8: address 8 (element 7) goes to 9, past the array
  EXPECT_TRUE(contains(t.check(), "moves element 7 to 8, past the end")) << t.check();
  t.base = 0;  // addresses 0..7 are one row: the swizzle moves nothing there
  EXPECT_EQ(t.check(), "");
  t.swizzle_on_address = false;
  t.base = 4;
  EXPECT_EQ(t.check(), "");
  t.swizzle_on_address = true;
  t.dims = {64};
  t.base = 4 * 60;  // addresses 60..123: 60 ^ 7 = 59 is before the tile
  EXPECT_TRUE(contains(t.check(), "moves element 0 to -1, before the start")) << t.check();
  t.dims = {72};
  t.base = 4 * 56;  // addresses 56..127: the first period's last row and the whole next one
  EXPECT_EQ(t.check(), "") << t.check();
}

// The trace follows the address: row r of a 64-half tile read at chunk r (the diagonal) is one
// chunk on the offset under SW128 (r ^ r = 0: 8 rows in 4 banks, 8 wavefronts) but spread over
// several chunks on the address once the base moves the rows' bits (r ^ (r + base / 128)).
TEST(SwizzleOnAddress, AnalysisAtBasesOffThePeriodFollowsTheAddress) {
  int differ = 0;
  for (int64_t base = 0; base < 1024; base += 128) {
    Scenario a = half_tile_scenario("SW128 o (64,64):(64,1)");
    a.tiles[0].base = base;
    a.steps.resize(1);
    a.steps[0].index = "tile[threadIdx.x % 8][threadIdx.x % 8 * 8]";
    Scenario o = a;
    o.tiles[0].swizzle_on_address = false;
    const AnalysisResult ra = analyze(a), ro = analyze(o);
    ASSERT_TRUE(ra.analysis) << (ra.errors.empty() ? "" : ra.errors[0].format());
    ASSERT_TRUE(ro.analysis);
    const int64_t wa = ra.analysis->warps[0][0].result.wavefronts;
    const int64_t wo = ro.analysis->warps[0][0].result.wavefronts;
    EXPECT_EQ(wo, 8) << base;
    // The chunks r ^ ((r + k) % 8) over r = 0..7: the busiest one's count is the wavefronts.
    const int64_t k = base / 128;
    int count[8] = {};
    for (int64_t r = 0; r < 8; ++r) ++count[r ^ ((r + k) % 8)];
    EXPECT_EQ(wa, *std::max_element(count, count + 8)) << base;
    differ += wa != wo;
    const TileDecl& t = a.tiles[0];
    for (int64_t r = 0; r < 8; ++r) {
      const int64_t e = *t.linear({r, r * 8});
      const Swizzle sw128{3, 4, 3};
      ASSERT_EQ(t.byte_offset(e), sw128.apply(base + 2 * e));
    }
  }
  EXPECT_EQ(differ, 6);  // bases 128, 256, 384, 640, 768, 896 (k = 4: r ^ (r ^ 4) = 4, one chunk)
}
