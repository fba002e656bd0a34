// access.h: one warp-wide shared-memory instruction, and how the banks serve it.
//
// This is the heart of the model: (lane addresses, width, active mask, load/store, arch)
// -> wavefronts, and for each wavefront the lanes it serves and the bank words they touch.
//
//   byte address -> word = address / bank_bytes -> bank = word % banks
//
// A wavefront delivers at most one word per bank; any number of lanes may read (or write) the
// same word in one wavefront (broadcast / multicast).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/arch.h"

namespace bankviz {

// Atomic: a shared-memory atomicAdd and friends (read-modify-write): lanes never share a word's
// pass through the bank (measured on Hopper, docs/HOPPER_RULE.md).
enum class Op { Load, Store, Atomic };
const char* op_name(Op op);  // "load" / "store" / "atomic"

inline constexpr int kWarpSize = 32;
inline constexpr uint32_t kMaxSharedBytes = 228u * 1024u;  // Hopper: 228 KB per SM

// What one warp asks of shared memory in one instruction. Inactive lanes' addresses are ignored.
struct WarpAccess {
  int width = 4;                           // bytes per lane: 1, 2, 4, 8 or 16
  uint32_t mask = 0xFFFFFFFFu;             // active lanes, bit i = lane i
  std::array<uint32_t, kWarpSize> addr{};  // byte address of each lane's access
};

// Checks width (1/2/4/8/16), alignment (address % width == 0) and range (address + width <=
// kMaxSharedBytes) of every active lane. Empty string when valid, else a message naming the lane.
std::string validate(const WarpAccess& access);

// One bank word touched by one lane in one wavefront.
struct LaneWord {
  int lane = 0;
  uint32_t word = 0;    // address / bank_bytes
  int bank = 0;         // word % banks
  bool shared = false;  // another lane reads/writes this same word in this wavefront
};

struct Wavefront {
  uint32_t lanes = 0;           // lanes that complete (part of) their access in this wavefront
  std::vector<LaneWord> words;  // every (lane, word) served, ordered by lane then word
};

struct AccessResult {
  int wavefronts = 0;             // what Nsight Compute counts for this instruction
  int ideal = 0;                  // wavefronts the same request would need with no bank conflict
  std::vector<Wavefront> detail;  // detail.size() == wavefronts
  // How many ways the worst bank is shared: wavefronts / ideal, rounded up (1 = conflict-free).
  int degree() const { return ideal > 0 ? (wavefronts + ideal - 1) / ideal : 0; }
  int conflicts() const { return wavefronts - ideal; }  // ncu's bank-conflict counter
};

// Serves one warp instruction. The access must be valid (see validate); a warp with no active
// lane needs 0 wavefronts.
AccessResult serve(const Arch& arch, Op op, const WarpAccess& access);

// Just the count, for hot loops and the `wavefronts` command.
int count_wavefronts(const Arch& arch, Op op, const WarpAccess& access);

}  // namespace bankviz
