// arch.h: the shared-memory rule sets bankviz models, one per GPU generation, and the geometry
// of a byte address in their banks.
//
// Each architecture says how many banks there are, how wide a bank is, how a warp's request is
// split before banks are counted, and where every rule comes from: NVIDIA's CUDA C Programming
// Guide (published), our reading where the guide is silent or ambiguous (extrapolated), or
// Nsight Compute counters on real hardware (measured). docs/PUBLISHED_RULES.md quotes the guide;
// docs/HOPPER_RULE.md has the evidence for the measured Hopper rule.
//
// The one home of the address -> bank mapping (every view and access.cpp call these):
//
//   byte address -> word = address / bank_bytes -> bank = word % banks
//                                                -> line = word / banks   (a row of the pictures)
//                                                -> segment = address / line_bytes
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace bankviz {

// Where a rule comes from.
enum class Provenance {
  Published,     // the programming guide says so
  Extrapolated,  // the guide is silent or ambiguous; this is our reading, to be checked on hardware
  Measured,      // Nsight Compute counters on the hardware (docs/HOPPER_RULE.md)
};
const char* provenance_name(Provenance p);  // "published" / "extrapolated" / "measured"

// One rule of a rule set: what the model does, and on whose authority.
struct Rule {
  Provenance provenance = Provenance::Published;
  std::string_view text;   // what the model does, one or two sentences
  std::string_view where;  // the guide's version and section, or the evidence
};

inline constexpr int kMaxBanks = 32;

// The version of the model's rules: raised whenever what the model counts changes (a rule set
// here, serve() in access.h, the instruction a step compiles to, exposed mode's prediction), so
// that a recorded measurement (app/shared/recorded.h) made with older rules says so.
// tests/core/test_rules_version.cpp fails when the presets' figures change without it.
inline constexpr int kModelRulesVersion = 1;

struct Arch {
  std::string_view id;          // command-line / JSON name: "hopper", "kepler8", ...
  std::string_view name;        // display name: "Hopper (sm_90)"
  std::string_view sm;          // compute capability as "9.0", "3.x"
  int banks = 32;               // number of banks (a power of two, at most kMaxBanks)
  int bank_bytes = 4;           // address -> bank granularity (Kepler's 8-byte mode: 8)
  int line_bytes = 128;         // bytes one wavefront can deliver. Words in one bank conflict
                                // only if they lie in different line_bytes-aligned segments
                                // (Kepler's banks are 64 bits wide: 256-byte lines in both modes)
  bool half_warp_unit = false;  // cc 1.x: each half-warp is served on its own, never conflicts
                                // with the other half, for every access width
  bool word_requests = false;   // cc 1.x: an access wider than 32 bits is compiled into separate
                                // 32-bit requests, one per word of the access
  bool one_broadcast = false;   // cc 1.x: a pass broadcasts one word; every other bank serves one
                                // lane (reads), or one address (writes)
  bool quarter_extra_pass = false;  // Fermi: a 128-bit quarter-warp takes one pass more than its
                                    // busiest bank needs (the guide's "add 1")
  bool hopper_loads = false;        // measured sm_90 load rule: 8/16-byte loads may merge the
                                    // fixed half-/quarter-warp split (docs/HOPPER_RULE.md)
  bool measured = false;            // the rule set as a whole was checked against Nsight Compute
  std::string_view source;          // one line: where the rules come from
  std::span<const Rule> rules;      // every rule with its provenance

  // [SECTION] Geometry of a byte address. Bank counts, bank widths and line sizes are powers of
  // two, so these are shifts and masks.
  constexpr int word_shift() const { return std::countr_zero(static_cast<unsigned>(bank_bytes)); }
  constexpr int bank_shift() const { return std::countr_zero(static_cast<unsigned>(banks)); }
  // log2(words per line_bytes segment)
  constexpr int segment_shift() const {
    return std::countr_zero(static_cast<unsigned>(line_bytes)) - word_shift();
  }
  // address -> bank word (address / bank_bytes)
  constexpr uint32_t word_of(uint32_t address) const { return address >> word_shift(); }
  // bank word -> bank (word % banks)
  constexpr int bank_of_word(uint32_t word) const {
    return static_cast<int>(word & static_cast<uint32_t>(banks - 1));
  }
  // address -> bank
  constexpr int bank_of(uint32_t address) const { return bank_of_word(word_of(address)); }
  // bank word -> line: the row of the bank pictures holding it (one word in every bank)
  constexpr uint32_t line_of_word(uint32_t word) const { return word >> bank_shift(); }
  constexpr uint32_t line_of(uint32_t address) const { return line_of_word(word_of(address)); }
  // (line, bank) -> bank word: the cell of the bank pictures
  constexpr uint32_t word_at(uint32_t line, int bank) const {
    return line << bank_shift() | static_cast<uint32_t>(bank);
  }
  // Bytes in one row of the bank pictures: banks * bank_bytes (128; 64 on cc 1.x; 256 in Kepler's
  // 8-byte mode). Not line_bytes: Kepler's 4-byte mode shows 128-byte rows of 256-byte segments.
  constexpr int line_bytes_shown() const { return banks * bank_bytes; }
  // bank word -> line_bytes segment: two words of one bank conflict only across segments
  constexpr uint32_t segment_of_word(uint32_t word) const { return word >> segment_shift(); }

  // Does any rule of this set carry this provenance?
  bool has(Provenance p) const;
};

// All architectures, in historical order. The pointers stay valid for the program's life.
std::span<const Arch> all_archs();

// The architecture with this id, or nullptr.
const Arch* find_arch(std::string_view id);

// The default architecture: "hopper".
const Arch& default_arch();

// "hopper, maxwell, ..." for error messages and --help.
std::string arch_ids();

// One line on the rule set's standing: "measured", "published", or "published; 2 of 6 rules
// extrapolated" (what `archs` and the app print beside the name).
std::string provenance_summary(const Arch& arch);

}  // namespace bankviz
