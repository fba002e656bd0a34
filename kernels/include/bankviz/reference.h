// reference.h: the CPU evaluation of a scenario's kernel, and the comparison with the GPU's output.
//
// The generated kernel (codegen.h) writes one 32-bit value per thread: the sum of the bits of
// everything the thread loaded from shared memory. This file computes the same sums on the CPU
// from the same Scenario (core's Expr and TileDecl), block by block, and says which of them do not
// depend on timing: a load of another warp's store with no __syncthreads() between is a race (its
// result may be the old or the new value), several lanes storing different values to one word
// leave an undefined winner, and shared memory nobody stored is uninitialized. Those threads are
// not compared, and the run reports a race instead of a broken tool.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/codegen.h"
#include "bankviz/scenario.h"

namespace bankviz {

// cp.async's source: the kernel's input buffer, 4 words (16 bytes) per lesson thread, or
// kSourceBytes when a step names its "source". A cp.async of B bytes copies the thread's B bytes
// at byte chunk * B (codegen.h), the chunk being the step's source or the thread's index t: by
// default a warp reads one contiguous, coalesced run, as a kernel staging a tile does
// (docs/CPASYNC_SOURCE.md). Word i of the buffer:
inline uint32_t input_word(int64_t i) {
  uint32_t x = static_cast<uint32_t>(i) + 1u;
  x ^= x >> 16;  // lowbias32, as the kernels' hash()
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// The input buffer of a scenario's kernel: input_word() for every lesson thread (for kSourceBytes
// when a step has a "source"), or empty when no step is a cp.async (the kernel takes no `in`).
std::vector<uint32_t> kernel_input(const Scenario& s);
int64_t kernel_input_words(const Scenario& s);  // its size, without making it

struct ReferenceOptions {
  int64_t grid = 1;  // blocks launched (blockIdx.x = 0 .. grid-1, gridDim.x = grid)
  int measure = -1;  // exposed mode: the scenario step repeated `reps` times (-1: none)
  int64_t reps = 1;
  // Exposed mode: bit w set = the lesson's warp w runs (0: every warp). The block then holds
  // only those warps: a load of what an absent warp would have stored reads uninitialized
  // memory (not compared), and the output has one value per lane that ran, in warp order.
  uint32_t warps = 0;
  // Exposed mode: each block holds this many copies of the present warps, each playing the same
  // lesson threads on its own copy of every tile (codegen.h), so no copy can see another's
  // stores or atomics: every copy's outputs are those of one copy alone. The output has
  // `replicas` x the present lanes per block.
  int replicas = 1;
  // Exposed mode, where the scenario's blocks differ: every launched block plays the lesson's
  // block 0 of a launch of this many blocks (blockIdx.x = 0, gridDim.x = lesson_grid), as the
  // exposed kernel does (codegen.h). 0: block b is blockIdx.x = b of `grid`.
  int64_t lesson_grid = 0;
};

struct Reference {
  int64_t threads = 0;  // per block: outputs per block (the lanes that ran)
  // The lesson's linear thread index of each output of a block, when only some warps ran
  // (ReferenceOptions::warps); empty when every thread ran (output i is thread i).
  std::vector<int64_t> lesson_thread;
  int64_t grid = 1;
  std::vector<uint32_t> out;        // expected output, [block * threads + linear thread index]
  std::vector<uint8_t> determined;  // 1 where the output does not depend on timing
  int64_t race_count = 0;           // racing (warp, element) pairs found in block 0
  std::vector<std::string> races;   // every racing step pair (hazard.h: the first 32), in words
  std::vector<std::string> notes;   // undefined winners, uninitialized reads (first few)
  // Warp-wide shared instructions one block executes (warps with at least one active lane), per
  // scenario step, loop iterations and the measured step's repeats included.
  std::vector<int64_t> step_instructions;
  int64_t load_instructions = 0, store_instructions = 0, atomic_instructions = 0;  // per block
  // Per scenario step: bit w set = the lesson's warp w has an active lane in it (any iteration).
  std::vector<uint32_t> step_warps;
};

struct ReferenceResult {
  std::optional<Reference> ref;
  std::vector<Diagnostic> errors;  // evaluation errors, out-of-bounds accesses (the kernel is
                                   // not run: on the GPU they would touch memory outside the tile)
};

ReferenceResult evaluate_reference(const Scenario& s, const ReferenceOptions& o);

enum class VerifyStatus { Verified, Mismatch, Race, NotRun };
const char* verify_status_name(VerifyStatus v);  // "verified", "mismatch", "race", "not run"

struct Mismatch {
  int64_t block = 0;
  int64_t thread = 0;  // linear index in the block
  int64_t x = 0, y = 0, z = 0;
  uint32_t expected = 0, got = 0;
};

struct Verification {
  VerifyStatus status = VerifyStatus::NotRun;
  int64_t checked = 0;    // outputs compared
  int64_t unchecked = 0;  // outputs that depend on timing (race, undefined winner, uninitialized)
  int64_t mismatches = 0;
  std::vector<Mismatch> first;  // the first differing elements (at most 8)
  std::string summary;          // one or two sentences for the user
};

// got must hold ref.out.size() values (anything else is a mismatch of sizes, reported as such).
Verification verify_output(const Reference& ref, const std::vector<uint32_t>& got,
                           const int64_t block[3]);

}  // namespace bankviz
