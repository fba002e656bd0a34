// access.h: one warp-wide shared-memory instruction, and how the banks serve it.
//
// This is the heart of the model: (lane addresses, width, active mask, load/store, arch)
// -> wavefronts, and for each wavefront the lanes it serves, the bank words they touch and the
// banks it uses; for the instruction, how many passes each bank makes and which banks conflict.
// The address -> bank geometry lives with the architecture (arch.h: word_of, bank_of, ...);
// every view reads the banks and conflicts from AccessResult and never decides them again.
//
// A wavefront delivers at most one word per bank; any number of lanes may read (or write) the
// same word in one wavefront (broadcast / multicast), except where the rule set says otherwise
// (cc 1.x broadcasts one word per pass; atomics take a pass per lane).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/arch.h"

namespace bankviz {

// Atomic: a shared-memory atomicAdd and friends (read-modify-write): lanes never share a word's
// pass through the bank (measured on Hopper, docs/HOPPER_RULE.md).
// LdMatrix / StMatrix: ldmatrix / stmatrix .m8n8 .b16 (.x1/.x2/.x4, .trans alike): the access's
// lanes are the ones that supply row addresses, lanes 0..8N-1 for N matrices, each a 16-byte
// row; every matrix (8 lanes) is served on its own, lanes sharing words as loads do (measured on
// Hopper, docs/MATRIX_RULE.md). CpAsync: the shared-memory write of cp.async.ca of 4, 8 or 16
// bytes, paced by its global source (WarpAccess::source; coalesced when absent): the fixed split
// of stores, lanes never share a word's pass, and a lane's write waits for its source bank as for
// its destination bank (measured on Hopper, docs/CPASYNC_SOURCE.md).
// AtomicInc: ATOMS.POPC.INC, what the compiler makes of atomicAdd(&x, 1) on a 32-bit integer in
// shared memory for Hopper: the lanes on one address are one request (the hardware adds how many
// they are), so they share its pass as loads of one word do; distinct words of a bank still
// conflict (measured: the histogram's atomic step, every block of the launch, H100).
// AtomicCas: ATOMS.CAS (atomicCAS, 32- or 64-bit): served as Atomic (a pass per lane in its bank,
// the fixed split of its width), each pass two wavefronts; Nsight Compute counts one conflict per
// pass beyond the atomic's ideal, so the ideal is the atomic's plus the passes (measured on an
// H100: 504 of 504 cases of tools/atomsweep, docs/COUNTERS.md "Compare-and-swap").
enum class Op { Load, Store, Atomic, LdMatrix, StMatrix, CpAsync, AtomicInc, AtomicCas };
// "load" / "store" / "atomic" / "ldmatrix" / "stmatrix" / "cp.async" / "atomic increment" /
// "atomic compare-and-swap"
const char* op_name(Op op);
bool is_matrix_op(Op op);  // ldmatrix or stmatrix
bool is_atomic_op(Op op);  // Atomic, AtomicInc or AtomicCas: ATOMS, counted as "atom"

// An instruction as PTX names it: "ldmatrix.x4", "stmatrix.x2.trans", "cp.async.16"; and the
// shared atomics by their width: "atom.4" / "atom.8" (ATOMS.ADD, .EXCH, .MAX, ...), "atom.cas.4" /
// "atom.cas.8" (ATOMS.CAS, ATOMS.CAS.64), for `bankviz-cli wavefronts`.
struct OpSpec {
  Op op = Op::Load;
  int width = 4;     // bytes per lane: 16 for the matrix rows; the copy size for cp.async
  int matrices = 0;  // ldmatrix/stmatrix: 1, 2 or 4
  bool trans = false;
  // The lanes whose addresses the instruction uses: lanes 0..8N-1 for the matrix instructions
  // (whatever the warp's mask: they are .sync.aligned), else `mask`.
  uint32_t lanes(uint32_t mask) const {
    return matrices == 4 ? 0xFFFFFFFFu : matrices > 0 ? (1u << (8 * matrices)) - 1u : mask;
  }
};
std::optional<OpSpec> parse_op(std::string_view name);
std::string op_spec_name(const OpSpec& spec);  // the PTX name back: "ldmatrix.x4.trans"

inline constexpr int kWarpSize = 32;
inline constexpr uint32_t kMaxSharedBytes = 228u * 1024u;  // Hopper: 228 KB per SM

// What one warp asks of shared memory in one instruction. Inactive lanes' addresses are ignored.
struct WarpAccess {
  int width = 4;                           // bytes per lane: 1, 2, 4, 8 or 16
  uint32_t mask = 0xFFFFFFFFu;             // active lanes, bit i = lane i
  std::array<uint32_t, kWarpSize> addr{};  // byte address of each lane's access
  // cp.async only: each lane's global source, a byte offset into an aligned buffer (what matters
  // is its 128-byte line and its bank, (offset / 4) % 32). Without it the source is coalesced:
  // lane i copies bytes [i * width, (i + 1) * width) (coalesced_source()).
  bool has_source = false;
  std::array<uint32_t, kWarpSize> source{};
  uint32_t source_of(int lane) const {
    return has_source ? source[static_cast<size_t>(lane)]
                      : static_cast<uint32_t>(lane) * static_cast<uint32_t>(width);
  }
};

// Checks width (1/2/4/8/16), alignment (address % width == 0) and range (address + width <=
// kMaxSharedBytes) of every active lane. Empty string when valid, else a message naming the lane.
std::string validate(const WarpAccess& access);
// The same, plus what the instruction requires: for ldmatrix/stmatrix 16-byte rows from lanes
// 0..8N-1 exactly (N = 1, 2 or 4); for cp.async a size of 4, 8 or 16 bytes and sources (when
// given) aligned to it; a source is refused on any other instruction.
std::string validate(Op op, const WarpAccess& access);

// One bank word touched by one lane in one wavefront.
struct LaneWord {
  int lane = 0;
  uint32_t word = 0;    // Arch::word_of(address)
  int bank = 0;         // Arch::bank_of_word(word)
  bool shared = false;  // another lane reads/writes this same word in this wavefront
};

struct Wavefront {
  uint32_t lanes = 0;           // lanes that complete (part of) their access in this wavefront
  std::vector<LaneWord> words;  // every (lane, word) served, ordered by lane then word
  uint32_t banks = 0;           // banks this wavefront uses, bit b = bank b
  bool extra = false;  // a pass the rule charges without a word of its own: Fermi's 128-bit
                       // "add 1" (the guide does not say what it carries; banks = the busiest)
};

struct AccessResult {
  int wavefronts = 0;             // what Nsight Compute counts for this instruction
  int ideal = 0;                  // wavefronts the same request would need with no bank conflict
  std::vector<Wavefront> detail;  // detail.size() == wavefronts
  // Per bank, decided by the same rule that counted the wavefronts (serve() fills these;
  // count_wavefronts() does not):
  std::array<int, kMaxBanks> bank_passes{};  // [bank]: wavefronts in which the bank serves
  uint32_t conflict_banks = 0;  // banks needing more passes than the ideal in some part of the
                                // split (a half-/quarter-warp, a 32-bit part on cc 1.x): the
                                // banks that cause the conflict. 0 iff wavefronts == ideal
  int busiest_bank = -1;        // the bank with the most passes (lowest on ties); -1 when none
  bool conflicted(int bank) const {
    return bank >= 0 && bank < kMaxBanks && ((conflict_banks >> bank) & 1u) != 0;
  }
  // How many ways the worst bank is shared: wavefronts / ideal, rounded up (1 = conflict-free).
  int degree() const { return ideal > 0 ? (wavefronts + ideal - 1) / ideal : 0; }
  int conflicts() const { return wavefronts - ideal; }  // ncu's bank-conflict counter
};

// Serves one warp instruction. The access must be valid (see validate); a warp with no active
// lane needs 0 wavefronts.
AccessResult serve(const Arch& arch, Op op, const WarpAccess& access);

// Just the count, for hot loops and the `wavefronts` command.
int count_wavefronts(const Arch& arch, Op op, const WarpAccess& access);

// cp.async's global side, by the rule serve() uses (docs/CPASYNC_SOURCE.md), for a source
// buffer that starts on a 2 MiB boundary (bankviz's kernels and probes allocate theirs so).
// copy_source_set(): the L1 set (0-3) of the 128-byte line holding byte `source`, a linear
// 2-bit hash of the line index measured on an H100 for sources below 2 MiB. The global passes:
// the most distinct source lines of the active lanes in one set (0 without an active lane).
// Exact: every active lane's source lies below 2 MiB, where the hash was measured (the model
// equalled the H100 in every measured case: 1932 of 1932 and the sweep's 1935 two-line cases);
// above it the higher address bits' share of the hash is not known and the counts may differ.
int copy_source_set(uint32_t source);
int copy_global_passes(const WarpAccess& access);
bool copy_source_exact(const WarpAccess& access);
// The count and the ideal, by the same rule, without the detail or the per-bank figures (the
// advisor's many candidates).
AccessResult count_access(const Arch& arch, Op op, const WarpAccess& access);

}  // namespace bankviz
