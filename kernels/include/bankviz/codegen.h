// codegen.h: Scenario -> the CUDA C++ kernel a student would write for it, as text.
//
// The text is what the app shows and what runs (NVRTC compiles exactly this string). Two modes:
//
//   written: the lesson's kernel. The tile declaration exactly as TileDecl::declaration() gives,
//            constants as #define, lets as `unsigned int name = expr;`, the steps in order with
//            their guards, loops and __syncthreads(), and one output per thread: the sum of what
//            the thread loaded (a checksum the CPU evaluation reproduces bit for bit).
//   exposed: the same kernel, but the step being measured is repeated `reps` times through
//            ld.volatile.shared / st.volatile.shared, so ptxas can neither hoist the loop-invariant
//            access out of the repeat loop nor merge repeats; launched over every SM, shared memory
//            becomes the bottleneck and time is proportional to wavefronts. It is launched as a
//            1-D block of only the lesson's warps named by `warps` (those the measured step uses),
//            each lane playing the lesson's thread lesson_thread() gives: local `threadIdx` and
//            `blockDim` shadow the built-ins, so the accesses read exactly as in the lesson.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/scenario.h"

namespace bankviz {

enum class RunMode { Written, Exposed };
const char* run_mode_name(RunMode m);  // "written" / "exposed"
std::optional<RunMode> parse_run_mode(std::string_view s);

// Exposed mode: a measured load step issues this many independent loads before summing them,
// so `reps` must be a multiple of it (the runner rounds up).
inline constexpr int kExposedLoadBatch = 16;

struct KernelSource {
  RunMode mode = RunMode::Written;
  std::string text;         // the whole .cu source
  std::string kernel_name;  // the __global__ function's C++ name (NVRTC lowers it)
  std::string file_name;    // "setRowReadCol.cu": what NVRTC messages point into
  // The user's own source (profile, the GPU recording, serve): NVRTC compiles it in a process of
  // its own, contained (compiler.cpp); bankviz's generated kernels set it false.
  bool user_source = true;
  int64_t static_shared_bytes = 0;   // sum of the static __shared__ tiles
  int64_t dynamic_shared_bytes = 0;  // the extern __shared__ tile (launch argument)
  // Exposed mode: copies of the masked warps per launched block (REPLICAS in the source). Each
  // has its own copy of every tile, at a stride that is a multiple of 128 bytes (the bank
  // mapping of every copy is the lesson tile's); the byte counts above include all copies.
  int replicas = 1;
  // Kernel parameters, in order: (unsigned int* out) in written mode;
  // (unsigned int* out, int measure, int reps, unsigned int warps) in exposed mode. measure =
  // scenario step index repeated `reps` times (-1: none; every step once, as written); warps =
  // bit w set: the lesson's warp w runs (the launch has one warp per set bit, in order; the last
  // has fewer lanes where the lesson's block ends mid-warp). A launched block holds `replicas`
  // copies of those warps (replicas x 32 x popcount(warps) threads, only when every masked warp
  // is full): launched warp i plays the (i % popcount)-th masked warp, on tile copy
  // i / popcount. Exposed output: one value
  // per launched lane, out[blockIdx.x * launched threads + launched thread].
  std::vector<int> step_line;  // per scenario step: 1-based line of its first statement
  // A cp.async step copies from global memory: the kernel then takes `const unsigned int* in`
  // right after `out`: 4 words per lesson thread (reference.h input_word()).
  bool has_input = false;
};

struct GenerateResult {
  std::optional<KernelSource> kernel;
  std::vector<Diagnostic> errors;  // non-empty iff !kernel: the scenario cannot become a kernel
};

// Never throws. Checks the scenario (check()) first; then what only a kernel needs: a type that
// has an atomicAdd, one dynamic tile at byte offset 0, names that do not collide with CUDA's.
// `replicas` (exposed mode only; written mode ignores it and is always the lesson's kernel): the
// copies of the masked warps a launched block holds, each with its own tiles; 1 to 32.
GenerateResult generate_kernel(const Scenario& s, RunMode mode, int replicas = 1);

// The kernel's C++ name for a scenario: its name as an identifier ("row-write-column-read" ->
// "rowWriteColumnRead"), so the source reads like the seed's kernel table.
std::string kernel_name_for(const Scenario& s);

// "line 12: tile[threadIdx.x][ty] = idx;" for a compiler message pointing at line 12 of source;
// empty if the line does not exist.
std::string source_line(const std::string& source, int line);

}  // namespace bankviz
