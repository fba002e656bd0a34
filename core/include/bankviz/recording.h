// recording.h: a kernel's shared-memory accesses as it ran, one block (docs/RECORD.md).
//
// One recording format, whoever makes it: every access of a __shared__ array by every thread of
// the block, in the order the threads made them (thread, source line, kind, width, byte address,
// value), the arrays' placement, and the __syncthreads() between phases. kernels/record.h makes it
// on the CPU (the kernel compiled by the host compiler against kernels/record/bankviz_record.h).
//
// Here: the recording's text parsed (bounded, every value checked), the user's source prepared for
// recording (its __shared__ declarations rewritten into recording proxies, nothing else changed,
// plus a driver calling the kernel), and the recording turned into warp instructions per source
// line, each served by access.h's serve() (no second bank computation).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/scenario.h"
#include "bankviz/trace.h"

namespace bankviz {

// Atomic: any other than atomicAdd and atomicCAS (atomicExch, atomicMax, ...), `X` in the text;
// AtomicCas: atomicCAS, `C` (ATOMS.CAS, which the H100 costs otherwise than the others).
enum class RecordedKind : uint8_t { Load, Store, AtomicAdd, Atomic, AtomicCas };
const char* recorded_kind_name(RecordedKind k);  // "ld", "st", "atom", "atom", "atom"

struct RecordedAccess {
  uint32_t thread = 0;  // linear thread index: x + y*bx + z*bx*by
  uint32_t line = 0;    // source line (0: not known, a scalar's read)
  RecordedKind kind = RecordedKind::Load;
  uint8_t width = 4;     // bytes: 1, 2, 4, 8 or 16
  uint32_t address = 0;  // byte address in the block's shared memory
  uint64_t value = 0;    // loaded, stored or (atomics) the operand's bits (the first 8 bytes)
  uint32_t phase = 0;    // __syncthreads() passed before it
  int32_t array = -1;    // the array (index in Recording::arrays) it was made through; -1: not said
  // The subscript it was made through: recording_source() numbers each `a[...]` of a shared
  // array in the source (1, 2, ... in the text's order); 0: not said. Two subscripts of one line
  // (`x += s[a + k] * s[b + k]`) are its access 1 and access 2 (RecordedInstruction::slot).
  uint32_t site = 0;
};

struct RecordedArray {
  std::string name;
  uint32_t line = 0;  // of its declaration
  uint32_t base = 0, bytes = 0;
  bool dynamic = false;  // extern __shared__: sized by the launch
};

struct Recording {
  int64_t block[3] = {1, 1, 1};
  std::vector<RecordedArray> arrays;
  std::vector<RecordedAccess> accesses;  // in the order they were made
  uint32_t phases = 1;                   // __syncthreads() passed + 1
};

inline constexpr size_t kMaxRecordedAccesses = size_t{1} << 22;

// The recorder's output (`block X Y Z`, `array NAME LINE BASE BYTES [extern]`, accesses `THREAD
// LINE KIND WIDTH ADDRESS VALUE [ARRAY]` with KIND one of L S A X C and ARRAY the index of the
// `array` line (listed before it) whose name the access used, `sync`, `end COUNT`) as a
// recording, or nullopt with *why naming the first bad line.
std::optional<Recording> parse_recording(std::string_view text, std::string* why);

// The recording in the same text, parse_recording()'s inverse (accesses in their order, a `sync`
// line where the phase changes): how one process hands a recording to another (bankviz-cli
// profile --save-recording, read back by the app's "your kernel" window).
std::string recording_text(const Recording& r);

// Where the recording runs: the CPU (the host compiler and kernels/record/bankviz_record.h) or the
// GPU (NVRTC and kernels/record/bankviz_record_gpu.h, put in front of this text by the caller).
enum class RecordTarget { Cpu, Gpu };

// The user's source prepared for recording `kernel` (its name, or ns::name): every `__shared__`
// declaration rewritten into a proxy on its own lines (the line numbers stay); for the CPU the
// emulation header included and a main() calling the kernel for one block appended; for the GPU
// each declarator's real storage renamed bv_shared_N (N from 0, in source order) beside the
// proxy, and nothing appended (the kernel is launched as profiled). Empty with *why when the
// kernel cannot be recorded: inline asm, cooperative groups (on the GPU: a barrier through them
// other than a block's or a tile's sync()), textures or surfaces, a template kernel named without
// its instance, a __shared__ array used other than by subscript or through a pointer it does not
// follow (`*p`, a pointer no declaration makes a proxy), no such kernel; on the CPU also warp
// intrinsics, on the GPU a barrier with a result (__syncthreads_count) or a __shared__ outside a
// function. Pointers into shared memory: a local `T *p = INIT;` naming a shared array or such a
// pointer, and a __device__ helper's pointer parameter such an argument is passed to, are declared
// as the headers' ::bv::Ptr<T> (its cast `::bv::ptr_cast<U>(X)`, its value `::bv::declared(INIT,
// ...)`). *declared (if given) gets the declarators in that order, then the pointers (their own
// number: an array carved by a cast is named by its pointer): name, line, extern.
std::string recording_source(std::string_view source, const std::string& kernel,
                             const std::string& file_name, std::string* why,
                             RecordTarget target = RecordTarget::Cpu,
                             std::vector<RecordedArray>* declared = nullptr);

// Where `kernel` names a template __global__ function of `source` without its instance: "the
// kernel K is a template (line N): name its instance, --kernel 'K<...>'" (the GPU recording's and
// the profile's words, whichever records it); else empty.
std::string template_without_instance(std::string_view source, const std::string& kernel,
                                      RecordTarget target = RecordTarget::Gpu);

// One warp instruction of a recorded line: the lanes' addresses and the instruction as serve()
// takes it.
struct RecordedWarp {
  uint32_t warp = 0;
  Op op = Op::Load;
  WarpAccess access;
  AccessResult served;
  std::array<uint64_t, kWarpSize> value{};  // per lane: the recorded value's bits
};
struct RecordedInstruction {
  uint32_t line = 0, phase = 0;
  RecordedKind kind = RecordedKind::Load;
  int width = 4;
  // Which of the line's accesses of this kind it is, within one execution of the line by a thread
  // (`cache[i] += cache[i + s]`: the loads are slots 0 and 1): a thread's consecutive accesses on
  // the line, cut into the shortest period that repeats (a loop's iterations are one slot each
  // time round), each access numbered among those of its kind, width and array in its period.
  uint32_t slot = 0;
  int32_t array = -1;  // the array all its accesses name (RecordedAccess::array), else -1
  std::vector<RecordedWarp> warps;  // warps with an active lane, in warp order
};

// The recording as warp instructions in the order they ran: the n-th access a thread makes on a
// line within a phase (of one kind and width) is the n-th execution of that line's instruction,
// and each warp's lanes making it are one request, served on `arch`. An access serve() cannot
// take (misaligned, out of range) is *why and nullopt.
std::optional<std::vector<RecordedInstruction>> recorded_instructions(const Recording& r,
                                                                      const Arch& arch,
                                                                      std::string* why);

// What the compiler made of a line, read off its SASS (kernels/compiled.h parse_nvdisasm()):
// the bytes per lane of the widest shared load and store instruction on it (0: none), and
// whether none of its shared instructions is in a loop (`unrolled`: each execution of the line
// by a thread is code of its own, an unrolled loop's copies, each merged as its own addresses
// allow).
struct LineCompiledForm {
  uint32_t line = 0;
  int load_width = 0, store_width = 0;
  bool unrolled = false;
  int loads = 0, stores = 0;  // its shared load and store instructions
};

// The recording as the compiled kernel makes its accesses (issue 30: a user's line pictured as
// compiled), the addresses unchanged:
//   wider   a thread's consecutive loads (stores) of one array in a phase, each the next bytes,
//           become one access as wide as the widest instruction of the line that holds them
//           (aligned to it, a power of two): an unrolled loop's four floats one STS.128;
//           neighbouring lines' accesses go with the line holding the instruction where their
//           own line has none of that direction (`t[2*i] = a; t[2*i+1] = b;` one STS.64); a
//           subscript some thread is not aligned for stays as recorded, on an `unrolled` line
//           only in the executions (the n-th of each thread) where it is not (a sort's
//           `v[i], v[i + 1]` with i = 2t + (phase & 1): the even phases' LDS.64, the odd two LDS)
//   moved   a line with no instruction of its accesses' direction whose accesses the line table
//           puts on a neighbour's: each thread's next access of the array and direction before
//           it (else after it), on one `unrolled` line for every thread, whose instructions of
//           that direction are as many as the thread's accesses of both lines (nvcc's table puts
//           `h[t] = a; h[t + 64] = b;` of __half2 both on the first line: two STS there)
//   reused  with `reuse_loads`: a thread's load of the address and width it already loaded on
//           that line in the phase, with no store or atomic of its own to that array between
//           (and no atomic of any kind), is left out: the compiler keeps the value in a register
//           (not for volatile code, whose every read is issued: the caller says)
// `how[line]` says in words what changed on a line; absent where nothing did.
struct CompiledRecording {
  Recording recording;
  std::map<uint32_t, std::string> how;
};
CompiledRecording recording_as_compiled(const Recording& r,
                                        const std::vector<LineCompiledForm>& forms,
                                        bool reuse_loads);

// Per source line, as the hardware's per-line counters name them: requests (warp instructions
// issued), wavefronts and ideal wavefronts, and the kinds seen ("ld,st").
struct RecordedLine {
  uint32_t line = 0;
  std::string ops;
  int64_t requests = 0, wavefronts = 0, ideal = 0;
  double per_request() const {
    return requests > 0 ? static_cast<double>(wavefronts) / static_cast<double>(requests) : 0;
  }
};
std::vector<RecordedLine> recorded_lines(const std::vector<RecordedInstruction>& instructions);

// A recording as a bankviz picture (issue 20): a scenario whose tiles are the recorded arrays and
// a trace of what the block did, which analysis.h's analyze(scenario, arch, trace) serves and
// checks for races like any scenario's trace, without evaluating an index (the lanes' bytes are
// the recorded addresses). The tiles: each recorded array at its recorded base, with the
// element type, extents and padding its declaration gives (`declared`, from_source.h's
// shared_arrays_of_kernel(), matched by name and size) or, where none matches, one dimension of
// the width it was accessed with. The steps: one scenario step per (line, kind, width, array) of
// the recorded instructions chosen (`line`'s, or every line's with line 0), each execution an
// executed step (a loop line's every iteration, in the order they ran), a __syncthreads() step
// where the block passed a barrier between two of them. The scenario cannot be traced again:
// each step's index names the recording ("s[recorded on line 16]"), which check() refuses, so
// it never passes for a scenario of index expressions. A line's several accesses of one array and
// kind (RecordedInstruction::slot) are as many steps ("load cache, line 28, access 2"). Nullopt
// with *why: no such line, a picture over the model's bounds (kMaxExecutedSteps, kMaxThreadSteps),
// an instruction reaching two arrays, an array accessed with two widths.
// What a picture's step index holds after its array's name ("s[recorded on line 16]"): no
// expression. scenario.h's check() refuses such a step in words (a recorded access).
inline constexpr std::string_view kRecordedIndex = "[recorded on line ";

struct RecordedPicture {
  Scenario scenario;
  Trace trace;
  std::vector<uint32_t> step_lines;  // the source line of each scenario step (0 for a sync)
  // Extern arrays sharing the place an access reached, where the recording does not say which
  // name it used ("a and b"): the picture shows the first declared, and its title says so.
  std::string shared_place;
};
std::optional<RecordedPicture> recorded_picture(const Recording& r,
                                                const std::vector<RecordedInstruction>& ins,
                                                const std::vector<TileDecl>& declared,
                                                uint32_t line, const Arch& arch, std::string* why);

}  // namespace bankviz
