// test_profile.cpp: profiling a user's kernel (profile.h): the launch's text and checks, the
// per-line sums, and on a GPU the hardware's figures against the model's for the seed's kernels,
// and every way a user's kernel can fail leaving the runner usable.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "bankviz/analysis.h"
#include "bankviz/compare.h"
#include "bankviz/profile.h"
#include "helpers.h"

namespace bankviz {
namespace {

using test::runner;

// [SECTION] The launch a user asks for ==========================================================

TEST(ProfileLines, TheLineTablesFileIsTheGivenFileHoweverItIsSpelled) {
  // Issue 30: `profile ./k.cu` on an H200 gave no recorded line its hardware figures: NVRTC's
  // line table names the file absolute, and "./" did not end it.
  EXPECT_TRUE(same_file("/work/main/.dev/truth/truth30/people30.cu", "./truth30/people30.cu"));
  EXPECT_TRUE(same_file("/w/k.cu", "./k.cu"));
  EXPECT_TRUE(same_file("/w/d/k.cu", "d/../d/k.cu"));
  EXPECT_TRUE(same_file("/w/d/k.cu", "k.cu"));
  EXPECT_FALSE(same_file("/w/d/mk.cu", "k.cu"));
  EXPECT_FALSE(same_file("/w/d/k.cu", "./e/k.cu"));
}

TEST(ProfileArgs, ExtentsAreOneToThreeWholeNumbersJoinedByX) {
  std::string err;
  auto d = parse_dim3("32x8", &err);
  ASSERT_TRUE(d) << err;
  EXPECT_EQ(d->x, 32u);
  EXPECT_EQ(d->y, 8u);
  EXPECT_EQ(d->z, 1u);
  d = parse_dim3("4x4x2", &err);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->product(), 32u);
  EXPECT_EQ(parse_dim3("2147483647", &err)->x, 2147483647u);
  for (const char* bad : {"", "0", "32x", "x32", "1x2x3x4", "-1", "+5", "3 2", "2147483648", "32x0",
                          "0x10", "99999999999999999999"}) {
    err.clear();
    EXPECT_FALSE(parse_dim3(bad, &err)) << bad;
    EXPECT_NE(err.find("launch extent"), std::string::npos) << bad << ": " << err;
  }
}

TEST(ProfileArgs, BuffersTakeBytesWithUnitsUpToOneGigabyte) {
  std::string err;
  auto a = parse_kernel_arg("buffer:4K", &err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(a->kind, KernelArg::Kind::Buffer);
  EXPECT_EQ(a->bytes, 4096u);
  EXPECT_EQ(a->size(), 8u);  // a pointer
  EXPECT_EQ(parse_kernel_arg("buffer:3", &err)->bytes, 3u);
  EXPECT_EQ(parse_kernel_arg("buffer:1G", &err)->bytes, kMaxBufferBytes);
  for (const char* bad : {"buffer:0", "buffer:", "buffer:2G", "buffer:1025M", "buffer:-4",
                          "buffer:4KB", "buffer:1.5K", "buffer:18446744073709551617"})
    EXPECT_FALSE(parse_kernel_arg(bad, &err)) << bad;
}

TEST(ProfileArgs, ValuesMustFitTheirTypeExactly) {
  std::string err;
  auto bits_of = [&](const char* text) {
    auto a = parse_kernel_arg(text, &err);
    EXPECT_TRUE(a) << text << ": " << err;
    return a ? a->bits : 0;
  };
  int32_t i = -3;
  uint64_t want = 0;
  std::memcpy(&want, &i, 4);
  EXPECT_EQ(bits_of("int:-3"), want);
  EXPECT_EQ(bits_of("uint:4294967295"), 0xffffffffu);
  EXPECT_EQ(bits_of("long:-1"), ~uint64_t{0});
  float f = 1.5f;
  want = 0;
  std::memcpy(&want, &f, 4);
  EXPECT_EQ(bits_of("float:1.5"), want);
  double g = -2.5e-3;
  std::memcpy(&want, &g, 8);
  EXPECT_EQ(bits_of("double:-2.5e-3"), want);
  EXPECT_EQ(parse_kernel_arg("int:1", &err)->size(), 4u);
  EXPECT_EQ(parse_kernel_arg("double:1", &err)->size(), 8u);
  for (const char* bad : {"int:2147483648", "int:1.0", "int:", "uint:-1", "ulong:-1",
                          "long:9223372036854775808", "float:1e39", "float:nan", "double:inf",
                          "float:", "float:1.5f", "char:1", "int", "4096", ":3"}) {
    err.clear();
    EXPECT_FALSE(parse_kernel_arg(bad, &err)) << bad;
    EXPECT_NE(err.find("--arg"), std::string::npos) << bad << ": " << err;
  }
}

ProfileRequest request(const std::string& source, const std::string& kernel) {
  ProfileRequest q;
  q.source = source;
  q.file_name = "k.cu";
  q.kernel = kernel;
  q.block = {32, 1, 1};
  return q;
}

TEST(ProfileArgs, TheKernelNameIsACppNameNeverCode) {
  // A template's instance with literal or named arguments (NVRTC's name expression).
  for (const char* good : {"k", "_k9", "ns::k", "a::b::c", "k<int>", "ns::k<256, float>"})
    EXPECT_TRUE(check_request(request("x", good)).empty()) << good;
  for (const char* bad : {"", "9k", "a;b", "k()", "::k", "k::", "a:::b", "k<f()>", "k<int;>", "a b",
                          "k\nint x;", "a::9"}) {
    auto problems = check_request(request("x", bad));
    ASSERT_EQ(problems.size(), 1u) << bad;
    EXPECT_NE(problems[0].find("--kernel"), std::string::npos) << problems[0];
  }
}

TEST(ProfileArgs, RequestsBeyondTheLimitsAreRefusedBeforeAnyGpu) {
  ProfileRequest q = request("__global__ void k() {}", "k");
  EXPECT_TRUE(check_request(q).empty());
  q.block = {32, 33, 1};
  EXPECT_EQ(check_request(q).size(), 1u);
  q = request("", "k");
  EXPECT_EQ(check_request(q).size(), 1u);
  q = request(std::string(kMaxProfileSourceBytes + 1, ' '), "k");
  EXPECT_EQ(check_request(q).size(), 1u);
  q = request(std::string("a\0b", 3), "k");
  EXPECT_EQ(check_request(q).size(), 1u);
  q = request("x", "k");
  std::string err;
  for (int i = 0; i < 5; ++i) q.args.push_back(*parse_kernel_arg("buffer:1G", &err));
  EXPECT_EQ(check_request(q).size(), 1u);  // 5 GB of buffers
  q.args.assign(kMaxKernelArgs + 1, *parse_kernel_arg("int:1", &err));
  EXPECT_EQ(check_request(q).size(), 1u);
  // A runner refuses it the same way, with or without a GPU, naming the problem.
  q = request("x", "a;b");
  const ProfileResult r = runner().profile(q);
  EXPECT_EQ(r.status, RunStatus::BadArguments);
  EXPECT_NE(r.message.find("--kernel"), std::string::npos) << r.message;
}

// [SECTION] Per source line =======================================================================

TEST(ProfileLines, InstructionsAreSummedPerLineMostExcessFirstWithTheirSource) {
  const std::string src = "line one\n  tile[x] = 1;  \n\tv = tile[y][x];\n";
  std::vector<ProfileInstruction> in = {
      {"k", 0x10, "k.cu", 2, "st", 32, 32, 32}, {"k", 0x20, "k.cu", 3, "ld", 32, 1024, 32},
      {"k", 0x30, "k.cu", 3, "ld", 32, 64, 64}, {"k", 0x40, "other.h", 3, "atom", 8, 8, 8},
      {"k", 0x50, "", 0, "st", 1, 1, 1},
  };
  const auto lines = lines_of(in, src, "k.cu");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].line, 3u);  // 992 + 0 excess
  EXPECT_EQ(lines[0].file, "k.cu");
  EXPECT_EQ(lines[0].text, "v = tile[y][x];");
  EXPECT_EQ(lines[0].instructions, 2);
  EXPECT_EQ(lines[0].executed, 64);
  EXPECT_EQ(lines[0].wavefronts, 1088);
  EXPECT_EQ(lines[0].ideal, 96);
  EXPECT_EQ(lines[0].excess(), 992);
  EXPECT_DOUBLE_EQ(lines[0].per_request(), 17.0);
  EXPECT_EQ(lines[1].line, 2u);  // no excess, most wavefronts
  EXPECT_EQ(lines[1].text, "tile[x] = 1;");
  EXPECT_TRUE(lines[0].in_file);
  EXPECT_EQ(lines[2].file, "other.h");  // line 3 of another file: not k.cu's text
  EXPECT_EQ(lines[2].text, "");
  EXPECT_FALSE(lines[2].in_file);
  EXPECT_EQ(lines[3].line, 0u);
  ProfileResult r;
  r.lines = lines;
  r.wavefronts = 1129;
  r.ideal = 137;
  const std::string table = format_profile(r, 2);
  EXPECT_NE(table.find("v = tile[y][x];"), std::string::npos) << table;
  EXPECT_NE(table.find("2 more lines"), std::string::npos) << table;
  EXPECT_NE(table.find("992"), std::string::npos) << table;
}

// [SECTION] On a GPU =============================================================================

std::string read_profile_source(const std::string& name) {
  std::ifstream f(std::string(BANKVIZ_SOURCE_DIR) + "/tests/data/profile/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ProfileRequest seed_request(const std::string& kernel) {
  ProfileRequest q = request(read_profile_source("data_layout.cu"), kernel);
  q.file_name = "data_layout.cu";
  q.block = {32, 32, 1};
  std::string err;
  q.args.push_back(*parse_kernel_arg("buffer:4K", &err));
  return q;
}

// The line of `r` whose source contains `text`.
const ProfileLine* line_with(const ProfileResult& r, const std::string& text) {
  for (const ProfileLine& l : r.lines)
    if (l.text.find(text) != std::string::npos) return &l;
  return nullptr;
}

// One kernel of the seed against the model of its preset. CUPTI's SASS metrics count one
// profile per process, and ctest runs each test in a process of its own.
void expect_seed_kernel_matches_model(const char* kernel, const char* preset) {
  const ProfileResult r = runner().profile(seed_request(kernel));
  ASSERT_EQ(r.status, RunStatus::Ok) << kernel << ": " << r.message;
  if (r.counters == CounterStatus::NotPermitted || r.counters == CounterStatus::Unsupported)
    GTEST_SKIP() << r.counters_message;
  ASSERT_EQ(r.counters, CounterStatus::Ok) << r.counters_message;
  const ProfileLine* store = line_with(r, "tile[threadIdx.y][threadIdx.x]=idx;");
  const ProfileLine* load = line_with(r, "out[idx]=tile[threadIdx.x][threadIdx.y];");
  ASSERT_TRUE(store && load) << format_profile(r);
  EXPECT_EQ(store->ops, std::vector<std::string>{"st"});
  EXPECT_EQ(load->ops, std::vector<std::string>{"ld"});
  EXPECT_EQ(load->executed, 32);  // 32 warps, one load each
  // The model of the same accesses: the store is its first step, the load its worst.
  const AnalysisResult a = analyze(test::preset(preset));
  ASSERT_TRUE(a.analysis);
  const Summary s = summarize(*a.analysis);
  EXPECT_DOUBLE_EQ(load->per_request(), std::max(s.worst_per_request, 1.0)) << kernel;
  EXPECT_EQ(load->wavefronts, a.analysis->step_wavefronts(s.worst_step)) << kernel;
  EXPECT_EQ(store->wavefronts, store->ideal) << kernel;
  EXPECT_EQ(r.wavefronts, store->wavefronts + load->wavefronts);
  EXPECT_GT(r.kernel_ms, 0);

  // A second profile in the same process says its counters are missing, never "no shared
  // memory".
  const ProfileResult again = runner().profile(seed_request(kernel));
  ASSERT_EQ(again.status, RunStatus::Ok) << again.message;
  EXPECT_EQ(again.counters, CounterStatus::Failed);
  EXPECT_NE(again.counters_message.find("one profile per process"), std::string::npos)
      << again.counters_message;
}

TEST(ProfileOnGpu, TheSeedsColumnReadCountsWhatTheModelCounts) {
  REQUIRE_GPU();
  expect_seed_kernel_matches_model("setRowReadCol", "row-write-column-read");
}

TEST(ProfileOnGpu, TheSeedsPaddedColumnReadCountsWhatTheModelCounts) {
  REQUIRE_GPU();
  expect_seed_kernel_matches_model("setRowReadColIpad", "row-write-column-read-padded");
}

TEST(ProfileOnGpu, ABadKernelOrBadArgumentsAreReportedAndTheRunnerGoesOn) {
  REQUIRE_GPU();
  // Not there, or not compiling: the compiler's words.
  ProfileResult r = runner().profile(seed_request("setNothing"));
  EXPECT_EQ(r.status, RunStatus::CompileError);
  EXPECT_NE(r.message.find("no __global__ function named \"setNothing\""), std::string::npos)
      << r.message;
  ProfileRequest q = request("__global__ void k(int* o) { o[0] = undefined_name; }", "k");
  q.args.push_back(*parse_kernel_arg("buffer:4", &r.message));
  r = runner().profile(q);
  EXPECT_EQ(r.status, RunStatus::CompileError);
  EXPECT_NE(r.message.find("undefined_name"), std::string::npos) << r.message;
  // Arguments that do not match the parameters.
  q = seed_request("setRowReadCol");
  q.args.push_back(q.args[0]);
  r = runner().profile(q);
  EXPECT_EQ(r.status, RunStatus::BadArguments);
  EXPECT_NE(r.message.find("takes 1 parameter; 2 --arg given"), std::string::npos) << r.message;
  q = request("__global__ void k(double* o, int n) { o[n] = 1; }", "k");
  std::string err;
  q.args = {*parse_kernel_arg("buffer:64", &err), *parse_kernel_arg("long:1", &err)};
  r = runner().profile(q);
  EXPECT_EQ(r.status, RunStatus::BadArguments);
  EXPECT_NE(r.message.find("parameter 2 of k is 4 bytes"), std::string::npos) << r.message;
  r = runner().profile(seed_request("setRowReadRow"));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_FALSE(r.wedged);
  // (A fault and a kernel that never ends: tests/cli, in processes of their own, since CUDA
  // cannot recover from either in the process.)
}

TEST(ProfileWithoutGpu, SaysWhyAndDoesNotCrash) {
  std::string why;
  if (test::have_gpu(&why)) GTEST_SKIP() << "a GPU is present";
  const ProfileResult r = runner().profile(seed_request("setRowReadCol"));
  EXPECT_EQ(r.status, RunStatus::NoCuda);
  EXPECT_FALSE(r.message.empty());
  EXPECT_TRUE(r.lines.empty());
}

}  // namespace
}  // namespace bankviz
