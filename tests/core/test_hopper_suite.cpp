// The measured Hopper suites (tests/data/hopper, docs/HOPPER_RULE.md): the model must match the
// hardware's wavefront count for every case, loads and stores.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/copy_h200.h"

namespace bankviz {
namespace {

struct Case {
  std::string name;
  WarpAccess access;
};

std::vector<Case> read_cases(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<Case> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Case c;
    std::string mask;
    s >> c.name >> c.access.width >> mask;
    c.access.mask = static_cast<uint32_t>(std::stoul(mask, nullptr, 0));
    for (auto& a : c.access.addr) s >> a;
    EXPECT_TRUE(s) << line;
    out.push_back(c);
  }
  return out;
}

std::map<std::string, std::pair<int, int>> read_expected(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::map<std::string, std::pair<int, int>> out;
  std::string name;
  int ld = 0, st = 0;
  while (in >> name >> ld >> st) out[name] = {ld, st};
  return out;
}

class HopperSuite : public ::testing::TestWithParam<const char*> {};

TEST_P(HopperSuite, ModelMatchesNsightComputeOnEveryCase) {
  const std::string base = std::string(BANKVIZ_TEST_DATA) + "/hopper/" + GetParam();
  const auto cases = read_cases(base + ".txt");
  const auto expected = read_expected(base + ".expected");
  ASSERT_GT(cases.size(), 1000u);
  ASSERT_EQ(cases.size(), expected.size());
  const Arch& hopper = *find_arch("hopper");
  int mismatches = 0;
  for (const Case& c : cases) {
    ASSERT_EQ(validate(c.access), "") << c.name;
    const auto it = expected.find(c.name);
    ASSERT_NE(it, expected.end()) << c.name;
    const int ld = count_wavefronts(hopper, Op::Load, c.access);
    const int st = count_wavefronts(hopper, Op::Store, c.access);
    if (ld != it->second.first || st != it->second.second) {
      if (++mismatches <= 10)
        ADD_FAILURE() << c.name << ": model load " << ld << " store " << st << ", measured "
                      << it->second.first << " " << it->second.second;
    }
    // serve() and count_wavefronts() must agree, and the detail must have one entry per wavefront.
    EXPECT_EQ(serve(hopper, Op::Load, c.access).detail.size(), static_cast<size_t>(ld)) << c.name;
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Measured, HopperSuite, ::testing::Values("random", "targeted", "holdout"));

// ldmatrix, stmatrix and cp.async (docs/MATRIX_RULE.md): lines NAME OP MASK A0..A31, expected
// NAME WAVEFRONTS IDEAL as Nsight Compute counted them on an H100.
class MatrixSuite : public ::testing::TestWithParam<const char*> {};

TEST_P(MatrixSuite, ModelMatchesNsightComputeOnEveryCase) {
  const std::string base = std::string(BANKVIZ_TEST_DATA) + "/hopper/" + GetParam();
  std::ifstream in(base + ".txt");
  ASSERT_TRUE(in) << base;
  const auto expected = read_expected(base + ".expected");
  const Arch& hopper = *find_arch("hopper");
  int cases = 0, mismatches = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string name, op, mask;
    s >> name >> op >> mask;
    const std::optional<OpSpec> spec = parse_op(op);
    ASSERT_TRUE(spec) << line;
    EXPECT_EQ(op_spec_name(*spec), op);
    WarpAccess a;
    a.width = spec->width;
    a.mask = spec->lanes(static_cast<uint32_t>(std::stoul(mask, nullptr, 0)));
    for (auto& x : a.addr) s >> x;
    ASSERT_TRUE(s) << line;
    ASSERT_EQ(validate(spec->op, a), "") << name;
    const auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << name;
    const AccessResult r = serve(hopper, spec->op, a);
    ++cases;
    if (r.wavefronts != it->second.first || r.ideal != it->second.second) {
      if (++mismatches <= 10)
        ADD_FAILURE() << name << " " << op << ": model " << r.wavefronts << " " << r.ideal
                      << ", measured " << it->second.first << " " << it->second.second;
    }
    EXPECT_EQ(r.detail.size(), static_cast<size_t>(r.wavefronts)) << name;
    EXPECT_EQ(count_wavefronts(hopper, spec->op, a), r.wavefronts) << name;
  }
  EXPECT_EQ(static_cast<size_t>(cases), expected.size());
  EXPECT_GT(cases, 50);
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Measured, MatrixSuite,
                         ::testing::Values("ldmatrix", "stmatrix", "cpasync", "ldmatrix_holdout",
                                           "stmatrix_holdout", "cpasync_holdout", "atomcas"));

TEST(MatrixOps, NamesParseBackAndForthAndBadOnesAreRefused) {
  for (const char* n :
       {"ldmatrix.x1", "ldmatrix.x2.trans", "stmatrix.x4", "cp.async.8", "atom.4", "atom.cas.8"})
    EXPECT_EQ(op_spec_name(*parse_op(n)), n);
  for (const char* n : {"ldmatrix.x3", "ldmatrix.x", "stmatrix.x4.tran", "cp.async.2", "cp.async.",
                        "ld", "ldmatrix.x1.trans.trans", "atom.16", "atom.cas", "atom.cas.2"})
    EXPECT_FALSE(parse_op(n)) << n;
  WarpAccess a;
  a.width = 16;
  a.mask = 0xFFFF;
  EXPECT_EQ(validate(Op::LdMatrix, a), "");
  a.mask = 0xFFF;  // 12 lanes: not 8N
  EXPECT_NE(validate(Op::LdMatrix, a).find("lanes 0-7"), std::string::npos);
  a.mask = 0xFF;
  a.addr[3] = 8;  // rows are 16-byte aligned
  EXPECT_NE(validate(Op::StMatrix, a).find("lane 3"), std::string::npos);
  a.width = 2;
  EXPECT_NE(validate(Op::CpAsync, a).find("4, 8 or 16"), std::string::npos);
}

}  // namespace
}  // namespace bankviz

namespace bankviz {
namespace {

// Shared atomics (atom.shared.add.u32, 4-byte cases), measured with ncu's op_atom counters.
TEST(HopperAtomics, ModelMatchesNsightComputeOnEveryCase) {
  const std::string base = std::string(BANKVIZ_TEST_DATA) + "/hopper/atomic";
  const auto cases = read_cases(base + ".txt");
  std::ifstream in(base + ".expected");
  std::map<std::string, int> expected;
  std::string name;
  int wf = 0;
  while (in >> name >> wf) expected[name] = wf;
  ASSERT_GT(cases.size(), 400u);
  ASSERT_EQ(cases.size(), expected.size());
  int mismatches = 0;
  for (const Case& c : cases) {
    const int model = count_wavefronts(*find_arch("hopper"), Op::Atomic, c.access);
    if (model != expected.at(c.name) && ++mismatches <= 10)
      ADD_FAILURE() << c.name << ": model " << model << ", measured " << expected.at(c.name);
  }
  EXPECT_EQ(mismatches, 0);
}

// Two of Nsight Compute's counters on the same cp.async launches of an H200 (issue 30,
// tests/data/hopper/counters-h200.txt): the L1's (l1tex__data_pipe_lsu_wavefronts_mem_shared)
// counts every global pass of the set hash, which the model gives in every case; the
// per-instruction one (smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared: ncu's Source page, the
// written kernel's steps) counts one pass (copy_wavefronts_one_pass()) in all but three cases
// of one pass, where it counts 3 and the L1 2: not modelled, named here so that a change shows.
TEST(CpAsyncCounters, TheL1CountsEveryGlobalPassThePerInstructionCounterOne) {
  const std::string base = std::string(BANKVIZ_TEST_DATA) + "/hopper/counters-h200";
  std::ifstream cases(base + ".cases"), counts(base + ".txt");
  ASSERT_TRUE(cases && counts) << base;
  std::map<std::string, WarpAccess> by_name;
  for (std::string line; std::getline(cases, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string name, op, mask;
    s >> name >> op >> mask;
    const std::optional<OpSpec> spec = parse_op(op);
    ASSERT_TRUE(spec && spec->op == Op::CpAsync) << line;
    WarpAccess a;
    a.width = spec->width;
    a.mask = static_cast<uint32_t>(std::stoul(mask, nullptr, 0));
    a.has_source = true;
    for (auto& x : a.addr) s >> x;
    for (auto& x : a.source) s >> x;
    ASSERT_TRUE(s) << line;
    by_name[name] = a;
  }
  const Arch& hopper = *find_arch("hopper");
  const std::set<std::string> unexplained = {"c_s4_rows16p1024_06_swz_sw243r128_016",
                                             "c_s4_rows16p4096_06_tile_r64p32_008",
                                             "c_s4_rows16p256_06_tile_r64p8_016"};
  int n = 0, several = 0;
  for (std::string line; std::getline(counts, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string name;
    int l1 = 0, per_instruction = 0;
    s >> name >> l1 >> per_instruction;
    ASSERT_TRUE(s && by_name.count(name)) << line;
    const WarpAccess& a = by_name[name];
    ++n;
    several += copy_global_passes(a) > 1;
    EXPECT_EQ(serve(hopper, Op::CpAsync, a).wavefronts, l1) << name;
    if (unexplained.count(name))
      EXPECT_NE(copy_wavefronts_one_pass(hopper, a), per_instruction) << name;
    else
      EXPECT_EQ(copy_wavefronts_one_pass(hopper, a), per_instruction) << name;
  }
  EXPECT_EQ(n, 35);
  EXPECT_GE(several, 9);
}

}  // namespace
}  // namespace bankviz
