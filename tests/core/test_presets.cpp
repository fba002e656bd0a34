// The presets in assets/presets reproduce the seeds' own numbers.
//
// "Transactions per request" (nvprof's shared_{load,store}_transactions_per_request, ncu's
// wavefronts per shared instruction) = a step's wavefronts over all warps / the warp
// instructions that executed it (warps with at least one active lane).
#include <gtest/gtest.h>

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
    // A preset reproduces a seed's example, or (source empty) goes beyond the seeds, as the
    // swizzled layouts of modern GEMMs do.
    EXPECT_TRUE(s.source.empty() || seeds.count(s.source) == 1u) << s.source;
    AnalysisResult r = analyze(s);
    ASSERT_TRUE(r.analysis) << r.errors[0].format();
    // Only the deliberately broken histogram has an issue to report.
    if (stem != "histogram-missing-sync") {
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
