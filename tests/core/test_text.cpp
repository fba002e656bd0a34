// The text pictures and the JSON output: what a student sees without any GL.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../test_support.h"
#include "bankviz/copy_h200.h"
#include "bankviz/frame.h"
#include "bankviz/text.h"
#include "helpers.h"

using bankviz::test::analyzed;
using bankviz::test::transpose;

using namespace bankviz;

namespace {

using test::step;

// setRowReadCol: store a row, sync, load a column of a 32x32 int tile.
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The line starting with `prefix`, or "" when none.
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const std::string& l : lines(text))
    if (l.rfind(prefix, 0) == 0) return l;
  return "";
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Verdict, SaysConflictFreeForOneWavefront) {
  AccessResult r;
  r.wavefronts = 1, r.ideal = 1;
  EXPECT_EQ(verdict(r), "conflict-free: 1 wavefront");
  EXPECT_EQ(verdict(r, 4), "conflict-free: 1 wavefront");
}

TEST(Verdict, NamesTheWayAndTheWaste) {
  AccessResult r;
  r.wavefronts = 32, r.ideal = 1;
  EXPECT_EQ(verdict(r), "32-way bank conflict: 32 wavefronts where 1 would do");
  r.wavefronts = 3, r.ideal = 2;
  EXPECT_EQ(verdict(r, 8), "8-byte access: 2-way bank conflict: 3 wavefronts where 2 would do");
}

TEST(Verdict, SplitWideAccessesAreNotConflicts) {
  AccessResult r;
  r.wavefronts = 2, r.ideal = 2;
  EXPECT_EQ(verdict(r, 8),
            "8-byte access: 2 wavefronts, conflict-free (2 wavefronts is the ideal "
            "for this request)");
  r.detail.resize(2);
  r.detail[0].lanes = 0x0000FFFFu, r.detail[1].lanes = 0xFFFF0000u;
  EXPECT_EQ(verdict(r, 8),
            "8-byte access: 2 wavefronts, conflict-free (each half-warp is one wavefront)");
  EXPECT_EQ(verdict(r), "conflict-free: 2 wavefronts (each half-warp is one wavefront)");
  r.wavefronts = 4, r.ideal = 4;
  r.detail.resize(4);
  for (int k = 0; k < 4; ++k) r.detail[k].lanes = 0xFFu << (8 * k);
  EXPECT_EQ(verdict(r, 16),
            "16-byte access: 4 wavefronts, conflict-free (each quarter-warp is one wavefront)");
  EXPECT_EQ(verdict(AccessResult{}), "no active lanes: 0 wavefronts");
}

TEST(Verdict, RealDoubleRowReadIsSplitNotConflicted) {
  Scenario s;
  s.tiles[0].elem = "double";
  s.block[1] = 1;
  s.steps = {step(StepKind::Load, "tile[0][threadIdx.x]")};
  Analysis a = analyzed(s);
  EXPECT_EQ(verdict(a.warps[0][0].result, 8),
            "8-byte access: 2 wavefronts, conflict-free (each half-warp is one wavefront)");
}

TEST(RenderTable, ShowsPerWarpCellsTotalsAndPerRequest) {
  Analysis a = analyzed(transpose());
  const std::string t = render_table(a);
  EXPECT_NE(t.find("Hopper (sm_90): 32 banks x 4 B (measured)"), std::string::npos);
  const std::string store = line_starting(t, "  0  store");
  const std::string load = line_starting(t, "  2  load");
  EXPECT_EQ(count_of(store, " 1/1"), 8) << t;  // 8 warp columns shown
  EXPECT_EQ(count_of(load, " 32/1"), 8) << t;
  EXPECT_NE(store.find("32/32"), std::string::npos);
  EXPECT_NE(load.find("1024/32"), std::string::npos);
  EXPECT_NE(load.find("32.00"), std::string::npos);
  EXPECT_NE(load.find("32-way bank conflict: 32 wavefronts where 1 would do"), std::string::npos);
  EXPECT_NE(line_starting(t, "  1  __syncthreads()"), "");
  EXPECT_NE(t.find("1056/64"), std::string::npos);
  EXPECT_NE(t.find("warps 8-31 not shown"), std::string::npos);
}

TEST(DescribeAnalysis, GivesEachMemoryStepsVerdictFromTheModel) {
  const Analysis a = analyzed(transpose());
  const std::string d = describe_analysis(a);
  EXPECT_EQ(d.rfind("The model on Hopper (sm_90): ", 0), 0u) << d;
  EXPECT_NE(d.find(a.steps[0].label + ": conflict-free: 1 wavefront"), std::string::npos) << d;
  EXPECT_NE(d.find(a.steps[2].label + ": 32-way bank conflict: 32 wavefronts where 1 would do"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find("__syncthreads"), std::string::npos) << d;  // a barrier has no verdict
  // The same scenario padded: the figures follow.
  const std::string padded = describe_analysis(analyzed(transpose(2)));
  EXPECT_NE(padded.find("2-way bank conflict: 2 wavefronts where 1 would do"), std::string::npos)
      << padded;
  EXPECT_EQ(padded.find("32"), std::string::npos) << padded;
}

TEST(DescribeAnalysis, ALoopsIterationsAreOneStepAtTheirWorstAndRacesAreSaid) {
  // i = 0: every lane reads tile[0][0] (a broadcast, 1 wavefront); i = 1: a column (32-way).
  Scenario s;
  s.block[1] = 1;
  Step st = step(StepKind::Load, "tile[threadIdx.x * i][0]");
  st.loop_var = "i";
  st.loop_from = 0;
  st.loop_to = 2;
  s.steps = {st};
  const Analysis a = analyzed(s);
  ASSERT_EQ(a.steps.size(), 2u);
  const std::string d = describe_analysis(a);
  EXPECT_EQ(count_of(d, "load tile"), 1) << d;
  EXPECT_NE(d.find("32-way bank conflict"), std::string::npos) << d;  // i = 1, not i = 0
  // Warps writing the same word race: the headline says so.
  Scenario r;
  r.steps = {step(StepKind::Store, "tile[0][0]")};
  const std::string race = describe_analysis(analyzed(r));
  const std::vector<std::string> warnings = headline_warnings(analyzed(r));
  ASSERT_FALSE(warnings.empty());  // 32 warps write one word
  for (const std::string& w : warnings) EXPECT_NE(race.find(w), std::string::npos) << race;
}

TEST(RenderTable, ListsIssues) {
  Scenario s = transpose();
  s.steps.erase(s.steps.begin() + 1);  // no __syncthreads()
  const std::string t = render_table(analyzed(s));
  EXPECT_NE(t.find("issues:\n  - race:"), std::string::npos) << t;
}

TEST(RenderTile, ColumnReadLabelsOneColumnWithLanes) {
  Analysis a = analyzed(transpose(1));
  const std::string t = render_tile(a, 2, 0);
  EXPECT_NE(t.find("__shared__ int tile[32][32 + 1];"), std::string::npos) << t;
  // Row r holds lane r in column 0, then untouched cells, then the padding column.
  const std::string row5 = line_starting(t, "[5] ");
  EXPECT_EQ(row5.substr(0, 8), "[5]    5") << t;
  EXPECT_EQ(row5.back(), '#');
  EXPECT_EQ(count_of(row5, "."), 31);
  EXPECT_EQ(lines(t).size(), 4u + 32u);
}

TEST(RenderTile, OneWavefrontShowsOnlyItsLanes) {
  Analysis a = analyzed(transpose());
  const std::string t = render_tile(a, 2, 0, 3);  // 32-way: wavefront 3 serves lane 3 alone
  EXPECT_NE(t.find("wavefront 4 of 32"), std::string::npos);
  EXPECT_EQ(line_starting(t, "[3] ").substr(0, 8), "[3]    3");
  EXPECT_EQ(line_starting(t, "[4] ").substr(0, 8), "[4]    .");
}

TEST(RenderTile, BroadcastMarksSharedElements) {
  Scenario s;
  s.block[1] = 1;
  s.steps = {step(StepKind::Load, "tile[0][threadIdx.x / 2]")};
  const std::string t = render_tile(analyzed(s), 0, 0);
  EXPECT_EQ(line_starting(t, "[0] ").substr(0, 11), "[0]   0+ 2+") << t;
}

TEST(RenderTile, ThreeDimensionalTilesShowEachSlice) {
  Scenario s;
  s.tiles[0].dims = {2, 4, 8};
  s.block[0] = 8, s.block[1] = 4, s.block[2] = 2;
  s.steps = {step(StepKind::Load, "tile[threadIdx.z][threadIdx.y][threadIdx.x]")};
  const std::string t = render_tile(analyzed(s), 0, 1);
  EXPECT_NE(t.find("slice tile[1]:"), std::string::npos) << t;
  EXPECT_NE(t.find("slice tile[0]:"), std::string::npos);
  EXPECT_EQ(line_starting(t, "[1][0] ").substr(0, 10), "[1][0]   0");
  EXPECT_EQ(line_starting(t, "[0][0] ").substr(0, 10), "[0][0]   .");
}

TEST(RenderTile, LargeTilesShowOnlyTouchedRowsAndSaySo) {
  Scenario s;
  s.tiles[0].dims = {200, 32};
  s.block[1] = 1;
  s.steps = {step(StepKind::Load, "tile[100][threadIdx.x]")};
  const std::string t = render_tile(analyzed(s), 0, 0);
  EXPECT_NE(t.find("large tile: only the rows this warp touches"), std::string::npos);
  EXPECT_NE(line_starting(t, "[99] "), "");
  EXPECT_NE(line_starting(t, "[100]"), "");
  EXPECT_NE(line_starting(t, "[101]"), "");
  EXPECT_EQ(line_starting(t, "[50] "), "");
  EXPECT_NE(t.find("(99 rows untouched)"), std::string::npos) << t;
  EXPECT_NE(t.find("(98 rows untouched)"), std::string::npos);
}

TEST(RenderTile, SyncAndBadIndicesAreExplained) {
  Analysis a = analyzed(transpose());
  EXPECT_NE(render_tile(a, 1, 0).find("__syncthreads(): a barrier"), std::string::npos);
  EXPECT_NE(render_tile(a, 9, 0).find("no such step/warp"), std::string::npos);
  EXPECT_NE(render_banks(a, 0, 99).find("no such step/warp"), std::string::npos);
}

TEST(RenderBanks, ColumnReadPilesIntoBankZero) {
  Analysis a = analyzed(transpose());
  const std::string b = render_banks(a, 2, 0);
  // 32 lines touched, each with one lane in bank 0.
  EXPECT_EQ(count_of(b, "\nline "), 32) << b;
  EXPECT_EQ(line_starting(b, "line 7 ").substr(0, 13), "line 7      7");
  const std::string words = line_starting(b, "words");
  EXPECT_EQ(words.substr(0, 13), "words      32");
  const std::string conflict = line_starting(b, "conflict");
  EXPECT_EQ(conflict, "conflict    !");
  EXPECT_NE(b.find("32-way bank conflict: 32 wavefronts where 1 would do"), std::string::npos);
}

TEST(RenderBanks, RowAccessFillsOneLine) {
  Analysis a = analyzed(transpose(1));
  const std::string b = render_banks(a, 2, 0);  // the padded column read
  EXPECT_EQ(count_of(b, "\nline "), 32);
  EXPECT_EQ(line_starting(b, "conflict").find('!'), std::string::npos);
  const std::string store = render_banks(a, 0, 3);  // row 3 = bytes 3*132 .. +127
  EXPECT_EQ(count_of(store, "\nline "), 2);
}

TEST(RenderBanks, Cc1xHasSixteenBankColumns) {
  Analysis a = analyzed(transpose(), find_arch("cc1x"));
  const std::string b = render_banks(a, 0, 0);
  EXPECT_EQ(line_starting(b, "bank").substr(0, 10 + 16 * 3), line_starting(b, "bank"));
  EXPECT_NE(b.find("one row per 64-byte line"), std::string::npos);
}

TEST(RenderBanks, AtomicToOneWordMarksBankZeroAsTheVerdictSays) {
  // The issue's example: the verdict said "32-way" while the picture marked no bank.
  Scenario s;
  s.tiles[0].dims = {32};
  s.block[1] = 1;
  s.steps = {step(StepKind::Atomic, "tile[0]")};
  const std::string b = render_banks(analyzed(s), 0, 0);
  EXPECT_NE(b.find("32-way bank conflict"), std::string::npos) << b;
  EXPECT_EQ(line_starting(b, "conflict"), "conflict    !");
  EXPECT_EQ(line_starting(b, "passes ").substr(0, 13), "passes     32");
  EXPECT_EQ(line_starting(b, "words").substr(0, 13), "words       1");
}

TEST(RenderBanks, HalfWarpConflictIsMarkedEvenWhenTheWholeWarpLooksBalanced) {
  // cc 1.x chars: each half-warp's banks 1-3 wait for the broadcast word; bank 1 serves two
  // passes, which the instruction's ideal of 2 would hide, but its half-warp needed one.
  const std::string b = render_banks(analyzed(
                                         [] {
                                           Scenario s;
                                           s.tiles[0].elem = "char";
                                           s.tiles[0].dims = {128};
                                           s.block[1] = 1;
                                           s.steps = {step(StepKind::Load, "tile[threadIdx.x]")};
                                           return s;
                                         }(),
                                         find_arch("cc1x")),
                                     0, 0);
  EXPECT_EQ(line_starting(b, "passes ").substr(0, 22), "passes      1  2  3  4") << b;
  EXPECT_EQ(line_starting(b, "conflict"), "conflict       !  !  !     !  !  !");
  EXPECT_NE(b.find("4-way bank conflict: 8 wavefronts where 2 would do"), std::string::npos);
}

TEST(RenderBanks, FermisExtraPassIsNamedWhenShown) {
  Scenario s;
  s.tiles[0].elem = "float4";
  s.tiles[0].dims = {32};
  s.block[1] = 1;
  s.steps = {step(StepKind::Load, "tile[threadIdx.x]")};
  const Analysis a = analyzed(s, find_arch("fermi"));
  EXPECT_NE(render_banks(a, 0, 0, 1).find("extra pass"), std::string::npos);
  EXPECT_EQ(render_banks(a, 0, 0, 0).find("extra pass"), std::string::npos);
}

TEST(RenderTable, SaysWhichRuleSetsAreExtrapolatedInPart) {
  EXPECT_NE(render_table(analyzed(transpose(), find_arch("maxwell"))).find("rules extrapolated"),
            std::string::npos);
}

TEST(RenderBanks, WavefrontViewShowsOneWordPerBank) {
  Analysis a = analyzed(transpose());
  const std::string b = render_banks(a, 2, 0, 0);
  EXPECT_EQ(count_of(b, "\nline "), 1);
}

TEST(AnalysisJson, CarriesEverythingTheViewsNeed) {
  Scenario s = transpose();
  s.steps.erase(s.steps.begin() + 1);
  s.steps.push_back(step(StepKind::Sync));
  Analysis a = analyzed(s);
  const nlohmann::json j = nlohmann::json::parse(analysis_to_json(a));
  EXPECT_EQ(j["arch"]["id"], "hopper");
  EXPECT_EQ(j["arch"]["banks"], 32);
  EXPECT_EQ(j["scenario"]["steps"].size(), 3u);
  EXPECT_EQ(j["warps"], 32);
  ASSERT_EQ(j["steps"].size(), 3u);
  const auto& load = j["steps"][1];
  EXPECT_EQ(load["kind"], "load");
  EXPECT_EQ(load["tile"], "tile");
  EXPECT_EQ(load["wavefronts"], 1024);
  EXPECT_EQ(load["ideal"], 32);
  EXPECT_EQ(load["instructions"], 32);
  EXPECT_DOUBLE_EQ(load["per_request"].get<double>(), 32.0);
  const auto& w0 = load["warps"][0];
  EXPECT_EQ(w0["mask"], 0xFFFFFFFFu);
  EXPECT_EQ(w0["width"], 4);
  EXPECT_EQ(w0["degree"], 32);
  EXPECT_EQ(w0["conflicts"], 31);
  EXPECT_EQ(w0["lanes"].size(), 32u);
  EXPECT_EQ(w0["lanes"][1]["element"], 32);
  EXPECT_EQ(w0["lanes"][1]["address"], 128);
  ASSERT_EQ(w0["detail"].size(), 32u);
  EXPECT_EQ(w0["detail"][1]["lanes"], nlohmann::json::array({1}));
  EXPECT_EQ(w0["detail"][1]["words"][0], nlohmann::json::array({1, 0, 32, 0}));
  EXPECT_EQ(w0["detail"][1]["banks"], nlohmann::json::array({0}));
  EXPECT_EQ(w0["bank_passes"].size(), 32u);
  EXPECT_EQ(w0["bank_passes"][0], 32);
  EXPECT_EQ(w0["conflict_banks"], nlohmann::json::array({0}));
  EXPECT_EQ(w0["busiest_bank"], 0);
  ASSERT_FALSE(j["arch"]["rules"].empty());
  EXPECT_EQ(j["arch"]["rules"][0]["provenance"], "measured");
  EXPECT_TRUE(j["steps"][2]["tile"].is_null());
  EXPECT_TRUE(j["steps"][2]["warps"].empty());
  EXPECT_EQ(j["totals"]["wavefronts"], 1056);
  ASSERT_EQ(j["issues"].size(), 1u);
  EXPECT_EQ(j["issues"][0]["step"], 1);
  EXPECT_NE(j["issues"][0]["message"].get<std::string>().find("race"), std::string::npos);
  // The race as the hazard model's record: both accesses, the pair's kind and its lanes.
  EXPECT_EQ(j["races"]["pairs"], 1);
  ASSERT_EQ(j["races"]["named"].size(), 1u);
  const nlohmann::json& r = j["races"]["named"][0];
  EXPECT_EQ(r["message"], j["issues"][0]["message"]);
  EXPECT_EQ(r["second"]["executed"], 1);
  EXPECT_EQ(r["lanes"], j["races"]["racing_accesses"]);
}

TEST(AnalysisJson, MarksBroadcastWords) {
  Scenario s;
  s.block[1] = 1;
  s.steps = {step(StepKind::Load, "tile[0][0]")};
  const nlohmann::json j = nlohmann::json::parse(analysis_to_json(analyzed(s)));
  const auto& words = j["steps"][0]["warps"][0]["detail"][0]["words"];
  ASSERT_EQ(words.size(), 32u);
  EXPECT_EQ(words[5], nlohmann::json::array({5, 0, 0, 1}));
}

TEST(AnalysisJson, IsWrittenStepByStepAsTheSameDocumentAWholeDumpWouldBe) {
  Scenario s = transpose();
  s.steps[0].label = "bad \xff utf-8";  // from a command line: replaced, never thrown
  Analysis a = analyzed(s);
  const std::string text = analysis_to_json(a);
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  EXPECT_TRUE(text == j.dump(2) + "\n");  // member order and indentation of one dump(2)
  EXPECT_EQ(j["steps"][0]["label"], "bad \xef\xbf\xbd utf-8");
  EXPECT_EQ(j["scenario"]["steps"][0]["label"], "bad \xef\xbf\xbd utf-8");
  // A stream that fails part way (a closed pipe) is not written on.
  std::ostringstream dead;
  dead.setstate(std::ios::badbit);
  write_analysis_json(a, dead);
  EXPECT_TRUE(dead.str().empty());
}

TEST(HeadlineWarnings, NameRacesAndOutOfBoundsAccessesAndTheStepsInvolved) {
  Scenario s;  // a store then a load of another thread's element, no __syncthreads(): a race
  s.steps = {step(StepKind::Store, "tile[threadIdx.y][threadIdx.x]"),
             step(StepKind::Load, "tile[threadIdx.x][threadIdx.y]")};
  Analysis a = analyzed(s);
  std::vector<std::string> w = headline_warnings(a, 1);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("RACE: ", 0), 0u) << w[0];
  EXPECT_NE(w[0].find("__syncthreads() is missing"), std::string::npos);
  EXPECT_NE(w[0].find("(this step)"), std::string::npos);
  s.steps.insert(s.steps.begin() + 1, step(StepKind::Sync));
  EXPECT_TRUE(headline_warnings(analyzed(s)).empty());
  s.tiles[0].dims = {16, 32};  // rows 16..31 of a 32x32 block fall outside
  a = analyzed(s);
  EXPECT_EQ(a.out_of_bounds, 512 + 512);  // the store's and the load's out-of-bounds lanes
  w = headline_warnings(a, 0);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("OUT OF BOUNDS: 1024 lane accesses", 0), 0u) << w[0];
  EXPECT_NE(w[0].find("(this step)"), std::string::npos);
}

// cp.async's figures depend on its global source: the table says which one each cp.async step's
// figures assume (coalesced when the step gives none), where a cp.async step is, and only there.
TEST(RenderTable, CpAsyncSaysWhichGlobalSourceItsFiguresAssume) {
  Scenario s = transpose();
  EXPECT_EQ(render_table(analyzed(s)).find("cp.async source"), std::string::npos);
  Step copy;
  ASSERT_TRUE(parse_step_op("cp.async.16", copy));
  copy.index = "tile[threadIdx.y][threadIdx.x % 8 * 4]";
  s.steps = {copy};
  std::string t = render_table(analyzed(s));
  EXPECT_NE(t.find("cp.async source: coalesced, assumed"), std::string::npos) << t;
  EXPECT_EQ(t.find("as given"), std::string::npos) << t;
  // The same copy from chunks 2 apart: named as given, with its own figures.
  s.steps.push_back(s.steps[0]);
  s.steps[1].source = "threadIdx.x * 2";
  s.steps[1].label = "strided";
  t = render_table(analyzed(s));
  EXPECT_NE(t.find("cp.async source: as given: strided from chunk threadIdx.x * 2"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("coalesced, assumed"), std::string::npos) << t;
  // Every view's verdict (frame_cells) says it too, step by step.
  const Analysis a = analyzed(s);
  Frame f;
  f.warp = 0;
  f.step = 0;
  EXPECT_NE(frame_cells(a, f).verdict.find("(source: coalesced, assumed)"), std::string::npos)
      << frame_cells(a, f).verdict;
  EXPECT_EQ(frame_cells(a, f).verdict.find("not modelled"), std::string::npos);
  // Chunks 2 apart: a warp's 32 x 16 bytes read 1 KB, eight lines, two in each of the L1's four
  // sets: two global passes, modelled (docs/CPASYNC_SOURCE.md), so no view says otherwise.
  f.step = 1;
  const std::string v = frame_cells(a, f).verdict;
  EXPECT_NE(v.find("(source: chunk threadIdx.x * 2)"), std::string::npos) << v;
  EXPECT_EQ(v.find("may count more or fewer"), std::string::npos) << v;
  EXPECT_EQ(t.find("beyond 2 MiB"), std::string::npos) << t;
  EXPECT_EQ(copy_global_passes(a.warps[1][0].access), 2);
  const std::string j = analysis_to_json(a);
  EXPECT_EQ(j.find("\"source_exact\": false"), std::string::npos);
  EXPECT_NE(j.find("\"source_exact\": true"), std::string::npos);
}

// The L1 set hash splits sources beyond one 512-byte block into global passes, which the L1's
// counter counts; Nsight Compute's per-instruction counter counts one pass for them (an H200:
// tests/data/hopper/counters-h200.txt). Where the two differ the figures say so and give the
// one-pass count; where they agree (sources bound by one source bank) nothing is added.
TEST(RenderTable, CpAsyncSayWhatThePerInstructionCounterCountsWhereTheGlobalPassesMatter) {
  Scenario s = transpose();
  s.block[0] = 64, s.block[1] = 1;
  Step far4, far16;
  ASSERT_TRUE(parse_step_op("cp.async.4", far4));
  ASSERT_TRUE(parse_step_op("cp.async.16", far16));
  s.tiles[0].elem = "float";
  s.tiles[0].dims = {2048};
  s.tiles[0].pad = 0;
  far4.index = "tile[threadIdx.x * 2]";
  far4.source = "threadIdx.x * 36";  // 144 bytes apart: 32 lines
  far16.index = "tile[threadIdx.x * 4 + 512]";
  far16.source = "threadIdx.x * 16";  // 256 bytes apart: one source bank for every lane
  s.steps = {far4, far16};
  const Analysis a = analyzed(s);
  const std::string t = render_table(a);
  EXPECT_GT(copy_global_passes(a.warps[0][0].access), 1);
  EXPECT_GT(copy_global_passes(a.warps[1][0].access), 1);
  EXPECT_EQ(copy_wavefronts_one_pass(*a.arch, a.warps[0][0].access), 4);
  EXPECT_NE(t.find("cp.async global passes: cp.async.4 tile[threadIdx.x * 2]: its sources take"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("counts one pass for them: 8 here"), std::string::npos) << t;
  EXPECT_EQ(t.find("cp.async.16 tile[threadIdx.x * 4 + 512]: its sources"), std::string::npos) << t;
  Frame f;
  f.warp = 0;
  f.step = 0;
  EXPECT_NE(frame_cells(a, f).verdict.find("per-instruction counter"), std::string::npos)
      << frame_cells(a, f).verdict;
  f.step = 1;
  EXPECT_EQ(frame_cells(a, f).verdict.find("per-instruction"), std::string::npos)
      << frame_cells(a, f).verdict;
}
