// arch.cpp: the rule sets. Published facts are from NVIDIA's CUDA C Programming Guide (shared
// memory sections per compute capability) and the Kepler bank-width article in the seeds;
// measured facts are from Nsight Compute on an H200 (docs/HOPPER_RULE.md).
#include "bankviz/arch.h"

#include <array>

namespace bankviz {
namespace {

constexpr std::array<Arch, 6> kArchs = {{
    {"cc1x", "Tesla (cc 1.x)", "1.x", 16, 4, 64, true, false, false,
     "published: 16 banks of 4 bytes; each half-warp is served on its own"},
    {"fermi", "Fermi (cc 2.x)", "2.x", 32, 4, 128, false, false, false,
     "published: 32 banks of 4 bytes; conflicts across the whole warp; 8-byte accesses per "
     "half-warp, 16-byte per quarter-warp"},
    {"kepler4", "Kepler, 4-byte banks (cc 3.x)", "3.x", 32, 4, 256, false, false, false,
     "published: cudaSharedMemBankSizeFourByte (the default): bank = (address / 4) % 32, but "
     "banks are 64 bits wide: words of one bank conflict only across 64-word (256-byte) "
     "segments; 8-byte accesses by the whole warp, 16-byte by half-warps"},
    {"kepler8", "Kepler, 8-byte banks (cc 3.x)", "3.x", 32, 8, 256, false, false, false,
     "published: cudaSharedMemBankSizeEightByte: bank = (address / 8) % 32; any bytes of one "
     "64-bit word never conflict; 16-byte accesses per half-warp"},
    {"maxwell", "Maxwell to Ada (cc 5.x-8.9)", "5.x-8.9", 32, 4, 128, false, false, false,
     "published: 32 banks of 4 bytes; 8-byte accesses per half-warp, 16-byte per quarter-warp"},
    {"hopper", "Hopper (sm_90)", "9.0", 32, 4, 128, false, true, true,
     "measured on an H200 with ncu (4624 load/store and 456 atomic warp patterns): 1/2/4-byte and "
     "stores as published, atomics one pass per lane; "
     "8/16-byte loads merge the split when lanes pair up (docs/HOPPER_RULE.md)"},
}};

}  // namespace

std::span<const Arch> all_archs() {
  return kArchs;
}

const Arch* find_arch(std::string_view id) {
  for (const Arch& a : kArchs)
    if (a.id == id) return &a;
  return nullptr;
}

const Arch& default_arch() {
  return kArchs.back();
}

std::string arch_ids() {
  std::string s;
  for (const Arch& a : kArchs) {
    if (!s.empty()) s += ", ";
    s += a.id;
  }
  return s;
}

}  // namespace bankviz
