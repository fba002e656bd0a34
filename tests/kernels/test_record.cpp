// test_record.cpp: one block recorded on the CPU (kernels/record.h): the host compiler, the
// emulation header's fibers and proxies, the limits, and the figures per line against what the
// kernels do (the seeds' kernels' figures are the H100's, docs/model-vs-hardware-h100.txt).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "bankviz/from_source.h"
#include "bankviz/record.h"

namespace bankviz {
namespace {

std::string read(const std::string& name) {
  std::ifstream f(std::string(BANKVIZ_SOURCE_DIR) + "/tests/data/profile/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Recorded {
  std::string error;
  std::map<uint32_t, RecordedLine> lines;
  size_t accesses = 0;
};

Recorded record(const std::string& source, const std::string& kernel, int64_t bx, int64_t by = 1,
                int64_t bz = 1, int64_t dynamic = 0, std::vector<std::optional<int64_t>> args = {},
                double timeout = 60) {
  RecordRequest q;
  q.source = source;
  q.file_name = "k.cu";
  q.kernel = kernel;
  q.block[0] = bx;
  q.block[1] = by;
  q.block[2] = bz;
  q.dynamic_shared = dynamic;
  q.args = std::move(args);
  q.timeout_s = timeout;
  Recorded out;
  const RecordResult r = record_on_cpu(q);
  if (!r.recording) {
    out.error = r.error;
    return out;
  }
  out.accesses = r.recording->accesses.size();
  std::string why;
  const auto ins = recorded_instructions(*r.recording, default_arch(), &why);
  if (!ins) {
    out.error = why;
    return out;
  }
  for (const RecordedLine& l : recorded_lines(*ins)) out.lines[l.line] = l;
  return out;
}

#define NEED_COMPILER()                                                                        \
  if (record_compiler().empty())                                                               \
  GTEST_SKIP() << "no host C++ compiler (g++ or c++ on PATH, or BANKVIZ_RECORD_CXX): the CPU " \
                  "recording cannot run here"

TEST(Record, TheSeedsDataLayoutKernelsAsTheH100CountsThem) {
  NEED_COMPILER();
  const std::string src = read("data_layout.cu");
  Recorded r = record(src, "setRowReadCol", 32, 32);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lines[29].wavefronts, 32);    // tile[threadIdx.y][threadIdx.x] = idx: by rows
  EXPECT_EQ(r.lines[31].wavefronts, 1024);  // ... = tile[threadIdx.x][threadIdx.y]: 32-way
  EXPECT_EQ(r.lines[31].requests, 32);
  r = record(src, "setRowReadColDyn", 32, 32, 1, 4096);  // extern, sized by the launch
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lines[41].wavefronts, 1024);
  r = record(src, "setRowReadColIpad", 32, 32);  // padded: conflict-free
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lines[51].wavefronts, 32);
}

TEST(Record, LoopsGuardsAndTheScansConflictFreeOffsetAsTheyRun) {
  NEED_COMPILER();
  const std::string src = read("kernels.cu");
  // The dot product's reduction loop: every iteration (the followed model and the H100: 36).
  Recorded r = record(read("dot.cu"), "dot", 256);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lines[28].wavefronts, 36);
  EXPECT_EQ(r.lines[28].ops, "ld,st");
  // The GPU Gems scan with CONFLICT_FREE_OFFSET and a doubling offset (extern, 2112 bytes).
  r = record(src, "prescan", 256, 1, 1, (512 + 16) * 4);
  ASSERT_TRUE(r.error.empty()) << r.error;
  SourceLaunch launch;
  launch.block[0] = 256;
  launch.dynamic_shared = (512 + 16) * 4;
  std::string why;
  // Where the kernel can be followed, the recording and the followed model agree line by line.
  for (const SourceLine& l : shared_lines_of_kernel(src, "prescan", launch, "k.cu", &why)) {
    if (!l.scenario) continue;
    const ModelFigures m = model_figures(*l.scenario);
    EXPECT_EQ(r.lines[l.line].wavefronts, m.wavefronts) << "line " << l.line;
    EXPECT_EQ(r.lines[l.line].requests, m.instructions) << "line " << l.line;
  }
  EXPECT_GT(r.lines.size(), 3u);
}

TEST(Record, ADataDependentIndexIsRecordedAsTheKernelComputesIt) {
  NEED_COMPILER();
  // hist[data[i]]: the followed model refuses it; the recording runs it (buffers zeroed: bin 0),
  // and atomicAdd(&h[..], 1) is the increment the H100 merges: one wavefront per warp.
  const Recorded r = record(read("histogram.cu"), "histogram", 256);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lines.at(16).ops, "atom");
  EXPECT_EQ(r.lines.at(16).requests, 8);
  EXPECT_EQ(r.lines.at(16).wavefronts, 8);
  // A data-dependent index from the kernel's own data: bins spread by the thread's number.
  const std::string src =
      "__global__ void h(int *out) {\n"
      "  __shared__ int bins[64];\n"
      "  __shared__ int data[32];\n"
      "  data[threadIdx.x] = (threadIdx.x * 2) % 64;\n"
      "  bins[data[threadIdx.x]] = 1;\n"
      "}\n";
  const Recorded d = record(src, "h", 32);
  ASSERT_TRUE(d.error.empty()) << d.error;
  EXPECT_EQ(d.lines.at(5).ops, "ld,st");
  EXPECT_EQ(d.lines.at(5).requests, 2);
  EXPECT_EQ(d.lines.at(5).wavefronts, 1 + 2);  // the load of data; a stride-2 store: 2-way
}

TEST(Record, ALineThatLoadsAndStoresIsBothAndLanesLoadBeforeAnyStores) {
  NEED_COMPILER();
  // tile[tx][ty] = tile[ty][tx] in place: a conflict-free load then a 32-way store.
  Recorded r = record(read("kernels.cu"), "transposeInPlace", 32, 32);
  ASSERT_TRUE(r.error.empty()) << r.error;
  // A warp shifting its values by one in place: as one warp instruction, every lane reads the
  // old value; lane-by-lane it would read its neighbour's new one.
  const std::string src =
      "__global__ void shift(int *out) {\n"
      "  __shared__ int s[33];\n"
      "  s[threadIdx.x] = threadIdx.x;\n"
      "  s[threadIdx.x + 1] = s[threadIdx.x];\n"
      "  if (threadIdx.x == 31) s[0] = s[5];\n"
      "  out[threadIdx.x] = s[threadIdx.x];\n"
      "}\n";
  r = record(src, "shift", 32);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lines.at(4).requests, 2);
  RecordRequest q;
  q.source = src;
  q.file_name = "k.cu";
  q.kernel = "shift";
  q.block[0] = 32;
  const RecordResult rec = record_on_cpu(q);
  ASSERT_TRUE(rec.recording) << rec.error;
  // Line 5's load by thread 31 reads s[5], which line 4 wrote with thread 4's old value: 4.
  bool seen = false;
  for (const RecordedAccess& a : rec.recording->accesses)
    if (a.line == 5 && a.kind == RecordedKind::Load) {
      EXPECT_EQ(a.value, 4u);
      EXPECT_EQ(a.address, 20u);
      seen = true;
    }
  EXPECT_TRUE(seen);
}

TEST(Record, ErrorsAreNamedAndLimitsHold) {
  NEED_COMPILER();
  // Out of bounds: the line, the thread and the index.
  Recorded r = record(
      "__global__ void k(int n) {\n  __shared__ float s[32];\n  s[threadIdx.x + "
      "n] = 1;\n}\n",
      "k", 32, 1, 1, 0, {1});
  EXPECT_NE(r.error.find("line 3: thread 31 indexes s[32], out of bounds (32 elements there)"),
            std::string::npos)
      << r.error;
  // A kernel that never ends is stopped at the time limit.
  r = record("__global__ void k() {\n  __shared__ int s[1];\n  for (;;) { }\n}\n", "k", 32, 1, 1, 0,
             {}, 2);
  EXPECT_NE(r.error.find("did not finish in"), std::string::npos) << r.error;
  // One that crashes says so.
  r = record("__global__ void k(int *p) {\n  __shared__ int s[1];\n  p[-100000000] = 1;\n}\n", "k",
             32);
  EXPECT_NE(r.error.find("crashed on the CPU"), std::string::npos) << r.error;
  // The compiler's messages name the user's file and line, not bankviz's temporary directory.
  r = record("__global__ void k() {\n  __shared__ int s[1];\n  s[0] = undeclared;\n}\n", "k", 32);
  EXPECT_NE(r.error.find("does not compile for the CPU recording"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("k.cu:3"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("bankviz-record-"), std::string::npos) << r.error;
  // A warp intrinsic is refused before anything is compiled.
  r = record("__global__ void k() {\n  int v = __shfl_down_sync(~0u, 1, 1);\n}\n", "k", 32);
  EXPECT_NE(r.error.find("warp intrinsic"), std::string::npos) << r.error;
  // A block CUDA cannot launch.
  r = record("__global__ void k() {}\n", "k", 2048);
  EXPECT_NE(r.error.find("1 to 1024 threads"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace bankviz
