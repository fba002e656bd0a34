// access.cpp: how the banks serve one warp instruction.
//
// [SECTION] Splitting the warp into groups served one after another
// [SECTION] Serving one group: distinct segments per bank
// [SECTION] Per-bank passes and conflicts of one group
// [SECTION] cp.async: the shared write paced by the global source
// [SECTION] cc 1.x: one broadcast word per pass, 32-bit requests
// [SECTION] Public entry points
//
// The model, for every architecture from Fermi on:
//   1. The warp's active lanes are split into groups that the hardware serves one after another
//      (whole warp, half-warps or quarter-warps, by architecture, width and load/store).
//   2. A group needs as many wavefronts as the largest number of distinct segments
//      (line_bytes-aligned; with 128-byte lines simply distinct 32-bit words) its lanes touch in
//      any one bank, at least 1. Lanes touching the same word share it (broadcast on loads; on
//      stores one lane wins). Fermi's 128-bit quarter-warps take one pass more (the guide's
//      "add 1").
//   3. The instruction's wavefronts are the sum over non-empty groups.
// Hopper's measured twist (docs/HOPPER_RULE.md): an 8- or 16-byte LOAD whose lanes "pair up"
// (every lane pair 2i/2i+1 uses one address, or within every quad lanes 4q/4q+2 and 4q+1/4q+3
// do) is split half as finely: 8-byte loads become one group, 16-byte loads two half-warps.
// cc 1.x follows the guide's own procedure instead (see its section).
//
// The per-bank record (passes, conflicting banks) is taken from the same slots that set the
// wavefront count, so the views can never tell a different story from the verdict.
#include "bankviz/access.h"
#include "bankviz/copy_h200.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace bankviz {

const char* op_name(Op op) {
  switch (op) {
    case Op::Load:
      return "load";
    case Op::Store:
      return "store";
    case Op::Atomic:
      return "atomic";
    case Op::LdMatrix:
      return "ldmatrix";
    case Op::StMatrix:
      return "stmatrix";
    case Op::CpAsync:
      return "cp.async";
    case Op::AtomicInc:
      return "atomic increment";
    case Op::AtomicCas:
      return "atomic compare-and-swap";
  }
  return "?";
}

bool is_matrix_op(Op op) {
  return op == Op::LdMatrix || op == Op::StMatrix;
}

bool is_atomic_op(Op op) {
  return op == Op::Atomic || op == Op::AtomicInc || op == Op::AtomicCas;
}

std::optional<OpSpec> parse_op(std::string_view name) {
  OpSpec s;
  if (name.starts_with("atom.")) {
    std::string_view size = name.substr(5);
    s.op = Op::Atomic;
    if (size.starts_with("cas.")) {
      s.op = Op::AtomicCas;
      size.remove_prefix(4);
    }
    if (size != "4" && size != "8") return std::nullopt;
    s.width = size == "4" ? 4 : 8;
    return s;
  }
  if (name.starts_with("cp.async.")) {
    const std::string_view size = name.substr(9);
    s.op = Op::CpAsync;
    if (size == "4" || size == "8" || size == "16")
      s.width = size == "4" ? 4 : size == "8" ? 8 : 16;
    else
      return std::nullopt;
    return s;
  }
  if (name.starts_with("ldmatrix.x"))
    s.op = Op::LdMatrix;
  else if (name.starts_with("stmatrix.x"))
    s.op = Op::StMatrix;
  else
    return std::nullopt;
  std::string_view rest = name.substr(10);
  if (rest.ends_with(".trans")) {
    s.trans = true;
    rest.remove_suffix(6);
  }
  if (rest != "1" && rest != "2" && rest != "4") return std::nullopt;
  s.matrices = rest[0] - '0';
  s.width = 16;
  return s;
}

std::string op_spec_name(const OpSpec& s) {
  if (s.op == Op::CpAsync) return "cp.async." + std::to_string(s.width);
  if (s.op == Op::Atomic || s.op == Op::AtomicCas)
    return std::string(s.op == Op::AtomicCas ? "atom.cas." : "atom.") + std::to_string(s.width);
  if (!is_matrix_op(s.op)) return op_name(s.op);
  return std::string(op_name(s.op)) + ".x" + std::to_string(s.matrices) + (s.trans ? ".trans" : "");
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
  if (is_matrix_op(op)) return 8;      // one matrix (8 rows of 16 bytes) at a time (measured)
  if (arch.half_warp_unit) return 16;  // cc 1.x: half-warps, whatever the width
  // One wavefront delivers at most line_bytes (128; 256 on Kepler). Accesses wider than 4 bytes
  // are split so that one group's lanes fill one line: 8-byte accesses on 128-byte lines go by
  // half-warps, 16-byte by quarter-warps (published).
  int lanes = a.width > 4 ? std::min(32, arch.line_bytes / a.width) : 32;
  if (arch.hopper_loads && op == Op::Load && a.width >= 8 && lanes < 32 && lanes_pair_up(a))
    lanes *= 2;
  return lanes;
}

// [SECTION] Serving one group: distinct segments per bank
// One touch = one lane using one bank word, packed so that a plain integer sort orders touches by
// bank, then row (the word's line_bytes segment), then word within the row, then lane:
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

// All touches of the group's lanes, sorted. The geometry is the arch's (word_of, bank_of_word,
// segment_of_word); it is shifts and masks, hoisted out of the loop here.
int collect(const Arch& arch, const WarpAccess& a, uint32_t lanes, Touch* out) {
  int n = 0;
  const int bank_shift = arch.bank_shift();
  const int row_shift = arch.segment_shift();
  const uint32_t in_row_mask = (uint32_t{1} << row_shift) - 1;
  const uint32_t width = static_cast<uint32_t>(std::clamp(a.width, 1, 16));
  for (uint32_t rest = lanes; rest; rest &= rest - 1) {
    const int lane = std::countr_zero(rest);
    const uint32_t addr = a.addr[static_cast<size_t>(lane)];
    const uint32_t last = arch.word_of(addr + width - 1);
    for (uint32_t w = arch.word_of(addr); w <= last; ++w) {
      out[n++] = static_cast<uint64_t>(arch.bank_of_word(w)) << kBankShift |
                 static_cast<uint64_t>(arch.segment_of_word(w)) << kRowShift |
                 static_cast<uint64_t>((w & in_row_mask) >> bank_shift) << kSubShift |
                 static_cast<uint64_t>(lane);
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

// (segment, sub, bank) -> bank word: the inverse of collect()'s packing.
uint32_t touch_word(const Arch& arch, Touch t) {
  return static_cast<uint32_t>(touch_row(t) << arch.segment_shift() |
                               ((t >> kSubShift) & 1u) << arch.bank_shift() |
                               static_cast<uint64_t>(touch_bank(t)));
}

struct GroupCost {
  int wavefronts = 0;
  int ideal = 0;
};

// Fermi (F.4.3.2): "to determine the ways of bank conflicts, one must add 1 to the maximum number
// of threads in a quarter-warp that access different addresses belonging to the same bank".
bool extra_pass(const Arch& arch, const WarpAccess& a) {
  return arch.quarter_extra_pass && a.width == 16;
}

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
// A compare-and-swap (ATOMS.CAS) takes two wavefronts per pass, and Nsight Compute counts one
// conflict per pass beyond the atomic's ideal: its ideal is the atomic's plus the passes
// (measured on an H100, docs/COUNTERS.md "Compare-and-swap": 8 lanes on each of 4 words in 4
// banks, 8 passes, 16 wavefronts, 7 conflicts).
constexpr int kCasWavefrontsPerPass = 2;

GroupCost cost(const Arch& arch, const WarpAccess& a, const Touch* t, int n, bool atomic,
               bool cas) {
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
  c.wavefronts = std::max(c.wavefronts, 1) + (extra_pass(arch, a) ? 1 : 0);
  c.ideal = std::max(1, (words * arch.bank_bytes + arch.line_bytes - 1) / arch.line_bytes);
  if (cas) {
    c.ideal += c.wavefronts;
    c.wavefronts *= kCasWavefrontsPerPass;
  }
  return c;
}

// [SECTION] Per-bank passes and conflicts of one group
// A group's bank b needs passes[b] wavefronts; more than the group's ideal is a conflict, and b
// is one of its causes. Adds the group to the instruction's record.
void record_group(const int* passes, int banks, int ideal, AccessResult& r) {
  for (int b = 0; b < banks; ++b) {
    r.bank_passes[static_cast<size_t>(b)] += passes[b];
    if (passes[b] > ideal) r.conflict_banks |= 1u << b;
  }
}

// The k-th slot of every bank goes to the group's k-th wavefront.
// A compare-and-swap's k-th pass is its wavefronts 2k (the compare) and 2k+1 (the swap), the
// same lanes and words in both.
void detail(const Arch& arch, const WarpAccess& a, const Touch* t, int n, const GroupCost& c,
            bool atomic, bool cas, AccessResult& r) {
  std::vector<Wavefront>& out = r.detail;
  const size_t first = out.size();
  out.resize(first + static_cast<size_t>(c.wavefronts));
  const int per_pass = cas ? kCasWavefrontsPerPass : 1;
  int passes[kMaxBanks] = {};
  int k = -1;
  for (int i = 0; i < n; ++i) {
    const bool new_bank = i == 0 || touch_bank(t[i]) != touch_bank(t[i - 1]);
    if (new_bank) k = -1;
    if (new_bank || new_slot(t, i, atomic)) ++k;
    const bool shared = (i > 0 && touch_word_key(t[i - 1]) == touch_word_key(t[i])) ||
                        (i + 1 < n && touch_word_key(t[i + 1]) == touch_word_key(t[i]));
    const int bank = touch_bank(t[i]);
    passes[bank] = (k + 1) * per_pass;
    for (int h = 0; h < per_pass; ++h) {
      Wavefront& wf = out[first + static_cast<size_t>(k * per_pass + h)];
      wf.lanes |= 1u << touch_lane(t[i]);
      wf.banks |= 1u << bank;
      wf.words.push_back(LaneWord{touch_lane(t[i]), touch_word(arch, t[i]), bank, shared});
    }
  }
  if (extra_pass(arch, a)) {
    // The guide's extra pass: it names no word, so it is drawn on the banks that set the count.
    Wavefront& wf = out.back();
    wf.extra = true;
    const int busiest = *std::max_element(passes, passes + arch.banks);
    for (int b = 0; b < arch.banks; ++b)
      if (passes[b] == busiest) {
        wf.banks |= 1u << b;
        ++passes[b];
      }
  }
  // A bank conflicts when it needs more passes than the group's ideal (a CAS's ideal counts
  // its passes too: the atomic's own ideal is c.ideal - c.wavefronts / 2).
  record_group(passes, arch.banks, cas ? (c.ideal - c.wavefronts / per_pass) * per_pass : c.ideal,
               r);
  for (size_t i = first; i < out.size(); ++i)
    std::sort(out[i].words.begin(), out[i].words.end(), [](const LaneWord& x, const LaneWord& y) {
      return x.lane != y.lane ? x.lane < y.lane : x.word < y.word;
    });
}

// [SECTION] cp.async: the shared write paced by the global source
// Measured on an H100 (docs/CPASYNC_SOURCE.md): the L1's tag stage looks the source lines up in
// four sets, a 2-bit linear hash of the line address (copy_source_set()), at most one line per
// set in a global pass: the k-th distinct line of each set (in lane order) is read in pass k, so
// the passes are the most distinct lines in one set (ncu: t_output_wavefronts = set_accesses,
// set_conflicts = passes - 1). Each pass is split into the store groups (4 bytes: the warp; 8:
// half-warps; 16: quarter-warps). Within one (pass, group) the lanes are written in lane order,
// each in the first wavefront after the last one that used any of its destination banks AND
// after the last one that read any of its source banks (global word % 32): lanes never share a
// word's pass on either side, and a source conflict and a destination conflict add up instead
// of overlapping. The (pass, group) needs its latest lane's wavefront + 1; ncu's ideal is one
// per (pass, group). With a coalesced source (the default: at most four lines of one aligned
// 512-byte block, one in each set) there is one pass per group: the count is then the most lanes
// writing into one bank.
constexpr int kSourceBanks = 32;  // the L1 data banks the global side reads, 4 bytes each
constexpr uint32_t kSourceLine = 128;
constexpr int kSourceSets = 4;
// The hash's value for each bit of the line index (address / 128), measured for bits 0-13
// (sources below 2 MiB); what each higher bit adds was not pinned down.
constexpr uint8_t kSetOfLineBit[] = {1, 2, 1, 2, 3, 1, 2, 3, 2, 1, 2, 1, 3, 1};
constexpr int kHashedLineBits = static_cast<int>(sizeof kSetOfLineBit);

// The lanes of each global pass (passes[] zeroed by the caller); how many.
int copy_passes(const WarpAccess& a, uint32_t* passes) {
  uint32_t lines[kSourceSets][kWarpSize];
  int used[kSourceSets] = {};
  int n = 0;
  for (uint32_t rest = a.mask; rest; rest &= rest - 1) {
    const int lane = std::countr_zero(rest);
    const uint32_t line = a.source_of(lane) / kSourceLine;
    uint32_t* const in_set = lines[copy_source_set(a.source_of(lane))];
    int& count = used[copy_source_set(a.source_of(lane))];
    const int k = static_cast<int>(std::find(in_set, in_set + count, line) - in_set);
    if (k == count) in_set[count++] = line;
    passes[k] |= 1u << lane;
    n = std::max(n, k + 1);
  }
  return n;
}

}  // namespace

int copy_source_set(uint32_t source) {
  int set = 0;
  uint32_t line = source / kSourceLine;
  for (int bit = 0; line != 0 && bit < kHashedLineBits; ++bit, line >>= 1)
    if (line & 1u) set ^= kSetOfLineBit[bit];
  return set;
}

std::string copy_passes_caveat(int passes, int64_t wavefronts, int64_t one_pass) {
  if (passes <= 1 || wavefronts == one_pass) return {};
  return kCopyCaveatStart + std::to_string(passes) +
         " global passes by the L1 set hash (measured on an H100 and an H200): " +
         std::to_string(wavefronts) +
         " wavefronts, what the L1's counter counts (l1tex__data_pipe_lsu_wavefronts_mem_shared); "
         "Nsight Compute's per-instruction counter (its Source page, and the written kernel's "
         "steps) counts one pass for them: " +
         std::to_string(one_pass) + " here";
}

int copy_global_passes(const WarpAccess& a) {
  uint32_t passes[kWarpSize] = {};
  return copy_passes(a, passes);
}

bool copy_source_exact(const WarpAccess& a) {
  for (uint32_t rest = a.mask; rest; rest &= rest - 1)
    if (a.source_of(std::countr_zero(rest)) / kSourceLine >> kHashedLineBits) return false;
  return true;
}

namespace {

template <bool kDetail>
void serve_copy_group(const Arch& arch, const WarpAccess& a, uint32_t lanes, AccessResult& r) {
  int last_dst[kMaxBanks], last_src[kSourceBanks];
  std::fill(last_dst, last_dst + kMaxBanks, -1);
  std::fill(last_src, last_src + kSourceBanks, -1);
  int when[kWarpSize] = {};
  int latest = 0;
  const uint32_t width = static_cast<uint32_t>(a.width);
  for (uint32_t rest = lanes; rest; rest &= rest - 1) {
    const int lane = std::countr_zero(rest);
    const uint32_t dst = a.addr[static_cast<size_t>(lane)], src = a.source_of(lane);
    int t = 0;
    for (uint32_t w = arch.word_of(dst); w <= arch.word_of(dst + width - 1); ++w)
      t = std::max(t, last_dst[arch.bank_of_word(w)] + 1);
    for (uint32_t w = src / 4; w <= (src + width - 1) / 4; ++w)
      t = std::max(t, last_src[w % kSourceBanks] + 1);
    for (uint32_t w = arch.word_of(dst); w <= arch.word_of(dst + width - 1); ++w)
      last_dst[arch.bank_of_word(w)] = t;
    for (uint32_t w = src / 4; w <= (src + width - 1) / 4; ++w) last_src[w % kSourceBanks] = t;
    when[lane] = t;
    latest = std::max(latest, t);
  }
  r.wavefronts += latest + 1;
  r.ideal += 1;
  if constexpr (kDetail) {
    const size_t first = r.detail.size();
    r.detail.resize(first + static_cast<size_t>(latest) + 1);
    int passes[kMaxBanks] = {};
    uint32_t delayed = 0;  // banks of the lanes that waited (marked when no bank repeats)
    for (uint32_t rest = lanes; rest; rest &= rest - 1) {
      const int lane = std::countr_zero(rest);
      const uint32_t dst = a.addr[static_cast<size_t>(lane)];
      Wavefront& wf = r.detail[first + static_cast<size_t>(when[lane])];
      wf.lanes |= 1u << lane;
      for (uint32_t w = arch.word_of(dst); w <= arch.word_of(dst + width - 1); ++w) {
        const int bank = arch.bank_of_word(w);
        wf.banks |= 1u << bank;
        wf.words.push_back(LaneWord{lane, w, bank, false});
        ++passes[bank];
        if (when[lane] > 0) delayed |= 1u << bank;
      }
    }
    record_group(passes, arch.banks, 1, r);
    // A wait on the source side alone repeats no destination bank: the banks whose writes
    // waited are the ones the instruction spends its extra wavefronts on.
    bool any = false;
    for (int b = 0; b < arch.banks; ++b) any = any || passes[b] > 1;
    if (!any) r.conflict_banks |= delayed;
  }
}

template <bool kDetail>
void run_copy(const Arch& arch, const WarpAccess& a, AccessResult& r) {
  uint32_t passes[kWarpSize] = {};
  const int n = copy_passes(a, passes);
  const int g = group_lanes(arch, Op::CpAsync, a);
  for (int p = 0; p < n; ++p)
    for (int start = 0; start < kWarpSize; start += g) {
      const uint32_t group_bits = g == 32 ? 0xFFFFFFFFu : ((1u << g) - 1u) << start;
      if (const uint32_t lanes = passes[p] & group_bits)
        serve_copy_group<kDetail>(arch, a, lanes, r);
    }
}

int copy_one_pass(const Arch& arch, const WarpAccess& a) {
  AccessResult r;
  const int g = group_lanes(arch, Op::CpAsync, a);
  for (int start = 0; start < kWarpSize; start += g) {
    const uint32_t group_bits = g == 32 ? 0xFFFFFFFFu : ((1u << g) - 1u) << start;
    if (const uint32_t lanes = a.mask & group_bits) serve_copy_group<false>(arch, a, lanes, r);
  }
  return r.wavefronts;
}

// [SECTION] cc 1.x: one broadcast word per pass, 32-bit requests
// The programming guide (4.2, F.3.3) serves a half-warp's read in steps; each step serves "all
// addresses that are within the broadcast word" and "one address for each bank (other than the
// broadcasting bank)", and "which word is selected as the broadcast word and which address is
// picked up for each bank at each cycle are unspecified". We pick the lowest remaining lane's
// word and each bank's lowest remaining lane. Writes have no broadcast: one address per bank per
// step, lanes writing that very address share it ("only one thread per half-warp performs a
// write"). Atomics: one lane per bank per step. An access wider than 32 bits "is compiled into
// separate 32-bit requests": one request per word of the access, each split by half-warp.
template <bool kDetail>
void serve_tesla_group(const Arch& arch, Op op, const WarpAccess& a, uint32_t offset,
                       uint32_t lanes, AccessResult& r) {
  uint32_t word[kWarpSize], addr[kWarpSize];
  int bank[kWarpSize];
  for (uint32_t rest = lanes; rest; rest &= rest - 1) {
    const int l = std::countr_zero(rest);
    addr[l] = a.addr[static_cast<size_t>(l)] + offset;
    word[l] = arch.word_of(addr[l]);
    bank[l] = arch.bank_of_word(word[l]);
  }
  int passes[kMaxBanks] = {};
  int steps = 0;
  for (uint32_t rest = lanes; rest;) {
    uint32_t served = 0, banks = 0;
    if (op == Op::Load) {  // the broadcast word: the lowest remaining lane's
      const int lead = std::countr_zero(rest);
      for (uint32_t x = rest; x; x &= x - 1)
        if (word[std::countr_zero(x)] == word[lead]) served |= 1u << std::countr_zero(x);
      banks |= 1u << bank[lead];
    }
    for (uint32_t x = rest & ~served; x; x &= x - 1) {
      const int l = std::countr_zero(x);
      if ((banks >> bank[l]) & 1u) continue;  // this bank already serves someone this step
      banks |= 1u << bank[l];
      served |= 1u << l;
      if (op == Op::Store)  // lanes writing this very address: one of them writes
        for (uint32_t y = x & (x - 1); y; y &= y - 1)
          if (addr[std::countr_zero(y)] == addr[l]) served |= 1u << std::countr_zero(y);
    }
    rest &= ~served;
    ++steps;
    if constexpr (kDetail) {
      Wavefront wf;
      wf.lanes = served;
      wf.banks = banks;
      for (uint32_t x = served; x; x &= x - 1) {
        const int l = std::countr_zero(x);
        bool shared = false;
        for (uint32_t y = served & ~(1u << l); y && !shared; y &= y - 1)
          shared = word[std::countr_zero(y)] == word[l];
        wf.words.push_back(LaneWord{l, word[l], bank[l], shared});
      }
      for (int b = 0; b < arch.banks; ++b) passes[b] += (banks >> b) & 1u;
      r.detail.push_back(std::move(wf));
    }
  }
  r.wavefronts += steps;
  r.ideal += 1;  // a half-warp of at most 32-bit accesses fits one 64-byte line
  if constexpr (kDetail) record_group(passes, arch.banks, 1, r);
}

template <bool kDetail>
void run_tesla(const Arch& arch, Op op, const WarpAccess& a, AccessResult& r) {
  // Each lane's part lies in one bank word: accesses of at most 32 bits are aligned.
  const int parts = arch.word_requests && a.width > arch.bank_bytes ? a.width / arch.bank_bytes : 1;
  const int g = group_lanes(arch, op, a);
  for (int part = 0; part < parts; ++part)
    for (int start = 0; start < kWarpSize; start += g) {
      const uint32_t group_bits = g == 32 ? 0xFFFFFFFFu : ((1u << g) - 1u) << start;
      const uint32_t lanes = a.mask & group_bits;
      if (lanes)
        serve_tesla_group<kDetail>(arch, op, a, static_cast<uint32_t>(part * arch.bank_bytes),
                                   lanes, r);
    }
}

int busiest(const AccessResult& r, int banks) {
  int best = -1;
  for (int b = 0; b < banks; ++b)
    if (r.bank_passes[static_cast<size_t>(b)] > 0 &&
        (best < 0 ||
         r.bank_passes[static_cast<size_t>(b)] > r.bank_passes[static_cast<size_t>(best)]))
      best = b;
  return best;
}

template <bool kDetail>
AccessResult run(const Arch& arch, Op op, const WarpAccess& a) {
  AccessResult r;
  if (a.mask == 0) return r;
  if (arch.one_broadcast && (op == Op::Load || op == Op::Store || is_atomic_op(op))) {
    run_tesla<kDetail>(arch, op, a, r);
  } else if (op == Op::CpAsync) {
    run_copy<kDetail>(arch, a, r);
  } else {
    const int g = group_lanes(arch, op, a);
    Touch touches[kWarpSize * 8];  // a valid access touches at most 4 words per lane
    for (int start = 0; start < kWarpSize; start += g) {
      const uint32_t group_bits = g == 32 ? 0xFFFFFFFFu : ((1u << g) - 1u) << start;
      const uint32_t lanes = a.mask & group_bits;
      if (!lanes) continue;
      const int n = collect(arch, a, lanes, touches);
      // Lanes never share a word's pass: atomics' read-modify-writes.
      const bool cas = op == Op::AtomicCas;
      const bool atomic = op == Op::Atomic || cas;
      const GroupCost c = cost(arch, a, touches, n, atomic, cas);
      r.wavefronts += c.wavefronts;
      r.ideal += c.ideal;
      if constexpr (kDetail) detail(arch, a, touches, n, c, atomic, cas, r);
    }
  }
  if constexpr (kDetail) r.busiest_bank = busiest(r, arch.banks);
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

std::string validate(Op op, const WarpAccess& a) {
  if (is_matrix_op(op)) {
    if (a.width != 16)
      return std::string(op_name(op)) + " reads 16-byte rows, not " + std::to_string(a.width) +
             "-byte accesses";
    if (a.mask != 0xFFu && a.mask != 0xFFFFu && a.mask != 0xFFFFFFFFu)
      return std::string(op_name(op)) +
             ": the row addresses come from lanes 0-7 (.x1), 0-15 (.x2) or 0-31 (.x4)";
  } else if (op == Op::CpAsync && a.width != 4 && a.width != 8 && a.width != 16) {
    return "cp.async copies 4, 8 or 16 bytes, not " + std::to_string(a.width);
  }
  if (a.has_source && op != Op::CpAsync)
    return std::string("a global source is cp.async's alone, not ") + op_name(op) + "'s";
  if (a.has_source) {
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!((a.mask >> lane) & 1u)) continue;
      const uint64_t src = a.source[static_cast<size_t>(lane)];
      if (src % static_cast<uint64_t>(a.width) != 0 ||
          src + static_cast<uint64_t>(a.width) > uint64_t{UINT32_MAX} + 1)
        return "lane " + std::to_string(lane) + ": global source " + std::to_string(src) +
               " is not a multiple of the copy size " + std::to_string(a.width) +
               (src % static_cast<uint64_t>(a.width) != 0 ? "" : " below 4 GiB");
    }
  }
  return validate(a);
}

AccessResult serve(const Arch& arch, Op op, const WarpAccess& access) {
  return run<true>(arch, op, access);
}

int count_wavefronts(const Arch& arch, Op op, const WarpAccess& access) {
  return run<false>(arch, op, access).wavefronts;
}

AccessResult count_access(const Arch& arch, Op op, const WarpAccess& access) {
  return run<false>(arch, op, access);
}

int copy_wavefronts_one_pass(const Arch& arch, const WarpAccess& access) {
  return copy_one_pass(arch, access);
}

}  // namespace bankviz
