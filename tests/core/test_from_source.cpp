// test_from_source.cpp: the shared accesses of a line of a user's CUDA source as a scenario
// (from_source.h), on the seeds' kernels as written, on kernels of our own (each checked lane by
// lane against the same kernel run as C++ here), and on lines that must be refused with a reason.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
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

SourceLaunch launch(int64_t x, int64_t y = 1, int64_t z = 1, int64_t dynamic = 0) {
  SourceLaunch l;
  l.block[0] = x;
  l.block[1] = y;
  l.block[2] = z;
  l.dynamic_shared = dynamic;
  return l;
}

SourceScenario of_line(const std::string& src, const std::string& text, const SourceLaunch& l,
                       uint32_t after = 0) {
  return scenario_from_source_line(src, line_of(src, text, after), l, "k.cu");
}

// The worst wavefronts per request the model gives the scenario of a line.
double per_request(const SourceScenario& r) {
  EXPECT_TRUE(r.scenario) << r.why;
  if (!r.scenario) return -1;
  const AnalysisResult a = analyze(*r.scenario);
  EXPECT_TRUE(a.analysis);
  return a.analysis ? summarize(*a.analysis).worst_per_request : -1;
}

// What each thread touches, per executed memory step: {kind, element per thread (-1: not)}.
struct Touch {
  StepKind kind;
  std::vector<int64_t> element;
  friend bool operator==(const Touch&, const Touch&) = default;
};
std::vector<Touch> touches(const SourceScenario& r) {
  std::vector<Touch> out;
  EXPECT_TRUE(r.scenario) << r.why;
  if (!r.scenario) return out;
  const AnalysisResult a = analyze(*r.scenario);
  EXPECT_TRUE(a.analysis);
  if (!a.analysis) return out;
  const int64_t threads = r.scenario->threads();
  for (size_t e = 0; e < a.analysis->steps.size(); ++e) {
    const Step& st = r.scenario->steps[static_cast<size_t>(a.analysis->steps[e].step)];
    if (!st.is_memory()) continue;
    Touch t{st.kind, std::vector<int64_t>(static_cast<size_t>(threads), -1)};
    for (const WarpStep& w : a.analysis->warps[e])
      for (int l = 0; l < kWarpSize; ++l)
        if (w.warp * kWarpSize + l < threads && (w.access.mask >> l & 1u))
          t.element[static_cast<size_t>(w.warp * kWarpSize + l)] =
              w.element[static_cast<size_t>(l)];
    out.push_back(t);
  }
  return out;
}

// The same accesses, from the kernel written as C++ here: f(thread) -> element or -1.
Touch expect(StepKind k, int64_t threads, const std::function<int64_t(int64_t)>& f) {
  Touch t{k, std::vector<int64_t>(static_cast<size_t>(threads))};
  for (int64_t i = 0; i < threads; ++i) t.element[static_cast<size_t>(i)] = f(i);
  return t;
}

size_t count_kind(const Scenario& s, StepKind k) {
  size_t n = 0;
  for (const Step& st : s.steps) n += st.kind == k ? 1 : 0;
  return n;
}

// [SECTION] The seeds' kernels as written ========================================================

TEST(FromSource, TheSeedsColumnReadBecomesA32WayLoad) {
  const std::string src = kernel_file("data_layout.cu");
  const uint32_t fn = line_of(src, "void setRowReadCol(");
  const uint32_t load = line_of(src, "out[idx]=tile[threadIdx.x][threadIdx.y];", fn);
  const SourceScenario r = scenario_from_source_line(src, load, launch(32, 32), "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 32.0);
  ASSERT_TRUE(r.scenario);
  EXPECT_EQ(r.scenario->tiles[0].dims, (std::vector<int64_t>{32, 32}));  // from BDIMY, BDIMX
  ASSERT_EQ(r.scenario->steps.size(), 1u);
  EXPECT_EQ(r.scenario->steps[0].kind, StepKind::Load);
  EXPECT_NE(r.scenario->title.find("data_layout.cu line"), std::string::npos);
  const uint32_t store = line_of(src, "tile[threadIdx.y][threadIdx.x]=idx;", fn);
  const SourceScenario w = scenario_from_source_line(src, store, launch(32, 32), "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(w), 1.0);
  EXPECT_EQ(w.scenario->steps[0].kind, StepKind::Store);
}

TEST(FromSource, PaddingWrittenAsAPlusBIsPadding) {
  const std::string src = kernel_file("data_layout.cu");
  const uint32_t fn = line_of(src, "void setRowReadColIpad(");
  const uint32_t load = line_of(src, "out[idx]=tile[threadIdx.x][threadIdx.y];", fn);
  const SourceScenario r = scenario_from_source_line(src, load, launch(32, 32), "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);
  ASSERT_TRUE(r.scenario);
  EXPECT_EQ(r.scenario->tiles[0].dims, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(r.scenario->tiles[0].pad, 1);  // BDIMX+IPAD
}

TEST(FromSource, AnExternArrayIsSizedFromTheLaunchsDynamicSharedMemory) {
  const std::string src = kernel_file("data_layout.cu");
  const uint32_t fn = line_of(src, "void setRowReadColDyn(");
  const uint32_t load = line_of(src, "out[row_idx]=tile[col_idx];", fn);
  const SourceScenario r =
      scenario_from_source_line(src, load, launch(32, 32, 1, 4096), "data_layout.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 32.0);
  ASSERT_TRUE(r.scenario);
  ASSERT_EQ(r.scenario->lets.size(), 1u);  // col_idx only: row_idx is not in the subscript
  EXPECT_EQ(r.scenario->lets[0].name, "col_idx");
  EXPECT_EQ(r.scenario->lets[0].type, "unsigned int");
  EXPECT_TRUE(r.scenario->tiles[0].dynamic);
  EXPECT_EQ(r.scenario->tiles[0].dims, (std::vector<int64_t>{1024}));  // 4096 bytes of int
  // Without the launch's dynamic shared memory the size is unknown: refused, saying what to give.
  const SourceScenario n = scenario_from_source_line(src, load, launch(32, 32), "data_layout.cu");
  EXPECT_FALSE(n.scenario);
  EXPECT_NE(n.why.find("--shared"), std::string::npos) << n.why;
  // dyn[t + blockDim.x] with 2048 bytes (issue 20: "no active lanes" before): one wavefront a warp.
  const std::string dyn =
      "__global__ void k(float* o) {\n"
      "  extern __shared__ float dyn[];\n"
      "  unsigned t = threadIdx.x;\n"
      "  dyn[t + blockDim.x] = 1.0f;\n"
      "}\n";
  const SourceScenario d = of_line(dyn, "dyn[t + blockDim.x]", launch(256, 1, 1, 2048));
  EXPECT_DOUBLE_EQ(per_request(d), 1.0);
  EXPECT_EQ(touches(d),
            (std::vector<Touch>{expect(StepKind::Store, 256, [](int64_t t) { return t + 256; })}));
}

TEST(FromSource, TheHistogramsAtomicIsRefusedWithItsReasonAndItsZeroingIsAStore) {
  const std::string hist = kernel_file("histogram.cu");
  // A subscript read from global memory (input[item]): no scenario can hold it.
  const uint32_t atom = line_of(hist, "atomicAdd(&(temp_histogram[input[item]]), 1);");
  SourceScenario r = scenario_from_source_line(hist, atom, launch(256), "histogram.cu");
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("line " + std::to_string(atom)), std::string::npos) << r.why;
  EXPECT_NE(r.why.find("reads input[...]"), std::string::npos) << r.why;
  r = scenario_from_source_line(hist, line_of(hist, "temp_histogram[threadIdx.x] = 0;"),
                                launch(256), "histogram.cu");
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);
  // The last line reads the bins (a load) and adds to global memory.
  r = scenario_from_source_line(hist, line_of(hist, "atomicAdd(&(output[threadIdx.x])"),
                                launch(256), "histogram.cu");
  ASSERT_TRUE(r.scenario) << r.why;
  ASSERT_EQ(r.scenario->steps.size(), 1u);
  EXPECT_EQ(r.scenario->steps[0].kind, StepKind::Load);
  // No shared array on the line, a line past the end, no declaration at all.
  r = scenario_from_source_line(hist, line_of(hist, "int item ="), launch(256), "histogram.cu");
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("does not access a __shared__ array"), std::string::npos) << r.why;
  r = scenario_from_source_line(hist, 9999, launch(256), "histogram.cu");
  EXPECT_NE(r.why.find("no line 9999"), std::string::npos) << r.why;
}

TEST(FromSource, EverySharedLineOfTheSeedsKernelsOpens) {
  struct Case {
    const char* file;
    const char* kernel;
    SourceLaunch launch;
    size_t lines;  // shared-memory lines of the kernel
  };
  SourceLaunch rev = launch(64, 1, 1, 256);
  rev.args = {std::nullopt, Value::of(CType::Int, 64)};  // --arg buffer:256 --arg int:64
  const Case cases[] = {
      {"data_layout.cu", "setRowReadRow", launch(32, 32), 2},
      {"data_layout.cu", "setColReadCol", launch(32, 32), 2},
      {"data_layout.cu", "setRowReadCol", launch(32, 32), 2},
      {"data_layout.cu", "setRowReadColDyn", launch(32, 32, 1, 4096), 2},
      {"data_layout.cu", "setRowReadColIpad", launch(32, 32), 2},
      {"dot.cu", "dot", launch(256), 3},
      {"reverse.cu", "staticReverse", rev, 2},
      {"reverse.cu", "dynamicReverse", rev, 2},
      {"kepler_filter.cu", "filter", launch(256), 9},
      {"kepler_filter.cu", "filter2", launch(256), 3},
      // Another kernel's array named `s` is not this kernel's: only its own lines are listed.
      {"kernels.cu", "reduceSequential", launch(256), 3},
      {"kernels.cu", "prescan", launch(256, 1, 1, (512 + 16) * 4), 9},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " " + c.kernel);
    const std::string src = kernel_file(c.file);
    std::string why;
    const std::vector<SourceLine> lines =
        shared_lines_of_kernel(src, c.kernel, c.launch, c.file, &why);
    EXPECT_TRUE(why.empty()) << why;
    EXPECT_EQ(lines.size(), c.lines);
    for (const SourceLine& l : lines) {
      EXPECT_TRUE(l.scenario) << l.why;
      if (l.scenario) {
        EXPECT_GT(model_figures(*l.scenario).instructions, 0);
      }
    }
  }
  // The reversal reads s[n - t - 1] with n from --arg: exact, lane by lane.
  const std::string src = kernel_file("reverse.cu");
  const SourceScenario r = of_line(src, "d[t] = s[tr];", rev);
  EXPECT_EQ(touches(r),
            (std::vector<Touch>{expect(StepKind::Load, 64, [](int64_t t) { return 63 - t; })}));
  // Without the argument, the parameter is named.
  const SourceScenario n = of_line(src, "d[t] = s[tr];", launch(64));
  EXPECT_NE(n.why.find("'n' is a kernel parameter whose value is not given"), std::string::npos)
      << n.why;
  // The dot product's reduction line runs 8 times for 256 threads, a load, a load and a store.
  const std::string dot = kernel_file("dot.cu");
  const SourceScenario d = of_line(dot, "cache[cacheIndex] += cache[cacheIndex + i];", launch(256));
  ASSERT_TRUE(d.scenario) << d.why;
  EXPECT_EQ(count_kind(*d.scenario, StepKind::Load), 16u);
  EXPECT_EQ(count_kind(*d.scenario, StepKind::Store), 8u);
  // The float2 filter reads 21 elements per thread from one line.
  const std::string kf = kernel_file("kepler_filter.cu");
  const SourceScenario f2 = of_line(kf, "float2 temp = inputS[sIdxShift - 10 + i];", launch(256));
  ASSERT_TRUE(f2.scenario) << f2.why;
  EXPECT_EQ(count_kind(*f2.scenario, StepKind::Load), 21u);
  const ModelFigures m = model_figures(*f2.scenario);
  EXPECT_EQ(m.instructions, 21 * 8);
}

// [SECTION] What the old line parser got wrong (issue 20) =======================================

TEST(FromSource, ALocalNamedXIsNotThreadIdxsX) {
  const std::string src =
      "__global__ void k(int* o, int width) {\n"
      "  __shared__ int t[32][33];\n"
      "  int x = width * 2;\n"
      "  t[threadIdx.x][threadIdx.y] = x;\n"
      "}\n";
  const SourceScenario r = of_line(src, "t[threadIdx.x][threadIdx.y]", launch(32, 32));
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);
  EXPECT_TRUE(r.scenario && r.scenario->lets.empty());
}

TEST(FromSource, ATransposeLineIsALoadAndAStore) {
  const std::string src =
      "#define N 32\n"
      "__global__ void k() {\n"
      "  __shared__ float tile[N][N];\n"
      "  int tx = threadIdx.x, ty = threadIdx.y;\n"
      "  tile[tx][ty] = tile[ty][tx];\n"
      "}\n";
  const SourceScenario r = of_line(src, "tile[tx][ty] = tile[ty][tx]", launch(32, 32));
  EXPECT_EQ(touches(r),
            (std::vector<Touch>{
                expect(StepKind::Load, 1024, [](int64_t i) { return i; }),
                expect(StepKind::Store, 1024, [](int64_t i) { return (i % 32) * 32 + i / 32; })}));
  EXPECT_DOUBLE_EQ(per_request(r), 32.0);  // the store
}

TEST(FromSource, ACompoundAssignmentIsALoadAndAStore) {
  const std::string src =
      "__global__ void k() {\n"
      "  __shared__ int s[64];\n"
      "  s[threadIdx.x * 2] += 3;\n"
      "  s[threadIdx.x]++;\n"
      "}\n";
  SourceScenario r = of_line(src, "s[threadIdx.x * 2] += 3", launch(32));
  EXPECT_EQ(touches(r),
            (std::vector<Touch>{expect(StepKind::Load, 32, [](int64_t i) { return 2 * i; }),
                                expect(StepKind::Store, 32, [](int64_t i) { return 2 * i; })}));
  EXPECT_DOUBLE_EQ(per_request(r), 2.0);
  r = of_line(src, "s[threadIdx.x]++", launch(32));
  ASSERT_TRUE(r.scenario) << r.why;
  EXPECT_EQ(count_kind(*r.scenario, StepKind::Load), 1u);
  EXPECT_EQ(count_kind(*r.scenario, StepKind::Store), 1u);
}

TEST(FromSource, ConditionsBecomeGuardsAndAReturnGuardsWhatFollows) {
  const std::string src =
      "__global__ void k(int* o) {\n"
      "  __shared__ int s[64];\n"
      "  int tid = threadIdx.x;\n"
      "  if (tid < 16) s[tid] = 1; else s[tid + 32] = 2;\n"
      "  if (tid % 4 == 3) return;\n"
      "  s[tid * 2] = 3;\n"
      "}\n";
  SourceScenario r = of_line(src, "if (tid < 16)", launch(32));
  EXPECT_EQ(touches(r),
            (std::vector<Touch>{
                expect(StepKind::Store, 32, [](int64_t t) { return t < 16 ? t : -1; }),
                expect(StepKind::Store, 32, [](int64_t t) { return t < 16 ? -1 : t + 32; })}));
  r = of_line(src, "s[tid * 2] = 3", launch(32));
  EXPECT_EQ(touches(r), (std::vector<Touch>{expect(StepKind::Store, 32, [](int64_t t) {
              return t % 4 == 3 ? -1 : 2 * t;
            })}));
}

TEST(FromSource, AnEarlyReturnAndABreakLeaveTheLoopCountedAndTheLocalsExact) {
  // The loop counter stays the same in every thread although some threads returned or broke
  // out; a local the loop changes after some threads broke out differs per thread.
  const std::string src =
      "__global__ void k(int* o) {\n"
      "  __shared__ int s[256];\n"
      "  int tid = threadIdx.x;\n"
      "  if (tid >= 48) return;\n"
      "  int acc = 0;\n"
      "  for (int i = 0; i < 4; ++i) {\n"
      "    s[tid + 32 * i] = i;\n"
      "    if (tid == i) break;\n"
      "    acc += 1;\n"
      "  }\n"
      "  s[acc] = 1;\n"
      "}\n";
  std::vector<Touch> want;
  for (int64_t i = 0; i < 4; ++i)
    want.push_back(
        expect(StepKind::Store, 64, [i](int64_t t) { return t < 48 && t >= i ? t + 32 * i : -1; }));
  EXPECT_EQ(touches(of_line(src, "s[tid + 32 * i] = i;", launch(64))), want);
  EXPECT_EQ(touches(of_line(src, "s[acc] = 1;", launch(64))),
            (std::vector<Touch>{expect(StepKind::Store, 64, [](int64_t t) -> int64_t {
              return t >= 48 ? -1 : t < 4 ? t : 4;
            })}));
}

TEST(FromSource, CommaIncrementsPointersAndReferences) {
  const std::string src =
      "__global__ void k(const float* in) {\n"
      "  __shared__ float s[128];\n"
      "  int tid = threadIdx.x;\n"
      "  const float* row = in + tid * 4;\n"
      "  for (int i = 0, j = 3; i < 4; i++, j--) s[tid + 32 * j] = row[i];\n"
      "  int x = tid;\n"
      "  int& r = x;\n"
      "  r += 5;\n"
      "  s[x] = 0.0f;\n"
      "}\n";
  // Both increments run (the loop ends after 4 iterations, j counting down); a pointer made
  // from tid leaves tid a value the model holds.
  std::vector<Touch> want;
  for (int64_t j = 3; j >= 0; --j)
    want.push_back(expect(StepKind::Store, 32, [j](int64_t t) { return t + 32 * j; }));
  EXPECT_EQ(touches(of_line(src, "for (int i = 0, j = 3;", launch(32))), want);
  // A local changed through a reference is refused, not shown unchanged.
  const SourceScenario r = of_line(src, "s[x] = 0.0f;", launch(32));
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("'r' refers to it"), std::string::npos) << r.why;
}

TEST(FromSource, SizeofATypeIsItsBytes) {
  const std::string src =
      "__global__ void k() {\n"
      "  __shared__ char raw[32 * sizeof(float2)];\n"
      "  raw[threadIdx.x * sizeof(int)] = 1;\n"
      "  raw[sizeof(threadIdx)] = 1;\n"
      "}\n";
  const SourceScenario r = of_line(src, "raw[threadIdx.x * sizeof(int)]", launch(32));
  ASSERT_TRUE(r.scenario) << r.why;
  EXPECT_EQ(r.scenario->tiles[0].dims, (std::vector<int64_t>{256}));
  EXPECT_EQ(touches(r),
            (std::vector<Touch>{expect(StepKind::Store, 32, [](int64_t t) { return 4 * t; })}));
  EXPECT_NE(of_line(src, "raw[sizeof(threadIdx)]", launch(32)).why.find("sizeof"),
            std::string::npos);
}

TEST(FromSource, SeveralDeclaratorsAlignAndAScalar) {
  const std::string src =
      "__global__ void k() {\n"
      "  __shared__ float a[33], b[32];\n"
      "  __shared__ __align__(16) float c[4][32];\n"
      "  __shared__ int count;\n"
      "  b[threadIdx.x] = a[threadIdx.x + 1];\n"
      "  c[threadIdx.x % 4][threadIdx.x] = 0.0f;\n"
      "  atomicAdd(&count, 1);\n"
      "}\n";
  SourceScenario r = of_line(src, "b[threadIdx.x] = a[", launch(32));
  ASSERT_TRUE(r.scenario) << r.why;
  ASSERT_EQ(r.scenario->tiles.size(), 2u);
  EXPECT_EQ(r.scenario->tiles[0].name, "a");
  EXPECT_EQ(r.scenario->tiles[1].name, "b");
  EXPECT_EQ(r.scenario->tiles[1].base, 33 * 4);  // after a, in declaration order
  EXPECT_EQ(touches(r),
            (std::vector<Touch>{expect(StepKind::Load, 32, [](int64_t t) { return t + 1; }),
                                expect(StepKind::Store, 32, [](int64_t t) { return t; })}));
  r = of_line(src, "c[threadIdx.x % 4]", launch(32));
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);
  r = of_line(src, "atomicAdd(&count, 1)", launch(32));
  ASSERT_TRUE(r.scenario) << r.why;
  EXPECT_EQ(r.scenario->steps[0].kind, StepKind::Atomic);
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);  // ATOMS.POPC.INC merges the lanes
}

TEST(FromSource, AnAtomicIncrementIsServedAsTheGpuRunsIt) {
  const std::string src =
      "__global__ void k() {\n"
      "  __shared__ int h[8];\n"
      "  int tx = threadIdx.x;\n"
      "  atomicAdd(&h[tx % 8], 1);\n"
      "  atomicAdd(&h[tx % 8], tx);\n"
      "}\n";
  SourceScenario r = of_line(src, "atomicAdd(&h[tx % 8], 1)", launch(32));
  ASSERT_TRUE(r.scenario) << r.why;
  EXPECT_EQ(r.scenario->steps[0].value, "1");
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);  // issue 20: the GPU merges it; the line parser gave 4
  const AnalysisResult a = analyze(*r.scenario);
  ASSERT_TRUE(a.analysis);
  EXPECT_EQ(a.analysis->step_op(0).op, Op::AtomicInc);
  r = of_line(src, "atomicAdd(&h[tx % 8], tx)", launch(32));
  ASSERT_TRUE(r.scenario) << r.why;
  EXPECT_EQ(analyze(*r.scenario).analysis->step_op(0).op, Op::Atomic);
}

// [SECTION] Loops: every iteration ===============================================================

TEST(FromSource, ASequentialReductionsLoopLineIsEveryIteration) {
  const std::string src =
      "__global__ void reduce(const float* in, float* out) {\n"
      "  __shared__ float sdata[256];\n"
      "  unsigned int tid = threadIdx.x;\n"
      "  sdata[tid] = in[tid];\n"
      "  __syncthreads();\n"
      "  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
      "    if (tid < s) sdata[tid] += sdata[tid + s];\n"
      "    __syncthreads();\n"
      "  }\n"
      "  if (tid == 0) out[0] = sdata[0];\n"
      "}\n";
  const SourceScenario r = of_line(src, "sdata[tid] += sdata[tid + s]", launch(256));
  std::vector<Touch> want;
  for (int64_t s = 128; s > 0; s >>= 1) {
    want.push_back(expect(StepKind::Load, 256, [s](int64_t t) { return t < s ? t + s : -1; }));
    want.push_back(expect(StepKind::Load, 256, [s](int64_t t) { return t < s ? t : -1; }));
    want.push_back(expect(StepKind::Store, 256, [s](int64_t t) { return t < s ? t : -1; }));
  }
  EXPECT_EQ(touches(r), want);
  ASSERT_TRUE(r.scenario);
  EXPECT_EQ(count_kind(*r.scenario, StepKind::Sync), 7u);  // between the 8 iterations
}

TEST(FromSource, AnInterleavedReductionsLocalInsideTheLoopIsALetPerIteration) {
  const std::string src =
      "__global__ void reduce(int* out) {\n"
      "  __shared__ int sdata[128];\n"
      "  unsigned int tid = threadIdx.x;\n"
      "  for (unsigned int s = 1; s < blockDim.x; s *= 2) {\n"
      "    int index = 2 * s * tid;\n"
      "    if (index < blockDim.x) {\n"
      "      sdata[index] += sdata[index + s];\n"
      "    }\n"
      "    __syncthreads();\n"
      "  }\n"
      "}\n";
  const SourceScenario r = of_line(src, "sdata[index] += sdata[index + s]", launch(128));
  std::vector<Touch> want;
  for (int64_t s = 1; s < 128; s *= 2) {
    auto in = [s](int64_t t) { return 2 * s * t < 128; };
    want.push_back(
        expect(StepKind::Load, 128, [=](int64_t t) { return in(t) ? 2 * s * t + s : -1; }));
    want.push_back(expect(StepKind::Load, 128, [=](int64_t t) { return in(t) ? 2 * s * t : -1; }));
    want.push_back(expect(StepKind::Store, 128, [=](int64_t t) { return in(t) ? 2 * s * t : -1; }));
  }
  EXPECT_EQ(touches(r), want);
}

TEST(FromSource, TheScansConflictFreeOffsetAndItsDoublingOffsetAreFollowed) {
  // GPU Gems 3's scan (39.2.3), up-sweep, with n a #define: bi += CONFLICT_FREE_OFFSET(bi)
  // reassigns a local and offset doubles every iteration; the line parser froze both.
  const std::string src =
      "#define NUM_BANKS 32\n"
      "#define LOG_NUM_BANKS 5\n"
      "#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)\n"
      "#define N 512\n"
      "__global__ void prescan(float* g_odata, const float* g_idata) {\n"
      "  extern __shared__ float temp[];\n"
      "  int thid = threadIdx.x;\n"
      "  int offset = 1;\n"
      "  for (int d = N >> 1; d > 0; d >>= 1) {\n"
      "    __syncthreads();\n"
      "    if (thid < d) {\n"
      "      int ai = offset * (2 * thid + 1) - 1;\n"
      "      int bi = offset * (2 * thid + 2) - 1;\n"
      "      ai += CONFLICT_FREE_OFFSET(ai);\n"
      "      bi += CONFLICT_FREE_OFFSET(bi);\n"
      "      temp[bi] += temp[ai];\n"
      "    }\n"
      "    offset *= 2;\n"
      "  }\n"
      "}\n";
  const int64_t bytes = (512 + 512 / 32) * 4;
  const SourceScenario r = of_line(src, "temp[bi] += temp[ai];", launch(256, 1, 1, bytes));
  std::vector<Touch> want;
  int64_t offset = 1;
  for (int64_t d = 256; d > 0; d >>= 1, offset *= 2) {
    auto ai = [=](int64_t t) {
      const int64_t a = offset * (2 * t + 1) - 1;
      return t < d ? a + (a >> 5) : -1;
    };
    auto bi = [=](int64_t t) {
      const int64_t b = offset * (2 * t + 2) - 1;
      return t < d ? b + (b >> 5) : -1;
    };
    want.push_back(expect(StepKind::Load, 256, ai));
    want.push_back(expect(StepKind::Load, 256, bi));
    want.push_back(expect(StepKind::Store, 256, bi));
  }
  EXPECT_EQ(touches(r), want);
}

TEST(FromSource, ALoopWithAPerThreadConditionIsRefusedNeverOneIteration) {
  const std::string src =
      "__global__ void k() {\n"
      "  __shared__ int s[64];\n"
      "  for (int i = threadIdx.x; i < 64; i += 7)\n"
      "    s[i] = 0;\n"
      "}\n";
  const SourceScenario r = of_line(src, "s[i] = 0", launch(32));
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("differs between threads"), std::string::npos) << r.why;
  // A per-thread local reassigned in a loop with a counted condition is exact.
  const std::string ok =
      "__global__ void k() {\n"
      "  __shared__ int s[256];\n"
      "  int i = threadIdx.x;\n"
      "  for (int n = 0; n < 3; ++n) {\n"
      "    s[i] = n;\n"
      "    i += 32 * (n + 1);\n"
      "  }\n"
      "}\n";
  const SourceScenario o = of_line(ok, "s[i] = n", launch(32));
  EXPECT_EQ(touches(o),
            (std::vector<Touch>{expect(StepKind::Store, 32, [](int64_t t) { return t; }),
                                expect(StepKind::Store, 32, [](int64_t t) { return t + 32; }),
                                expect(StepKind::Store, 32, [](int64_t t) { return t + 96; })}));
}

// [SECTION] Refused, each with its reason ========================================================

TEST(FromSource, WhatCannotBeFollowedIsRefusedWithTheReason) {
  const std::string src =
      "__global__ void k(int* o, const int* data, int n) {\n"
      "  __shared__ float2 v[64];\n"
      "  __shared__ int t[64];\n"
      "  int d = data[threadIdx.x];\n"
      "  o[0] = v[threadIdx.x].x;\n"
      "  t[d] = 1;\n"
      "  t[n] = 1;\n"
      "  t[__shfl_xor_sync(0xffffffff, threadIdx.x, 1)] = 1;\n"
      "  asm volatile(\"st.shared.u32 [%0], %1;\" :: \"r\"(0), \"r\"(1));\n"
      "  int* p = t;\n"
      "  t[threadIdx.x] = 2;\n"
      "}\n";
  auto why = [&](const std::string& text) {
    const SourceScenario r = of_line(src, text, launch(32));
    EXPECT_FALSE(r.scenario) << text;
    return r.why;
  };
  EXPECT_NE(why("v[threadIdx.x].x").find("one member"), std::string::npos);
  EXPECT_NE(why("t[d] = 1").find("data[...]"), std::string::npos) << why("t[d] = 1");
  EXPECT_NE(why("t[n] = 1").find("'n' is a kernel parameter"), std::string::npos);
  EXPECT_NE(why("__shfl_xor_sync").find("warp intrinsic"), std::string::npos);
  EXPECT_NE(why("asm volatile").find("inline asm"), std::string::npos);
  EXPECT_NE(why("t[threadIdx.x] = 2").find("takes the address of t"), std::string::npos);
  // A user's text is parsed, never code: a call in a subscript is refused by name.
  const std::string sys =
      "__global__ void k(int* o) {\n"
      "  __shared__ int t[32][32];\n"
      "  o[0] = t[threadIdx.x][system(\"rm -rf /\")];\n"
      "}\n";
  const SourceScenario s = of_line(sys, "system", launch(32, 32));
  EXPECT_FALSE(s.scenario);
  EXPECT_NE(s.why.find("calls system()"), std::string::npos) << s.why;
  // A __device__ function's line, a line outside any function, a line that never runs.
  const std::string dev =
      "__device__ void f(int* s) { s[threadIdx.x] = 0; }\n"
      "__shared__ int g[32];\n"
      "__global__ void k() {\n"
      "  if (blockDim.x > 64) g[threadIdx.x] = 1;\n"
      "}\n";
  EXPECT_NE(of_line(dev, "__device__", launch(32)).why.find("__device__ function f"),
            std::string::npos);
  EXPECT_NE(of_line(dev, "__shared__ int g", launch(32)).why.find("not inside a __global__"),
            std::string::npos);
  EXPECT_NE(of_line(dev, "if (blockDim.x > 64)", launch(32)).why.find("does not execute"),
            std::string::npos);
  // ... but a file-scope array is used where it runs.
  EXPECT_DOUBLE_EQ(per_request(of_line(dev, "if (blockDim.x > 64)", launch(128))), 1.0);
}

TEST(FromSource, DefineArithmeticIsCheckedNeverWrapped) {
  const std::string src =
      "#define BIG 9223372036854775807\n"
      "#define N (BIG + 1)\n"
      "#define M (1 << 40)\n"
      "__global__ void k() {\n"
      "  __shared__ int a[N];\n"
      "  __shared__ int b[M];\n"
      "  a[threadIdx.x] = 0;\n"
      "  b[threadIdx.x] = 0;\n"
      "}\n";
  SourceScenario r = of_line(src, "a[threadIdx.x]", launch(32));
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("overflow"), std::string::npos) << r.why;
  r = of_line(src, "b[threadIdx.x]", launch(32));
  EXPECT_FALSE(r.scenario);
  EXPECT_NE(r.why.find("b (line 6)"), std::string::npos) << r.why;
}

TEST(FromSource, HostileSourcesEndWithAReason) {
  // 1000 long #define lines: the tokenizer reads each once (the regex parser took 16 s).
  std::string defs;
  for (int i = 0; i < 1000; ++i) {
    defs += "#define D" + std::to_string(i) + " (";
    for (int k = 0; k < 200; ++k) defs += "1 + ";
    defs += "0)\n";
  }
  const std::string src = defs +
                          "__global__ void k() {\n"
                          "  __shared__ int s[D999];\n"
                          "  s[threadIdx.x] = 0;\n"
                          "}\n";
  const SourceScenario r = of_line(src, "s[threadIdx.x] = 0", launch(32));
  EXPECT_DOUBLE_EQ(per_request(r), 1.0);
  ASSERT_TRUE(r.scenario);
  EXPECT_EQ(r.scenario->tiles[0].dims, (std::vector<int64_t>{200}));
  // Macros that expand without end, brackets nested without end, a recursive macro.
  std::string bomb = "#define X0 1\n";
  for (int i = 1; i < 40; ++i)
    bomb += "#define X" + std::to_string(i) + " X" + std::to_string(i - 1) + " + X" +
            std::to_string(i - 1) + "\n";
  bomb += "__global__ void k() {\n  __shared__ int s[32];\n  s[X39] = 0;\n}\n";
  SourceScenario b = of_line(bomb, "s[X39]", launch(32));
  EXPECT_FALSE(b.scenario);
  EXPECT_NE(b.why.find("1M tokens"), std::string::npos) << b.why;
  const std::string deep = "__global__ void k() {\n  __shared__ int s[32];\n  s[" +
                           std::string(100000, '(') + "0" + std::string(100000, ')') +
                           "] = 0;\n}\n";
  b = of_line(deep, "s[", launch(32));
  EXPECT_FALSE(b.scenario);
  EXPECT_NE(b.why.find("nests brackets"), std::string::npos) << b.why;
  const std::string rec =
      "#define A B\n#define B A\n"
      "__global__ void k() {\n  __shared__ int s[32];\n  s[A] = 0;\n}\n";
  b = of_line(rec, "s[A]", launch(32));
  EXPECT_FALSE(b.scenario);
  EXPECT_NE(b.why.find("'A'"), std::string::npos) << b.why;
  // A loop that never ends is cut at the iteration limit, with the reason.
  const std::string inf =
      "__global__ void k() {\n  __shared__ int s[32];\n"
      "  for (;;) { s[threadIdx.x] = 0; }\n}\n";
  b = of_line(inf, "s[threadIdx.x]", launch(32));
  EXPECT_FALSE(b.scenario);
  EXPECT_NE(b.why.find("more than 4096"), std::string::npos) << b.why;
  // Statements nested without brackets, broken statements, conditions that grow without end.
  std::string ifs = "__global__ void k() {\n  __shared__ int s[32];\n";
  for (int i = 0; i < 5000; ++i) ifs += "if (1) ";
  ifs += "s[threadIdx.x] = 0;\n}\n";
  b = of_line(ifs, "s[threadIdx.x] = 0", launch(32));
  EXPECT_FALSE(b.scenario);
  EXPECT_NE(b.why.find("nests statements"), std::string::npos) << b.why;
  for (const char* broken : {"if", "while x", "do { s[0] = 1; }", "for"}) {
    const std::string src = std::string("__global__ void k() {\n  __shared__ int s[32];\n") +
                            "  s[0] = 1;\n  " + broken + "\n}\n";
    b = of_line(src, "s[0] = 1", launch(32));
    EXPECT_FALSE(b.scenario) << broken;
    EXPECT_FALSE(b.why.empty()) << broken;
  }
  const std::string grow =
      "__global__ void k() {\n  __shared__ int s[32];\n"
      "  for (int i = 0; i < 4000; ++i) { if (threadIdx.x == i % 32) break; s[threadIdx.x] = i; }\n"
      "  s[threadIdx.x] = 0;\n}\n";
  b = of_line(grow, "s[threadIdx.x] = i", launch(32));
  EXPECT_FALSE(b.scenario);
  EXPECT_NE(b.why.find("characters"), std::string::npos) << b.why;
  // After the loop the threads that broke out are back: every lane stores.
  EXPECT_DOUBLE_EQ(per_request(of_line(grow, "s[threadIdx.x] = 0", launch(32))), 1.0);
  // A very long line, unterminated comments and strings.
  const std::string huge = "__global__ void k() {\n__shared__ int t[32];\n" +
                           std::string(200000, ' ') + "t[0] = 1;\n}\n";
  EXPECT_TRUE(of_line(huge, "t[0] = 1", launch(32)).scenario);
  EXPECT_FALSE(
      scenario_from_source_line("__global__ void k() { /* \n", 1, launch(32), "k.cu").scenario);
  EXPECT_FALSE(scenario_from_source_line("\"abc\n__global__", 2, launch(32), "k.cu").scenario);
}

}  // namespace
}  // namespace bankviz
