// from_source.h: the shared-memory accesses of one line of a user's CUDA source as a scenario.
//
// `bankviz-cli profile` and the app's "your kernel" window offer the lines they profiled as
// scenarios, so the model's picture and the hardware's count meet on the user's own code.
//
// How: the file is tokenized (comments, strings, `\` continuations; no regular expressions, so
// linear in its length), its macros expanded as the preprocessor does (object-like and
// function-like; #ifdef/#ifndef/#if on integer constants), and the __global__ function holding
// the line is followed statement by statement for the launch's block, as a small symbolic
// interpreter: integer locals whose value is the same in every thread (loop counters, `offset *=
// 2`) are computed, with C's types and every overflow or undefined operation an error (expr.h
// evaluates them); per-thread integer locals become lets, a new let each time one is assigned
// (`bi += CONFLICT_FREE_OFFSET(bi)` is `bi_2 = bi + (bi >> 5)`; under a per-thread `if` it is
// `cond ? new : old`); loops run every iteration (a condition that differs between threads is
// refused); an `if` whose condition differs between threads becomes the guard of the steps in it
// (`else` its negation; `return`, `break` and `continue` under such an `if` guard what follows).
// Every access of a __shared__ array on the line, each time it executes, becomes a step in
// program order: `t[a] = t[b]` a load then a store, `t[i] += v` a load and a store,
// `atomicAdd(&t[i], 1)` an atomic with value 1 (which analysis.h's compiled_op() serves as the
// GPU does), with a sync step where __syncthreads() ran between them. Arrays: several declarators
// in one declaration, `__align__(N)`, a last extent `A + B` shown as B elements of padding, a
// scalar `__shared__ int n;` as one element, `extern __shared__ T a[]` sized from the launch's
// dynamic shared memory.
//
// What cannot be followed is refused with the reason, naming it: an index read from memory or a
// kernel parameter (`hist[data[i]]`), a value the model cannot hold (floating point, a call), a
// member of a vector element (`t[i].x`: the compiler may access only that member), the address of
// an array taken (accesses through a pointer are not followed), inline asm or warp intrinsics on
// the line, a loop with a per-thread condition or more than kMaxSourceIterations iterations. The
// user's text only ever reaches the scenario's own expression parser; it never becomes code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/scenario.h"

namespace bankviz {

struct SourceScenario {
  std::optional<Scenario> scenario;  // checked (check()) and analyzable
  std::string why;                   // when there is none: why the line cannot be expressed
};

// The launch the line is modelled for.
struct SourceLaunch {
  int64_t block[3] = {32, 1, 1};  // blockDim
  int64_t dynamic_shared = 0;     // bytes of extern __shared__ memory (the launch's third value)
  // The kernel's arguments in order where known (integers: `--arg int:64`); an integer parameter
  // with a value is a local the same in every thread, converted to its declared type. Others are
  // unknown, and an index that uses them is refused naming the parameter.
  std::vector<std::optional<Value>> args;
};

inline constexpr size_t kMaxSourceBytes = size_t{1} << 20;  // what profile accepts
inline constexpr int64_t kMaxSourceIterations = 4096;       // one loop's iterations
inline constexpr int64_t kMaxSourceStatements = 50'000;     // statements followed in all

// Every shared access on `line` (1-based) of `source`, every time it executes in one block of the
// launch, as one scenario; or why not.
SourceScenario scenario_from_source_line(std::string_view source, uint32_t line,
                                         const SourceLaunch& launch, const std::string& file_name);

// Every line of the __global__ function `kernel` (its name, or ns::name) that names a __shared__
// array, each as scenario_from_source_line() gives it. Empty with *why when there is no such
// function or the file cannot be read.
struct SourceLine {
  uint32_t line = 0;
  std::optional<Scenario> scenario;
  std::string why;
};
std::vector<SourceLine> shared_lines_of_kernel(std::string_view source, const std::string& kernel,
                                               const SourceLaunch& launch,
                                               const std::string& file_name, std::string* why);

// The __shared__ arrays the __global__ function `kernel` can use (file scope, then its body), as
// tiles in declaration order: name, element type, extents and padding as the declaration writes
// them (a last extent `A + B`: B elements of padding), an extern array sized from
// launch.dynamic_shared; base 0. An array whose declaration the follower cannot model (a type
// bankviz does not know, an extent it cannot compute) is left out, and so is one declared after
// a statement the follower stops at. For a recording's picture (recording.h recorded_picture()),
// which gives the arrays their recorded place. Empty with *why when there is no such kernel.
std::vector<TileDecl> shared_arrays_of_kernel(std::string_view source, const std::string& kernel,
                                              const SourceLaunch& launch,
                                              const std::string& file_name, std::string* why);

// The function a kernel's name (--kernel) names: `name`, `ns::name`, or a template's instance
// `name<256>` / `ns::name<float, 4u>` (each argument an integer literal or a type's or
// constant's name: letters, digits, _, ::, spaces, a leading '-'); the unqualified name without
// its arguments ("name"), or empty when `kernel` is no such name (NVRTC's name expression takes
// it as code, so nothing else passes). *instance: whether template arguments were given.
std::string kernel_function_name(const std::string& kernel, bool* instance = nullptr);

// The __global__ functions defined in `source`, in order (a name once, however often it is
// defined); empty when there are none or the text cannot be read. For picking the kernel.
std::vector<std::string> kernels_in_source(std::string_view source);

// The model's figures of a scenario over one block, as the hardware's per-line counters name
// them: warp instructions issued (warps with an active lane), wavefronts and ideal wavefronts,
// from analysis.h (serve()).
struct ModelFigures {
  int64_t instructions = 0, wavefronts = 0, ideal = 0;
  double per_request() const {
    return instructions > 0 ? static_cast<double>(wavefronts) / static_cast<double>(instructions)
                            : 0;
  }
};
ModelFigures model_figures(const Scenario& s);

}  // namespace bankviz
