// Timeline labels shortened to their column (timeline_label.h): never ambiguous between a loop's
// iterations (issue 8: `i=1` stood for i=128, 16 and 1), the [x][y] subscripts kept longest.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "views/timeline_label.h"

using namespace bankviz::gui;

namespace {

// 8 pixels per character: what fits is a number of characters.
float width_of(const std::string& s) {
  return 8.0f * static_cast<float>(s.size());
}
std::string fit(const std::string& label, int chars) {
  return fit_step_label(label, 8.0f * static_cast<float>(chars), width_of);
}

}  // namespace

TEST(TimelineLabel, IterationsOfALoopNeverShortenToTheSameText) {
  // The reduction's steps as its preset labels them, and the trace's own "(i=N)" form.
  for (const auto& [a, b] :
       {std::pair<std::string, std::string>{"s=1, index=2*tid: load sdata[2 * tid + 1]",
                                            "s=16, index=32*tid: load sdata[32 * tid + 16]"},
        {"s=128: load sdata[tid + s]", "s=1: load sdata[tid + s]"},
        {"load cache[threadIdx.x + i] (i=128)", "load cache[threadIdx.x + i] (i=1)"},
        {"load cache[threadIdx.x + i] (i=16)", "load cache[threadIdx.x + i] (i=1)"}}) {
    for (int chars = 1; chars < 60; ++chars) {
      const std::string x = fit(a, chars), y = fit(b, chars);
      EXPECT_LE(x.size(), static_cast<size_t>(chars)) << x;
      if (x.empty() || x == "~") continue;
      EXPECT_NE(x, y) << chars << " characters: '" << a << "' and '" << b << "'";
    }
  }
}

TEST(TimelineLabel, TheLoopValueIsKeptWholeBeforeTheRest) {
  EXPECT_EQ(fit("s=16, index=32*tid: load sdata[32 * tid + 16]", 12), "s=16: index~");
  EXPECT_EQ(fit("s=16, index=32*tid: load sdata[32 * tid + 16]", 5), "s=16");
  EXPECT_EQ(fit("s=16, index=32*tid: load sdata[32 * tid + 16]", 3), "16");
  // Cut inside its first subscript ("load [t~ (i=128)") a label names nothing: the verb stays.
  EXPECT_EQ(fit("load cache[threadIdx.x + i] (i=128)", 19), "load [tx+i] (i=128)");
  EXPECT_EQ(fit("load cache[threadIdx.x + i] (i=128)", 16), "load (i=128)");
  EXPECT_EQ(fit("load cache[threadIdx.x + i] (i=128)", 6), "i=128");
  EXPECT_EQ(fit("load cache[threadIdx.x + i] (i=128)", 4), "128");
  // A long loop variable goes by its initial before the bare value (a room reads "3" as a count).
  EXPECT_EQ(fit("load As[dotIdx][0] (dotIdx=3)", 4), "d=3");
}

TEST(TimelineLabel, ASubscriptLosesItsSpacesBeforeAnyOfIt) {
  // The Kepler filter's taps in a presenter column: "tap [s~ (i=1)" before.
  EXPECT_EQ(fit("tap inputS[sIdx - 10 + i] (i=1)", 21), "tap [sIdx-10+i] (i=1)");
  EXPECT_EQ(fit("tap inputS[sIdx - 10 + i] (i=1)", 13), "tap (i=1)");
  // A first subscript kept whole is still worth its cut.
  EXPECT_EQ(fit("store tile[threadIdx.y][threadIdx.x]", 12), "store [ty][~");
}

TEST(TimelineLabel, SubscriptsOutliveTheTileName) {
  const std::string label = "store tile[threadIdx.y][threadIdx.x]";
  EXPECT_EQ(fit(label, 40), label);
  EXPECT_EQ(fit(label, 20), "store tile[ty][tx]");
  EXPECT_EQ(fit(label, 15), "store [ty][tx]");
  EXPECT_EQ(fit("__syncthreads()", 5), "sync");
  EXPECT_EQ(fit("__syncthreads()", 2), "");
  // An assignment is not a loop value: "x=a[3] + 1" is cut like any label.
  EXPECT_EQ(fit("sdata[tid] = g_idata[i]", 8), "[tid] =~");
}

TEST(TimelineLabel, ACallKeepsItsNameWhenTheTileNameGoes) {
  // Only the tile's name before '[' goes: the call around it stays (was "[input[item]], 1)").
  const std::string label = "atomicAdd(&temp_histogram[input[item]], 1)";
  EXPECT_EQ(fit(label, 30), "atomicAdd(&[input[item]], 1)");
  EXPECT_EQ(fit(label, 20), "atomicAdd(&[input[i~");
}

TEST(TimelineLabel, OnlyASharedArraysNameGoes) {
  // The histogram's read-out: output is global memory; its subscript alone ("&[tx]") would read
  // as the shared access. With the scenario's tiles known, only a tile's name goes.
  const std::string label = "atomicAdd(&output[threadIdx.x], temp_histogram[threadIdx.x])";
  auto width = [](const std::string& t) { return static_cast<float>(t.size()); };
  EXPECT_EQ(fit_step_label(label, 30, width, {"temp_histogram"}), "atomicAdd(&output[tx], temp_h~");
  EXPECT_EQ(fit_step_label(label, 30, width), "atomicAdd(&[tx], temp_histogr~");
  EXPECT_EQ(fit_step_label("store tile[threadIdx.y][threadIdx.x]", 15, width, {"tile"}),
            "store [ty][tx]");
  // Two shared arrays: each keeps what tells it from the other (the dot product's subTileM and
  // subTileN both read "store [ty][tx]" before).
  const std::vector<std::string> two = {"subTileM", "subTileN"};
  EXPECT_EQ(fit_step_label("store subTileM[threadIdx.y][threadIdx.x]", 15, width, two),
            "store M[ty][tx]");
  EXPECT_EQ(fit_step_label("store subTileN[threadIdx.y][threadIdx.x]", 15, width, two),
            "store N[ty][tx]");
  // A loop over both: the verb keeps the array ("load (k=0)" would be either).
  EXPECT_EQ(fit_step_label("load subTileM[threadIdx.y][k] (k=0)", 13, width, two), "load M (k=0)");
  EXPECT_EQ(fit_step_label("load inputS[threadIdx.x]", 13, width, {"inputS", "temp"}),
            "load i[tx]");
  EXPECT_EQ(fit_step_label("atomicAdd(&hist[input[item]], 1)", 24, width, {"hist"}),
            "atomicAdd(&[input[item]~");
}
