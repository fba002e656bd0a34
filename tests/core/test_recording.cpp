// test_recording.cpp: a recording's text parsed, its accesses as warp instructions per line served
// by serve(), and a source prepared for recording (recording.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bankviz/from_source.h"
#include "bankviz/recording.h"

namespace bankviz {
namespace {

// A block of `threads` threads each making one access on `line`: address = f(thread).
template <typename F>
std::string one_line(int threads, uint32_t line, char kind, int width, F address,
                     uint64_t value = 0) {
  std::string s = "block " + std::to_string(threads) + " 1 1\narray t 3 0 16384\n";
  for (int t = 0; t < threads; ++t)
    s += std::to_string(t) + " " + std::to_string(line) + " " + kind + " " + std::to_string(width) +
         " " + std::to_string(address(t)) + " " + std::to_string(value) + "\n";
  return s + "end " + std::to_string(threads) + "\n";
}

std::vector<RecordedLine> lines_of(const std::string& text) {
  std::string why;
  const auto r = parse_recording(text, &why);
  EXPECT_TRUE(r) << why;
  if (!r) return {};
  const auto ins = recorded_instructions(*r, default_arch(), &why);
  EXPECT_TRUE(ins) << why;
  return ins ? recorded_lines(*ins) : std::vector<RecordedLine>{};
}

TEST(Recording, AColumnReadIsThirtyTwoWavefrontsPerWarpAndARowReadOne) {
  // 64 threads reading a 32x32 float tile down a column: each warp's lanes share one bank.
  auto l = lines_of(one_line(64, 7, 'L', 4, [](int t) { return (t % 32) * 128; }));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].line, 7u);
  EXPECT_EQ(l[0].ops, "ld");
  EXPECT_EQ(l[0].requests, 2);
  EXPECT_EQ(l[0].wavefronts, 64);
  EXPECT_EQ(l[0].ideal, 2);
  l = lines_of(one_line(64, 7, 'S', 4, [](int t) { return t * 4; }));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].ops, "st");
  EXPECT_EQ(l[0].wavefronts, 2);
}

TEST(Recording, EachExecutionOfALineIsAnInstructionAndSyncsSeparateThem) {
  // Two threads of one warp run line 5 twice before a sync and once after: three requests.
  const std::string text =
      "block 2 1 1\narray s 2 0 64\n0 5 L 4 0 0\n1 5 L 4 4 0\n0 5 L 4 8 0\n1 5 L 4 12 0\nsync\n"
      "0 5 L 4 0 0\n1 5 L 4 4 0\nend 6\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->phases, 2u);
  const auto ins = recorded_instructions(*r, default_arch(), &why);
  ASSERT_TRUE(ins) << why;
  ASSERT_EQ(ins->size(), 3u);
  EXPECT_EQ((*ins)[2].phase, 1u);
  EXPECT_EQ((*ins)[0].warps[0].access.mask, 3u);
  EXPECT_EQ((*ins)[1].warps[0].access.addr[1], 12u);
  EXPECT_EQ(recorded_lines(*ins)[0].requests, 3);
}

TEST(Recording, AnAtomicIncrementIsServedAsTheGpuRunsIt) {
  // atomicAdd(&h[t % 8], 1) from one warp: ATOMS.POPC.INC on Hopper (one pass for the lanes on
  // an address), where other values are a pass per lane.
  auto l = lines_of(one_line(
      32, 4, 'A', 4, [](int t) { return (t % 8) * 4; }, 1));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].ops, "atom");
  EXPECT_EQ(l[0].wavefronts, 1);
  l = lines_of(one_line(
      32, 4, 'A', 4, [](int t) { return (t % 8) * 4; }, 2));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_GT(l[0].wavefronts, 1);
}

TEST(Recording, BadRecordingsAreRefusedNamingTheLine) {
  std::string why;
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 4 0 0\n", &why));
  EXPECT_NE(why.find("stops before its end"), std::string::npos) << why;
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 3 0 0\nend 1\n", &why));
  EXPECT_NE(why.find("recording line 2"), std::string::npos) << why;
  EXPECT_FALSE(parse_recording("block 32 1 1\n40 1 L 4 0 0\nend 1\n", &why));  // no thread 40
  EXPECT_FALSE(parse_recording("block 2048 1 1\nend 0\n", &why));
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 4 999999999 0\nend 1\n", &why));
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 Q 4 0 0\nend 1\n", &why));
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 4 0 0\nend 2\n", &why));
  EXPECT_NE(why.find("counts 2"), std::string::npos) << why;
  EXPECT_FALSE(parse_recording("block 32 1 1\nend 0\nsync\n", &why));
  EXPECT_TRUE(parse_recording("block 32 1 1\nend 0\n", &why)) << why;
  // A misaligned access is what serve() cannot take: named, not served.
  const auto r = parse_recording("block 1 1 1\n0 9 L 4 2 0\nend 1\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(recorded_instructions(*r, default_arch(), &why));
  EXPECT_NE(why.find("line 9"), std::string::npos) << why;
}

size_t lines_in(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(RecordingSource, SharedDeclarationsBecomeProxiesAndTheLinesStay) {
  const std::string src =
      "#define N 32\n"
      "__global__ void k(float *out, int n) {\n"
      "  __shared__ float tile[N][N + 1], row[N];\n"
      "  __shared__ __align__(16) int\n    flag;\n"
      "  extern __shared__ double dyn[];\n"
      "  tile[threadIdx.y][threadIdx.x] = row[threadIdx.x] + dyn[0] + flag;\n"
      "}\n";
  std::string why;
  const std::string out = recording_source(src, "k", "k.cu", &why);
  ASSERT_FALSE(out.empty()) << why;
  EXPECT_NE(out.find("static ::bv::Shared<float[N][N + 1], 0> tile(\"tile\", 3u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("static ::bv::Shared<float[N], 0> row(\"row\", 3u);"), std::string::npos);
  EXPECT_NE(out.find("static ::bv::SharedScalar<int, 16> flag(\"flag\", 4u);"), std::string::npos);
  EXPECT_NE(out.find("static ::bv::Shared<double[], 0> dyn(\"dyn\", 6u);"), std::string::npos);
  // The user's lines keep their numbers: the text between #line 1 and the driver has as many.
  const size_t b = out.find("#line 1 \"k.cu\"\n") + 15, e = out.find("#line 1 \"bankviz-record");
  EXPECT_EQ(lines_in(out.substr(b, e - b)), lines_in(src) + 1);
  EXPECT_NE(out.find("k(::bv::Arg{0}, ::bv::Arg{1});"), std::string::npos);
}

TEST(RecordingSource, WhatCannotBeRecordedIsNamed) {
  auto why_of = [](const std::string& body, const std::string& kernel = "k") {
    std::string why;
    const std::string out =
        recording_source("__global__ void k(int *p) {\n  __shared__ int s[32];\n" + body + "\n}\n",
                         kernel, "k.cu", &why);
    EXPECT_TRUE(out.empty());
    return why;
  };
  EXPECT_NE(
      why_of("  int v = __shfl_sync(~0u, 1, 0);").find("__shfl_sync (line 3), a warp intrinsic"),
      std::string::npos);
  EXPECT_NE(why_of("  asm(\"nop;\");").find("inline asm (line 3)"), std::string::npos);
  EXPECT_NE(
      why_of("  auto g = cooperative_groups::this_thread_block();").find("cooperative groups"),
      std::string::npos);
  EXPECT_NE(why_of("  int *q = s; q[1] = 0;")
                .find("uses the __shared__ array s other than by "
                      "subscript"),
            std::string::npos);
  EXPECT_NE(why_of("", "other").find("no __global__ function other"), std::string::npos);
  EXPECT_NE(why_of("", "k(); system").find("is not a kernel's name"), std::string::npos);
  // A comment or a string naming them is not the kernel using them.
  std::string why;
  EXPECT_FALSE(recording_source("__global__ void k() {\n  // __shfl_sync asm\n  const char* m = "
                                "\"asm\";\n}\n",
                                "k", "k.cu", &why)
                   .empty())
      << why;
  // The same name in another function is another variable.
  EXPECT_FALSE(recording_source("__global__ void a() { __shared__ int v[4]; v[0] = 1; }\n"
                                "__global__ void k() { float v = 1; v += 1; }\n",
                                "k", "k.cu", &why)
                   .empty())
      << why;
}

TEST(RecordingSource, ForTheGpuTheStorageStaysRealSharedMemoryBesideEachProxy) {
  const std::string src =
      "#define N 32\n"
      "__global__ void k(float *out, int n) {\n"
      "  __shared__ float tile[N][N + 1], row[N];\n"
      "  __shared__ __align__(16) int\n    flag;\n"
      "  extern __shared__ double dyn[];\n"
      "  tile[threadIdx.y][threadIdx.x] = row[threadIdx.x] + dyn[0] + flag;\n"
      "  out[0] = __shfl_down_sync(~0u, out[1], 1);\n"
      "}\n";
  std::string why;
  std::vector<RecordedArray> declared;
  const std::string out = recording_source(src, "k", "k.cu", &why, RecordTarget::Gpu, &declared);
  ASSERT_FALSE(out.empty()) << why;  // a warp intrinsic runs on the GPU as written
  EXPECT_NE(out.find("__shared__ float bv_shared_0[N][N + 1]; ::bv::Shared<float[N][N + 1]> "
                     "tile(bv_shared_0, 0u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("__shared__ float bv_shared_1[N]; ::bv::Shared<float[N]> "
                     "row(bv_shared_1, 1u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("__shared__ __align__(16) int bv_shared_2; ::bv::SharedScalar<int> "
                     "flag(&bv_shared_2, 2u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("extern __shared__ double bv_shared_3[]; ::bv::Shared<double[]> "
                     "dyn(bv_shared_3, 3u);"),
            std::string::npos)
      << out;
  // No driver: the kernel is launched as profiled; the lines keep their numbers.
  EXPECT_EQ(out.find("bankviz-record-driver"), std::string::npos);
  EXPECT_EQ(out.rfind("#line 1 \"k.cu\"\n", 0), 0u) << out;
  EXPECT_EQ(lines_in(out), lines_in(src) + 1);
  ASSERT_EQ(declared.size(), 4u);
  EXPECT_EQ(declared[0].name, "tile");
  EXPECT_EQ(declared[0].line, 3u);
  EXPECT_EQ(declared[2].name, "flag");
  EXPECT_EQ(declared[2].line, 4u);
  EXPECT_TRUE(declared[3].dynamic);
  EXPECT_FALSE(declared[1].dynamic);

  // What the GPU recording cannot count or rewrite is named.
  auto why_of = [](const std::string& text) {
    std::string w;
    EXPECT_TRUE(recording_source(text, "k", "k.cu", &w, RecordTarget::Gpu).empty()) << text;
    return w;
  };
  EXPECT_NE(why_of("__global__ void k() {\n  __shared__ int s[4];\n  asm(\"nop;\");\n}\n")
                .find("inline asm (line 3), whose shared-memory accesses the GPU recording cannot "
                      "see"),
            std::string::npos);
  EXPECT_NE(why_of("__global__ void k() {\n  __shared__ int s[4];\n  int c = "
                   "__syncthreads_count(1);\n}\n")
                .find("__syncthreads_count (line 3), a barrier with a result"),
            std::string::npos);
  EXPECT_NE(why_of("__shared__ int s[4];\n__global__ void k() { s[0] = 1; }\n")
                .find("line 1: a __shared__ declaration outside a function"),
            std::string::npos);
  EXPECT_NE(why_of("__global__ void k() {\n  __shared__ int s[4];\n  int *q = s;\n}\n")
                .find("other than by subscript"),
            std::string::npos);
}

TEST(RecordingSource, TheFileNameNeverBecomesCode) {
  std::string why;
  const std::string out =
      recording_source("__global__ void k() {}\n", "k", "a\"\n#include <x>\\.cu", &why);
  ASSERT_FALSE(out.empty()) << why;
  EXPECT_NE(out.find("#line 1 \"a__#include <x>_.cu\"\n"), std::string::npos) << out;
}

TEST(RecordingSource, TheKernelsOfAFileAreListedForPicking) {
  const std::string src =
      "__device__ int helper(int x) { return x; }\n"
      "__global__ void first(int *p) { p[0] = helper(1); }\n"
      "// __global__ void commented() {}\n"
      "__global__ void __launch_bounds__(256) second() {}\n"
      "__global__ void first(float *p) {}\n";
  EXPECT_EQ(kernels_in_source(src), (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE(kernels_in_source("__global__ void broken( {").empty());
  EXPECT_TRUE(kernels_in_source("int main() {}").empty());
}

TEST(RecordingSource, AFollowedLinesReasonHasNoControlByte) {
  // The reason quotes the type's spelling, which holds an escape byte here (fuzz_source found it).
  const std::string src =
      "__global__ void k() {\n  __shared__\x1b"
      " float4 q[32];\n  q[threadIdx.x] = q[0];\n}\n";
  const SourceScenario s = scenario_from_source_line(src, 3, SourceLaunch{}, "k.cu");
  ASSERT_FALSE(s.scenario);
  EXPECT_FALSE(s.why.empty());
  EXPECT_EQ(s.why.find('\x1b'), std::string::npos) << s.why;
  std::string why;
  for (const SourceLine& l : shared_lines_of_kernel(src, "k", SourceLaunch{}, "k.cu", &why))
    EXPECT_EQ(l.why.find('\x1b'), std::string::npos) << l.why;
}

}  // namespace
}  // namespace bankviz
