// Unit tests of the bank rules (access.h) on hand-built warps, per architecture.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bankviz/access.h"
#include "bankviz/arch.h"

namespace bankviz {
namespace {

const Arch& arch(const char* id) {
  const Arch* a = find_arch(id);
  EXPECT_NE(a, nullptr) << id;
  return *a;
}

// Lane l accesses base + l * stride_bytes.
WarpAccess strided(int width, uint32_t stride_bytes, uint32_t mask = 0xFFFFFFFFu,
                   uint32_t base = 0) {
  WarpAccess a;
  a.width = width;
  a.mask = mask;
  for (int l = 0; l < kWarpSize; ++l) a.addr[static_cast<size_t>(l)] = base + l * stride_bytes;
  return a;
}

WarpAccess same(int width, uint32_t addr, uint32_t mask = 0xFFFFFFFFu) {
  return strided(width, 0, mask, addr);
}

int load_of(const char* id, const WarpAccess& a) {
  return count_wavefronts(arch(id), Op::Load, a);
}
int store_of(const char* id, const WarpAccess& a) {
  return count_wavefronts(arch(id), Op::Store, a);
}

TEST(Banks, RowOfIntsIsOneWavefront) {
  for (const Arch& a : all_archs()) {
    if (!a.half_warp_unit) {
      EXPECT_EQ(count_wavefronts(a, Op::Load, strided(4, 4)), 1) << a.id;
    }
  }
}

TEST(Banks, ColumnOf32x32IntsIs32Way) {
  EXPECT_EQ(load_of("hopper", strided(4, 32 * 4)), 32);
  EXPECT_EQ(store_of("hopper", strided(4, 32 * 4)), 32);
}

TEST(Banks, PaddingByOneWordMakesColumnReadConflictFree) {
  EXPECT_EQ(load_of("hopper", strided(4, 33 * 4)), 1);
  EXPECT_EQ(load_of("maxwell", strided(4, 33 * 4)), 1);
}

TEST(Banks, StrideTwoWordsIsTwoWay) {
  const AccessResult r = serve(arch("hopper"), Op::Load, strided(4, 8));
  EXPECT_EQ(r.wavefronts, 2);
  EXPECT_EQ(r.ideal, 1);
  EXPECT_EQ(r.degree(), 2);
  EXPECT_EQ(r.conflicts(), 1);
}

TEST(Banks, AllLanesOneWordIsABroadcast) {
  const AccessResult r = serve(arch("hopper"), Op::Load, same(4, 64));
  EXPECT_EQ(r.wavefronts, 1);
  ASSERT_EQ(r.detail.size(), 1u);
  EXPECT_EQ(r.detail[0].lanes, 0xFFFFFFFFu);
  for (const LaneWord& w : r.detail[0].words) EXPECT_TRUE(w.shared);
}

TEST(Banks, BytesOfOneWordNeverConflict) {
  // 32 chars in 8 words: lanes 4k..4k+3 share word k.
  EXPECT_EQ(load_of("hopper", strided(1, 1)), 1);
  // chars 128 bytes apart: 32 distinct words in bank 0.
  EXPECT_EQ(load_of("hopper", strided(1, 128)), 32);
  EXPECT_EQ(load_of("hopper", strided(2, 2)), 1);
}

TEST(Banks, DoublesRowIsTwoWavefrontsWithNoConflict) {
  const AccessResult r = serve(arch("hopper"), Op::Load, strided(8, 8));
  EXPECT_EQ(r.wavefronts, 2);
  EXPECT_EQ(r.ideal, 2);
  EXPECT_EQ(r.conflicts(), 0);
  EXPECT_EQ(store_of("hopper", strided(8, 8)), 2);
}

TEST(Banks, Float4RowIsFourWavefronts) {
  EXPECT_EQ(load_of("hopper", strided(16, 16)), 4);
  EXPECT_EQ(store_of("hopper", strided(16, 16)), 4);
}

TEST(Banks, DoubleColumnOf32x32Is32Wavefronts) {
  EXPECT_EQ(load_of("hopper", strided(8, 32 * 8)), 32);
}

TEST(HopperLoads, Float4BroadcastCostsTwoNotOneOrFour) {
  EXPECT_EQ(load_of("hopper", same(16, 256)), 2);
  EXPECT_EQ(store_of("hopper", same(16, 256)), 4);
  EXPECT_EQ(load_of("maxwell", same(16, 256)), 4);  // published split, no merging
}

TEST(HopperLoads, DoubleBroadcastMergesTheHalves) {
  EXPECT_EQ(load_of("hopper", same(8, 256)), 1);
  EXPECT_EQ(store_of("hopper", same(8, 256)), 2);
}

TEST(HopperLoads, AdjacentPairsSharingAnAddressMerge) {
  WarpAccess a = strided(8, 0);
  for (int l = 0; l < kWarpSize; ++l) a.addr[static_cast<size_t>(l)] = (l / 2) * 8;
  EXPECT_EQ(load_of("hopper", a), 1);
  a.addr[31] = 512;  // one pair broken: back to half-warps
  EXPECT_EQ(load_of("hopper", a), 2);
}

TEST(HopperLoads, InterleavedPairsMergeButPeriodFourDoesNot) {
  WarpAccess abab = strided(8, 0), abcd = strided(8, 0);
  for (int l = 0; l < kWarpSize; ++l) {
    abab.addr[static_cast<size_t>(l)] = (l % 2) * 8;
    abcd.addr[static_cast<size_t>(l)] = (l % 4) * 8;
  }
  EXPECT_EQ(load_of("hopper", abab), 1);
  EXPECT_EQ(load_of("hopper", abcd), 2);
}

TEST(HopperLoads, SixteenByteMergeIsDecidedForTheWholeWarp) {
  // Lanes 0-10 read A, 11-21 B, 22-31 C: the upper half pairs up on its own, the lower half
  // does not (lanes 10/11), so both halves keep quarter-warps: 4 wavefronts, not 3.
  WarpAccess a = strided(16, 0);
  for (int l = 0; l < kWarpSize; ++l)
    a.addr[static_cast<size_t>(l)] = (l < 11 ? 0 : l < 22 ? 16 : 32);
  EXPECT_EQ(load_of("hopper", a), 4);
}

TEST(HopperLoads, TwoActiveLanesInDifferentHalvesMergeFor8ButNot16Bytes) {
  WarpAccess a = strided(8, 8, (1u << 0) | (1u << 16));
  a.addr[16] = 8;  // banks 2-3: no conflict with lane 0's banks 0-1
  EXPECT_EQ(load_of("hopper", a), 1);
  a.width = 16;
  a.addr[16] = 16;
  EXPECT_EQ(load_of("hopper", a), 2);
}

TEST(Banks, InactiveLanesAreIgnoredAndEmptyGroupsAreFree) {
  EXPECT_EQ(load_of("hopper", strided(8, 8, 0x0000FFFFu)), 1);
  EXPECT_EQ(store_of("hopper", strided(16, 16, 0x000000FFu)), 1);
  EXPECT_EQ(load_of("hopper", strided(4, 128, 0x3u)), 2);
  EXPECT_EQ(load_of("hopper", strided(4, 4, 0u)), 0);
}

TEST(Kepler, EightByteBanksServeDoublesRowInOneWavefront) {
  EXPECT_EQ(load_of("kepler8", strided(8, 8)), 1);
  EXPECT_EQ(load_of("fermi", strided(8, 8)), 2);  // Fermi: half-warps of 128 bytes
  // Two floats of one 64-bit word never conflict in 8-byte mode.
  EXPECT_EQ(load_of("kepler8", strided(4, 4)), 1);
  // A column of a 32x32 double tile: 32 distinct 8-byte words in one bank.
  EXPECT_EQ(load_of("kepler8", strided(8, 32 * 8)), 32);
}

TEST(Kepler, FourByteModeConflictsOnlyAcross64WordSegments) {
  // The seed's float2 filter: 32 consecutive float2 (256 bytes). Aligned to a 64-word segment
  // they are served at once in either mode; shifted by 10 float2 they span two segments, and
  // 4-byte mode needs two passes where 8-byte mode still needs one.
  EXPECT_EQ(load_of("kepler4", strided(8, 8)), 1);
  const AccessResult shifted = serve(arch("kepler4"), Op::Load, strided(8, 8, 0xFFFFFFFFu, 80));
  EXPECT_EQ(shifted.wavefronts, 2);
  EXPECT_EQ(shifted.ideal, 1);  // a 2-way conflict, as the seed says
  EXPECT_EQ(load_of("kepler8", strided(8, 8, 0xFFFFFFFFu, 80)), 1);
  // Ints at stride 2 words: banks 0,2,..,30 twice, but within one 256-byte segment on Kepler.
  EXPECT_EQ(load_of("kepler4", strided(4, 8)), 1);
  EXPECT_EQ(load_of("maxwell", strided(4, 8)), 2);
}

TEST(Tesla, HalfWarpsNeverConflictWithEachOther) {
  // cc 1.x: 16 banks; lane l and l+16 hit the same bank but are served separately.
  EXPECT_EQ(load_of("cc1x", strided(4, 4)), 2);
  EXPECT_EQ(load_of("cc1x", strided(4, 4, 0x0000FFFFu)), 1);
  EXPECT_EQ(load_of("cc1x", strided(4, 16 * 4)), 32);
  EXPECT_EQ(load_of("cc1x", strided(4, 17 * 4)), 2);
}

// [SECTION] The programming guide's own examples (docs/PUBLISHED_RULES.md quotes them)

int atomic(const char* id, const WarpAccess& a) {
  return count_wavefronts(arch(id), Op::Atomic, a);
}

TEST(Tesla, CharArrayAtStrideOneConflictsAtStrideFourDoesNot) {
  // Guide 4.2 F.3.3.3: char data = shared[BaseIndex + tid] conflicts "because shared[0],
  // shared[1], shared[2], and shared[3] belong to the same bank"; shared[BaseIndex + 4 * tid]
  // does not. One broadcast word per pass: each half-warp's 16 chars in 4 words take 4 passes
  // (the broadcast word, plus one lane of each other bank, per pass), whichever word goes first.
  const AccessResult stride1 = serve(arch("cc1x"), Op::Load, strided(1, 1));
  EXPECT_EQ(stride1.wavefronts, 8);
  EXPECT_EQ(stride1.ideal, 2);
  EXPECT_EQ(stride1.degree(), 4);
  EXPECT_EQ(load_of("cc1x", strided(1, 4)), 2);
  // From cc 2.x on the same char row is conflict-free (F.4.3: "unlike ... 1.x").
  EXPECT_EQ(load_of("fermi", strided(1, 1)), 1);
  EXPECT_EQ(load_of("maxwell", strided(1, 1)), 1);
}

TEST(Tesla, ShortsOfOneWordTakeTwoPasses) {
  // 16-bit: two lanes per word; one word is broadcast per pass, the other banks serve one lane.
  EXPECT_EQ(load_of("cc1x", strided(2, 2, 0x0000FFFFu)), 2);
}

TEST(Tesla, DoubleRowIsTwoWayAsTwo32BitRequests) {
  // Guide 4.2 F.3.3.4: double data = shared[BaseIndex + tid] has "2-way bank conflicts ... as
  // the memory request is compiled into two separate 32-bit requests with a stride of two".
  const AccessResult r = serve(arch("cc1x"), Op::Load, strided(8, 8));
  EXPECT_EQ(r.ideal, 4);  // 2 requests x 2 half-warps
  EXPECT_EQ(r.wavefronts, 8);
  EXPECT_EQ(r.degree(), 2);
  // Each request serves one word of each lane: the first request's words are the low halves.
  for (const LaneWord& w : r.detail[0].words) EXPECT_EQ(w.word % 2, 0u) << w.lane;
  // float4 = four requests at a stride of four words: 4-way.
  const AccessResult f4 = serve(arch("cc1x"), Op::Load, strided(16, 16));
  EXPECT_EQ(f4.ideal, 8);
  EXPECT_EQ(f4.wavefronts, 32);
}

TEST(Tesla, ThirtyTwoBitStridesConflictOnlyWhenEven) {
  // Guide 4.2 F.3.3.1: no conflict "only if d is equal to 1, i.e. s is odd"; the stride-two
  // example "generates 2-way bank conflicts for devices of compute capability 1.x".
  EXPECT_EQ(load_of("cc1x", strided(4, 3 * 4)), 2);
  EXPECT_EQ(load_of("cc1x", strided(4, 2 * 4)), 4);
  // struct { float x, y, z; } members: stride three words, no conflict; { float x, y; }: two.
  EXPECT_EQ(load_of("cc1x", strided(4, 12, 0xFFFFFFFFu, 4)), 2);
  EXPECT_EQ(load_of("cc1x", strided(4, 8, 0xFFFFFFFFu, 4)), 4);
}

TEST(Tesla, OnlyOneWordIsBroadcastPerPass) {
  // Guide 4.2 F.3.3.2: "a common conflict-free case is when all threads of a half-warp read
  // from an address within the same 32-bit word"...
  EXPECT_EQ(load_of("cc1x", same(4, 64)), 2);
  WarpAccess bytes = strided(1, 0);
  for (int l = 0; l < kWarpSize; ++l) bytes.addr[static_cast<size_t>(l)] = 64 + l % 4;
  EXPECT_EQ(load_of("cc1x", bytes), 2);
  // ...but two broadcast words need two passes (F.4.3: from cc 2.x "multiple words can be
  // broadcast in a single transaction"): lanes 0-7 read word 0, lanes 8-15 word 1.
  WarpAccess two = strided(4, 0, 0x0000FFFFu);
  for (int l = 0; l < 16; ++l) two.addr[static_cast<size_t>(l)] = l < 8 ? 0 : 4;
  const AccessResult r = serve(arch("cc1x"), Op::Load, two);
  EXPECT_EQ(r.wavefronts, 2);
  ASSERT_EQ(r.detail.size(), 2u);
  EXPECT_EQ(r.detail[0].lanes, 0x000001FFu);  // word 0 broadcast + one lane of bank 1
  EXPECT_EQ(r.detail[1].lanes, 0x0000FE00u);
  EXPECT_EQ(load_of("fermi", two), 1);
  EXPECT_EQ(load_of("maxwell", two), 1);
}

TEST(Tesla, WritesToOneAddressTakeOnePassOtherBytesOfTheWordDoNot) {
  // "only one thread per half-warp performs a write" to one location (F.3.3); writes have no
  // broadcast, so different bytes of one word are different addresses of one bank.
  EXPECT_EQ(store_of("cc1x", same(4, 64)), 2);
  EXPECT_EQ(store_of("cc1x", strided(1, 1, 0x0000000Fu)), 4);
  EXPECT_EQ(load_of("cc1x", strided(1, 1, 0x0000000Fu)), 1);
}

TEST(Fermi, DoubleRowHasNoConflictHalfWarpsAreServedApart) {
  // Guide 4.2 F.4.3.2: "For 64-bit accesses, a bank conflict only occurs if two threads in
  // either of the half-warps access different addresses belonging to the same bank. Unlike for
  // devices of compute capability 1.x, there are no bank conflicts for arrays of doubles".
  const AccessResult r = serve(arch("fermi"), Op::Load, strided(8, 8));
  EXPECT_EQ(r.wavefronts, 2);
  EXPECT_EQ(r.ideal, 2);
  EXPECT_EQ(r.conflict_banks, 0u);
  WarpAccess apart = strided(8, 128, (1u << 0) | (1u << 16));  // two half-warps, bank 0-1 each
  EXPECT_EQ(load_of("fermi", apart), 2);
  EXPECT_EQ(serve(arch("fermi"), Op::Load, apart).conflict_banks, 0u);
  WarpAccess together = strided(8, 128, 0x3u);  // one half-warp: a conflict
  EXPECT_EQ(load_of("fermi", together), 2);
  EXPECT_EQ(serve(arch("fermi"), Op::Load, together).conflict_banks, 0x3u);
}

TEST(Fermi, Float4RowIsTwoWayTheGuidesAddOne) {
  // Guide 4.2 F.4.3.2: "The majority of 128-bit accesses will cause 2-way bank conflicts, even
  // if no two threads in a quarter-warp access different addresses belonging to the same bank.
  // Therefore, to determine the ways of bank conflicts, one must add 1 to the maximum number of
  // threads in a quarter-warp that access different addresses belonging to the same bank."
  const AccessResult row = serve(arch("fermi"), Op::Load, strided(16, 16));
  EXPECT_EQ(row.ideal, 4);
  EXPECT_EQ(row.wavefronts, 8);
  EXPECT_EQ(row.degree(), 2);
  EXPECT_EQ(row.conflict_banks, 0xFFFFFFFFu);
  ASSERT_EQ(row.detail.size(), 8u);
  EXPECT_FALSE(row.detail[0].extra);
  EXPECT_TRUE(row.detail[1].extra);  // each quarter-warp: its pass, then the extra one
  EXPECT_EQ(row.detail[1].lanes, 0u);
  EXPECT_EQ(row.detail[1].banks, 0xFFFFFFFFu);
  // Two threads of a quarter-warp on different addresses of banks 0-3: 2 + 1 = 3 passes each.
  EXPECT_EQ(load_of("fermi", strided(16, 32)), 4 * 3);
  EXPECT_EQ(load_of("maxwell", strided(16, 16)), 4);  // later GPUs: no extra pass
}

TEST(Kepler, ThirtyTwoBitModeConflictsAcrossSixtyFourWordSegments) {
  // Guide 4.2 F.5.3.2: no conflict "within two 32-bit words whose indices i and j are in the
  // same 64-word aligned segment ... and such that j=i+32".
  WarpAccess a = strided(4, 0, 0x3u);
  a.addr[1] = 32 * 4;
  EXPECT_EQ(load_of("kepler4", a), 1);
  a.addr[1] = 64 * 4;  // next segment
  EXPECT_EQ(load_of("kepler4", a), 2);
  // 64-bit mode (F.5.3.1): any address within one 64-bit word is no conflict.
  EXPECT_EQ(load_of("kepler8", strided(4, 4)), 1);
  a.addr[1] = 4;
  EXPECT_EQ(load_of("kepler8", a), 1);
}

TEST(Maxwell, GuideFigureExamples) {
  // CUDA C++ Programming Guide 12.x, cc 5.x, strided figure: stride one and three words are
  // conflict-free, stride two is 2-way; irregular figure: threads 3, 4, 6, 7 and 9 on one word of
  // bank 5 are conflict-free.
  EXPECT_EQ(load_of("maxwell", strided(4, 4)), 1);
  EXPECT_EQ(load_of("maxwell", strided(4, 8)), 2);
  EXPECT_EQ(load_of("maxwell", strided(4, 12)), 1);
  WarpAccess a = strided(4, 4);
  for (int l : {3, 4, 6, 7, 9}) a.addr[static_cast<size_t>(l)] = 5 * 4;
  EXPECT_EQ(load_of("maxwell", a), 1);
}

// [SECTION] Which banks conflict: recorded by serve() with the rule that counted the wavefronts

TEST(BankRecord, AtomicToOneWordConflictsThirtyTwoWaysInBankZero) {
  const AccessResult r = serve(arch("hopper"), Op::Atomic, same(4, 0));
  EXPECT_EQ(r.wavefronts, 32);
  EXPECT_EQ(r.ideal, 1);
  EXPECT_EQ(r.conflict_banks, 1u);
  EXPECT_EQ(r.bank_passes[0], 32);
  EXPECT_EQ(r.busiest_bank, 0);
  for (const Wavefront& wf : r.detail) EXPECT_EQ(wf.banks, 1u);
  // A load of the same word is a broadcast: one pass, nothing conflicts.
  const AccessResult l = serve(arch("hopper"), Op::Load, same(4, 0));
  EXPECT_EQ(l.conflict_banks, 0u);
  EXPECT_EQ(l.bank_passes[0], 1);
  EXPECT_EQ(atomic("cc1x", same(4, 0)), 32);
}

// atomicCAS(&lock[t % 4], 0, t + 1) (tests/data/profile/people.cu, sharedAtomics): 8 lanes on each
// of 4 words in banks 0-3. An H100 counted 16 wavefronts and 7 conflicts (ATOMS.CAS: two
// wavefronts per pass); atomicExch on the same words 8 and 7 (tests/data/hopper/atomcas.txt).
TEST(BankRecord, CompareAndSwapTakesTwoWavefrontsPerPass) {
  WarpAccess a;
  for (int l = 0; l < kWarpSize; ++l)
    a.addr[static_cast<size_t>(l)] = static_cast<uint32_t>(l % 4) * 4;
  const AccessResult cas = serve(arch("hopper"), Op::AtomicCas, a);
  EXPECT_EQ(cas.wavefronts, 16);
  EXPECT_EQ(cas.conflicts(), 7);
  EXPECT_EQ(cas.conflict_banks, 0xFu);
  EXPECT_EQ(cas.bank_passes[0], 16);
  ASSERT_EQ(cas.detail.size(), 16u);
  // The compare and the swap of one pass: the same lanes and words.
  EXPECT_EQ(cas.detail[0].lanes, 0x0000000Fu);
  EXPECT_EQ(cas.detail[1].lanes, cas.detail[0].lanes);
  EXPECT_EQ(cas.detail[2].lanes, 0x000000F0u);
  const AccessResult exch = serve(arch("hopper"), Op::Atomic, a);
  EXPECT_EQ(exch.wavefronts, 8);
  EXPECT_EQ(exch.conflicts(), 7);
  // One lane per bank: two wavefronts, no conflict; 64-bit words go by half-warps.
  EXPECT_EQ(count_wavefronts(arch("hopper"), Op::AtomicCas, strided(4, 4)), 2);
  EXPECT_EQ(serve(arch("hopper"), Op::AtomicCas, strided(4, 4)).conflicts(), 0);
  EXPECT_EQ(count_wavefronts(arch("hopper"), Op::AtomicCas, strided(8, 8)), 4);
}

TEST(BankRecord, SplitIsNotAConflictButAConflictInsideOneHalfIs) {
  // A double row on Hopper: two half-warps, every bank twice, ideal 2: no bank conflicts.
  const AccessResult row = serve(arch("hopper"), Op::Store, strided(8, 8));
  EXPECT_EQ(row.bank_passes[5], 2);
  EXPECT_EQ(row.conflict_banks, 0u);
  // Lanes 0 and 1 both in banks 0-1 at different words, in the first half-warp only.
  WarpAccess a = strided(8, 8);
  a.addr[1] = 256;
  const AccessResult r = serve(arch("hopper"), Op::Store, a);
  EXPECT_EQ(r.wavefronts, 3);
  EXPECT_EQ(r.conflict_banks, 0x3u);
  EXPECT_EQ(r.bank_passes[0], 3);
  EXPECT_EQ(r.busiest_bank, 0);
}

// Every architecture, op and a few thousand random accesses: the per-bank record agrees with the
// wavefronts it was computed with.
TEST(BankRecord, AgreesWithTheWavefrontsOnRandomAccesses) {
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
  };
  const int widths[] = {1, 2, 4, 8, 16};
  for (int trial = 0; trial < 3000; ++trial) {
    WarpAccess a;
    a.width = widths[next() % 5];
    a.mask = next() % 4 == 0 ? static_cast<uint32_t>(next()) : 0xFFFFFFFFu;
    const uint32_t span = 1u << (6 + next() % 8);  // addresses within 64 B .. 8 KB
    for (auto& x : a.addr) x = static_cast<uint32_t>(next() % span) / a.width * a.width;
    for (const Arch& ar : all_archs())
      for (Op op : {Op::Load, Op::Store, Op::Atomic, Op::AtomicCas}) {
        const AccessResult r = serve(ar, op, a);
        SCOPED_TRACE(std::string(ar.id) + " " + op_name(op) + " width " + std::to_string(a.width));
        ASSERT_EQ(r.wavefronts, count_wavefronts(ar, op, a));
        ASSERT_EQ(static_cast<int>(r.detail.size()), r.wavefronts);
        EXPECT_EQ(r.conflict_banks != 0, r.wavefronts > r.ideal);
        int passes[kMaxBanks] = {};
        uint32_t lanes = 0;
        for (const Wavefront& wf : r.detail) {
          uint32_t word_banks = 0;
          for (const LaneWord& w : wf.words) {
            EXPECT_EQ(w.bank, ar.bank_of_word(w.word));
            const uint32_t addr = a.addr[static_cast<size_t>(w.lane)];
            EXPECT_GE(w.word, ar.word_of(addr));
            EXPECT_LE(w.word, ar.word_of(addr + static_cast<uint32_t>(a.width) - 1));
            word_banks |= 1u << w.bank;
          }
          EXPECT_EQ(word_banks & ~wf.banks, 0u);
          if (!wf.extra) {
            EXPECT_EQ(word_banks, wf.banks);
          }
          for (int b = 0; b < ar.banks; ++b) passes[b] += (wf.banks >> b) & 1u;
          lanes |= wf.lanes;
        }
        EXPECT_EQ(lanes, a.mask);
        int most = 0;
        for (int b = 0; b < kMaxBanks; ++b) {
          EXPECT_EQ(r.bank_passes[static_cast<size_t>(b)], passes[b]) << "bank " << b;
          most = std::max(most, passes[b]);
        }
        if (r.busiest_bank >= 0) {
          EXPECT_EQ(r.bank_passes[static_cast<size_t>(r.busiest_bank)], most);
        }
      }
  }
}

TEST(Geometry, AddressToWordBankLineAndSegment) {
  const Arch& k8 = arch("kepler8");
  EXPECT_EQ(k8.word_of(8 * 33 + 7), 33u);
  EXPECT_EQ(k8.bank_of(8 * 33 + 7), 1);
  EXPECT_EQ(k8.line_of(8 * 33), 1u);
  EXPECT_EQ(k8.line_bytes_shown(), 256);
  const Arch& k4 = arch("kepler4");
  EXPECT_EQ(k4.line_bytes_shown(), 128);  // a picture row; the conflict segment is 256 bytes
  EXPECT_EQ(k4.segment_of_word(63), 0u);
  EXPECT_EQ(k4.segment_of_word(64), 1u);
  const Arch& tesla = arch("cc1x");
  EXPECT_EQ(tesla.bank_of(4 * 17), 1);
  EXPECT_EQ(tesla.line_of(4 * 17), 1u);
  EXPECT_EQ(arch("hopper").bank_of(4 * 33 + 3), 1);
}

TEST(Detail, EachWavefrontTakesOneWordPerBank) {
  // Two-way conflict: lanes 0..15 and 16..31 both cover banks 0..31 twice over.
  const AccessResult r = serve(arch("hopper"), Op::Load, strided(4, 8));
  ASSERT_EQ(r.detail.size(), 2u);
  uint32_t all = 0;
  for (const Wavefront& wf : r.detail) {
    bool bank_used[32] = {};
    for (const LaneWord& w : wf.words) {
      EXPECT_FALSE(bank_used[w.bank]) << "bank " << w.bank << " twice in one wavefront";
      bank_used[w.bank] = true;
      EXPECT_EQ(w.bank, static_cast<int>(w.word % 32));
    }
    EXPECT_EQ(wf.words.size(), 16u);
    all |= wf.lanes;
  }
  EXPECT_EQ(all, 0xFFFFFFFFu);
}

TEST(Detail, Float4LaneTouchesFourConsecutiveBanks) {
  const AccessResult r = serve(arch("hopper"), Op::Load, strided(16, 16, 0x1u, 32));
  ASSERT_EQ(r.detail.size(), 1u);
  ASSERT_EQ(r.detail[0].words.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.detail[0].words[static_cast<size_t>(i)].bank, 8 + i);
}

TEST(Validate, RejectsBadWidthMisalignmentAndRange) {
  WarpAccess a = strided(4, 4);
  EXPECT_EQ(validate(a), "");
  a.width = 3;
  EXPECT_NE(validate(a).find("width 3"), std::string::npos);
  a = strided(8, 4);
  EXPECT_NE(validate(a).find("lane 1"), std::string::npos);
  a = same(4, kMaxSharedBytes - 4);
  EXPECT_EQ(validate(a), "");
  a = same(4, kMaxSharedBytes);
  EXPECT_NE(validate(a).find("228 KB"), std::string::npos);
  a.mask = 0;  // inactive lanes' addresses are not checked
  EXPECT_EQ(validate(a), "");
}

TEST(Arch, EveryArchHasASourceAndOnlyHopperIsMeasured) {
  for (const Arch& a : all_archs()) {
    EXPECT_FALSE(a.source.empty()) << a.id;
    EXPECT_EQ(a.measured, a.id == "hopper") << a.id;
    EXPECT_EQ(find_arch(a.id), &a);
  }
  EXPECT_EQ(find_arch("volta"), nullptr);
  EXPECT_EQ(default_arch().id, "hopper");
}

TEST(Arch, EveryRuleSaysWhereItComesFrom) {
  for (const Arch& a : all_archs()) {
    ASSERT_FALSE(a.rules.empty()) << a.id;
    for (const Rule& r : a.rules) {
      EXPECT_FALSE(r.text.empty()) << a.id;
      EXPECT_FALSE(r.where.empty()) << a.id << ": " << r.text;
      EXPECT_EQ(r.provenance == Provenance::Measured, a.measured) << a.id << ": " << r.text;
    }
  }
  EXPECT_EQ(provenance_summary(arch("hopper")), "measured");
}

TEST(Arch, WideAccessSplitsTheGuideDoesNotDescribeAreExtrapolated) {
  // The guide describes 64- and 128-bit accesses for cc 1.x and 2.x only.
  for (const char* id : {"kepler4", "kepler8", "maxwell"}) {
    bool found = false;
    for (const Rule& r : arch(id).rules)
      if (r.text.find("16-byte") != std::string_view::npos) {
        found = true;
        EXPECT_EQ(r.provenance, Provenance::Extrapolated) << id;
      }
    EXPECT_TRUE(found) << id;
    EXPECT_NE(provenance_summary(arch(id)).find("extrapolated"), std::string::npos) << id;
  }
  bool fermi_ambiguity_said = false;
  for (const Rule& r : arch("fermi").rules)
    fermi_ambiguity_said |= r.provenance == Provenance::Extrapolated &&
                            r.text.find("majority") != std::string_view::npos;
  EXPECT_TRUE(fermi_ambiguity_said);
}

}  // namespace
}  // namespace bankviz
