// bankviz-cli as a user meets it: output, errors and exit statuses.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bankviz/access.h"
#include "cli_run.h"

namespace {

namespace fs = std::filesystem;

using bankviz::test::cli;
using bankviz::test::Result;
using bankviz::test::slurp;

std::string data(const std::string& rel) {
  return std::string(BANKVIZ_TEST_DATA) + "/" + rel;
}

// [SECTION] wavefronts
class WavefrontsSuite : public ::testing::TestWithParam<const char*> {};

TEST_P(WavefrontsSuite, PrintsTheMeasuredLoadAndStoreWavefrontsForEveryCase) {
  const std::string base = data(std::string("hopper/") + GetParam());
  const Result r = cli("wavefronts --arch hopper '" + base + ".txt'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, slurp(base + ".expected"));
}
INSTANTIATE_TEST_SUITE_P(Measured, WavefrontsSuite,
                         ::testing::Values("random", "targeted", "holdout"));
// The same command on OP lines prints NAME WAVEFRONTS IDEAL (docs/MATRIX_RULE.md).
INSTANTIATE_TEST_SUITE_P(MeasuredMatrix, WavefrontsSuite,
                         ::testing::Values("ldmatrix", "stmatrix", "cpasync", "ldmatrix_holdout",
                                           "stmatrix_holdout", "cpasync_holdout"));
// Shared atomics, compare-and-swap among them (tools/atomsweep on an H100: NAME WAVEFRONTS IDEAL).
INSTANTIATE_TEST_SUITE_P(MeasuredAtomics, WavefrontsSuite, ::testing::Values("atomcas"));

std::string addresses(int stride, int count = 32) {
  std::string s;
  for (int l = 0; l < count; ++l) s += ' ' + std::to_string(l * stride);
  return s;
}

TEST(Wavefronts, MatrixAndAsyncLinesAreCheckedAsTheInstructionsRequire) {
  const std::string rows = addresses(16);  // 32 rows of 16 bytes, back to back
  Result r = cli("wavefronts -", "x4 ldmatrix.x4 0xffffffff" + rows + "\nx1 stmatrix.x1.trans " +
                                     "0xffffffff" + addresses(128) + "\ncp cp.async.4 0xffffffff" +
                                     addresses(0) + "\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "x4 4 4\nx1 8 1\ncp 32 1\n");  // rows 128 B apart: one bank, 8 ways
  r = cli("wavefronts -", "partial ldmatrix.x2 0xffff" + rows + "\nodd ldmatrix.x1 0xffffffff" +
                              addresses(8) + "\nmis cp.async.8 0x3" + addresses(4) +
                              "\nbogus ldmatrix.x3 0xffffffff" + rows + "\nshort cp.async.4 1 2\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("-:1: ldmatrix.x2 is .sync.aligned: every lane executes it, so MASK must "
                       "be 0xffffffff (the row addresses come from lanes 0..15)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-:2: lane 1: address 8 is not a multiple of the access width 16"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-:3: lane 1: address 4 is not a multiple of the access width 8"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-:4: 'ldmatrix.x3' is neither a width nor an instruction"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-:5: expected 35 fields (NAME OP MASK"), std::string::npos) << r.err;
  r = cli("wavefronts --arch maxwell -", "x4 ldmatrix.x4 0xffffffff" + rows + "\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("modelled for --arch hopper only"), std::string::npos) << r.err;
}

// The cp.async source suites (docs/CPASYNC_SOURCE.md), as an H100 counted them, through
// `bankviz-cli wavefronts`. Per suite: how many cases the model claims (every active source below
// 2 MiB, copy_source_exact()), how many of those equal the measurement, and the cases with one
// source line (exact under any rule of the global side).
namespace {
struct SourceSuite {
  int cases = 0, claimed = 0, claimed_equal = 0, one_line = 0, one_line_equal = 0;
  std::vector<std::string> differ;  // claimed cases whose counts differ (wavefronts, ideal)
};
SourceSuite run_source_suite(const std::string& base) {
  SourceSuite out;
  const Result r = cli("wavefronts --arch hopper '" + base + ".txt'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::map<std::string, std::pair<int, int>> model, measured;
  std::istringstream got(r.out), exp(slurp(base + ".expected"));
  std::string name;
  for (int wf, ideal; got >> name >> wf >> ideal;) model[name] = {wf, ideal};
  for (int wf, ideal; exp >> name >> wf >> ideal;) measured[name] = {wf, ideal};
  EXPECT_EQ(model.size(), measured.size());
  std::ifstream cases(base + ".txt");
  for (std::string line; std::getline(cases, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string op, mask_text;
    f >> name >> op >> mask_text;
    const uint32_t mask = static_cast<uint32_t>(std::stoul(mask_text, nullptr, 0));
    std::vector<uint64_t> v(64);
    for (uint64_t& x : v) f >> x;
    EXPECT_TRUE(f) << line;
    if (!f || !model.count(name) || !measured.count(name)) continue;
    ++out.cases;
    bankviz::WarpAccess a;
    a.mask = mask;
    a.has_source = true;
    std::set<uint64_t> lines;
    for (int l = 0; l < 32; ++l) {
      a.source[static_cast<size_t>(l)] = uint32_t(v[size_t(32 + l)]);
      if ((mask >> l) & 1u) lines.insert(v[static_cast<size_t>(32 + l)] / 128);
    }
    const bool equal = model.at(name) == measured.at(name);
    if (lines.size() == 1) {
      ++out.one_line;
      out.one_line_equal += equal;
    }
    if (bankviz::copy_source_exact(a)) {
      ++out.claimed;
      out.claimed_equal += equal;
      if (!equal) out.differ.push_back(name);
    }
  }
  return out;
}
}  // namespace

// 1932 destination x source patterns (gen_sources.py), every source below 1 MiB: the model
// (the L1's four sets, at most one line of each per global pass) equals every count, wavefronts
// and ideal. Before the set hash was known it explained 1652 wavefront counts and 1339 pairs.
TEST(Wavefronts, CpAsyncSourceSuiteEqualsTheH100) {
  const SourceSuite s = run_source_suite(data("hopper/cpsource"));
  EXPECT_EQ(s.cases, 1932);
  EXPECT_EQ(s.claimed, 1932);
  EXPECT_EQ(s.claimed_equal, 1932) << testing::PrintToString(s.differ);
  EXPECT_GE(s.one_line, 200);
  EXPECT_EQ(s.one_line_equal, s.one_line);
}

// The sweep that found the hash (tools/cpsweep): two source lines each, over 32 MiB buffers on
// 2 MiB boundaries, in two allocations. Every case with its sources below 2 MiB equals the H100;
// the ones above (bits of the line index the hash was not pinned down for) are not claimed.
TEST(Wavefronts, CpAsyncSourceSweepEqualsTheH100BelowTwoMebibytes) {
  const SourceSuite s = run_source_suite(data("hopper/cpsweep"));
  EXPECT_GE(s.cases, 900);
  EXPECT_GE(s.claimed, 700);
  EXPECT_LT(s.claimed, s.cases);
  EXPECT_EQ(s.claimed_equal, s.claimed) << testing::PrintToString(s.differ);
}

// The same sweep on an H200 (issue 30, 2026-11-29; runs A, B and C: 934 cases, 18 more than the
// H100's): the L1's counter (l1tex__data_pipe_lsu_wavefronts_mem_shared) follows the H100's set
// hash on every case with its sources below 2 MiB. The 769 cases both sweeps hold alike have
// the same counts on both GPUs (the others' names hold other sources: gen.py's input moved).
TEST(Wavefronts, CpAsyncSourceSweepEqualsTheH200BelowTwoMebibytes) {
  const SourceSuite s = run_source_suite(data("hopper/cpsweep-h200"));
  EXPECT_GE(s.cases, 900);
  EXPECT_GE(s.claimed, 700);
  EXPECT_LT(s.claimed, s.cases);
  EXPECT_EQ(s.claimed_equal, s.claimed) << testing::PrintToString(s.differ);
}

// A cp.async line's sources are optional and checked like its destinations.
TEST(Wavefronts, CpAsyncSourcesAreReadAndChecked) {
  auto seq = [](int stride, int add = 0) {
    std::string s;
    for (int l = 0; l < 32; ++l) s += ' ' + std::to_string(l * stride + add);
    return s;
  };
  Result r = cli("wavefronts -", "coalesced cp.async.4 0xffffffff" + seq(4) + seq(4) +
                                     "\nonesource cp.async.4 0xffffffff" + seq(4) + seq(0) +
                                     "\nnosource cp.async.4 0xffffffff" + seq(4) + "\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "coalesced 1 1\nonesource 32 1\nnosource 1 1\n");
  r = cli("wavefronts -", "mis cp.async.8 0xffffffff" + seq(8) + seq(8, 4) +
                              "\nshort cp.async.4 0xffffffff" + seq(4) +
                              " 1 2\nld ldmatrix.x4 "
                              "0xffffffff" +
                              seq(16) + seq(16) + "\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("-:1: lane 0: global source 4 is not a multiple of the copy size 8"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-:2: expected 35 fields (NAME OP MASK and 32 addresses; cp.async may add "
                       "32 global sources: 67), found 37"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-:3: expected 35 fields (NAME OP MASK and 32 addresses), found 67"),
            std::string::npos)
      << r.err;
}

TEST(Wavefronts, ReadsStandardInputAndSkipsCommentsAndBlankLines) {
  const Result r =
      cli("wavefronts -", "# a comment\n\nrow 4 0xffffffff" + addresses(4) +
                              "\n  # indented comment\ncol 4 4294967295" + addresses(128) + "\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "row 1 1\ncol 32 32\n");
}

TEST(Wavefronts, DefaultsToHopperAndOtherArchsFollowTheirRules) {
  const std::string line = "dbl 8 0xffffffff" + addresses(8) + "\n";
  EXPECT_EQ(cli("wavefronts -", line).out, "dbl 2 2\n");
  EXPECT_EQ(cli("wavefronts --arch kepler8 -", line).out, "dbl 1 1\n");
}

TEST(Wavefronts, BadLinesAreReportedWithTheirLineNumberSkippedAndExitOne) {
  const std::string good = "ok 4 0xffffffff" + addresses(4) + "\n";
  const std::string input = good +                                          // line 1
                            "short 4 0xffffffff 0 4 8\n" +                  // 2: field count
                            "w3 3 0xffffffff" + addresses(4) + "\n" +       // 3: width
                            "mis 8 0xffffffff" + addresses(4) + "\n" +      // 4: misaligned
                            "neg 4 0x1 -4" + addresses(4, 31) + "\n" +      // 5: negative
                            "far 4 0x1 233472" + addresses(4, 31) + "\n" +  // 6: beyond 228 KB
                            "mask 4 0x1ffffffff" + addresses(4) + "\n" +    // 7: mask
                            good;                                           // 8
  const Result r = cli("wavefronts -", input);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "ok 1 1\nok 1 1\n");
  for (const char* needle : {":2: expected 35 fields", ":3: width '3'", ":4: lane 1",
                             ":5: lane 0: negative", ":6: lane 0", "228 KB", ":7: mask"})
    EXPECT_NE(r.err.find(needle), std::string::npos) << needle << "\n" << r.err;
}

TEST(Wavefronts, InactiveLanesAddressesAreIgnored) {
  // Lane 1 is inactive: its misaligned, far address must not matter.
  std::string line = "one 8 0x1 0 999999";
  line += addresses(8, 30) + "\n";
  const Result r = cli("wavefronts -", line);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "one 1 1\n");
}

TEST(Wavefronts, UsageErrorsExitTwo) {
  EXPECT_EQ(cli("wavefronts").status, 2);
  EXPECT_EQ(cli("wavefronts --arch volta -").status, 2);
  EXPECT_EQ(cli("frobnicate").status, 2);
  EXPECT_EQ(cli("").status, 2);
}

TEST(Wavefronts, MissingFileIsAClearError) {
  const Result r = cli("wavefronts /nonexistent/records.txt");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
}

// [SECTION] help
TEST(Help, EverySubcommandHasHelpAndExitsZero) {
  for (const char* sub : {"", "analyze", "wavefronts", "presets", "archs"}) {
    const Result r = cli(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub << r.out;
  }
}

// [SECTION] archs
TEST(Archs, LabelsEveryRuleAndTheWideSplitsAfterFermiAsExtrapolated) {
  const Result r = cli("archs");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hopper\tHopper (sm_90)\t32 banks x 4 B\tmeasured\n"), std::string::npos)
      << r.out;
  const size_t maxwell = r.out.find("\nmaxwell\t");
  ASSERT_NE(maxwell, std::string::npos);
  const size_t wide =
      r.out.find("  extrapolated: 8-byte accesses are served by half-warps", maxwell);
  EXPECT_NE(wide, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("published: 8-byte accesses"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rules extrapolated"), std::string::npos);
}

// [SECTION] analyze
TEST(Analyze, FlagsDescribeTheTransposeAndTheColumnReadIs32Way) {
  const Result r =
      cli("analyze --dims 32x32 --block 32x32 --step 'store tile[threadIdx.y][threadIdx.x]' "
          "--step sync --step 'load tile[threadIdx.x][threadIdx.y]'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("32-way"), std::string::npos) << r.out;
}

TEST(Analyze, PaddingFlagRemovesTheConflict) {
  const Result r =
      cli("analyze --dims 32x32 --pad 1 --block 32x32 --no-pictures --json "
          "--step 'store tile[threadIdx.y][threadIdx.x]' --step sync "
          "--step 'load tile[threadIdx.x][threadIdx.y]'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("32-way"), std::string::npos);
}

// A cp.async step's global source (docs/CPASYNC_SOURCE.md): `from` on the command line, in the
// JSON the analysis prints, and its figures: chunks 2 apart put lanes l and l + 16 on one
// source bank, so the contiguous write takes 2 wavefronts (1 with the coalesced default).
TEST(Analyze, CpAsyncFromNamesItsGlobalSourceAndItsFiguresFollowIt) {
  const std::string base = "analyze --elem int --dims 256 --block 32 --no-pictures --json ";
  Result r = cli(base + "--step 'cp.async.4 tile[threadIdx.x] from threadIdx.x * 2'");
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["scenario"]["steps"][0]["source"], "threadIdx.x * 2");
  EXPECT_EQ(j["steps"][0]["source"], "threadIdx.x * 2");
  EXPECT_EQ(j["steps"][0]["warps"][0]["wavefronts"], 2);
  EXPECT_EQ(j["steps"][0]["warps"][0]["ideal"], 1);
  r = cli(base + "--step 'cp.async.4 tile[threadIdx.x]'");
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["steps"][0]["source"], "coalesced (assumed)");
  EXPECT_EQ(j["steps"][0]["warps"][0]["wavefronts"], 1);
  // Refusals: a source on a load, an empty one, a chunk outside the kernel's input.
  r = cli(base + "--step 'load tile[threadIdx.x] from 3'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("only cp.async reads a global source; remove \"source\" from load"),
            std::string::npos)
      << r.err;
  r = cli(base + "--step 'cp.async.4 tile[threadIdx.x] from '");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("'from' needs the source chunk's expression"), std::string::npos) << r.err;
  r = cli(base + "--step 'cp.async.16 tile[threadIdx.x % 8 * 4] from threadIdx.x * 65536'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("thread (1,0,0): the source chunk is 65536, outside the kernel's input: "
                       "cp.async.16 copies chunk 0 to 65535"),
            std::string::npos)
      << r.err;
}

TEST(Analyze, BadExpressionNamesTheStepAndColumn) {
  const Result r = cli("analyze --step 'load tile[threadIdx.x][threadIdx.y +]'");
  EXPECT_EQ(r.status, 2);  // a flag's value: a usage error
  EXPECT_NE(r.err.find("--step: steps[0].index col"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("col"), std::string::npos) << r.err;
}

TEST(Analyze, FlagsThatMakeTheScenarioInvalidAreUsageErrorsNamingTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"--elem foo", "--elem: tiles[0].elem: unknown element type 'foo'"},
      {"--pad -1", "--pad: tiles[0].pad"},
      {"--pad 9223372036854775807", "--pad: tiles[0].pad"},
      {"--swizzle 1,0,-2147483648", "--swizzle: tiles[0].swizzle"},
      {"--block 33x33", "--block: block: 33 x 33 x 1 = 1089 threads"},
      {"--define 1N=3", "--define: constants["},
      {"--let x=", "--let: lets[1].expr: empty expression"},
      {"--let 'char x=3'", "--let: lets[1].type"},
      {"--step sync", "--step: steps: only __syncthreads()"}};
  for (const auto& [flags, message] : cases) {
    const Result r = cli(std::string("analyze --preset row-write-column-read ") + flags);
    EXPECT_EQ(r.status, 2) << flags << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << flags << "\n" << r.err;
  }
  // Negative picture coordinates are refused, not read as "the default".
  EXPECT_EQ(cli("analyze --show-step -5").status, 2);
  EXPECT_EQ(cli("analyze --warp -1").status, 2);
  EXPECT_EQ(cli("export --svg /tmp/x.svg --wavefront -2").status, 2);
}

TEST(Analyze, ABadOrUnreadableScenarioFileIsAFailureNotAUsageError) {
  Result r = cli("analyze --file /nonexistent/x.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "bankviz-cli: cannot read the scenario file: '/nonexistent/x.json': no such file\n");
  r = cli("analyze --file -", R"({"tiles": [{"dims": [0]}]})");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("standard input:\n  tiles[0].dims"), std::string::npos) << r.err;
}

TEST(Analyze, UnknownPresetListsTheKnownOnes) {
  const Result r = cli("analyze --preset no-such-lesson");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no preset named 'no-such-lesson'"), std::string::npos) << r.err;
}

TEST(Analyze, BadFlagValuesAreUsageErrors) {
  EXPECT_EQ(cli("analyze --dims 32xfoo").status, 2);
  EXPECT_EQ(cli("analyze --dims 0x4").status, 2);
  EXPECT_EQ(cli("analyze --arch volta").status, 2);
  EXPECT_EQ(cli("analyze --step 'fetch tile[0]'").status, 2);
  EXPECT_EQ(cli("analyze --swizzle 3,0").status, 2);
  EXPECT_EQ(cli("analyze --define N").status, 2);
}

TEST(Analyze, ScenarioFromStandardInputWithErrorsSaysWhere) {
  const Result r = cli("analyze --file -", "{ \"tiles\": [ { \"elem\": \"int\", ");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("standard input"), std::string::npos) << r.err;
}

// [SECTION] presets through the scenario flags
using nlohmann::json;

// The first tile of `analyze --json` for the given scenario flags.
json analyzed_tiles(const std::string& args) {
  const Result r = cli("analyze --no-pictures --json " + args);
  EXPECT_EQ(r.status, 0) << args << ": " << r.err;
  return r.status == 0 ? json::parse(r.out)["scenario"]["tiles"] : json();
}

TEST(Presets, EveryPresetKeepsEachTileFieldItGivesWhenNoFlagChangesIt) {
  int presets = 0;
  for (const auto& e : fs::directory_iterator(fs::path(BANKVIZ_SOURCE_DIR) / "assets/presets")) {
    if (e.path().extension() != ".json") continue;
    ++presets;
    const std::string name = e.path().stem().string();
    const json given = json::parse(slurp(e.path()))["tiles"];
    const json got = analyzed_tiles("--preset " + name);
    ASSERT_EQ(got.size(), given.size()) << name;
    for (size_t t = 0; t < given.size(); ++t)
      for (const auto& [field, value] : given[t].items())
        EXPECT_EQ(got[t][field], value) << name << " tiles[" << t << "]." << field;
  }
  EXPECT_GT(presets, 0);
}

TEST(Presets, DynamicPresetsSourceDeclaresExternShared) {
  int dynamic = 0;
  for (const auto& e : fs::directory_iterator(fs::path(BANKVIZ_SOURCE_DIR) / "assets/presets")) {
    const json given = json::parse(slurp(e.path()));
    if (!given["tiles"][0].value("dynamic", false)) continue;
    ++dynamic;
    const std::string name = e.path().stem().string();
    const Result r = cli("source --preset " + name);
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    const std::string tile = given["tiles"][0]["name"];
    EXPECT_NE(r.out.find("extern __shared__ " + std::string(given["tiles"][0]["elem"]) + " " +
                         tile + "[];"),
              std::string::npos)
        << name << ":\n"
        << r.out;
  }
  EXPECT_GT(dynamic, 0);
}

TEST(Presets, DynamicFlagOverridesThePresetEitherWay) {
  EXPECT_EQ(analyzed_tiles("--preset reverse-dynamic --dynamic=false")[0]["dynamic"], false);
  EXPECT_EQ(analyzed_tiles("--preset reverse-static --dynamic")[0]["dynamic"], true);
  const Result r = cli("source --preset reverse-dynamic --dynamic=false");
  EXPECT_EQ(r.out.find("extern __shared__ float s[];"), std::string::npos) << r.out;
}

}  // namespace

// [SECTION] C semantics from the command line (issue 7's examples)

TEST(Semantics, UnsignedThreadIdxWrapsSoTheIndexIsInBounds) {
  const Result r = cli("analyze --dims 32 --block 32 --step 'store tile[(threadIdx.x - 1) % 32]'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("out of bounds"), std::string::npos) << r.out;
}

TEST(Semantics, ALetMayDeclareItsTypeBeforeItsName) {
  // int row = threadIdx.x - 1 is -1 for thread 0: out of bounds; unsigned it would wrap.
  const Result r =
      cli("analyze --dims 32 --block 32 --let 'int row=threadIdx.x - 1' "
          "--step 'store tile[row]' --json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tile[-1] is out of bounds"), std::string::npos) << r.out;
  const Result src =
      cli("source --dims 32 --block 32 --let 'int row=threadIdx.x - 1' "
          "--step 'store tile[row + 1]'");
  EXPECT_NE(src.out.find("    int row = threadIdx.x - 1;"), std::string::npos) << src.out;
  EXPECT_NE(cli("analyze --let 'float row=1' --step 'load tile[0][0]'").status, 0);
}

TEST(Semantics, ALoopOutsideIntIsAnErrorNotZeroSteps) {
  const Result r =
      cli("analyze --dims 32 --block 32 "
          "--step 'store tile[0] for i in -9223372036854775807..9223372036854775807'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("does not fit the loop variable's type int"), std::string::npos) << r.err;
}

TEST(Semantics, ASwizzledScenarioHasAKernel) {
  const Result r =
      cli("source --dims 32x32 --block 32x32 --swizzle 5,0,5 "
          "--step 'store tile[threadIdx.y][threadIdx.x]'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tile[tile_swizzle((threadIdx.y) * 32 + (threadIdx.x))]"), std::string::npos)
      << r.out;
}

TEST(Hostile, ControlBytesInTitlesAndLabelsNeverReachTheTerminal) {
  // An OSC sequence (retitles a terminal window) and a clear-screen in user text (issue 11).
  const std::string scenario = R"({"name": "x", "title": "t\u001b]0;owned\u0007\u001b[2J",
    "steps": [{"kind": "store", "index": "tile[threadIdx.y][threadIdx.x]",
               "label": "s\u001b[31mred\r"}]})";
  for (const char* cmd : {"analyze --file -", "source --file -"}) {
    const Result r = cli(cmd, scenario);
    EXPECT_EQ(r.status, 0) << cmd << ": " << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << cmd;
    EXPECT_NE(r.out.find("]0;owned"), std::string::npos) << cmd << ": " << r.out.substr(0, 300);
  }
}

TEST(Hostile, OutputThatCannotBeWrittenIsAFailureNotSuccess) {
  const std::string cmd = std::string("'") + BANKVIZ_CLI + "' analyze > /dev/full 2>/dev/null";
  const int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw));
  EXPECT_EQ(WEXITSTATUS(raw), 1);
}

// Ctrl+C, SIGTERM, SIGHUP or SIGQUIT during an export end bankviz-cli with its temporary file
// removed (io.h's remove_temporary_files_on_signal; tests/core/test_io.cpp sends the signal in the
// middle of a write). Here: the program catches them (its /proc status) while it waits on input,
// still ends by the signal, and leaves an ignored SIGINT (a background job's) ignored.
namespace {
uint64_t caught_signals(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("SigCgt:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  return 0;
}
uint64_t bit(int sig) {
  return uint64_t{1} << (sig - 1);
}
}  // namespace

TEST(Hostile, ASignalEndsTheCliAfterRemovingItsTemporaryFiles) {
  for (const bool ignore_int : {false, true}) {
    int in[2];
    ASSERT_EQ(::pipe(in), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::dup2(in[0], 0);
      ::close(in[0]);
      ::close(in[1]);
      // As a terminal's program gets them (a background parent may have left some ignored).
      for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, SIG_DFL);
      if (ignore_int) std::signal(SIGINT, SIG_IGN);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(BANKVIZ_CLI, BANKVIZ_CLI, "wavefronts", "-", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    // It reads standard input, which stays open: wait until it has set its signals up.
    const uint64_t want = bit(SIGTERM) | bit(SIGHUP) | bit(SIGQUIT);
    uint64_t got = 0;
    for (int i = 0; i < 2000 && (got & want) != want; ++i) {
      got = caught_signals(child);
      if ((got & want) != want) ::usleep(5000);
    }
    EXPECT_EQ(got & want, want) << std::hex << got;
    EXPECT_EQ((got & bit(SIGINT)) != 0, !ignore_int) << std::hex << got;
    ::kill(child, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ::close(in[1]);
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
  }
}

TEST(Hostile, DirectoriesAndFifosAreRefusedNotReadOrWaitedOn) {
  const fs::path dir = fs::temp_directory_path() / ("bankviz-fifo-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Result d = cli("wavefronts '" + dir.string() + "'");
  EXPECT_EQ(d.status, 1);
  EXPECT_NE(d.err.find("is a directory"), std::string::npos) << d.err;
  // A FIFO nobody writes to would block a reader forever: refused at once (timeout: 124).
  for (const std::string& args : {"wavefronts '" + fifo + "'", "analyze --file '" + fifo + "'"}) {
    const std::string err = (dir / "err").string();
    const std::string cmd = "timeout 20 '" + std::string(BANKVIZ_CLI) + "' " + args +
                            " > /dev/null 2> '" + err + "' < /dev/null";
    const int raw = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(raw)) << args;
    EXPECT_EQ(WEXITSTATUS(raw), 1) << args;
    EXPECT_NE(slurp(err).find("FIFO"), std::string::npos) << args << ": " << slurp(err);
  }
  fs::remove_all(dir);
}

TEST(Hostile, EmptyAndTruncatedFlagValuesAreUsageErrors) {
  // They were silently ignored (or "32x" read as 32) (issue 11).
  for (const char* args :
       {"analyze --dims 32x", "analyze --dims x32", "analyze --elem ''", "analyze --preset ''",
        "analyze --dims ''", "analyze --arch ''", "source --block ''", "analyze --swizzle ''"}) {
    const Result r = cli(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  EXPECT_EQ(cli("analyze --dims 32x33").status, 0);
}

TEST(Hostile, AnEmptyLoopVariableIsAnErrorNotANoLoop) {
  const Result r = cli("analyze --file -", R"({"steps": [{"kind": "store", "index": "tile[0][0]",
    "loop": {"var": "", "from": 0, "to": 3}}]})");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("steps[0].loop.var: empty"), std::string::npos) << r.err;
}

// source --cubin writes the kernel as run compiles it (an ELF file, NVRTC, no GPU), and never
// replaces a file without --force; without the toolkit it says so.
TEST(Source, CubinIsWrittenOnceAndReplacedOnlyWithForce) {
  const fs::path dir = fs::temp_directory_path() / ("bankviz-cubin-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string cubin = (dir / "k.cubin").string();
  Result r = cli("source --preset row-write-column-read --cubin '" + cubin + "'");
  if (r.status == 1 && r.err.find("no CUDA toolkit") != std::string::npos) {
    fs::remove_all(dir);
    GTEST_SKIP() << r.err;
  }
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(slurp(cubin).substr(0, 4),
            "\x7f"
            "ELF");
  std::ofstream(cubin) << "mine";
  r = cli("source --preset row-write-column-read --cubin '" + cubin + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("exists; pass --force"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(cubin), "mine");
  r = cli("source --preset row-write-column-read --force --cubin '" + cubin + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(cubin).substr(0, 4),
            "\x7f"
            "ELF");
  fs::remove_all(dir);
}

TEST(Export, WritesAnSvgAndNeverReplacesAFileItShouldNot) {
  const fs::path dir = fs::temp_directory_path() / ("bankviz-export-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string svg = (dir / "slide.svg").string();
  Result r = cli("export --preset row-write-column-read --svg '" + svg + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(slurp(svg).find("<svg"), std::string::npos);
  std::ofstream(svg) << "my slide";
  r = cli("export --preset row-write-column-read --svg '" + svg + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("exists; pass --force"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(svg), "my slide");
  r = cli("export --preset row-write-column-read --force --svg '" + svg + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(slurp(svg).find("<svg"), std::string::npos);
  // A device is never written, even with --force ("wrote /dev/full" and exit 0, once).
  r = cli("export --preset row-write-column-read --force --svg /dev/full");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = cli("export --preset row-write-column-read --svg '" + (dir / "no/such/dir.svg").string() +
          "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

// A slide of a scenario recorded on a GPU (assets/recorded) shows the recorded figure, labelled
// with the GPU and the date, as the app's stage does; an edit nobody recorded shows none; a
// comparison of two recorded scenarios shows both figures and their ratio.
TEST(Export, ASlideShowsTheRecordedFigureWhereOneWasRecorded) {
  const fs::path dir = fs::temp_directory_path() / ("bankviz-exrec-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string svg = (dir / "slide.svg").string();
  Result r = cli("export --preset row-write-column-read --slide --svg '" + svg + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // The worst step, drawn by default: the column read, 32 wavefronts per request.
  EXPECT_NE(slurp(svg).find("measured on H200, recorded 2026-11-29: 3"), std::string::npos);
  EXPECT_NE(slurp(svg).find(" cycles per instruction, model 32<"), std::string::npos);
  r = cli("export --preset row-write-column-read --pad 40 --slide --force --svg '" + svg + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(svg).find("measured on"), std::string::npos);
  r = cli("export --compare row-write-column-read row-write-column-read-padded --force --svg '" +
          svg + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string both = slurp(svg);
  size_t sides = 0;
  for (size_t at = both.find("cycles/instr, measured on H200, recorded 2026-11-29");
       at != std::string::npos; at = both.find("cycles/instr, measured on H200", at + 1))
    ++sides;
  EXPECT_EQ(sides, 2u) << both;
  EXPECT_NE(both.find("measured, cycles per instruction: B / A = 0.0"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Compare, PrintsBothAndTheRatioInTextAndJson) {
  Result r = cli("compare row-write-column-read row-write-column-read-padded");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("wavefronts (model)           1056                   64"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("B needs 16.50x fewer wavefronts than A."), std::string::npos) << r.out;
  r = cli("compare row-write-column-read row-write-column-read-padded --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["a"]["total_wavefronts"], 1056);
  EXPECT_EQ(j["b"]["worst_per_request"], 1.0);
  EXPECT_DOUBLE_EQ(j["per_request_ratio"].get<double>(), 1.0 / 32);
  // A file works like a preset; a missing one is a failure, a missing operand a usage error.
  r = cli("compare '" + std::string(BANKVIZ_SOURCE_DIR) +
          "/assets/presets/row-write-row-read.json' row-write-column-read");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(cli("compare /nonexistent.json row-write-column-read").status, 1);
  EXPECT_EQ(cli("compare row-write-column-read").status, 2);
  EXPECT_EQ(cli("compare nope row-write-column-read").status, 2);
}

TEST(Sweep, CsvHasOneRowPerValueWithValueAndWorstPerRequest) {
  Result r = cli("sweep --preset row-write-column-read --param pad=0..32 --csv");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header, "value,total_wavefronts,total_ideal,worst_per_request,worst_step,error");
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 33);
  EXPECT_NE(r.out.find("\"0\",1056,64,32.000,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"1\",64,64,1.000,"), std::string::npos) << r.out;
  r = cli("sweep --preset row-write-column-read --param elem=int,nope --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["points"].size(), 2u);
  EXPECT_NE(j["points"][1]["error"].get<std::string>().find("unknown element type"),
            std::string::npos);
  EXPECT_EQ(cli("sweep --preset row-write-column-read --param bogus=1").status, 2);
  EXPECT_EQ(cli("sweep --preset row-write-column-read --param pad=1 --csv --json").status, 2);
}

// [SECTION] lessons

TEST(Lessons, ListsEveryLessonWithItsSceneCount) {
  const Result r = cli("lessons");
  ASSERT_EQ(r.status, 0) << r.err;
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  // One lesson per seed, and the field's: swizzles, vector widths, ldmatrix, the tiled matmul.
  EXPECT_EQ(lines, 9u) << r.out;
  EXPECT_NE(r.out.find("data-layout\tData layout in shared memory"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7 scenes, about 43 minutes"), std::string::npos) << r.out;
  const Result j = cli("lessons --json");
  ASSERT_EQ(j.status, 0) << j.err;
  const auto list = nlohmann::json::parse(j.out);
  ASSERT_EQ(list.size(), 9u);
  for (const auto& l : list) {
    EXPECT_GE(l["scenes"].get<int>(), 3) << l.dump();
    EXPECT_LE(l["minutes"].get<int>(), 45) << l.dump();
    EXPECT_GE(l["minutes"].get<int>(), 40) << l.dump();  // a path through a lecture
  }
}

TEST(Lessons, ShowsTheScenesWithTheModelsAnswers) {
  const Result r = cli("lessons data-layout");
  ASSERT_EQ(r.status, 0) << r.err;
  // Scene 3: the transpose, opened on its column load, answered by the model.
  EXPECT_NE(r.out.find("3. setRowReadCol: row write, column read  [row-write-column-read, step 2: "
                       "load tile[threadIdx.x][threadIdx.y], warp 0]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("A: 32 (wavefronts)"), std::string::npos) << r.out;
  // The lecture's path: each scene's minutes from the start and its notes; the last ends at the
  // lesson's minutes.
  EXPECT_NE(r.out.find("   minutes 0-"), std::string::npos) << r.out;
  const size_t total = r.out.find("(about ");
  ASSERT_NE(total, std::string::npos) << r.out;
  const std::string minutes = r.out.substr(total + 7, r.out.find(' ', total + 7) - total - 7);
  EXPECT_NE(r.out.find("-" + minutes + " of the lecture: "), std::string::npos) << r.out;
  // A race is asked yes or no, and answered so.
  const Result h = cli("lessons histogram");
  ASSERT_EQ(h.status, 0) << h.err;
  EXPECT_NE(h.out.find("A: yes (races)"), std::string::npos) << h.out;
  const Result j = cli("lessons kepler-bank-width --json");
  ASSERT_EQ(j.status, 0) << j.err;
  const auto l = nlohmann::json::parse(j.out);
  ASSERT_EQ(l["scenes"].size(), 3u);
  // float, float2 in 4-byte mode (2 wavefronts at tap i=1), float2 in 8-byte mode.
  EXPECT_EQ(l["scenes"][1]["question"]["answer"], 2);
  EXPECT_EQ(l["scenes"][2]["question"]["answer"], 1);
  EXPECT_NE(l["scenes"][1]["step_label"].get<std::string>().find("(i=1)"), std::string::npos);
}

TEST(Lessons, AFileWhoseAnswerDisagreesWithTheModelFails) {
  const fs::path f = fs::temp_directory_path() / ("lesson-" + std::to_string(::getpid()) + ".json");
  std::ofstream(f) << R"({"scenes": [{"preset": "row-write-column-read-padded", "caption": "c",
    "question": {"ask": "?", "quantity": "wavefronts", "answer": 32}}]})";
  const Result r = cli("lessons --file '" + f.string() + "'");
  fs::remove(f);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("scenes[0].question.answer: 32 disagrees with the model: wavefronts = 1"),
            std::string::npos)
      << r.err;
}

TEST(Lessons, CheckFindsEveryShippedLessonSound) {
  const Result r = cli("lessons --check");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  size_t sound = 0;
  for (size_t at = r.out.find("scenes sound"); at != std::string::npos;
       at = r.out.find("scenes sound", at + 1))
    ++sound;
  EXPECT_EQ(sound, 9u) << r.out;
  EXPECT_NE(r.out.find("none told before it is asked"), std::string::npos) << r.out;
  // The scenes' texts are filled from the model: the transpose's reveal states its 32 wavefronts.
  const Result j = cli("lessons data-layout --json");
  ASSERT_EQ(j.status, 0) << j.err;
  const auto l = nlohmann::json::parse(j.out);
  EXPECT_NE(l["scenes"][2]["reveal"].get<std::string>().find("32-way conflict: 32 wavefronts"),
            std::string::npos)
      << l["scenes"][2].dump();
  EXPECT_EQ(l["scenes"][2]["caption"].get<std::string>().find("32"), std::string::npos)
      << l["scenes"][2].dump();
}

TEST(Lessons, CheckRefusesTextsThatTellTheAnswerEarlyOrWriteFiguresAsDigits) {
  const fs::path f = fs::temp_directory_path() / ("lesson-" + std::to_string(::getpid()) + ".json");
  auto check = [&](const std::string& scene) {
    std::ofstream(f) << R"({"scenes": [)" + scene + "]}";
    return cli("lessons --check --file '" + f.string() + "'");
  };
  const std::string q =
      R"("question": {"ask": "How many?", "quantity": "wavefronts", "answer": 32})";
  Result r =
      check(R"({"preset": "row-write-column-read", "caption": "{wavefronts} of them", )" + q + "}");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("scenes[0].caption: {wavefronts} states the answer before it is asked"),
            std::string::npos)
      << r.err;
  r = check(
      R"({"preset": "row-write-column-read", "caption": "c", "reveal": "a 32-way conflict", )" + q +
      "}");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("scenes[0].reveal: '32-way' writes a figure of the model as digits"),
            std::string::npos)
      << r.err;
  r = check(R"({"preset": "row-write-column-read", "caption": "c", "reveal": "{bogus}", )" + q +
            "}");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("scenes[0].reveal: unknown figure {bogus}"), std::string::npos) << r.err;
  r = check(R"({"preset": "row-write-column-read", "caption": "c", "reveal": "{ways}-way", )" + q +
            "}");
  EXPECT_EQ(r.status, 0) << r.err;
  fs::remove(f);
}

// Issue 31: every caption whole in presenter mode at the sizes a class uses (caption_fit.h): what
// to say in two lines, the question with its answer in one, in the presenter's own type.
TEST(Lessons, CheckRefusesACaptionThePresentersStripWouldCut) {
  const fs::path f =
      fs::temp_directory_path() / ("lesson-fit-" + std::to_string(::getpid()) + ".json");
  auto check = [&](const std::string& caption, const std::string& ask) {
    std::ofstream(f) << R"({"scenes": [{"preset": "row-write-column-read", "caption": ")" +
                            caption + R"(", "question": {"ask": ")" + ask +
                            R"(", "quantity": "wavefronts", "answer": 32}}]})";
    return cli("lessons --check --file '" + f.string() + "'");
  };
  const std::string sentence = "The transpose reads a column of the tile where it wrote a row. ";
  Result r = check(sentence, "How many wavefronts?");
  if (r.out.find("captions not fitted:") != std::string::npos)
    GTEST_SKIP() << "no presenter font here: " << r.out;
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("every caption whole in presenter mode"), std::string::npos) << r.out;
  // Three sentences do not fit two lines at 1024x768 (about 125 characters of bold 20 px type).
  r = check(sentence + sentence + sentence, "How many wavefronts?");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.err.find("scenes[0].caption: does not fit 2 lines of presenter type at 1024x768"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("take out about"), std::string::npos) << r.err;
  // The question has one line: with its answer ("A: 32 (the model)") it must fit it.
  r = check(sentence, sentence + sentence);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.err.find("scenes[0].question.ask: does not fit 1 line of presenter type at 1024x768"),
            std::string::npos)
      << r.err;
  fs::remove(f);
}

// [SECTION] CuTe layouts and the advisor

TEST(Layout, FlagLaysTheTileOutAndAnalyzePrintsItInBothSwizzleUnits) {
  Result r =
      cli("analyze --no-pictures --elem half --layout 'SW128 o (8,64):(64,1)' --block 32 "
          "--step 'load tile[threadIdx.x % 8][0]'");
  ASSERT_EQ(r.status, 0) << r.err;
  // TMA's SW128 acts on the address: printed as CuTe prints a swizzle pointer.
  EXPECT_NE(r.out.find("layout: tile = Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1), 512 "
                       "elements of 2 bytes"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Sw<3,3,3> on 2-byte elements = Sw<3,4,3> on bytes (SW128), on the address"),
            std::string::npos)
      << r.out;
  r =
      cli("analyze --no-pictures --elem half --layout 'Sw<3,3,3> o (8,64):(64,1)' --block 32 "
          "--step 'load tile[threadIdx.x % 8][0]'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("layout: tile = Sw<3,3,3> o (8,64):(64,1), 512 elements of 2 bytes"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("on the address"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conflict-free"), std::string::npos) << r.out;
  r =
      cli("source --elem half --layout '((8,4),64):((64,512),1)' --block 32 "
          "--step 'load tile[threadIdx.x][0]'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("__shared__ half tile[2048];"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tile[tile_layout(threadIdx.x, 0)]"), std::string::npos) << r.out;
}

TEST(Layout, BadLayoutFlagsAreUsageErrorsThatSayWhy) {
  Result r = cli("analyze --layout '(32,32):(1)'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--layout '(32,32):(1)': column"), std::string::npos) << r.err;
  r = cli("analyze --layout '(32,32):(32,1)' --pad 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("without --dims, --pad and --swizzle"), std::string::npos) << r.err;
}

TEST(Advise, ListsTheFixesPerStepWithTheirCostAndExitsZero) {
  Result r = cli("advise --preset row-write-column-read");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("step 2 load tile[threadIdx.x][threadIdx.y]: now 1024/32; conflict-free "
                       "with: Sw<5,0,5>, pad 1 (+128 B)"),
            std::string::npos)
      << r.out;
  // A file given as the operand; --json is one document.
  r = cli("advise --json '" + std::string(BANKVIZ_SOURCE_DIR) +
          "/assets/presets/row-write-column-read.json'");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tiles"][0]["ranked"][0]["name"], "Sw<5,0,5>");
  EXPECT_EQ(j["tiles"][0]["ranked"][1]["name"], "pad 1");
  EXPECT_EQ(j["tiles"][0]["ranked"][1]["extra_bytes"], 128);
}

// The issue's example: ldmatrix.x4 down the 16-byte column chunks of a row-major half tile is
// 8-way; the advisor finds SW128 (Sw<3,3,3> on half), and of the paddings only those that keep
// the rows 16-byte aligned and shift the banks: 8 and 24 halves.
TEST(Advise, LdmatrixOnARowMajorHalfTileIsFixedBySw128OrAlignedPadding) {
  const std::string step =
      "--block 32 --step 'ldmatrix.x4 tile[threadIdx.x % 8 + threadIdx.x / 8 * 8][0]'";
  Result r = cli("analyze --no-pictures --elem half --layout 'SW128 o (64,64):(64,1)' " + step);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("conflict-free"), std::string::npos) << r.out;
  r = cli("advise --elem half --dims 64x64 " + step);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("now 32/4; conflict-free with: Sw<3,3,3> = SW128, pad 8 (+1024 B), pad 24 "
                       "(+3072 B)"),
            std::string::npos)
      << r.out;
}

TEST(Advise, BadOperandsAreUsageOrFailureExits) {
  EXPECT_EQ(cli("advise --preset nope").status, 2);
  EXPECT_EQ(cli("advise /nonexistent.json").status, 1);
  EXPECT_EQ(cli("advise --preset row-write-column-read x.json").status, 2);
}

// [SECTION] the README's teaching-set table
TEST(TeachingSet, ReadmeTableIsWhatTheModelPrints) {
  // The table is printed by scripts/teaching_set.py from `bankviz-cli analyze --json`, never
  // typed: a model change that moves a figure must regenerate it.
  const fs::path src(BANKVIZ_SOURCE_DIR);
  const fs::path out =
      fs::temp_directory_path() / ("bankviz-teaching-set-" + std::to_string(::getpid()) + ".md");
  const std::string cmd = "python3 '" + (src / "scripts/teaching_set.py").string() + "' '" +
                          BANKVIZ_CLI + "' > '" + out.string() + "' 2>&1";
  const int raw = std::system(cmd.c_str());
  const std::string table = slurp(out);
  fs::remove(out);
  if (WIFEXITED(raw) && WEXITSTATUS(raw) == 127) GTEST_SKIP() << "no python3";
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << table;
  EXPECT_NE(table.find("| [`transpose-naive`]"), std::string::npos) << table;
  EXPECT_NE(slurp(src / "README.md").find(table), std::string::npos)
      << "regenerate the README's Teaching set table with scripts/teaching_set.py:\n"
      << table;
}

// [SECTION] experiments

TEST(Experiments, ListsEachSeedsPublishedFigureBesideTheModel) {
  const Result r = cli("experiments --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u);
  std::set<std::string> seeds;
  for (const auto& e : j) {
    seeds.insert(e["seed"].get<std::string>());
    EXPECT_GT(e["published_ratio"].get<double>(), 1.0) << e["name"];
    EXPECT_FALSE(e.contains("measured")) << "measured without --run";
  }
  EXPECT_EQ(seeds.size(), 3u);
  // The Kepler seed's table: 2.1387 ms against 1.33753 ms.
  EXPECT_NEAR(j[1]["published_ratio"].get<double>(), 2.1387 / 1.33753, 1e-9);
}

TEST(Experiments, RunWithoutAGpuSaysWhyAndFails) {
  const Result r = cli("experiments kepler-filter-float2 --run");
  if (r.status == 0) GTEST_SKIP() << "a GPU ran it";
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("not run: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("published: Tesla K20c"), std::string::npos) << r.out;
}

TEST(Sweep, RunWithoutAGpuKeepsTheModelsTableSaysWhyAndFails) {
  // It used to print the model's table without the "no CUDA" note and exit 0.
  const Result r = cli("sweep --preset row-write-column-read --param pad=0..1 --run");
  if (r.status == 0) GTEST_SKIP() << "a GPU measured it";
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("--run: not measured: "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("cycles_per_instruction"), std::string::npos) << r.out;  // the table
  const Result j = cli("sweep --preset row-write-column-read --param pad=0..1 --run --json");
  EXPECT_EQ(j.status, 1) << j.err;
  EXPECT_NE(j.out.find("\"note\""), std::string::npos) << j.out;
}

TEST(Output, C1ControlsInATitleAreFilteredAndUtf8IsKept) {
  // U+009B (CSI) in a title reaches the terminal as '?'; a title's own UTF-8 stays as written.
  const Result r = cli("analyze --no-pictures --file -",
                       "{\"name\": \"x\", \"title\": \"\\u009b31m \\u00d7 \\u2026 \\u009d0;t\", "
                       "\"steps\": [{\"kind\": \"store\", \"index\": "
                       "\"tile[threadIdx.y][threadIdx.x]\"}]}");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("x: ?31m \xc3\x97 \xe2\x80\xa6 ?0;t"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos);
  EXPECT_EQ(r.out.find("\xc2\x9d"), std::string::npos);
}

TEST(Presets, AnUnknownNameAmongThousandsListsTheFirstFortyAndHowManyMore) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("bankviz-many-" + std::to_string(::getpid()));
  fs::create_directories(dir / "presets");
  for (int i = 0; i < 3000; ++i)
    fs::copy_file(std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/row-write-column-read.json",
                  dir / "presets" / ('p' + std::to_string(10000 + i) + ".json"));
  const std::string env = "env BANKVIZ_ASSETS='" + dir.string() + "' ";
  const Result r = cli("analyze --preset nope", "", env);
  fs::remove_all(dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("no preset named 'nope'; presets: p10000, p10001,"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(", p10039 and 2960 more (`bankviz-cli presets` lists them all)"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.err.size(), 1000u);
}
