// Unit tests of the bank rules (access.h) on hand-built warps, per architecture.
#include <gtest/gtest.h>

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

int load(const char* id, const WarpAccess& a) {
  return count_wavefronts(arch(id), Op::Load, a);
}
int store(const char* id, const WarpAccess& a) {
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
  EXPECT_EQ(load("hopper", strided(4, 32 * 4)), 32);
  EXPECT_EQ(store("hopper", strided(4, 32 * 4)), 32);
}

TEST(Banks, PaddingByOneWordMakesColumnReadConflictFree) {
  EXPECT_EQ(load("hopper", strided(4, 33 * 4)), 1);
  EXPECT_EQ(load("maxwell", strided(4, 33 * 4)), 1);
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
  EXPECT_EQ(load("hopper", strided(1, 1)), 1);
  // chars 128 bytes apart: 32 distinct words in bank 0.
  EXPECT_EQ(load("hopper", strided(1, 128)), 32);
  EXPECT_EQ(load("hopper", strided(2, 2)), 1);
}

TEST(Banks, DoublesRowIsTwoWavefrontsWithNoConflict) {
  const AccessResult r = serve(arch("hopper"), Op::Load, strided(8, 8));
  EXPECT_EQ(r.wavefronts, 2);
  EXPECT_EQ(r.ideal, 2);
  EXPECT_EQ(r.conflicts(), 0);
  EXPECT_EQ(store("hopper", strided(8, 8)), 2);
}

TEST(Banks, Float4RowIsFourWavefronts) {
  EXPECT_EQ(load("hopper", strided(16, 16)), 4);
  EXPECT_EQ(store("hopper", strided(16, 16)), 4);
}

TEST(Banks, DoubleColumnOf32x32Is32Wavefronts) {
  EXPECT_EQ(load("hopper", strided(8, 32 * 8)), 32);
}

TEST(HopperLoads, Float4BroadcastCostsTwoNotOneOrFour) {
  EXPECT_EQ(load("hopper", same(16, 256)), 2);
  EXPECT_EQ(store("hopper", same(16, 256)), 4);
  EXPECT_EQ(load("maxwell", same(16, 256)), 4);  // published split, no merging
}

TEST(HopperLoads, DoubleBroadcastMergesTheHalves) {
  EXPECT_EQ(load("hopper", same(8, 256)), 1);
  EXPECT_EQ(store("hopper", same(8, 256)), 2);
}

TEST(HopperLoads, AdjacentPairsSharingAnAddressMerge) {
  WarpAccess a = strided(8, 0);
  for (int l = 0; l < kWarpSize; ++l) a.addr[static_cast<size_t>(l)] = (l / 2) * 8;
  EXPECT_EQ(load("hopper", a), 1);
  a.addr[31] = 512;  // one pair broken: back to half-warps
  EXPECT_EQ(load("hopper", a), 2);
}

TEST(HopperLoads, InterleavedPairsMergeButPeriodFourDoesNot) {
  WarpAccess abab = strided(8, 0), abcd = strided(8, 0);
  for (int l = 0; l < kWarpSize; ++l) {
    abab.addr[static_cast<size_t>(l)] = (l % 2) * 8;
    abcd.addr[static_cast<size_t>(l)] = (l % 4) * 8;
  }
  EXPECT_EQ(load("hopper", abab), 1);
  EXPECT_EQ(load("hopper", abcd), 2);
}

TEST(HopperLoads, SixteenByteMergeIsDecidedForTheWholeWarp) {
  // Lanes 0-10 read A, 11-21 B, 22-31 C: the upper half pairs up on its own, the lower half
  // does not (lanes 10/11), so both halves keep quarter-warps: 4 wavefronts, not 3.
  WarpAccess a = strided(16, 0);
  for (int l = 0; l < kWarpSize; ++l)
    a.addr[static_cast<size_t>(l)] = (l < 11 ? 0 : l < 22 ? 16 : 32);
  EXPECT_EQ(load("hopper", a), 4);
}

TEST(HopperLoads, TwoActiveLanesInDifferentHalvesMergeFor8ButNot16Bytes) {
  WarpAccess a = strided(8, 8, (1u << 0) | (1u << 16));
  a.addr[16] = 8;  // banks 2-3: no conflict with lane 0's banks 0-1
  EXPECT_EQ(load("hopper", a), 1);
  a.width = 16;
  a.addr[16] = 16;
  EXPECT_EQ(load("hopper", a), 2);
}

TEST(Banks, InactiveLanesAreIgnoredAndEmptyGroupsAreFree) {
  EXPECT_EQ(load("hopper", strided(8, 8, 0x0000FFFFu)), 1);
  EXPECT_EQ(store("hopper", strided(16, 16, 0x000000FFu)), 1);
  EXPECT_EQ(load("hopper", strided(4, 128, 0x3u)), 2);
  EXPECT_EQ(load("hopper", strided(4, 4, 0u)), 0);
}

TEST(Kepler, EightByteBanksServeDoublesRowInOneWavefront) {
  EXPECT_EQ(load("kepler8", strided(8, 8)), 1);
  EXPECT_EQ(load("fermi", strided(8, 8)), 2);  // Fermi: half-warps of 128 bytes
  // Two floats of one 64-bit word never conflict in 8-byte mode.
  EXPECT_EQ(load("kepler8", strided(4, 4)), 1);
  // A column of a 32x32 double tile: 32 distinct 8-byte words in one bank.
  EXPECT_EQ(load("kepler8", strided(8, 32 * 8)), 32);
}

TEST(Kepler, FourByteModeConflictsOnlyAcross64WordSegments) {
  // The seed's float2 filter: 32 consecutive float2 (256 bytes). Aligned to a 64-word segment
  // they are served at once in either mode; shifted by 10 float2 they span two segments, and
  // 4-byte mode needs two passes where 8-byte mode still needs one.
  EXPECT_EQ(load("kepler4", strided(8, 8)), 1);
  const AccessResult shifted = serve(arch("kepler4"), Op::Load, strided(8, 8, 0xFFFFFFFFu, 80));
  EXPECT_EQ(shifted.wavefronts, 2);
  EXPECT_EQ(shifted.ideal, 1);  // a 2-way conflict, as the seed says
  EXPECT_EQ(load("kepler8", strided(8, 8, 0xFFFFFFFFu, 80)), 1);
  // Ints at stride 2 words: banks 0,2,..,30 twice, but within one 256-byte segment on Kepler.
  EXPECT_EQ(load("kepler4", strided(4, 8)), 1);
  EXPECT_EQ(load("maxwell", strided(4, 8)), 2);
}

TEST(Tesla, HalfWarpsNeverConflictWithEachOther) {
  // cc 1.x: 16 banks; lane l and l+16 hit the same bank but are served separately.
  EXPECT_EQ(load("cc1x", strided(4, 4)), 2);
  EXPECT_EQ(load("cc1x", strided(4, 4, 0x0000FFFFu)), 1);
  EXPECT_EQ(load("cc1x", strided(4, 16 * 4)), 32);
  EXPECT_EQ(load("cc1x", strided(4, 17 * 4)), 2);
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

}  // namespace
}  // namespace bankviz
