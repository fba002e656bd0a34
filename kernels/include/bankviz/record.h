// record.h: recording one block of a user's kernel on the CPU, no GPU (docs/RECORD.md).
//
// The source is prepared by core's recording_source() (the __shared__ declarations rewritten into
// proxies, a driver appended), compiled by the host C++ compiler against the emulation header
// kernels/record/bankviz_record.h (built into this library), and run in a process of its own
// with a time limit, a memory limit and a bound on its output (BANKVIZ_RECORD_KEEP=1 keeps its
// temporary directory, to look at). What it prints is parsed into a
// core Recording (recording.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/compiled.h"
#include "bankviz/recording.h"

namespace bankviz {

struct RecordRequest {
  std::string source;     // the .cu file's text
  std::string file_name;  // for messages and the #line directive
  std::string kernel;     // name, or ns::name
  int64_t block[3] = {32, 1, 1};
  int64_t dynamic_shared = 0;  // bytes of extern __shared__ memory
  // Integer arguments by parameter position (nullopt: 0); pointer parameters get zeroed buffers.
  std::vector<std::optional<int64_t>> args;
  double timeout_s = 20;  // each of compiling and running
  size_t max_accesses = size_t{1} << 21;
};

struct RecordResult {
  std::optional<Recording> recording;
  std::string error;   // why there is none: a refusal, the compiler's messages, a crash, a limit
  std::string notice;  // what the user must know even when recorded (a compile not contained)
};

// The host compiler the recording uses: $BANKVIZ_RECORD_CXX, else g++, else c++ (from PATH).
std::string record_compiler();

// The emulation header's text, as built into the library.
const std::string& record_header();

RecordResult record_on_cpu(const RecordRequest& request);

// Why a recorded line's figures differ from the hardware's count of the same line: what the
// compiler made of it, from the SASS instructions on that line (compiled.h's listing of the
// profiled kernel; `sass` may hold other lines, which are skipped). `widest` is the widest access
// the recording saw on the line, in bytes. Words for the profile's table:
//   no shared instruction on the line  -> kept in a register, or removed
//   a wider instruction than recorded  -> merged into LDS.64/LDS.128 (fewer instructions)
//   predicated instructions, more issued than recorded -> every warp issues them
//   otherwise the line's instructions, named, and the count they make; with the wavefronts
//   (the model's for the recording, the hardware's; -1: not given) where the instructions are
//   as many as the source's requests: the same instructions costing other wavefronts, each
//   count per request (atomicCAS: ATOMS.CAS, the bank model's cost of its lanes on one word)
// An inlined helper's line is looked up by the instructions' own line (the helper's, where the
// hardware counts them) first, then by the call site's.
std::string recorded_line_reason(uint32_t line, int widest, int64_t recorded_requests,
                                 int64_t hw_executed, const std::vector<SassInstruction>& sass,
                                 int64_t model_wavefronts = -1, int64_t hw_wavefronts = -1);

// The GPU recording (ProfileRequest::record, Runner::profile): the device header
// kernels/record/bankviz_record_gpu.h, as built into the library, and the text NVRTC compiles:
// that header, then core's recording_source() for the GPU. Empty with *why when the kernel
// cannot be recorded; *declared (if given) gets the __shared__ declarators in order.
// A recorded line as the compiled kernel runs it (issue 30: the picture as compiled): the
// recording's accesses served by the instructions the compiler emitted for the line (its SASS,
// `sass`: the profiled file's instructions, parse_nvdisasm()): neighbouring accesses in its wider
// instructions and loads kept in registers (core's recording_as_compiled(); `reuse_loads` false
// for volatile code), a float atomicAdd's compare-and-swap loop (cas_loop_cost()). Every line of
// the recording, in line order; `how` says what differs from the source's accesses (empty where
// nothing does); max_* the most a contended CAS loop can take (0 where exact).
// `differs` says where the compiled kernel cannot run the figures as given, from the SASS alone
// (no GPU): a line with accesses and no shared instruction (kept in registers or moved), a line
// whose shared instructions, none in a loop, are fewer than a warp's accesses (merged, moved or
// removed). With `kernel_function` (the kernel's mangled name, SassInstruction::function) the
// lines where the kernel has shared instructions and the source no access come last, with no
// requests and `differs` saying so.
struct LineAsCompiled {
  uint32_t line = 0;
  int64_t requests = 0, wavefronts = 0, ideal = 0;
  int64_t max_requests = 0, max_wavefronts = 0;
  std::string how;
  std::string differs;
};
std::optional<std::vector<LineAsCompiled>> recorded_lines_as_compiled(
    const Recording& r, const std::vector<SassInstruction>& sass, const Arch& arch,
    bool reuse_loads, std::string* why, const std::string& kernel_function = {});

const std::string& record_gpu_header();
std::string gpu_recording_text(const std::string& source, const std::string& kernel,
                               const std::string& file_name, std::string* why,
                               std::vector<RecordedArray>* declared = nullptr);

}  // namespace bankviz
