// hazard.h: the one hazard model. Which accesses of a Trace race, in CUDA's terms.
//
// Ordering, as CUDA promises it: within one warp the steps run in program order; between warps
// nothing is ordered except by __syncthreads(). So two accesses to one element by different warps
// between the same two barriers race when at least one writes, unless both are atomics:
//   read-after-write  (a load of what another warp stores earlier in program order),
//   write-after-read  (a store to what another warp loads earlier in program order),
//   write-after-write (two warps store the element),
//   atomic vs plain   (an atomicAdd and another warp's plain load or store of the element).
// The analysis reports them; the CPU reference uses the per-lane flags to leave racing results
// out of the comparison. Both read this, so the app, the CLI and a GPU run report the same races.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/scenario.h"
#include "bankviz/trace.h"

namespace bankviz {

enum class HazardKind { ReadAfterWrite, WriteAfterRead, WriteAfterWrite, AtomicVsPlain };
const char* hazard_kind_name(HazardKind k);  // "read after write", ...

// One lane's access in a trace: executed step, warp, lane.
struct AccessRef {
  int step = -1, warp = -1, lane = -1;
};

struct Hazard {
  HazardKind kind = HazardKind::ReadAfterWrite;
  int tile = 0;
  int64_t element = 0;
  AccessRef first, second;  // first in program order (for write-after-write: the same step, or
                            // the earlier one)
  int64_t lanes = 1;        // racing lane accesses of this kind between these two scenario steps
                            // (an access racing with several steps counts in each pair)
  std::string message;      // the hazard in words, naming both threads, steps and the element
};

struct Hazards {
  // Per executed step and warp: lanes whose access races. A racing load's value depends on timing;
  // after a racing store or atomic the element's value does.
  std::vector<std::vector<uint32_t>> racing;  // [step][warp], empty rows for syncs
  int64_t racing_accesses = 0;                // lanes set in `racing`, over all steps
  // One per (kind, pair of scenario steps) that race, each naming both accesses: every pair,
  // the first 32 in the order found (`pairs` counts them all).
  std::vector<Hazard> examples;
  int64_t pairs = 0;
  // The pairing's work bound was reached (thousands of scenario steps writing one slot between
  // two barriers): every racing lane is flagged and counted, but later pairs are not named and
  // `pairs` is a lower bound. Below it, `pairs` is exact however many steps write one slot.
  bool unnamed_writers = false;
  int64_t count(HazardKind k) const;
  int64_t counts[4] = {0, 0, 0, 0};  // racing lanes per kind, by the kind they were found as
};

// Every race needs a write or an add (two loads never race): a step that stores, adds or copies
// into the tile (not a load, not a barrier), and a trace holding one. find_hazards() of a trace
// without one finds nothing, and passes over each epoch without one.
bool writes_shared(const TraceStep& ts);
bool can_race(const Trace& t);

// `warps`: bit w set = the lesson's warp w ran (exposed mode runs only some); 0 = every warp.
Hazards find_hazards(const Scenario& s, const Trace& t, uint32_t warps = 0);

}  // namespace bankviz
