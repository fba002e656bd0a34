// profile.h: a user's own kernel on the present GPU, per source line, from the hardware.
//
// `bankviz-cli profile FILE.cu --kernel NAME --grid X[xYxZ] --block X[xYxZ] [--arg ...]` and the
// app's profile panel: the kernel is compiled by NVRTC with line info, launched once on buffers
// bankviz allocates (filled with zeros), timed, and run once more under CUPTI's SASS metrics
// (per-instruction counters: the ones Nsight Compute's source page shows). Each shared-memory
// instruction's executed count, wavefronts and ideal wavefronts are summed per source line, most
// excess first, in the words the rest of bankviz uses.
//
// [SECTION] The launch a user asks for (pure: parsed and checked without a GPU)
// [SECTION] The result, per source line
// [SECTION] Words
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/counters.h"
#include "bankviz/expr.h"
#include "bankviz/recording.h"
#include "bankviz/run_types.h"

namespace bankviz {

// [SECTION] The launch a user asks for ===========================================================

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t product() const { return uint64_t{x} * y * z; }
};

// "256", "32x8", "4x4x2": each extent 1 .. 2^31-1 (what a grid's x may be; the device checks the
// rest at launch). Nothing else: no spaces, signs or empty parts.
std::optional<Dim3> parse_dim3(std::string_view text, std::string* error);

// One kernel parameter, in order. A buffer is device memory bankviz allocates (zeroed) and
// passes as a pointer; the others are values of the C type named.
struct KernelArg {
  enum class Kind { Buffer, Int, Uint, Long, Ulong, Float, Double };
  Kind kind = Kind::Int;
  uint64_t bytes = 0;   // Buffer: its size
  uint64_t bits = 0;    // a value: its bytes as the kernel reads them (little-endian)
  std::string text;     // as the user wrote it, for messages
  size_t size() const;  // bytes the parameter takes: 8 for a buffer or long/double, else 4
};

// "buffer:BYTES" (BYTES with an optional K, M or G: 4096, 64K, 1M), "int:-3", "uint:7",
// "long:V", "ulong:V", "float:1.5", "double:2.5e-3". A value must fit its type exactly (no
// wrapping, no rounding of an integer). Errors say what was expected.
std::optional<KernelArg> parse_kernel_arg(std::string_view text, std::string* error);

// An integer argument's value with its C type (int, unsigned int, long long, unsigned long
// long); nullopt for a buffer or a floating-point value. What the model's following of the
// kernel (from_source.h SourceLaunch::args) takes.
std::optional<Value> integer_value(const KernelArg& a);

// Which compiler builds the user's kernel for `profile`: nvcc where it is installed (as the user
// builds it, with --nvcc-flags), NVRTC otherwise (Auto); or the one named.
enum class ProfileCompiler { Auto, Nvcc, Nvrtc };

// The flags profile passes to nvcc when none are given: the line table the per-line counters
// need, and nvcc's own default optimisation.
inline constexpr const char* kDefaultNvccFlags = "-O3 -lineinfo";

// --nvcc-flags "FLAGS": split at spaces (no shell: no quotes, no variables) and checked against
// the flags that change the code nvcc makes for one kernel: -O0..-O3, -G, -lineinfo,
// -use_fast_math, -ftz/-prec-div/-prec-sqrt/-fmad=true|false, -std=c++11|14|17|20, -DNAME[=VALUE],
// -UNAME, -IFOLDER, -maxrregcount=N, -arch=sm_NN[a], -Xptxas -O0..-O3/-v, -restrict,
// --extra-device-vectorization, --expt-relaxed-constexpr, --expt-extended-lambda, -w. Anything
// else (an output file, a host compiler, -Xcompiler, --run, an options file...) is refused with
// the flag named: nothing the user writes becomes a program bankviz runs. Each flag comes back as
// one argument ("-I dir" as "-Idir", "-Xptxas -O3" as "-Xptxas=-O3"). -arch's value goes to *arch.
std::optional<std::vector<std::string>> parse_nvcc_flags(std::string_view text, std::string* arch,
                                                         std::string* error);

inline constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 30;       // one buffer
inline constexpr uint64_t kMaxTotalBufferBytes = uint64_t{4} << 30;  // all of them
inline constexpr size_t kMaxKernelArgs = 64;
inline constexpr size_t kMaxProfileSourceBytes = size_t{1} << 20;

struct ProfileRequest {
  std::string source;     // the .cu text
  std::string file_name;  // "transpose.cu": NVRTC's messages and the line table name it
  std::string kernel;     // the __global__ function's name (C++ name; NVRTC lowers it)
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;  // bytes of extern __shared__ memory
  std::vector<KernelArg> args;
  double timeout_ms = 10000;  // each launch; past it the context is reset
  bool counters = true;       // false: compile, launch and time only
  // Also record block (0,0,0) as the GPU runs it (docs/RECORD.md): the kernel compiled once more
  // with its __shared__ arrays as recording proxies, launched once more on fresh zeroed buffers.
  bool record = false;
  ProfileCompiler compiler = ProfileCompiler::Auto;
  std::vector<std::string> nvcc_flags;  // parse_nvcc_flags()'s; empty: kDefaultNvccFlags
  bool nvcc_flags_given = false;        // --nvcc-flags was given (NVRTC cannot honour it)
  std::string nvcc_arch;                // -arch's value from --nvcc-flags ("" when none)
};

// Problems no GPU is needed to see: the kernel name is not a C++ name ([A-Za-z_][A-Za-z0-9_]*,
// optionally qualified with ::), too many arguments or too much buffer memory, an empty or too
// large source, a block of more than 1024 threads. Empty when the request may go to a GPU.
std::vector<std::string> check_request(const ProfileRequest& r);

// [SECTION] The result, per source line ==========================================================

// One SASS instruction that touched shared memory, as CUPTI's SASS metrics counted it.
struct ProfileInstruction {
  std::string function;    // the mangled name CUPTI reports
  uint32_t pc = 0;         // byte offset in the function
  std::string file;        // the source file of its line info ("" without one)
  uint32_t line = 0;       // 0 without line info
  std::string op;          // "ld", "st", "atom", "ldsm", "stsm", "ldgsts", "gmma" or "shared"
  int64_t executed = 0;    // warp instructions executed (smsp__sass_inst_executed)
  int64_t wavefronts = 0;  // smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared
  int64_t ideal = 0;       // smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal
};

struct ProfileLine {
  std::string file;
  uint32_t line = 0;
  std::string text;              // the source line, trimmed ("" for another file)
  bool in_file = false;          // a line of the profiled file (not of a header it includes)
  int instructions = 0;          // SASS instructions on the line that touch shared memory
  int64_t executed = 0;          // their warp instructions executed
  int64_t wavefronts = 0;        // hardware: shared-memory wavefronts
  int64_t ideal = 0;             // hardware: the ideal number (no bank conflicts)
  std::vector<std::string> ops;  // distinct ops in pc order: {"ld"}, {"st", "ld"}
  int64_t excess() const { return wavefronts > ideal ? wavefronts - ideal : 0; }
  double per_request() const {
    return executed > 0 ? static_cast<double>(wavefronts) / static_cast<double>(executed) : 0;
  }
};

// Whether a line table's file is the file NVRTC was given: the table joins it to the directory
// it ran in ("/home/u/src/k.cu" for "src/k.cu").
bool same_file(const std::string& table, const std::string& given);

// Sums instructions per (file, line); lines of `file_name` get their text from `source`. Sorted
// most expensive first: excess wavefronts, then wavefronts, then the line number.
std::vector<ProfileLine> lines_of(const std::vector<ProfileInstruction>& instructions,
                                  const std::string& source, const std::string& file_name);

struct ProfileResult {
  RunStatus status = RunStatus::NotRun;
  std::string message;  // for every status but Ok: what went wrong, in words
  // The kernel still runs and cannot be stopped (Timeout), or it faulted (LaunchError with a
  // sticky error): the Runner refuses every later run and the program should end (the driver
  // stops the kernel and frees the GPU then).
  bool wedged = false;
  DeviceInfo device;
  std::string compile_log;
  std::string lowered;  // the kernel's mangled name
  // Which compiler made the profiled code and how: "nvcc 13.0 (-cubin -arch=sm_90 -O3
  // -lineinfo)" or "NVRTC (-lineinfo; nvcc not found in ...)".
  std::string compiled_by;
  std::vector<char> cubin;  // what was profiled: its SASS is the lines as compiled
  double compile_ms = 0;
  double kernel_ms = 0;   // one launch, events around it (before the profiled launch)
  size_t parameters = 0;  // the kernel's parameter count, as the driver reports it
  CounterStatus counters = CounterStatus::Off;
  std::string counters_message;
  std::vector<ProfileInstruction> instructions;     // pc order
  std::vector<ProfileLine> lines;                   // lines_of(instructions)
  int64_t executed = 0, wavefronts = 0, ideal = 0;  // over every shared instruction
  int64_t excess() const { return wavefronts > ideal ? wavefronts - ideal : 0; }
  // ProfileRequest::record: block (0,0,0)'s shared accesses as the GPU made them, or why not
  // (the kernel cannot be recorded: its lines keep the hardware's figures only).
  std::optional<Recording> recording;
  std::string recording_message;
};

// [SECTION] Words ================================================================================

// A table, most expensive line first:
//   line  shared instr   executed  wavefronts  ideal  excess  per request  source
std::string format_profile(const ProfileResult& r, size_t max_lines = 0);

}  // namespace bankviz
