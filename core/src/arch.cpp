// arch.cpp: the rule sets and where each rule comes from.
//
// Published rules follow NVIDIA's programming guide: the CUDA C Programming Guide 4.2 (2012),
// Appendix F (F.3.3 cc 1.x, F.4.3 cc 2.x, F.5.3 cc 3.0) and the CUDA C++ Programming Guide 12.x,
// "Compute Capability 5.x > Shared Memory" (6.x to 8.x refer back to it). Where the guide is
// silent or ambiguous the rule is marked extrapolated and says what we chose. Measured rules are
// from Nsight Compute on an H200 (docs/HOPPER_RULE.md). docs/PUBLISHED_RULES.md quotes the guide.
#include "bankviz/arch.h"

#include <algorithm>
#include <array>

namespace bankviz {
namespace {

using P = Provenance;

constexpr std::string_view kAtomicText =
    "Shared-memory atomics: every lane takes a pass of its own through its bank, even lanes on "
    "one word (measured on Hopper; the guide says nothing of atomics and banks).";

constexpr std::array<Rule, 7> kTeslaRules = {{
    {P::Published, "16 banks; successive 32-bit words map to successive banks.",
     "CUDA C Programming Guide 4.2, F.3.3"},
    {P::Published,
     "A warp's request is split into one request per half-warp, issued independently: threads of "
     "different half-warps never conflict.",
     "CUDA C Programming Guide 4.2, F.3.3"},
    {P::Published,
     "Reads: each pass broadcasts ONE 32-bit word to every lane reading in it, and serves one "
     "lane in each other bank; further words, also further broadcast words, take further passes. "
     "So 8- and 16-bit reads conflict (char shared[tid]: shared[0..3] share a bank).",
     "CUDA C Programming Guide 4.2, F.3.3.2 and F.3.3.3"},
    {P::Extrapolated,
     "Which word is broadcast and which address each other bank serves is unspecified in the "
     "guide: we take the word of the lowest remaining lane, and the lowest remaining lane of "
     "each bank. We read \"one address\" as one lane: more lanes on one word outside the "
     "broadcast bank would be a second broadcast word, which F.4.3 says only cc 2.x can do.",
     "CUDA C Programming Guide 4.2, F.3.3.2 (\"unspecified\") and F.4.3"},
    {P::Published,
     "Accesses wider than 32 bits are compiled into separate 32-bit requests (a double: two "
     "requests with a stride of two words), each served by half-warps.",
     "CUDA C Programming Guide 4.2, F.3.3.4"},
    {P::Extrapolated,
     "Writes: the guide only says one thread per half-warp writes a location. We serve one "
     "address per bank per pass: lanes writing that address share the pass, other bytes of the "
     "same word take passes of their own.",
     "CUDA C Programming Guide 4.2, F.3.3"},
    {P::Extrapolated, kAtomicText, "docs/HOPPER_RULE.md"},
}};

constexpr std::array<Rule, 6> kFermiRules = {{
    {P::Published, "32 banks; successive 32-bit words map to successive banks.",
     "CUDA C Programming Guide 4.2, F.4.3"},
    {P::Published,
     "No conflict between threads on any address within one 32-bit word: reads broadcast it "
     "(several words in one pass, unlike cc 1.x), writes keep one thread's value. Threads of both "
     "half-warps may conflict.",
     "CUDA C Programming Guide 4.2, F.4.3"},
    {P::Published,
     "64-bit accesses: a conflict only occurs between two threads of one half-warp, so each "
     "half-warp is served on its own.",
     "CUDA C Programming Guide 4.2, F.4.3.2"},
    {P::Published,
     "128-bit accesses: each quarter-warp is served on its own, and its ways of conflict are 1 + "
     "the most threads of the quarter-warp on different addresses of one bank.",
     "CUDA C Programming Guide 4.2, F.4.3.2"},
    {P::Extrapolated,
     "The guide says \"the majority of\" 128-bit accesses pay that extra pass without saying which "
     "do not: we charge it to every quarter-warp, and draw it on its busiest bank(s).",
     "CUDA C Programming Guide 4.2, F.4.3.2"},
    {P::Extrapolated, kAtomicText, "docs/HOPPER_RULE.md"},
}};

constexpr std::string_view kKeplerWide =
    "8-byte accesses are served for the whole warp, 16-byte ones by half-warps: a pass "
    "delivers 256 bytes (32 banks of 64 bits). The guide says nothing of accesses wider than 32 "
    "bits on cc 3.x.";

constexpr std::array<Rule, 4> kKepler4Rules = {{
    {P::Published,
     "32 banks of 64 bits of bandwidth; in 32-bit mode (cudaSharedMemBankSizeFourByte, the "
     "default) successive 32-bit words map to successive banks.",
     "CUDA C Programming Guide 4.2, F.5.3 and F.5.3.2"},
    {P::Published,
     "No conflict between threads within one 32-bit word, or within words i and i+32 of one "
     "64-word aligned segment: words of one bank conflict only across 256-byte segments.",
     "CUDA C Programming Guide 4.2, F.5.3.2"},
    {P::Extrapolated, kKeplerWide, "CUDA C Programming Guide 4.2, F.5.3 (silent)"},
    {P::Extrapolated, kAtomicText, "docs/HOPPER_RULE.md"},
}};

constexpr std::array<Rule, 4> kKepler8Rules = {{
    {P::Published,
     "32 banks; in 64-bit mode (cudaSharedMemBankSizeEightByte) successive 64-bit words map to "
     "successive banks.",
     "CUDA C Programming Guide 4.2, F.5.3.1"},
    {P::Published,
     "No conflict between threads on any address within one 64-bit word: reads broadcast it, "
     "writes keep one thread's value.",
     "CUDA C Programming Guide 4.2, F.5.3.1"},
    {P::Extrapolated, kKeplerWide, "CUDA C Programming Guide 4.2, F.5.3 (silent)"},
    {P::Extrapolated, kAtomicText, "docs/HOPPER_RULE.md"},
}};

constexpr std::array<Rule, 4> kMaxwellRules = {{
    {P::Published,
     "32 banks; successive 32-bit words map to successive banks (cc 6.x, 7.x and 8.x: \"the same "
     "way as 5.x\").",
     "CUDA C++ Programming Guide 12.x, Compute Capability 5.x > Shared Memory"},
    {P::Published,
     "No conflict between threads on any address within one 32-bit word: reads broadcast it, "
     "writes keep one thread's value; the whole warp is one request.",
     "CUDA C++ Programming Guide 12.x, Compute Capability 5.x > Shared Memory"},
    {P::Extrapolated,
     "8-byte accesses are served by half-warps, 16-byte ones by quarter-warps (a pass delivers 128 "
     "bytes). The guide says nothing of accesses wider than 32 bits since cc 2.x; Hopper's stores "
     "were measured to split this way.",
     "CUDA C++ Programming Guide 12.x (silent); docs/HOPPER_RULE.md"},
    {P::Extrapolated, kAtomicText, "docs/HOPPER_RULE.md"},
}};

constexpr std::array<Rule, 4> kHopperRules = {{
    {P::Measured,
     "32 banks of 4 bytes; lanes on one 32-bit word share it (loads broadcast, stores keep one "
     "value); 1-, 2- and 4-byte accesses are served for the whole warp.",
     "docs/HOPPER_RULE.md: 4624 load/store patterns on an H200"},
    {P::Measured, "8-byte stores are served by half-warps, 16-byte stores by quarter-warps.",
     "docs/HOPPER_RULE.md"},
    {P::Measured,
     "8/16-byte loads whose lanes pair up (2i/2i+1, or 4q/4q+2 and 4q+1/4q+3, share addresses) "
     "are split half as finely: 8-byte ones for the whole warp, 16-byte ones by half-warps.",
     "docs/HOPPER_RULE.md"},
    {P::Measured,
     "Shared-memory atomics: every lane takes a pass of its own through its bank, even lanes on "
     "one word.",
     "docs/HOPPER_RULE.md: 456 atomic patterns on an H200"},
}};

constexpr std::array<Arch, 6> kArchs = {{
    {.id = "cc1x",
     .name = "Tesla (cc 1.x)",
     .sm = "1.x",
     .banks = 16,
     .bank_bytes = 4,
     .line_bytes = 64,
     .half_warp_unit = true,
     .word_requests = true,
     .one_broadcast = true,
     .source = "programming guide 4.2 F.3.3: 16 banks of 4 bytes, half-warps, one broadcast word "
               "per pass, wider accesses as 32-bit requests",
     .rules = kTeslaRules},
    {.id = "fermi",
     .name = "Fermi (cc 2.x)",
     .sm = "2.x",
     .quarter_extra_pass = true,
     .source = "programming guide 4.2 F.4.3: 32 banks of 4 bytes, conflicts across the whole "
               "warp; 64-bit by half-warps, 128-bit by quarter-warps plus one pass",
     .rules = kFermiRules},
    {.id = "kepler4",
     .name = "Kepler, 4-byte banks (cc 3.x)",
     .sm = "3.x",
     .line_bytes = 256,
     .source = "programming guide 4.2 F.5.3.2: cudaSharedMemBankSizeFourByte (the default): "
               "bank = (address / 4) % 32, words of one bank conflict only across 256-byte "
               "segments",
     .rules = kKepler4Rules},
    {.id = "kepler8",
     .name = "Kepler, 8-byte banks (cc 3.x)",
     .sm = "3.x",
     .bank_bytes = 8,
     .line_bytes = 256,
     .source = "programming guide 4.2 F.5.3.1: cudaSharedMemBankSizeEightByte: bank = (address / "
               "8) % 32; any bytes of one 64-bit word never conflict",
     .rules = kKepler8Rules},
    {.id = "maxwell",
     .name = "Maxwell to Ada (cc 5.x-8.9)",
     .sm = "5.x-8.9",
     .source = "programming guide 12.x, cc 5.x: 32 banks of 4 bytes, one 32-bit word never "
               "conflicts",
     .rules = kMaxwellRules},
    {.id = "hopper",
     .name = "Hopper (sm_90)",
     .sm = "9.0",
     .hopper_loads = true,
     .measured = true,
     .source = "measured on an H200 with ncu (4624 load/store and 456 atomic warp patterns): "
               "1/2/4-byte and stores as published, atomics one pass per lane; "
               "8/16-byte loads merge the split when lanes pair up (docs/HOPPER_RULE.md)",
     .rules = kHopperRules},
}};

}  // namespace

const char* provenance_name(Provenance p) {
  switch (p) {
    case Provenance::Published:
      return "published";
    case Provenance::Extrapolated:
      return "extrapolated";
    case Provenance::Measured:
      return "measured";
  }
  return "?";
}

bool Arch::has(Provenance p) const {
  return std::any_of(rules.begin(), rules.end(), [p](const Rule& r) { return r.provenance == p; });
}

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

std::string provenance_summary(const Arch& arch) {
  if (arch.measured) return "measured";
  const auto extrapolated = std::count_if(arch.rules.begin(), arch.rules.end(), [](const Rule& r) {
    return r.provenance == Provenance::Extrapolated;
  });
  if (extrapolated == 0) return "published";
  return "published; " + std::to_string(extrapolated) + " of " + std::to_string(arch.rules.size()) +
         " rules extrapolated";
}

}  // namespace bankviz
