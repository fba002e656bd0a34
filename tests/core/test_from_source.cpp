// test_from_source.cpp: a line of a user's CUDA source as a scenario (from_source.h), on the
// seeds' kernels as written and on lines that cannot be expressed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bankviz/analysis.h"
#include "bankviz/compare.h"
#include "bankviz/from_source.h"

namespace bankviz {
namespace {

std::string kernel_file(const std::string& name) {
  std::ifstream f(std::string(BANKVIZ_TEST_DATA) + "/profile/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The line of `source` containing `text` (1-based), after line `after`.
uint32_t line_of(const std::string& source, const std::string& text, uint32_t after = 0) {
  std::istringstream in(source);
  uint32_t n = 0;
  for (std::string l; std::getline(in, l);)
    if (++n > after && l.find(text) != std::string::npos) return n;
  ADD_FAILURE() << "no line with " << text;
  return 0;
}

const int64_t k32x32[3] = {32, 32, 1};

// The worst wavefronts per request the model gives the scenario of a line.
double per_request(const SourceScenario& r) {
  EXPECT_TRUE(r.scenario) << r.why;
  if (!r.scenario) return -1;
  const AnalysisResult a = analyze(*r.scenario);
  EXPECT_TRUE(a.analysis);
  return a.analysis ? summarize(*a.analysis).worst_per_request : -1;
}

TEST(FromSource, TheSeedsColumnReadBecomesA32WayLoad) {
  const std::string src = kernel_file("data_layout.cu");
  const uint32_t fn = line_of(src, "void setRowReadCol(");
  const uint32_t load = line_of(src, "out[idx]=tile[threadIdx.x][threadIdx.y];", fn);
  const SourceScenario r = scenario_from_source_line(src, load, "ld", k32x32, "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 32.0);
  ASSERT_TRUE(r.scenario);
  EXPECT_EQ(r.scenario->tiles[0].dims, (std::vector<int64_t>{32, 32}));  // from BDIMY, BDIMX
  EXPECT_EQ(r.scenario->steps[0].kind, StepKind::Load);
  EXPECT_NE(r.scenario->title.find("data_layout.cu line"), std::string::npos);
  const uint32_t store = line_of(src, "tile[threadIdx.y][threadIdx.x]=idx;", fn);
  const SourceScenario w = scenario_from_source_line(src, store, "st", k32x32, "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(w), 1.0);
  EXPECT_EQ(w.scenario->steps[0].kind, StepKind::Store);
}

TEST(FromSource, PaddingWrittenAsAPlusBIsPadding) {
  const std::string src = kernel_file("data_layout.cu");
  const uint32_t fn = line_of(src, "void setRowReadColIpad(");
  const uint32_t load = line_of(src, "out[idx]=tile[threadIdx.x][threadIdx.y];", fn);
  const SourceScenario r = scenario_from_source_line(src, load, "ld", k32x32, "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);
  ASSERT_TRUE(r.scenario);
  EXPECT_EQ(r.scenario->tiles[0].dims, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(r.scenario->tiles[0].pad, 1);  // BDIMX+IPAD
}

TEST(FromSource, LocalsBeforeTheLineBecomeLetsAndADynamicArrayTakesTheBlock) {
  const std::string src = kernel_file("data_layout.cu");
  const uint32_t fn = line_of(src, "void setRowReadColDyn(");
  const uint32_t load = line_of(src, "out[row_idx]=tile[col_idx];", fn);
  const SourceScenario r = scenario_from_source_line(src, load, "ld", k32x32, "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 32.0);
  ASSERT_TRUE(r.scenario);
  ASSERT_EQ(r.scenario->lets.size(), 1u);  // col_idx only: row_idx is not in the subscript
  EXPECT_EQ(r.scenario->lets[0].name, "col_idx");
  EXPECT_EQ(r.scenario->lets[0].type, "unsigned int");
  EXPECT_TRUE(r.scenario->tiles[0].dynamic);
  EXPECT_NE(r.scenario->description.find("one element per thread"), std::string::npos);
}

TEST(FromSource, WhatCannotBeExpressedIsSaidWithTheReason) {
  const std::string hist = kernel_file("histogram.cu");
  const int64_t b256[3] = {256, 1, 1};
  // A subscript read from global memory (input[item]): no scenario can hold it.
  const uint32_t atom = line_of(hist, "atomicAdd(&(temp_histogram[input[item]]), 1);");
  SourceScenario r = scenario_from_source_line(hist, atom, "atom", b256, "histogram.cu");
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("line " + std::to_string(atom)), std::string::npos) << r.why;
  // The zeroing store of the same kernel is expressible, as an store of 1 wavefront.
  const uint32_t zero = line_of(hist, "temp_histogram[threadIdx.x] = 0;");
  r = scenario_from_source_line(hist, zero, "st", b256, "histogram.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);
  // No shared array on the line, a line past the end, no declaration at all.
  r = scenario_from_source_line(hist, line_of(hist, "int item ="), "ld", b256, "histogram.cu");
  EXPECT_FALSE(r.scenario);
  r = scenario_from_source_line(hist, 9999, "ld", b256, "histogram.cu");
  EXPECT_NE(r.why.find("no line 9999"), std::string::npos) << r.why;
  r = scenario_from_source_line("__global__ void k(int* o) {\n o[0] = 1;\n}\n", 2, "st", b256,
                                "k.cu");
  EXPECT_NE(r.why.find("no __shared__ array"), std::string::npos) << r.why;
}

TEST(FromSource, TheUsersTextIsOnlyParsedNeverCode) {
  // A subscript that is not a C expression of the kinds a scenario takes is refused by the
  // scenario's own parser, whatever it holds.
  const std::string src =
      "__global__ void k(int* o) {\n"
      "  __shared__ int t[32][32];\n"
      "  o[0] = t[threadIdx.x][system(\"rm -rf /\")];\n"
      "}\n";
  const SourceScenario r = scenario_from_source_line(src, 3, "ld", k32x32, "k.cu");
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("as a scenario"), std::string::npos) << r.why;
  // A very long line is refused, not matched for minutes.
  const std::string huge = "__shared__ int t[32];\n" + std::string(200000, ' ') + "t[0];\n";
  const SourceScenario h = scenario_from_source_line(huge, 2, "ld", k32x32, "k.cu");
  EXPECT_FALSE(h.scenario);
}

}  // namespace
}  // namespace bankviz
