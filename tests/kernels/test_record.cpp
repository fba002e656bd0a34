// test_record.cpp: one block recorded on the CPU (kernels/record.h): the host compiler, the
// emulation header's fibers and proxies, the limits, and the figures per line against what the
// kernels do (the seeds' kernels' figures are the H100's, docs/model-vs-hardware-h100.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "bankviz/analysis.h"
#include "bankviz/from_source.h"
#include "bankviz/record.h"
#include "bankviz/run_types.h"
#include "bankviz/sass.h"
#include "sandbox.h"

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

RecordRequest recording_request(const std::string& source, const std::string& kernel, int64_t bx,
                                int64_t by = 1, int64_t bz = 1, int64_t dynamic = 0,
                                std::vector<std::optional<int64_t>> args = {},
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
  return q;
}

// A recording's figures per line (recorded_lines()), or why there are none.
Recorded recorded_lines_of(const RecordResult& r) {
  Recorded out;
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

Recorded record(const std::string& source, const std::string& kernel, int64_t bx, int64_t by = 1,
                int64_t bz = 1, int64_t dynamic = 0, std::vector<std::optional<int64_t>> args = {},
                double timeout = 60) {
  return recorded_lines_of(record_on_cpu(
      recording_request(source, kernel, bx, by, bz, dynamic, std::move(args), timeout)));
}

#define NEED_COMPILER()                                                                          \
  if (record_compiler().empty())                                                                 \
    GTEST_SKIP() << "no host C++ compiler (g++ or c++ on PATH, or BANKVIZ_RECORD_CXX): the CPU " \
                    "recording cannot run here";                                                 \
  if (const SandboxFilter f = recording_filter(); !f.problem.empty())                            \
  GTEST_SKIP() << "the CPU recording refuses to run unconfined here: " << f.problem

TEST(Record, WarpIntrinsicsRunWithCudasSemantics) {
  NEED_COMPILER();
  // Issue 30: shuffles, votes, match, reduce and __syncwarp run on the CPU as CUDA defines them,
  // so what a kernel computes with them (here the addresses of shared stores) is as on the GPU.
  // 64 threads; each stores at the address its warp's collectives give it.
  const std::string src =
      "#include <cuda_runtime.h>\n"                                             // 1
      "__global__ void k() {\n"                                                 // 2
      "  __shared__ int s[1024];\n"                                             // 3
      "  int lane = threadIdx.x % 32, v = lane;\n"                              // 4
      "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(~0u, v, o);\n"  // 5
      "  if (lane == 0) s[v] = 1;\n"                                            // 6: s[496]
      "  int up = __shfl_up_sync(~0u, lane, 3);\n"                              // 7
      "  s[up] = 2;\n"                                                          // 8
      "  unsigned b = __ballot_sync(~0u, lane % 4 == 0);\n"                     // 9
      "  s[__popc(b) + 512] = 3;\n"                                             // 10: s[520]
      "  int x = __shfl_xor_sync(~0u, lane, 1, 8);\n"                           // 11
      "  __syncwarp();\n"                                                       // 12
      "  s[x * 2 + 600] = 4;\n"                                                 // 13
      "  unsigned m = __match_any_sync(~0u, lane / 8);\n"                       // 14
      "  s[__popc(m) + 700] = 5;\n"                                             // 15
      "  s[__reduce_add_sync(~0u, 1u) + 800 + __any_sync(~0u, lane == 31) + __all_sync(~0u, lane < "
      "31)] = 6;\n"  // 16
      "}\n";
  const RecordRequest q = [&] {
    RecordRequest r;
    r.source = src;
    r.file_name = "k.cu";
    r.kernel = "k";
    r.block[0] = 64;
    return r;
  }();
  const RecordResult r = record_on_cpu(q);
  ASSERT_TRUE(r.recording) << r.error;
  // line -> element index stored, by thread (the lanes of a warp leave a collective in any order)
  std::map<uint32_t, std::vector<uint32_t>> words;
  std::map<uint32_t, std::vector<uint32_t>> by_thread;
  for (const RecordedAccess& a : r.recording->accesses)
    if (a.kind == RecordedKind::Store) by_thread[a.line].push_back(a.thread);
  for (const RecordedAccess& a : r.recording->accesses) {
    if (a.kind != RecordedKind::Store) continue;
    std::vector<uint32_t>& w = words[a.line];
    const std::vector<uint32_t>& t = by_thread[a.line];
    const size_t rank = static_cast<size_t>(
        std::count_if(t.begin(), t.end(), [&](uint32_t x) { return x < a.thread; }));
    if (w.size() < t.size()) w.resize(t.size());
    w[rank] = a.address / 4;
  }
  ASSERT_EQ(words[6].size(), 2u);
  EXPECT_EQ(words[6][0], 496u);  // 0 + 1 + ... + 31, the down-shuffle's sum in lane 0
  EXPECT_EQ(words[6][1], 496u);
  ASSERT_EQ(words[8].size(), 64u);
  for (size_t t = 0; t < 64; ++t) EXPECT_EQ(words[8][t], t % 32 < 3 ? t % 32 : t % 32 - 3) << t;
  for (uint32_t w : words[10]) EXPECT_EQ(w, 520u);
  ASSERT_EQ(words[13].size(), 64u);
  for (size_t t = 0; t < 64; ++t) EXPECT_EQ(words[13][t], ((t % 32) ^ 1u) * 2 + 600) << t;
  for (uint32_t w : words[15]) EXPECT_EQ(w, 708u);
  for (uint32_t w : words[16]) EXPECT_EQ(w, 833u);  // 32 + 800 + 1 + 0
  EXPECT_EQ(words[16].size(), 64u);
}

TEST(Record, CudasHeadersAHeaderBesideTheKernelHalfAndCooperativeGroupsCompile) {
  NEED_COMPILER();
  // Issue 30: ordinary CUDA includes its headers; a header beside the kernel is found in the
  // kernel's folder; __half and cooperative groups' tiles run.
  const std::string dir = ::testing::TempDir() + "bankviz-record-own-header";
  std::filesystem::create_directories(dir);
  {
    std::ofstream h(dir + "/tile_size.h");
    h << "#pragma once\n#define TILE 32\n";
  }
  const std::string src =
      "#include <cuda_runtime.h>\n"                                           // 1
      "#include <cuda_fp16.h>\n"                                              // 2
      "#include <cooperative_groups.h>\n"                                     // 3
      "#include \"tile_size.h\"\n"                                            // 4
      "namespace cg = cooperative_groups;\n"                                  // 5
      "__global__ void k(float* out) {\n"                                     // 6
      "  __shared__ __half h[TILE][TILE + 2];\n"                              // 7
      "  cg::thread_block block = cg::this_thread_block();\n"                 // 8
      "  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);\n"  // 9
      "  h[threadIdx.y][threadIdx.x] = __float2half(1.0f);\n"                 // 10
      "  block.sync();\n"                                                     // 11
      "  float v = __half2float(h[threadIdx.x][threadIdx.y]);\n"              // 12
      "  v = cg::reduce(warp, v, cg::plus<float>());\n"                       // 13
      "  if (warp.thread_rank() == 0) out[threadIdx.y] = v;\n"                // 14
      "}\n";
  RecordRequest q;
  q.source = src;
  q.file_name = dir + "/k.cu";
  q.kernel = "k";
  q.block[0] = 32;
  q.block[1] = 4;
  const RecordResult r = record_on_cpu(q);
  ASSERT_TRUE(r.recording) << r.error;
  std::string why;
  const auto ins = recorded_instructions(*r.recording, default_arch(), &why);
  ASSERT_TRUE(ins) << why;
  std::map<uint32_t, RecordedLine> lines;
  for (const RecordedLine& l : recorded_lines(*ins)) lines[l.line] = l;
  // 2-byte elements, rows of 68 bytes: the store by rows is 1 wavefront a warp, the column
  // read (lanes 68 bytes apart: 17 words, odd) conflict-free too.
  EXPECT_EQ(lines.at(10).requests, 4);
  EXPECT_EQ(lines.at(10).wavefronts, 4);
  EXPECT_EQ(lines.at(12).requests, 4);
  EXPECT_EQ(r.recording->phases, 2u);
  std::filesystem::remove_all(dir);
}

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
  const RecordResult rec =
      record_on_cpu(recording_request(src, "shift", 32));  // once: a compile each
  r = recorded_lines_of(rec);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.lines.at(4).requests, 2);
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

// Every recorded line of a kernel as a picture (recorded_picture(), the tiles from the kernel's
// declarations), analyzed from its trace.
struct Pictures {
  std::string error;
  std::map<uint32_t, RecordedLine> lines;
  std::map<uint32_t, RecordedPicture> pictures;
  std::map<uint32_t, Analysis> analyses;
};

Pictures pictures(const std::string& source, const std::string& kernel, int64_t bx, int64_t by = 1,
                  int64_t dynamic = 0) {
  RecordRequest q;
  q.source = source;
  q.file_name = "k.cu";
  q.kernel = kernel;
  q.block[0] = bx;
  q.block[1] = by;
  q.dynamic_shared = dynamic;
  q.timeout_s = 60;
  Pictures out;
  const RecordResult r = record_on_cpu(q);
  if (!r.recording) {
    out.error = r.error;
    return out;
  }
  const auto ins = recorded_instructions(*r.recording, default_arch(), &out.error);
  if (!ins) return out;
  SourceLaunch launch;
  launch.block[0] = bx;
  launch.block[1] = by;
  launch.dynamic_shared = dynamic;
  const std::vector<TileDecl> declared =
      shared_arrays_of_kernel(source, kernel, launch, "k.cu", &out.error);
  for (const RecordedLine& l : recorded_lines(*ins)) {
    out.lines[l.line] = l;
    auto p = recorded_picture(*r.recording, *ins, declared, l.line, default_arch(), &out.error);
    if (!p) return out;
    AnalysisResult a = analyze(p->scenario, nullptr, p->trace);
    if (!a.analysis) {
      out.error = "line " + std::to_string(l.line) + " does not analyze";
      return out;
    }
    out.analyses.emplace(l.line, std::move(*a.analysis));
    out.pictures.emplace(l.line, std::move(*p));
  }
  return out;
}

TEST(RecordPicture, EveryRecordedLineOpensAsAPictureWithTheRecordedFigures) {
  NEED_COMPILER();
  struct Case {
    const char* file;
    const char* kernel;
    int64_t bx, by, dynamic;
  };
  const Case cases[] = {{"data_layout.cu", "setRowReadCol", 32, 32, 0},
                        {"data_layout.cu", "setRowReadColIpad", 32, 32, 0},
                        {"data_layout.cu", "setRowReadColDyn", 32, 32, 4096},
                        {"dot.cu", "dot", 256, 1, 0},
                        {"histogram.cu", "histogram", 256, 1, 0},
                        {"kernels.cu", "prescan", 256, 1, (512 + 16) * 4}};
  // Each kernel recorded once (seconds of CPU each): the checks below read these again.
  std::map<std::string, Pictures> recorded;
  for (const Case& c : cases) {
    const Pictures& p = recorded[c.kernel] =
        pictures(read(c.file), c.kernel, c.bx, c.by, c.dynamic);
    ASSERT_TRUE(p.error.empty()) << c.kernel << ": " << p.error;
    ASSERT_FALSE(p.lines.empty()) << c.kernel;
    for (const auto& [line, l] : p.lines) {
      const Analysis& a = p.analyses.at(line);
      int64_t instructions = 0;
      for (size_t e = 0; e < a.steps.size(); ++e)
        instructions += a.step_instructions(static_cast<int>(e));
      EXPECT_EQ(a.total_wavefronts(), l.wavefronts) << c.kernel << " line " << line;
      EXPECT_EQ(a.total_ideal(), l.ideal) << c.kernel << " line " << line;
      EXPECT_EQ(instructions, l.requests) << c.kernel << " line " << line;
      EXPECT_EQ(a.hazards.racing_accesses, 0) << c.kernel << " line " << line;
    }
  }
  // The tiles are the declarations: int tile[32][32], its padded twin [32][32 + 1].
  const Pictures& p = recorded.at("setRowReadColIpad");
  const TileDecl& t = p.pictures.at(51).scenario.tiles.at(0);
  EXPECT_EQ(t.dims, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(t.pad, 1);
  EXPECT_EQ(p.analyses.at(51).total_wavefronts(), 32);
  // The histogram's data-dependent atomic, which following the kernel refuses, opens: block 0's
  // bins all 0 (zeroed input), merged by ATOMS.POPC.INC: one wavefront per warp.
  SourceLaunch launch;
  launch.block[0] = 256;
  EXPECT_FALSE(scenario_from_source_line(read("histogram.cu"), 16, launch, "k.cu").scenario);
  const Analysis& h = recorded.at("histogram").analyses.at(16);
  EXPECT_EQ(h.step_op(0).op, Op::AtomicInc);
  EXPECT_EQ(h.total_wavefronts(), 8);
  EXPECT_EQ(h.warps[0][0].element[5], 0);  // every lane's bin is input[...] = 0
}

// A loop line reading one array twice (`acc += s[a + k] * s[b + k]`): each access says its
// subscript (its site), so the picture has two steps, each executed once an iteration; without
// the sites (an older recording) nothing in the order of the accesses tells them from one load
// run twice as often: one step executed twice an iteration.
TEST(Record, ALoopLinesTwoLoadsOfOneArrayAreTwoSteps) {
  NEED_COMPILER();
  const std::string src =
      "__global__ void selfDot(float *out) {\n"
      "  __shared__ float s[32 * 33];\n"
      "  unsigned t = threadIdx.x;\n"
      "  s[t] = t;\n"
      "  __syncthreads();\n"
      "  unsigned a = (t % 32) * 33, b = ((t * 5) % 32) * 33;\n"
      "  float acc = 0.0f;\n"
      "  for (int k = 0; k < 32; ++k) acc += s[a + k] * s[b + k];\n"
      "  out[t] = acc;\n"
      "}\n";
  RecordRequest q;
  q.source = src;
  q.file_name = "k.cu";
  q.kernel = "selfDot";
  q.block[0] = 64;
  RecordResult r = record_on_cpu(q);
  ASSERT_TRUE(r.recording) << r.error;
  auto steps = [](const Recording& rec, std::vector<int64_t>* runs) {
    std::string why;
    const auto ins = recorded_instructions(rec, default_arch(), &why);
    EXPECT_TRUE(ins) << why;
    const auto p = recorded_picture(rec, *ins, {}, 8, default_arch(), &why);
    EXPECT_TRUE(p) << why;
    std::vector<std::string> labels;
    if (!p) return labels;
    for (const Step& st : p->scenario.steps) labels.push_back(st.label);
    runs->assign(labels.size(), 0);
    for (const TraceStep& ts : p->trace.steps) ++(*runs)[static_cast<size_t>(ts.info.step)];
    return labels;
  };
  std::vector<int64_t> runs;
  EXPECT_EQ(steps(*r.recording, &runs),
            (std::vector<std::string>{"load s, line 8", "load s, line 8, access 2"}));
  EXPECT_EQ(runs, (std::vector<int64_t>{32, 32}));
  for (RecordedAccess& a : r.recording->accesses) {
    if (a.line == 8) {
      EXPECT_NE(a.site, 0u);
    }
    a.site = 0;
  }
  EXPECT_EQ(steps(*r.recording, &runs), (std::vector<std::string>{"load s, line 8"}));
  EXPECT_EQ(runs, (std::vector<int64_t>{64}));
}

// A shared array used through a pointer (issue 20's fourth session) is recorded as the same
// accesses made by subscript: a volatile pointer parameter of a helper (Harris's warpReduce, the
// helper's lines), arrays carved from one extern buffer by casts (each an array of its own, named
// by its pointer), a local pointer into a tile's row. Each pair of kernels below does the same
// accesses one way and the other: their lines' figures are equal.
TEST(Record, ASharedArrayThroughAPointerIsRecordedAsBySubscript) {
  NEED_COMPILER();
  const std::string src =
      "__device__ void warpReduce(volatile float *sdata, unsigned tid) {\n"  // 1
      "  sdata[tid] += sdata[tid + 32];\n"                                   // 2
      "  sdata[tid] += sdata[tid + 1];\n"                                    // 3
      "}\n"
      "__global__ void viaHelper(float *out) {\n"  // 5
      "  __shared__ float sdata[64];\n"
      "  unsigned tid = threadIdx.x;\n"
      "  sdata[tid] = tid;\n"
      "  __syncthreads();\n"
      "  if (tid < 32) warpReduce(sdata, tid);\n"  // 10
      "  out[0] = sdata[0];\n"
      "}\n"
      "__global__ void inlined(float *out) {\n"  // 13
      "  __shared__ float sdata[64];\n"
      "  unsigned tid = threadIdx.x;\n"
      "  sdata[tid] = tid;\n"
      "  __syncthreads();\n"
      "  if (tid < 32) { sdata[tid] += sdata[tid + 32];\n"  // 18
      "  sdata[tid] += sdata[tid + 1]; }\n"                 // 19
      "  out[0] = sdata[0];\n"
      "}\n"
      "__global__ void carved(float *out) {\n"  // 22
      "  extern __shared__ unsigned char smem[];\n"
      "  float *a = reinterpret_cast<float *>(smem);\n"
      "  int *b = (int *)&a[64];\n"
      "  unsigned t = threadIdx.x;\n"
      "  a[t] = t;\n"             // 27
      "  b[(t * 2) % 64] = t;\n"  // 28
      "  __syncthreads();\n"
      "  out[t] = a[63 - t] + b[t];\n"  // 30
      "}\n"
      "__global__ void separate(float *out) {\n"  // 32
      "  __shared__ float a[64];\n"
      "  __shared__ int b[64];\n"
      "  unsigned t = threadIdx.x;\n"
      "  a[t] = t;\n"             // 36
      "  b[(t * 2) % 64] = t;\n"  // 37
      "  __syncthreads();\n"
      "  out[t] = a[63 - t] + b[t];\n"  // 39
      "}\n"
      "__global__ void rowPointer(float *out) {\n"  // 41
      "  __shared__ float tile[32][33];\n"
      "  unsigned tx = threadIdx.x, ty = threadIdx.y;\n"
      "  float *row = &tile[ty][0];\n"
      "  const float *col = tile[0] + tx;\n"
      "  row[tx] = tx;\n"  // 46
      "  __syncthreads();\n"
      "  out[ty * 32 + tx] = col[ty * 33];\n"  // 48
      "}\n"
      "__global__ void rowSubscript(float *out) {\n"  // 50
      "  __shared__ float tile[32][33];\n"
      "  unsigned tx = threadIdx.x, ty = threadIdx.y;\n"
      "  tile[ty][tx] = tx;\n"  // 53
      "  __syncthreads();\n"
      "  out[ty * 32 + tx] = tile[ty][tx];\n"  // 55
      "}\n";
  auto same = [](const Recorded& x, const Recorded& y,
                 const std::vector<std::pair<uint32_t, uint32_t>>& lines) {
    ASSERT_TRUE(x.error.empty()) << x.error;
    ASSERT_TRUE(y.error.empty()) << y.error;
    for (const auto& [lx, ly] : lines) {
      ASSERT_TRUE(x.lines.count(lx)) << "line " << lx;
      ASSERT_TRUE(y.lines.count(ly)) << "line " << ly;
      const RecordedLine &a = x.lines.at(lx), &b = y.lines.at(ly);
      EXPECT_EQ(a.ops, b.ops) << lx << " " << ly;
      EXPECT_EQ(a.requests, b.requests) << lx << " " << ly;
      EXPECT_EQ(a.wavefronts, b.wavefronts) << lx << " " << ly;
      EXPECT_EQ(a.ideal, b.ideal) << lx << " " << ly;
      EXPECT_GT(a.requests, 0) << lx;
    }
  };
  // Each kernel recorded once (a recording is a compile of the file: seconds of CPU each).
  // The helper's accesses are on the helper's lines (2, 3), not on the call's (10).
  const Recorded helper = record(src, "viaHelper", 64);
  same(helper, record(src, "inlined", 64), {{2, 18}, {3, 19}});
  EXPECT_FALSE(helper.lines.count(10));
  const RecordResult r = record_on_cpu(recording_request(src, "carved", 64, 1, 1, 512));
  const Recorded carved = recorded_lines_of(r), separate = record(src, "separate", 64);
  same(carved, separate, {{27, 36}, {28, 37}});
  // The two columns' reads: b[t] is 1 wavefront a request, b's stores 2-way (t * 2 % 64).
  ASSERT_TRUE(carved.lines.count(30));
  same(carved, separate, {{30, 39}});
  const Recorded row_pointer = record(src, "rowPointer", 32, 8),
                 row_subscript = record(src, "rowSubscript", 32, 8);
  same(row_pointer, row_subscript, {{46, 53}});
  // col[ty * 33] with col = tile[0] + tx: tile[ty][tx], as rowSubscript's load reads it.
  same(row_pointer, row_subscript, {{48, 55}});

  // The carved arrays are named by their pointers, over the buffer, and a line reaching one of
  // them opens as a picture whose tile is it.
  ASSERT_TRUE(r.recording) << r.error;
  std::vector<std::string> names;
  for (const RecordedArray& a : r.recording->arrays) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"smem", "a", "b"}));
  for (const RecordedAccess& a : r.recording->accesses) {
    ASSERT_GE(a.array, 0);
    const std::string& n = r.recording->arrays[static_cast<size_t>(a.array)].name;
    EXPECT_EQ(n, a.line == 28 || (a.line == 30 && a.address >= 256) ? "b" : "a") << a.line;
    if (a.line == 28) {
      EXPECT_GE(a.address, 256u);
    }
  }
  std::string why;
  const auto ins = recorded_instructions(*r.recording, default_arch(), &why);
  ASSERT_TRUE(ins) << why;
  const auto pic = recorded_picture(*r.recording, *ins, {}, 28, default_arch(), &why);
  ASSERT_TRUE(pic) << why;
  ASSERT_EQ(pic->scenario.tiles.size(), 1u);
  EXPECT_EQ(pic->scenario.tiles[0].name, "b");
}

// What a pointer into shared memory cannot do, named: `*p` and `p->` (no subscript, no line to
// record them on), an array assigned to a pointer that no declaration makes a proxy; a pointer's
// index out of its array is caught with the line and the thread.
TEST(Record, APointersUseTheRecordingCannotFollowIsNamed) {
  NEED_COMPILER();
  auto kernel = [](const std::string& body) {
    return "__global__ void k(float *o) {\n  __shared__ float s[64];\n" + body + "\n}\n";
  };
  Recorded r = record(kernel("  float *p = s + 1;\n  *p++ = 2;"), "k", 64);
  EXPECT_NE(r.error.find("line 4 dereferences the pointer p into shared memory (*p)"),
            std::string::npos)
      << r.error;
  // `*p` alone is p[0]: the element on its line (lanes 1..32 of s, one wavefront a warp, and
  // `2 * *p` a product of that element).
  r = record(kernel("  float *p = s + 1 + threadIdx.x % 32;\n  *p = 2;\n  o[0] = 2 * *p;"), "k",
             64);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.lines.count(4) && r.lines.count(5));
  EXPECT_EQ(r.lines.at(4).requests, 2);
  EXPECT_EQ(r.lines.at(5).requests, 2);
  r = record(kernel("  float *q;\n  q = s;\n  q[0] = 1;"), "k", 64);
  EXPECT_NE(r.error.find("line 4 uses the __shared__ array s other than by subscript"),
            std::string::npos)
      << r.error;
  r = record(kernel("  float *p = &s[32];\n  p[threadIdx.x] = 1;"), "k", 64);
  EXPECT_NE(r.error.find("line 4: thread 32 indexes s through a pointer"), std::string::npos)
      << r.error;
}

// A cast of a pointer into shared memory to a vector type inside an expression means what it
// means in CUDA C: each thread accesses the vector's bytes in one access (LDS.128, LDS.64), as an
// array of that type would; a `*` before the cast reads its element on that line; an address not
// a multiple of the vector's alignment stops the recording with its line (the GPU faults there).
TEST(Record, AVectorCastInAnExpressionIsOneAccessOfItsWidth) {
  NEED_COMPILER();
  const std::string src =
      "__global__ void cast(float *out) {\n"  // 1
      "  __shared__ float tile[32][36];\n"
      "  __shared__ int s[256];\n"
      "  int r = threadIdx.x / 8, c = (threadIdx.x % 8) * 4;\n"
      "  tile[r][c] = threadIdx.x;\n"
      "  s[threadIdx.x] = threadIdx.x;\n"
      "  __syncthreads();\n"
      "  float4 v = reinterpret_cast<float4*>(&tile[r][c])[0];\n"             // 8
      "  int2 w = *(int2*)&s[2 * (threadIdx.x % 64)];\n"                      // 9
      "  out[threadIdx.x] = v.x + v.w + w.x + 2 * *(int*)&s[threadIdx.x];\n"  // 10
      "  out[threadIdx.x] += reinterpret_cast<float2*>(tile[r])[c / 2].y;\n"  // 11
      "}\n"
      "__global__ void typed(float *out) {\n"  // 13
      "  __shared__ float4 tile[32][9];\n"
      "  __shared__ int2 s[128];\n"
      "  int r = threadIdx.x / 8, c = threadIdx.x % 8;\n"
      "  tile[r][c].x = threadIdx.x;\n"
      "  s[threadIdx.x / 2].x = threadIdx.x;\n"
      "  __syncthreads();\n"
      "  float4 v = tile[r][c];\n"         // 20
      "  int2 w = s[threadIdx.x % 64];\n"  // 21
      "  out[threadIdx.x] = v.x + v.w + w.x;\n"
      "}\n"
      "__global__ void odd(float *out) {\n"  // 24
      "  __shared__ float tile[64];\n"
      "  tile[threadIdx.x] = 1;\n"
      "  __syncthreads();\n"
      "  float4 v = *reinterpret_cast<float4*>(&tile[threadIdx.x % 8 + 1]);\n"  // 28
      "  out[threadIdx.x] = v.x;\n"
      "}\n";
  const Recorded cast = record(src, "cast", 128), typed = record(src, "typed", 128);
  ASSERT_TRUE(cast.error.empty()) << cast.error;
  ASSERT_TRUE(typed.error.empty()) << typed.error;
  for (const auto& [lc, lt] : std::vector<std::pair<uint32_t, uint32_t>>{{8, 20}, {9, 21}}) {
    ASSERT_TRUE(cast.lines.count(lc) && typed.lines.count(lt)) << lc;
    const RecordedLine &a = cast.lines.at(lc), &b = typed.lines.at(lt);
    EXPECT_EQ(a.requests, b.requests) << lc;
    EXPECT_EQ(a.wavefronts, b.wavefronts) << lc;
    EXPECT_EQ(a.ideal, b.ideal) << lc;
  }
  // 16 bytes a thread, rows of 144 bytes: 4 wavefronts a request, conflict-free; 8 bytes: 2.
  EXPECT_EQ(cast.lines.at(8).wavefronts, 4 * 4);
  EXPECT_EQ(cast.lines.at(9).wavefronts, 4 * 2);
  // `2 * *(int*)&s[t]`: a product of the element read on line 10, one wavefront a request.
  ASSERT_TRUE(cast.lines.count(10));
  EXPECT_EQ(cast.lines.at(10).wavefronts, 4);
  // One member of a float2 element: the 4 bytes of .y alone, word 36 r + 4 j + 1 for row r and
  // thread j of its 8: bank 4 (r + j) + 1 mod 32, 4 of a warp's 32 lanes on each: 4-way.
  ASSERT_TRUE(cast.lines.count(11));
  EXPECT_EQ(cast.lines.at(11).wavefronts, 4 * 4);
  const Recorded odd = record(src, "odd", 32);
  EXPECT_NE(odd.error.find("line 28: thread 0 accesses 16 bytes at byte 4 of shared memory, not a "
                           "multiple of 16: a misaligned address"),
            std::string::npos)
      << odd.error;
}

// atomicCAS on the CPU: recorded as its own kind, atomicExch as another atomic.
TEST(Record, AnAtomicCasIsRecordedAsItsOwnKind) {
  NEED_COMPILER();
  RecordRequest q;
  q.source =
      "__global__ void k(int *o) {\n"
      "  __shared__ int lock[4];\n"
      "  unsigned t = threadIdx.x;\n"
      "  if (t < 4) lock[t] = 0;\n"
      "  __syncthreads();\n"
      "  o[t] = atomicCAS(&lock[t % 4], 0, (int)t + 1) + atomicExch(&lock[t % 2], 3);\n"
      "}\n";
  q.file_name = "k.cu";
  q.kernel = "k";
  q.block[0] = 32;
  const RecordResult r = record_on_cpu(q);
  ASSERT_TRUE(r.recording) << r.error;
  int cas = 0, other = 0;
  for (const RecordedAccess& a : r.recording->accesses) {
    if (a.line != 6) continue;
    cas += a.kind == RecordedKind::AtomicCas;
    other += a.kind == RecordedKind::Atomic;
  }
  EXPECT_EQ(cas, 32);
  EXPECT_EQ(other, 32);
}

// A user's compare-and-swap loop keeping a float maximum (issue 30, fresh30d casFloatMax): the
// atomicCAS goes through a pointer made on another line and cast to int*, and is recorded on its
// own call's line, where nvcc puts the ATOMS.CAS (not on the line that made the pointer). The
// block's warps run side by side as on the GPU: all four read the word before any swaps, so each
// warp's lanes try once (an H200 counts 4 ATOMS.CAS executions, 32 wavefronts), where one warp
// after another would leave warps 1-3 nothing to swap. Also through `s + i` and a multi-line call.
TEST(Record, AnAtomicThroughAPointerMadeElsewhereIsOnItsCallsLineAndWarpsRunSideBySide) {
  NEED_COMPILER();
  const std::string source =
      "__global__ void casFloatMax(const float* in, float* out, int* q)\n"
      "{\n"
      "    __shared__ float best[8];\n"
      "    __shared__ int n[4];\n"
      "    const int t = threadIdx.x;\n"
      "    if (t < 8) best[t] = -1.0f;\n"
      "    if (t < 4) n[t] = 0;\n"
      "    __syncthreads();\n"
      "    float* slot = &best[t % 8];\n"
      "    const float v = in[t];\n"
      "    int old = __float_as_int(*slot);\n"
      "    while (__int_as_float(old) < v) {\n"
      "        const int seen = atomicCAS(reinterpret_cast<int*>(slot), old, __float_as_int(v));\n"
      "        if (seen == old) break;\n"
      "        old = seen;\n"
      "    }\n"
      "    int* count = n + t % 4;\n"
      "    q[t] = atomicAdd(count, 1) + atomicAdd(\n"
      "        &n[t % 4], 2);\n"
      "    __syncthreads();\n"
      "    if (t < 8) out[t] = best[t];\n"
      "}\n";
  RecordRequest q;
  q.source = source;
  q.file_name = "k.cu";
  q.kernel = "casFloatMax";
  q.block[0] = 128;
  const RecordResult r = record_on_cpu(q);
  ASSERT_TRUE(r.recording) << r.error;
  std::map<uint32_t, int> per_line;
  std::map<uint32_t, std::set<uint32_t>> cas_warps;
  for (const RecordedAccess& a : r.recording->accesses) {
    ++per_line[a.line];
    if (a.kind == RecordedKind::AtomicCas) cas_warps[a.line].insert(a.thread / 32);
  }
  EXPECT_EQ(per_line.count(9), 0u) << "nothing on the line that made the pointer";
  EXPECT_EQ(per_line[11], 128);  // every thread reads its slot once
  EXPECT_EQ(per_line[13], 128);  // and tries once: no warp runs ahead
  EXPECT_EQ(cas_warps[13].size(), 4u);
  EXPECT_EQ(per_line.count(17), 0u);
  EXPECT_EQ(per_line[18], 2 * 128);  // both atomicAdds, one through `n + t % 4`, on the call's line
  EXPECT_EQ(per_line.count(19), 0u);
}

TEST(Record, ASharedScalarAsTheWholeIndexIsReadOnItsLine) {
  NEED_COMPILER();
  // out[t] = s[n] with __shared__ int n: n's read and s[n]'s, both on line 67, both broadcasts.
  const Recorded r = record(read("recorded.cu"), "scalarIndex", 64);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.lines.count(67)) << "the scalar's read went to another line";
  EXPECT_EQ(r.lines.at(67).ops, "ld");
  EXPECT_EQ(r.lines.at(67).requests, 4);  // 2 warps x (n, then s[n])
  EXPECT_EQ(r.lines.at(67).wavefronts, 4);
  EXPECT_EQ(r.lines.count(0), 0u);  // nothing left on line 0
}

// Every read of a __shared__ scalar on the line it is written on (in arithmetic, in a condition,
// as an index), none on line 0; and a line loading one array twice is two steps of its picture.
TEST(Record, ASharedScalarsEveryReadIsOnItsLine) {
  NEED_COMPILER();
  // One recording for the lines' figures and their pictures (each recording compiles the file).
  const Pictures p = pictures(read("recorded.cu"), "scalarUses", 64);
  ASSERT_TRUE(p.error.empty()) << p.error;
  const Pictures& r = p;
  EXPECT_EQ(r.lines.count(0), 0u) << "a scalar's read went to line 0";
  ASSERT_TRUE(r.lines.count(79) && r.lines.count(82) && r.lines.count(84) && r.lines.count(85));
  EXPECT_EQ(r.lines.at(79).ops, "st");  // n = out[0] + 2, thread 0 alone
  EXPECT_EQ(r.lines.at(79).requests, 1);
  EXPECT_EQ(r.lines.at(82).ops, "ld,st");  // s[t] = n + t: n read by both warps, s stored
  EXPECT_EQ(r.lines.at(82).requests, 4);
  EXPECT_EQ(r.lines.at(84).ops, "ld");  // if (n)
  EXPECT_EQ(r.lines.at(84).requests, 2);
  EXPECT_EQ(r.lines.at(85).requests, 8);  // perm[t], s[perm[t]], n, s[(n + t) & 63]
  std::vector<std::string> labels;
  for (const Step& st : p.pictures.at(85).scenario.steps) labels.push_back(st.label);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"load n, line 85", "load perm, line 85",
                                              "load s, line 85", "load s, line 85, access 2"}));
  EXPECT_EQ(p.analyses.at(85).total_wavefronts(), r.lines.at(85).wavefronts);
  // dot's reduction: cache[cacheIndex] += cache[cacheIndex + i], two loads and a store a phase.
  const Pictures d = pictures(read("dot.cu"), "dot", 256);
  ASSERT_TRUE(d.error.empty()) << d.error;
  labels.clear();
  for (const Step& st : d.pictures.at(28).scenario.steps) labels.push_back(st.label);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"load cache, line 28", "load cache, line 28, access 2",
                                      "store cache, line 28", ""}))
      << "the barrier's label aside";
}

TEST(RecordPicture, ARaceOnALineIsTheHazardModelsOnTheFollowedScenario) {
  NEED_COMPILER();
  // Warp 0 stores where warp 1 loads and the other way round, no barrier between them.
  const std::string src =
      "__global__ void mirror(int *out) {\n"
      "  __shared__ int s[64];\n"
      "  s[threadIdx.x] = threadIdx.x;\n"
      "  __syncthreads();\n"
      "  s[63 - threadIdx.x] = s[threadIdx.x] + 1;\n"
      "  out[threadIdx.x] = s[threadIdx.x];\n"
      "}\n";
  const Pictures p = pictures(src, "mirror", 64);
  ASSERT_TRUE(p.error.empty()) << p.error;
  SourceLaunch launch;
  launch.block[0] = 64;
  const SourceScenario followed = scenario_from_source_line(src, 5, launch, "k.cu");
  ASSERT_TRUE(followed.scenario) << followed.why;
  const AnalysisResult f = analyze(*followed.scenario);
  ASSERT_TRUE(f.analysis);
  const Hazards& rec = p.analyses.at(5).hazards;
  const Hazards& fol = f.analysis->hazards;
  EXPECT_GT(rec.racing_accesses, 0);
  EXPECT_EQ(rec.racing_accesses, fol.racing_accesses);
  EXPECT_EQ(rec.pairs, fol.pairs);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(rec.counts[k], fol.counts[k]) << "kind " << k;
  EXPECT_EQ(rec.racing, fol.racing);
  EXPECT_EQ(p.analyses.at(3).hazards.racing_accesses, 0);  // a thread's own element
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
  // A barrier with a result is refused before anything is compiled.
  r = record("__global__ void k() {\n  int v = __syncthreads_count(1);\n}\n", "k", 32);
  EXPECT_NE(r.error.find("__syncthreads_count (line 2), a barrier with a result"),
            std::string::npos)
      << r.error;
  // A shuffle with a lane of its mask that never arrives hangs on the GPU: said, with the line.
  r = record(
      "__global__ void k() {\n  __shared__ int s[32];\n  if (threadIdx.x < 16)\n"
      "    s[0] = __shfl_sync(0xffffffffu, 1, 0);\n}\n",
      "k", 32);
  EXPECT_NE(r.error.find("line 4: a warp collective"), std::string::npos) << r.error;
  // A block CUDA cannot launch.
  r = record("__global__ void k() {}\n", "k", 2048);
  EXPECT_NE(r.error.find("1 to 1024 threads"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace bankviz

namespace bankviz {
namespace {

// The kernels whose GPU recording is made and compiled below: the seeds' kernels as written and
// bankviz's own, by file.
const std::vector<std::pair<std::string, std::vector<std::string>>>& profiled_kernels() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> files = {
      {"data_layout.cu",
       {"setRowReadRow", "setColReadCol", "setRowReadCol", "setRowReadColDyn",
        "setRowReadColIpad"}},
      {"histogram.cu", {"histogram"}},
      {"dot.cu", {"dot"}},
      {"reverse.cu", {"staticReverse", "dynamicReverse"}},
      {"kepler_filter.cu", {"filter", "filter2"}},
      {"widths.cu", {"widths"}},
      {"kernels.cu",
       {"transposeCoalesced", "transposeNoBankConflicts", "transposeInPlace",
        "reduceInterleavedModulo", "reduceInterleavedStrided", "reduceSequential", "prescan",
        "histogramBins", "stencil1d", "xorSwizzle", "block3d", "sgemmTile", "dynamicAndDouble",
        "guardsAndReturns"}},
      {"recorded.cu",
       {"gatherPermuted", "histogramHashed", "vectorRows", "lookupTable", "scalarIndex",
        "scalarUses"}},
      // A warp intrinsic runs on the GPU as written (the CPU recording refuses it), and an
      // inline asm in another kernel of the file is not this kernel's.
      {"warp.cu", {"shuffleReduce"}},
      // The second set: volatile, blockDim indexes, narrow and struct elements (p[t].x),
      // #pragma unroll, a helper's array, shuffles and a cooperative-groups tile, atomicCAS,
      // templates' instances; another kernel of the file holds inline asm.
      {"people.cu",
       {"reduceUnrolledInline", "blockDimIndex", "blockDim3d", "smallTypes", "aosParticles",
        "restrictUnroll", "helperShared", "shuffleAndGroups", "earlyReturn", "sharedAtomics",
        "twoDeclarators", "reduceBlock<128>", "transposeT<16,double>", "selfDot",
        // Shared memory through pointers: a helper's volatile parameter, carved arrays, a
        // tile's row; cooperative groups' block and tile barriers.
        "reduceUnrolledHelper", "carvedExtern", "tileRowPointer", "carvedCasts", "groupBarriers"}},
      // Vector casts inside expressions and a plain `*p` (issue 30, round 3).
      {"casts.cu", {"vectorCasts"}},
  };
  return files;
}

// Each kernel's GPU recording text, or a failure naming it.
struct GpuRecordingText {
  std::string file, kernel;
  KernelSource source;
};
std::vector<GpuRecordingText> gpu_recording_texts() {
  std::vector<GpuRecordingText> out;
  for (const auto& [file, kernels] : profiled_kernels()) {
    const std::string src = read(file);
    EXPECT_FALSE(src.empty()) << file;
    for (const std::string& kernel : kernels) {
      std::string why;
      std::vector<RecordedArray> declared;
      GpuRecordingText t{file, kernel, {}};
      t.source.text = gpu_recording_text(src, kernel, file, &why, &declared);
      EXPECT_FALSE(t.source.text.empty()) << file << " " << kernel << ": " << why;
      EXPECT_FALSE(declared.empty()) << kernel;
      t.source.kernel_name = kernel;
      t.source.file_name = file;
      if (!t.source.text.empty()) out.push_back(std::move(t));
    }
  }
  return out;
}

// The GPU recording's text (record.h gpu_recording_text(): the device header, the __shared__
// declarations as real storage beside recording proxies) is made for every kernel the device
// runs it on, seeds' kernels as written and bankviz's own; what it cannot record is refused with
// the reason instead. Without CUDA too (build-min), and under the sanitizers (scripts/sanitize.sh
// leaves NVRTC's compile of these texts, below, to the plain build).
TEST(RecordGpu, EveryProfiledKernelsRecordingIsMadeOrRefusedWithTheReason) {
  EXPECT_EQ(gpu_recording_texts().size(), 53u);
  // Inline asm: named; the line keeps the hardware's figures only.
  std::string why;
  // A template without its instance named: the GPU recording asks for it.
  EXPECT_TRUE(gpu_recording_text(read("people.cu"), "reduceBlock", "people.cu", &why).empty());
  EXPECT_NE(why.find("name its instance, --kernel 'reduceBlock<...>'"), std::string::npos) << why;
  why.clear();
  EXPECT_TRUE(gpu_recording_text(read("warp.cu"), "withInlineAsm", "warp.cu", &why).empty());
  EXPECT_NE(why.find("inline asm (line 29)"), std::string::npos) << why;
}

// Each of those texts compiles with NVRTC for the device; no GPU needed.
TEST(RecordGpu, EveryProfiledKernelsRecordingCompilesWithNvrtc) {
  if (!built_with_cuda()) GTEST_SKIP() << "this build has no CUDA toolkit (NVRTC)";
  const std::vector<GpuRecordingText> texts = gpu_recording_texts();
  EXPECT_EQ(texts.size(), 53u);
  for (const GpuRecordingText& t : texts) {
    std::string error;
    EXPECT_FALSE(compiled_cubin(t.source, "sm_90", &error).empty())
        << t.file << " " << t.kernel << ": " << error;
  }
}

}  // namespace
}  // namespace bankviz

namespace bankviz {
namespace {

// Where the recording and the hardware differ, the reason is what the compiler made of the line,
// read from its SASS instructions (the profiled kernel's listing).
TEST(RecordGpu, ALineThatDiffersIsExplainedByItsInstructions) {
  auto ins = [](uint32_t line, const char* op, const char* pred = "") {
    SassInstruction i;
    i.line = line;
    i.opcode = op;
    i.predicate = pred;
    return i;
  };
  const std::vector<SassInstruction> sass = {ins(12, "LDS.128"),    ins(12, "LDS.128"),
                                             ins(14, "STS", "@P0"), ins(15, "FFMA"),
                                             ins(16, "LDS"),        ins(16, "LDS")};
  // SGEMM's unrolled loads: two LDS.128 where the source makes 4-byte loads.
  std::string r = recorded_line_reason(12, 4, 1024, 256, sass);
  EXPECT_NE(r.find("2 shared instructions (LDS.128)"), std::string::npos) << r;
  EXPECT_NE(r.find("16 bytes per lane where the source accesses 4"), std::string::npos) << r;
  EXPECT_NE(r.find("256 executed, the source's 1024"), std::string::npos) << r;
  // A predicated store every warp issues.
  r = recorded_line_reason(14, 4, 2, 8, sass);
  EXPECT_NE(r.find("(@P0 STS): predicated"), std::string::npos) << r;
  // No shared instruction on the line at all (FFMA is not one).
  r = recorded_line_reason(15, 4, 8, 0, sass);
  EXPECT_NE(r.find("no shared-memory instruction on this line"), std::string::npos) << r;
  // Fewer executed than recorded, same width: merged or moved.
  r = recorded_line_reason(16, 4, 16, 12, sass);
  EXPECT_NE(r.find("fewer instructions executed than the source makes accesses (12 against 16)"),
            std::string::npos)
      << r;
  // As many instructions as requests, other wavefronts (people.cu's atomicCAS: 8 lanes on each
  // of 4 words, the H100 16 wavefronts a warp, the model 8): the kind and both counts named.
  r = recorded_line_reason(20, 4, 4, 4, {ins(20, "ATOMS.CAS")}, 32, 64);
  EXPECT_NE(r.find("1 shared instruction (ATOMS.CAS): as many executed as the source's requests "
                   "(4), but the hardware's 64 wavefronts (16.00 a request) against the bank "
                   "model's 32 (8.00)"),
            std::string::npos)
      << r;
  // Without the wavefronts: the counts as before.
  r = recorded_line_reason(20, 4, 4, 4, {ins(20, "ATOMS.CAS")});
  EXPECT_NE(r.find("4 executed against the source's 4 requests"), std::string::npos) << r;
}

// An inlined helper's line: its instructions are found by their own line (the helper's, where
// the hardware counts them), not only by the call site's; the call site keeps its own.
TEST(RecordGpu, AnInlinedHelpersLineIsExplainedByItsOwnInstructions) {
  auto ins = [](uint32_t own, uint32_t call, const char* op) {
    SassInstruction i;
    i.own_line = own;
    i.line = call;
    i.opcode = op;
    return i;
  };
  // blockSum's `s += partial[w]` (line 155) inlined at line 165, as two LDS.64.
  const std::vector<SassInstruction> sass = {ins(165, 165, "LDS"), ins(155, 165, "LDS.64"),
                                             ins(155, 165, "LDS.64")};
  std::string r = recorded_line_reason(155, 4, 8, 2, sass);
  EXPECT_NE(r.find("2 shared instructions (LDS.64)"), std::string::npos) << r;
  EXPECT_NE(r.find("8 bytes per lane where the source accesses 4"), std::string::npos) << r;
  // The call site's own instruction comes first; without one, the inlined ones.
  r = recorded_line_reason(165, 4, 8, 8, sass);
  EXPECT_NE(r.find("1 shared instruction (LDS)"), std::string::npos) << r;
  r = recorded_line_reason(165, 4, 8, 8, {ins(155, 165, "LDS.64")});
  EXPECT_NE(r.find("(LDS.64)"), std::string::npos) << r;
  // Each op named once, a narrower one after a wider one too (H100: 8 instructions on line 155,
  // LDS.128 and the remainder loop's LDS).
  r = recorded_line_reason(155, 4, 8, 2,
                           {ins(155, 165, "LDS.128"), ins(155, 165, "LDS"), ins(155, 165, "LDS")});
  EXPECT_NE(r.find("3 shared instructions (LDS.128, LDS)"), std::string::npos) << r;
}

}  // namespace
}  // namespace bankviz
