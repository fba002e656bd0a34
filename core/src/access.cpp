// access.cpp: how the banks serve one warp instruction.
//
// [SECTION] Splitting the warp into groups served one after another
// [SECTION] Serving one group: distinct rows per bank
// [SECTION] Public entry points
//
// The model, for every architecture:
//   1. The warp's active lanes are split into groups that the hardware serves one after another
//      (whole warp, half-warps or quarter-warps, by architecture, width and load/store).
//   2. A group needs as many wavefronts as the largest number of distinct rows (line_bytes-aligned
//      segments; with 128-byte lines simply distinct 32-bit words) its lanes touch in any one
//      bank, at least 1. Lanes touching the same word share it (broadcast on loads; on stores
//      one lane wins).
//   3. The instruction's wavefronts are the sum over non-empty groups.
// Hopper's measured twist (docs/HOPPER_RULE.md): an 8- or 16-byte LOAD whose lanes "pair up"
// (every lane pair 2i/2i+1 uses one address, or within every quad lanes 4q/4q+2 and 4q+1/4q+3
// do) is split half as finely: 8-byte loads become one group, 16-byte loads two half-warps.
#include "bankviz/access.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace bankviz {

const char* op_name(Op op) {
  return op == Op::Load ? "load" : op == Op::Store ? "store" : "atomic";
}

// [SECTION] Splitting the warp into groups served one after another
namespace {

bool same_or_inactive(const WarpAccess& a, int i, int j) {
  const bool both = ((a.mask >> i) & 1u) && ((a.mask >> j) & 1u);
  return !both || a.addr[static_cast<size_t>(i)] == a.addr[static_cast<size_t>(j)];
}

// The measured sm_90 condition under which 8/16-byte loads merge the fixed split. Two lane
// pairings qualify: adjacent pairs (2i, 2i+1), or interleaved pairs inside each quad (4q, 4q+2)
// and (4q+1, 4q+3). Either way the warp asks for at most 16 distinct addresses arranged the way
// the load path can fan out, and it is served as if it had half as many lanes.
bool lanes_pair_up(const WarpAccess& a) {
  bool adjacent = true, interleaved = true;
  for (int i = 0; i < kWarpSize; i += 2) adjacent = adjacent && same_or_inactive(a, i, i + 1);
  for (int q = 0; q < kWarpSize; q += 4)
    interleaved = interleaved && same_or_inactive(a, q, q + 2) && same_or_inactive(a, q + 1, q + 3);
  return adjacent || interleaved;
}

// Lanes per group: 32 (whole warp), 16 (half-warps) or 8 (quarter-warps).
int group_lanes(const Arch& arch, Op op, const WarpAccess& a) {
  if (arch.half_warp_unit) return 16;  // cc 1.x: half-warps, whatever the width
  // One wavefront delivers at most line_bytes (128; 256 on Kepler). Accesses wider than 4 bytes
  // are split so that one group's lanes fill one line: 8-byte accesses on 128-byte lines go by
  // half-warps, 16-byte by quarter-warps (published).
  int lanes = a.width > 4 ? std::min(32, arch.line_bytes / a.width) : 32;
  if (arch.hopper_loads && op == Op::Load && a.width >= 8 && lanes < 32 && lanes_pair_up(a))
    lanes *= 2;
  return lanes;
}

// [SECTION] Serving one group: distinct rows per bank
// One touch = one lane using one bank word, packed so that a plain integer sort orders touches by
// bank, then row (address / line_bytes), then word within the row, then lane:
//   [63..58 bank][57..6 row][5 sub: word's index among the bank's words in the row][4..0 lane]
using Touch = uint64_t;
constexpr int kBankShift = 58, kRowShift = 6, kSubShift = 5;

int touch_bank(Touch t) {
  return static_cast<int>(t >> kBankShift);
}
uint64_t touch_row(Touch t) {
  return (t >> kRowShift) & ((1ull << (kBankShift - kRowShift)) - 1);
}
uint64_t touch_slot(Touch t) {
  return t >> kRowShift;
}  // (bank, row)
uint64_t touch_word_key(Touch t) {
  return t >> kSubShift;
}  // (bank, row, sub)
int touch_lane(Touch t) {
  return static_cast<int>(t & 31u);
}

// All touches of the group's lanes, sorted. Bank counts, bank widths and line sizes are powers of
// two, so the address arithmetic is shifts and masks.
int collect(const Arch& arch, const WarpAccess& a, uint32_t lanes, Touch* out) {
  int n = 0;
  const int bb_shift = std::countr_zero(static_cast<unsigned>(arch.bank_bytes));
  const int bank_shift = std::countr_zero(static_cast<unsigned>(arch.banks));
  const int row_shift = std::countr_zero(static_cast<unsigned>(arch.line_bytes)) - bb_shift;
  const uint64_t bank_mask = static_cast<uint64_t>(arch.banks) - 1;
  const uint64_t in_row_mask = (uint64_t{1} << row_shift) - 1;
  const uint64_t width = static_cast<uint64_t>(std::clamp(a.width, 1, 16));
  for (uint32_t rest = lanes; rest; rest &= rest - 1) {
    const int lane = std::countr_zero(rest);
    const uint64_t addr = a.addr[static_cast<size_t>(lane)];
    const uint64_t last = (addr + width - 1) >> bb_shift;
    for (uint64_t w = addr >> bb_shift; w <= last; ++w) {
      const uint64_t in_row = w & in_row_mask;
      out[n++] = (in_row & bank_mask) << kBankShift | (w >> row_shift) << kRowShift |
                 (in_row >> bank_shift) << kSubShift | static_cast<uint64_t>(lane);
    }
  }
  // Counting sort by bank, then insertion sort inside each bank (a handful of touches each):
  // several times faster than a general sort for the at most 128 touches of a warp.
  int count[65] = {};
  for (int i = 0; i < n; ++i) ++count[touch_bank(out[i]) + 1];
  for (int b = 0; b < 64; ++b) count[b + 1] += count[b];
  Touch sorted[kWarpSize * 8];
  int next[64];
  std::copy(count, count + 64, next);
  for (int i = 0; i < n; ++i) sorted[next[touch_bank(out[i])]++] = out[i];
  for (int b = 0; b < 64; ++b) {
    for (int i = count[b] + 1; i < count[b + 1]; ++i) {
      const Touch t = sorted[i];
      int j = i - 1;
      for (; j >= count[b] && sorted[j] > t; --j) sorted[j + 1] = sorted[j];
      sorted[j + 1] = t;
    }
  }
  std::copy(sorted, sorted + n, out);
  return n;
}

uint32_t touch_word(const Arch& arch, Touch t) {
  const uint64_t words_per_row = static_cast<uint64_t>(arch.line_bytes / arch.bank_bytes);
  return static_cast<uint32_t>(touch_row(t) * words_per_row +
                               ((t >> kSubShift) & 1u) * static_cast<uint64_t>(arch.banks) +
                               static_cast<uint64_t>(touch_bank(t)));
}

struct GroupCost {
  int wavefronts = 0;
  int ideal = 0;
};

// Does touch i need a bank slot of its own, or does it share touch i-1's? Loads and stores
// share a row of a bank (one word delivered to many lanes). Shared-memory atomics never do:
// measured on Hopper (docs/HOPPER_RULE.md), every lane's read-modify-write takes its own pass
// through its bank, even when all 32 lanes add to one word.
bool new_slot(const Touch* t, int i, bool atomic) {
  return i == 0 || touch_slot(t[i]) != touch_slot(t[i - 1]) ||
         (atomic && touch_lane(t[i]) != touch_lane(t[i - 1]));
}

// Wavefronts = the most slots in one bank (with 128-byte lines: distinct words; for atomics:
// lanes). Ideal = the slots' bytes over the line: what a conflict-free layout of the same
// request would need (Kepler's unaligned float2 row: 256 bytes, ideal 1, served in 2).
GroupCost cost(const Arch& arch, const Touch* t, int n, bool atomic) {
  GroupCost c;
  int words = 0, in_bank = 0;
  for (int i = 0; i < n; ++i) {
    const bool new_bank = i == 0 || touch_bank(t[i]) != touch_bank(t[i - 1]);
    if (new_bank) in_bank = 0;
    if (new_bank || new_slot(t, i, atomic)) c.wavefronts = std::max(c.wavefronts, ++in_bank);
    if (i == 0 || touch_word_key(t[i]) != touch_word_key(t[i - 1]) ||
        (atomic && touch_lane(t[i]) != touch_lane(t[i - 1])))
      ++words;
  }
  c.wavefronts = std::max(c.wavefronts, 1);
  c.ideal = std::max(1, (words * arch.bank_bytes + arch.line_bytes - 1) / arch.line_bytes);
  return c;
}

// The k-th slot of every bank goes to the group's k-th wavefront.
void detail(const Arch& arch, const Touch* t, int n, int wavefronts, bool atomic,
            std::vector<Wavefront>& out) {
  const size_t first = out.size();
  out.resize(first + static_cast<size_t>(wavefronts));
  int k = -1;
  for (int i = 0; i < n; ++i) {
    const bool new_bank = i == 0 || touch_bank(t[i]) != touch_bank(t[i - 1]);
    if (new_bank) k = -1;
    if (new_bank || new_slot(t, i, atomic)) ++k;
    const bool shared = (i > 0 && touch_word_key(t[i - 1]) == touch_word_key(t[i])) ||
                        (i + 1 < n && touch_word_key(t[i + 1]) == touch_word_key(t[i]));
    Wavefront& wf = out[first + static_cast<size_t>(k)];
    wf.lanes |= 1u << touch_lane(t[i]);
    wf.words.push_back(
        LaneWord{touch_lane(t[i]), touch_word(arch, t[i]), touch_bank(t[i]), shared});
  }
  for (size_t i = first; i < out.size(); ++i)
    std::sort(out[i].words.begin(), out[i].words.end(), [](const LaneWord& x, const LaneWord& y) {
      return x.lane != y.lane ? x.lane < y.lane : x.word < y.word;
    });
}

template <bool kDetail>
AccessResult run(const Arch& arch, Op op, const WarpAccess& a) {
  AccessResult r;
  if (a.mask == 0) return r;
  const int g = group_lanes(arch, op, a);
  Touch touches[kWarpSize * 8];  // a valid access touches at most 4 words per lane
  for (int start = 0; start < kWarpSize; start += g) {
    const uint32_t group_bits = g == 32 ? 0xFFFFFFFFu : ((1u << g) - 1u) << start;
    const uint32_t lanes = a.mask & group_bits;
    if (!lanes) continue;
    const int n = collect(arch, a, lanes, touches);
    const bool atomic = op == Op::Atomic;
    const GroupCost c = cost(arch, touches, n, atomic);
    r.wavefronts += c.wavefronts;
    r.ideal += c.ideal;
    if constexpr (kDetail) detail(arch, touches, n, c.wavefronts, atomic, r.detail);
  }
  return r;
}

}  // namespace

// [SECTION] Public entry points
std::string validate(const WarpAccess& a) {
  if (a.width != 1 && a.width != 2 && a.width != 4 && a.width != 8 && a.width != 16)
    return "access width " + std::to_string(a.width) + " is not 1, 2, 4, 8 or 16 bytes";
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!((a.mask >> lane) & 1u)) continue;
    const uint64_t addr = a.addr[lane];
    if (addr % static_cast<uint64_t>(a.width) != 0)
      return "lane " + std::to_string(lane) + ": address " + std::to_string(addr) +
             " is not a multiple of the access width " + std::to_string(a.width);
    if (addr + static_cast<uint64_t>(a.width) > kMaxSharedBytes)
      return "lane " + std::to_string(lane) + ": address " + std::to_string(addr) +
             " is beyond the 228 KB of shared memory (" + std::to_string(kMaxSharedBytes) +
             " bytes)";
  }
  return {};
}

AccessResult serve(const Arch& arch, Op op, const WarpAccess& access) {
  return run<true>(arch, op, access);
}

int count_wavefronts(const Arch& arch, Op op, const WarpAccess& access) {
  return run<false>(arch, op, access).wavefronts;
}

}  // namespace bankviz
