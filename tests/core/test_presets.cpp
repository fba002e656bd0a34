// The presets in assets/presets reproduce the seeds' own numbers.
//
// "Transactions per request" (nvprof's shared_{load,store}_transactions_per_request, ncu's
// wavefronts per shared instruction) = a step's wavefronts over all warps / the warp
// instructions that executed it (warps with at least one active lane).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "bankviz/analysis.h"
#include "bankviz/text.h"

using namespace bankviz;

namespace {

const std::string kPresetDir = std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/";

Analysis preset(const std::string& name, const Arch* arch = nullptr) {
  ScenarioLoad l = load_scenario_file(kPresetDir + name + ".json");
  if (!l.scenario) {
    ADD_FAILURE() << name << ": " << (l.errors.empty() ? "?" : l.errors[0].format());
    return {};
  }
  AnalysisResult r = analyze(*l.scenario, arch);
  if (!r.analysis) {
    ADD_FAILURE() << name << ": " << (r.errors.empty() ? "?" : r.errors[0].format());
    return {};
  }
  return *r.analysis;
}

double per_request(const Analysis& a, int step) {
  int instructions = 0;
  for (const WarpStep& ws : a.warps.at(static_cast<size_t>(step)))
    if (ws.access.mask != 0) ++instructions;
  return instructions == 0 ? 0.0 : static_cast<double>(a.step_wavefronts(step)) / instructions;
}

// The executed steps of one kind, in order.
std::vector<int> steps_of(const Analysis& a, StepKind kind) {
  std::vector<int> out;
  for (size_t i = 0; i < a.steps.size(); ++i)
    if (a.steps[i].kind == kind) out.push_back(static_cast<int>(i));
  return out;
}

struct SeedFigure {
  const char* preset;
  const char* kernel;
  double store, load;  // transactions per request the seed quotes (or that follow from it)
};

}  // namespace

TEST(Presets, EveryPresetLoadsAnalyzesAndIsDescribed) {
  const std::set<std::string> seeds = {
      "data-layout-in-shared-memory.txt", "cuda-fortran-shared-memory.txt",
      "kepler-bank-width-filter.txt", "lecture-shared-memory-dot-product.txt",
      "lesson-shared-memory-histogram.txt"};
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kPresetDir)) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    const std::string stem = entry.path().stem().string();
    SCOPED_TRACE(stem);
    ScenarioLoad l = load_scenario_file(entry.path().string());
    ASSERT_TRUE(l.scenario) << l.errors[0].format();
    const Scenario& s = *l.scenario;
    EXPECT_EQ(s.name, stem);
    EXPECT_FALSE(s.title.empty());
    EXPECT_GE(s.description.size(), 40u);
    // A preset reproduces a seed's example (source: the seed's file name), or goes beyond the
    // seeds and cites the text it comes from (the teaching set), or (source empty) shows a layout
    // of its own, as the swizzled layouts of modern GEMMs do.
    const bool names_a_file = s.source.size() > 4 && s.source.ends_with(".txt");
    EXPECT_TRUE(!names_a_file || seeds.count(s.source) == 1u) << s.source;
    AnalysisResult r = analyze(s);
    ASSERT_TRUE(r.analysis) << r.errors[0].format();
    // Only the deliberately broken kernels have an issue to report.
    if (stem != "histogram-missing-sync" && stem != "vector-add-shared-temp3-race") {
      EXPECT_TRUE(r.analysis->issues.empty()) << r.analysis->issues[0].message;
    }
  }
  EXPECT_GE(count, 20);
}

TEST(Presets, DefaultLessonIsTheSquareRowWriteColumnRead) {
  Analysis a = preset("row-write-column-read");
  EXPECT_EQ(a.scenario.tiles[0].declaration(), "__shared__ int tile[32][32];");
  EXPECT_EQ(a.warps[2][0].result.wavefronts, 32);
}

TEST(Presets, DataLayoutSeedTransactionsPerRequest) {
  const SeedFigure figures[] = {
      {"row-write-row-read", "setRowReadRow", 1, 1},
      {"column-write-column-read", "setColReadCol", 32, 32},
      {"row-write-column-read", "setRowReadCol", 1, 32},
      {"column-write-row-read", "setColReadRow", 32, 1},
      {"row-write-column-read-dynamic", "setRowReadColDyn", 1, 32},
      {"row-write-column-read-padded", "setRowReadColIpad", 1, 1},
      {"row-write-column-read-dynamic-padded", "setRowReadColDynIpad", 1, 1},
      {"rect-row-write-column-read", "setRowReadColRect", 1, 16},
      {"rect-row-write-column-read-dynamic", "setRowReadColRectDyn", 1, 16},
      {"rect-row-write-column-read-pad1", "setRowReadColRectPad (IPAD 1)", 1, 2},
      {"rect-row-write-column-read-pad2", "setRowReadColRectPad (IPAD 2)", 1, 1},
      {"rect-row-write-column-read-dynamic-pad1", "setRowReadColRectDynPad", 1, 2},
  };
  for (const SeedFigure& f : figures) {
    SCOPED_TRACE(f.kernel);
    Analysis a = preset(f.preset);
    ASSERT_EQ(a.steps.size(), 3u);
    EXPECT_EQ(a.steps[0].kind, StepKind::Store);
    EXPECT_EQ(a.steps[2].kind, StepKind::Load);
    EXPECT_DOUBLE_EQ(per_request(a, 0), f.store);
    EXPECT_DOUBLE_EQ(per_request(a, 2), f.load);
    // Every warp of the block sees the same pattern.
    for (const WarpStep& ws : a.warps[2]) EXPECT_EQ(ws.result.wavefronts, f.load);
  }
}

TEST(Presets, PaddingIsWhatRemovesTheConflict) {
  // The same scenario with the padding taken out must fall back to the unpadded figure.
  Analysis padded = preset("rect-row-write-column-read-pad1");
  Scenario s = padded.scenario;
  s.tiles[0].pad = 0;
  AnalysisResult r = analyze(s);
  ASSERT_TRUE(r.analysis);
  EXPECT_DOUBLE_EQ(per_request(*r.analysis, 2), 16.0);
}

TEST(Presets, FortranReversalIsConflictFree) {
  for (const char* name : {"reverse-static", "reverse-dynamic"}) {
    SCOPED_TRACE(name);
    Analysis a = preset(name);
    ASSERT_EQ(a.warp_count(), 2);
    EXPECT_DOUBLE_EQ(per_request(a, 0), 1.0);
    EXPECT_DOUBLE_EQ(per_request(a, 2), 1.0);
    EXPECT_EQ(a.total_wavefronts(), a.total_ideal());
    // Thread 0 reads s[63], the last thread's element.
    EXPECT_EQ(a.warps[2][0].element[0], 63);
    EXPECT_EQ(a.warps[2][1].element[31], 0);
  }
}

TEST(Presets, KeplerFloatFilterIsOneWavefrontPerTap) {
  Analysis a = preset("kepler-filter-float");
  const std::vector<int> loads = steps_of(a, StepKind::Load);
  ASSERT_EQ(loads.size(), 21u);  // the 21 taps
  for (int s : loads) EXPECT_DOUBLE_EQ(per_request(a, s), 1.0);
}

TEST(Presets, KeplerFloat2FilterHalvesWavefrontsWithEightByteBanks) {
  Analysis four = preset("kepler-filter-float2-4byte");
  Analysis eight = preset("kepler-filter-float2-8byte");
  EXPECT_EQ(four.arch->id, "kepler4");
  EXPECT_EQ(eight.arch->id, "kepler8");
  const std::vector<int> taps4 = steps_of(four, StepKind::Load);
  const std::vector<int> taps8 = steps_of(eight, StepKind::Load);
  ASSERT_EQ(taps4.size(), 21u);
  ASSERT_EQ(taps8.size(), 21u);
  for (size_t i = 0; i < taps4.size(); ++i) {
    // 4-byte banks (Kepler's 64-bit banks in 32-bit mode): a warp's 32 float2 are 64 words.
    // Tap 0 starts each warp on a 64-word boundary and is served at once; every other tap
    // straddles two 64-word segments, so banks see words from both: 2 wavefronts (the seed's
    // "they don't fall in a 64-word aligned segment, so the accesses cause bank conflicts").
    EXPECT_DOUBLE_EQ(per_request(four, taps4[i]), i == 0 ? 1.0 : 2.0) << "tap " << i;
    // 8-byte banks: 32 float2 = 32 bank words in 32 banks, one wavefront for every tap.
    EXPECT_DOUBLE_EQ(per_request(eight, taps8[i]), 1.0) << "tap " << i;
  }
  EXPECT_EQ(four.total_wavefronts(), eight.total_wavefronts() + 20 * 4);  // 20 taps x 4 warps
  // Not a half-warp split but a real conflict: 256 bytes would fit one 256-byte line.
  const WarpStep& tap1 = four.warps[static_cast<size_t>(taps4[1])][0];
  EXPECT_EQ(tap1.result.ideal, 1);
  EXPECT_EQ(verdict(tap1.result, tap1.access.width),
            "2-way bank conflict: 2 wavefronts where 1 would do");
  // Bank width, not the preset, makes the difference.
  Analysis swapped = preset("kepler-filter-float2-8byte", find_arch("kepler4"));
  EXPECT_EQ(swapped.total_wavefronts(), four.total_wavefronts());
}

TEST(Presets, DotProductReductionStaysConflictFreeAsWarpsDropOut) {
  Analysis a = preset("dot-product-reduction");
  EXPECT_EQ(a.total_wavefronts(), a.total_ideal());
  EXPECT_EQ(steps_of(a, StepKind::Sync).size(), 9u);  // one after the store, one per i
  // The i=16 loads: only half of warp 0 is active.
  int found = 0;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    if (a.steps[i].label.rfind("i=16:", 0) != 0) continue;
    ++found;
    EXPECT_EQ(a.warps[i][0].access.mask, 0xFFFFu);
    for (size_t w = 1; w < a.warps[i].size(); ++w) EXPECT_EQ(a.warps[i][w].access.mask, 0u);
  }
  EXPECT_EQ(found, 3);
}

TEST(Presets, MatrixMultiplyTilesAreConflictFree) {
  for (const char* name : {"matmul-tile16", "matmul-tile32"}) {
    SCOPED_TRACE(name);
    Analysis a = preset(name);
    ASSERT_EQ(a.scenario.tiles.size(), 2u);
    EXPECT_EQ(a.total_wavefronts(), a.total_ideal());
    for (int s : steps_of(a, StepKind::Load)) EXPECT_DOUBLE_EQ(per_request(a, s), 1.0);
  }
}

TEST(Presets, HistogramAtomicsCollideOnDataDependentBins) {
  Analysis a = preset("histogram-shared-atomics");
  const std::vector<int> atomics = steps_of(a, StepKind::Atomic);
  ASSERT_EQ(atomics.size(), 1u);
  EXPECT_GT(per_request(a, atomics[0]), 1.0);  // random bins share banks
  for (int s : steps_of(a, StepKind::Load)) EXPECT_DOUBLE_EQ(per_request(a, s), 1.0);
  EXPECT_TRUE(a.issues.empty());
}

TEST(Presets, HistogramWithoutSyncReportsTheRace) {
  Analysis a = preset("histogram-missing-sync");
  ASSERT_FALSE(a.issues.empty());
  EXPECT_NE(a.issues[0].message.find("missing __syncthreads()"), std::string::npos);
}

TEST(Presets, StrideThreeTempArrayIsConflictFree) {
  Analysis a = preset("vector-add-temp-offset3");
  EXPECT_EQ(a.steps.size(), 6u);
  EXPECT_EQ(a.total_wavefronts(), 6);
}

// [SECTION] the field's teaching set (issue 9 item 7) and the seeds' missing examples (issue 8
// item 11). Figures are what the publications state or what follows from 32 banks of 4 bytes.

namespace {

// Wavefronts per request of the executed steps of one kind, in order.
std::vector<double> per_request_of(const Analysis& a, StepKind kind) {
  std::vector<double> out;
  for (int s : steps_of(a, kind)) out.push_back(per_request(a, s));
  return out;
}

double worst_per_request(const Analysis& a) {
  double worst = 0;
  for (size_t i = 0; i < a.steps.size(); ++i) worst = std::max(worst, per_request(a, int(i)));
  return worst;
}

Analysis reanalyzed(Scenario s) {
  AnalysisResult r = analyze(s);
  if (!r.analysis) {
    ADD_FAILURE() << (r.errors.empty() ? "?" : r.errors[0].format());
    return {};
  }
  return *r.analysis;
}

}  // namespace

TEST(TeachingSet, NaiveTransposeColumnLoadNeeds32WavefrontsPaddedOneSwizzledOne) {
  const struct {
    const char* name;
    double load;
  } cases[] = {{"transpose-naive", 32}, {"transpose-padded", 1}, {"transpose-swizzled", 1}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Analysis a = preset(c.name);
    ASSERT_EQ(a.warp_count(), 8);  // 32 x BLOCK_ROWS 8
    // for (j = 0; j < TILE_DIM; j += BLOCK_ROWS): 4 row stores, 4 column loads.
    EXPECT_EQ(per_request_of(a, StepKind::Store), std::vector<double>(4, 1.0));
    EXPECT_EQ(per_request_of(a, StepKind::Load), std::vector<double>(4, c.load));
  }
  // The padding column and the swizzle are what remove the conflict.
  Scenario padded = preset("transpose-padded").scenario;
  padded.tiles[0].pad = 0;
  EXPECT_EQ(per_request_of(reanalyzed(padded), StepKind::Load), std::vector<double>(4, 32.0));
  Scenario swizzled = preset("transpose-swizzled").scenario;
  swizzled.tiles[0].swizzle = {};
  EXPECT_EQ(per_request_of(reanalyzed(swizzled), StepKind::Load), std::vector<double>(4, 32.0));
}

TEST(TeachingSet, ReductionStridedIndexConflictsWhereSequentialAndDivergentDoNot) {
  // Harris: #1 (tid % (2*s)) diverges but has no conflicts; #2 (index = 2*s*tid) has bank
  // conflicts; #3 (sequential addressing) has none.
  Analysis divergent = preset("reduction-interleaved-divergent");
  Analysis strided = preset("reduction-interleaved-strided");
  Analysis sequential = preset("reduction-sequential");
  EXPECT_EQ(divergent.total_wavefronts(), divergent.total_ideal());
  EXPECT_EQ(sequential.total_wavefronts(), sequential.total_ideal());
  EXPECT_GT(strided.total_wavefronts(), strided.total_ideal());
  // All three run the same 7 levels over 128 ints, each level a load, a load and a store.
  for (const Analysis* a : {&divergent, &strided, &sequential}) {
    EXPECT_EQ(steps_of(*a, StepKind::Sync).size(), 8u);
    EXPECT_EQ(steps_of(*a, StepKind::Store).size(), 1u + 7u);
  }
  // #2, level by level (the three accesses of a level alike): stride 2s words among contiguous
  // lanes: 2-way at s = 1, 4-way while the active lanes of warp 0 span 4 rows of banks, then
  // fewer lanes, fewer ways.
  const std::vector<double> stores = per_request_of(strided, StepKind::Store);
  EXPECT_EQ(stores, (std::vector<double>{1, 2, 4, 4, 4, 4, 2, 1}));
  // With #1, the s = 1 level keeps all 4 warps issuing with half their lanes idle.
  EXPECT_EQ(per_request_of(divergent, StepKind::Store)[1], 1.0);
  EXPECT_EQ(
      divergent.warps[static_cast<size_t>(steps_of(divergent, StepKind::Store)[1])][3].access.mask,
      0x55555555u);
}

TEST(TeachingSet, ScanConflictFreeOffsetRemovesTheUpSweepConflicts) {
  Analysis plain = preset("scan-up-sweep");
  Analysis offset = preset("scan-up-sweep-conflict-free");
  // Level by level, the store temp[bi] of the up-sweep: offset 1, 2, ..., 256.
  std::vector<double> plain_stores = per_request_of(plain, StepKind::Store);
  ASSERT_EQ(plain_stores.size(), 2u + 9u + 1u);  // two loads into temp, 9 levels, the clear
  EXPECT_EQ(std::vector<double>(plain_stores.begin() + 2, plain_stores.end() - 1),
            (std::vector<double>{2, 4, 8, 16, 16, 8, 4, 2, 1}));
  EXPECT_EQ(offset.total_wavefronts(), offset.total_ideal());
  EXPECT_DOUBLE_EQ(worst_per_request(offset), 1.0);
  // CONFLICT_FREE_OFFSET costs one word per 32: n + n / 32 floats.
  EXPECT_EQ(plain.scenario.tiles[0].dims[0], 512);
  EXPECT_EQ(offset.scenario.tiles[0].dims[0], 512 + 512 / 32);
}

TEST(TeachingSet, StrideSweepConflictsByTheCommonFactorWith32Banks) {
  Analysis a = preset("stride-sweep");
  EXPECT_EQ(per_request_of(a, StepKind::Load), (std::vector<double>{1, 2, 32, 1}));
  for (int s : steps_of(a, StepKind::Load))
    for (const WarpStep& ws : a.warps[static_cast<size_t>(s)]) EXPECT_EQ(ws.result.ideal, 1);
}

TEST(TeachingSet, SgemmTransposedAsStoreIsTwoWayAndPaddingByFourFixesIt) {
  Analysis plain = preset("sgemm-as-transposed-store");
  Analysis padded = preset("sgemm-as-transposed-store-padded");
  EXPECT_EQ(per_request_of(plain, StepKind::Store), std::vector<double>(4, 2.0));
  EXPECT_EQ(per_request_of(padded, StepKind::Store), std::vector<double>(4, 1.0));
  // The inner loop's As reads are broadcasts in both.
  EXPECT_EQ(per_request_of(plain, StepKind::Load), std::vector<double>(8, 1.0));
  EXPECT_EQ(per_request_of(padded, StepKind::Load), std::vector<double>(8, 1.0));
  // Lanes 2r and 2r + 1 write the same column m into rows k and k + 4.
  const WarpStep& w0 = plain.warps[0][0];
  EXPECT_EQ(w0.element[0] + 4 * 128, w0.element[1]);
  // A padding of 1 is not enough: rows k and k + 4 are then only 4 banks apart.
  Scenario one = padded.scenario;
  one.tiles[0].pad = 1;
  EXPECT_EQ(per_request_of(reanalyzed(one), StepKind::Store), std::vector<double>(4, 2.0));
}

TEST(TeachingSet, Float4RowTakesFourWavefrontsPairsAndBroadcastsTwo) {
  Analysis a = preset("float4-rows-and-broadcasts");
  EXPECT_EQ(per_request_of(a, StepKind::Store), std::vector<double>{4});
  // A row: 512 bytes, 4 x 128. Pairs: 256 distinct bytes. One float4 for the whole warp: the
  // measured Hopper rule still serves it by half-warps (docs/HOPPER_RULE.md).
  EXPECT_EQ(per_request_of(a, StepKind::Load), (std::vector<double>{4, 2, 2}));
  EXPECT_EQ(a.total_wavefronts(), a.total_ideal());  // width, never a conflict
}

TEST(TeachingSet, SwizzleAtom128BSpreadsEightRowsOverEightChunks) {
  // Half elements (2-byte reads of the chunk starts): 8-way unswizzled, 4 with Swizzle<3,3,3>.
  Analysis half = preset("swizzle-128b-atom");
  ASSERT_EQ(half.scenario.tiles[0].swizzle.bits, 3);
  EXPECT_EQ(half.scenario.tiles[0].dims, (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(per_request_of(half, StepKind::Store), std::vector<double>{1});
  EXPECT_EQ(per_request_of(half, StepKind::Load), std::vector<double>{4});
  Scenario plain = half.scenario;
  plain.tiles[0].swizzle = {};
  EXPECT_EQ(per_request_of(reanalyzed(plain), StepKind::Load), std::vector<double>{8});
  // Whole 16-byte chunks: the ideal 4 swizzled, an 8-way conflict per quarter-warp without.
  Analysis chunks = preset("swizzle-128b-atom-16-byte-chunks");
  EXPECT_EQ(per_request_of(chunks, StepKind::Load), std::vector<double>{4});
  EXPECT_EQ(chunks.total_wavefronts(), chunks.total_ideal());
  Scenario plain_chunks = chunks.scenario;
  plain_chunks.tiles[0].swizzle = {};
  EXPECT_EQ(per_request_of(reanalyzed(plain_chunks), StepKind::Load), std::vector<double>{32});
  // The two presets are one layout: chunk (r, c) of the int4 tile holds halves (r, 8c..8c+7).
  const TileDecl& t16 = chunks.scenario.tiles[0];
  const TileDecl& t2 = half.scenario.tiles[0];
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c)
      EXPECT_EQ(t16.byte_offset(*t16.linear({r, c})), t2.byte_offset(*t2.linear({r, 8 * c})))
          << r << ", " << c;
}

TEST(TeachingSet, SharedTemp3VectorAddIsARaceAndThePerThreadOffsetIsNot) {
  Analysis wrong = preset("vector-add-shared-temp3-race");
  EXPECT_GT(wrong.hazards.count(HazardKind::WriteAfterWrite), 0);
  EXPECT_GT(wrong.hazards.count(HazardKind::ReadAfterWrite), 0);
  ASSERT_FALSE(wrong.issues.empty());
  EXPECT_NE(wrong.issues[0].message.find("temp[0]"), std::string::npos) << wrong.issues[0].message;
  EXPECT_EQ(wrong.total_wavefronts(), wrong.total_ideal());  // banks are not the problem
  Analysis fixed = preset("vector-add-temp-offset3");
  EXPECT_EQ(fixed.hazards.racing_accesses, 0);
}

TEST(FortranBankWidth, HalfWarpsServeSeparatelyOnCc1x) {
  Analysis a = preset("reverse-cc1x-half-warps");
  EXPECT_EQ(a.arch->id, "cc1x");
  // 16 banks: each half-warp is one pass of its own, with no conflict.
  EXPECT_EQ(per_request_of(a, StepKind::Store), std::vector<double>{2});
  EXPECT_EQ(per_request_of(a, StepKind::Load), std::vector<double>{2});
  EXPECT_EQ(a.total_wavefronts(), a.total_ideal());
  // The same kernel on 32 banks is one pass per warp.
  EXPECT_DOUBLE_EQ(worst_per_request(preset("reverse-static")), 1.0);
}

TEST(FortranBankWidth, DoublesConflictTwoWayOnCc1xAndNotInKeplersEightByteMode) {
  Analysis cc1x = preset("reverse-double-cc1x");
  Analysis kepler8 = preset("reverse-double-kepler8");
  EXPECT_EQ(cc1x.arch->id, "cc1x");
  EXPECT_EQ(kepler8.arch->id, "kepler8");
  EXPECT_EQ(per_request_of(cc1x, StepKind::Load), std::vector<double>{8});
  EXPECT_EQ(cc1x.warps[2][0].result.ideal, 4);
  EXPECT_EQ(per_request_of(kepler8, StepKind::Load), std::vector<double>{1});
  // Bank width, not the preset, makes the difference.
  Analysis swapped = preset("reverse-double-kepler8", find_arch("cc1x"));
  EXPECT_EQ(swapped.total_wavefronts(), cc1x.total_wavefronts());
}
