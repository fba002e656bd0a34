// arch.h: the shared-memory rule sets bankviz models, one per GPU generation.
//
// Each architecture says how many banks there are, how wide a bank is, how a warp's request is
// split before banks are counted, and whether the rules were checked against hardware counters
// (measured) or taken from NVIDIA's documentation (published). docs/HOPPER_RULE.md has the
// evidence for the measured Hopper rule.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace bankviz {

struct Arch {
  std::string_view id;          // command-line / JSON name: "hopper", "kepler8", ...
  std::string_view name;        // display name: "Hopper (sm_90)"
  std::string_view sm;          // compute capability as "9.0", "3.x"
  int banks = 32;               // number of banks
  int bank_bytes = 4;           // address -> bank granularity: bank = (address / bank_bytes) %
                                // banks (Kepler's 8-byte mode: 8)
  int line_bytes = 128;         // bytes one wavefront can deliver. Words in one bank conflict
                                // only if they lie in different line_bytes-aligned segments
                                // (Kepler's banks are 64 bits wide: 256-byte lines in both modes)
  bool half_warp_unit = false;  // cc 1.x: each half-warp is served on its own, never conflicts
                                // with the other half, for every access width
  bool hopper_loads = false;    // measured sm_90 load rule: 8/16-byte loads may merge the
                                // fixed half-/quarter-warp split (docs/HOPPER_RULE.md)
  bool measured = false;        // rules checked against Nsight Compute counters
  std::string_view source;      // one line: where the rules come from
};

// All architectures, in historical order. The pointers stay valid for the program's life.
std::span<const Arch> all_archs();

// The architecture with this id, or nullptr.
const Arch* find_arch(std::string_view id);

// The default architecture: "hopper".
const Arch& default_arch();

// "hopper, maxwell, ..." for error messages and --help.
std::string arch_ids();

}  // namespace bankviz
