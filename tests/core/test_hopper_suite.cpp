// The measured Hopper suites (tests/data/hopper, docs/HOPPER_RULE.md): the model must match the
// hardware's wavefront count for every case, loads and stores.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "bankviz/access.h"
#include "bankviz/arch.h"

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

}  // namespace
}  // namespace bankviz
