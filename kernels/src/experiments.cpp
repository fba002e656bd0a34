// experiments.cpp: the seeds' comparisons (experiments.h): what each seed published and what the
// model says. Running them is experiments_run.cpp (CUDA builds) or a NoCuda value.
#include "bankviz/experiments.h"

namespace bankviz {

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> list = {
      {"data-layout-row-vs-column", "data-layout-in-shared-memory.txt",
       "setRowReadRow against setColReadCol, one 32 x 32 block as the seed launched them",
       "setColReadCol", "setRowReadRow",
       "nvprof: 2.4640 us for setColReadCol against 1.552 us for setRowReadRow (1.59x)",
       2.4640 / 1.552,
       "32 wavefronts per request for the column store and load against 1 (32x the "
       "shared-memory work)",
       32.0, "column-write-column-read, row-write-row-read"},
      {"kepler-filter-float2", "kepler-bank-width-filter.txt",
       "21-point filter over 2^24 points: float against float2 (two outputs per thread)", "float",
       "float2",
       "Tesla K20c: 2.1387 ms (float), 1.78614 ms (float2, 4-byte banks), 1.33753 ms (float2, "
       "8-byte banks): 1.60x",
       2.1387 / 1.33753,
       "Kepler in 8-byte mode serves a float2 in one wavefront like a float, so the float2 kernel "
       "needs half the shared wavefronts per output (2x); in 4-byte mode, and on every GPU since "
       "Maxwell (4-byte banks, the mode setting ignored), a float2 load takes 2 wavefronts: the "
       "same wavefronts per output (1x)",
       2.0, "kepler-filter-float, kepler-filter-float2-4byte, kepler-filter-float2-8byte"},
      {"histogram-atomics", "lesson-shared-memory-histogram.txt",
       "histogram of 2^25 values in 256 bins: global atomics against shared atomics", "global",
       "shared", "Tesla T4: the shared-memory version is ten times faster (10x)", 10.0,
       "global atomics are not in the bank model; the shared version's atomicAdd(&bin, 1) on "
       "random bins takes 3.15 wavefronts per warp instruction on average (Hopper: the compiler's "
       "ATOMS.POPC.INC merges lanes on one bin, bins that share a bank serialize; 25.2 per "
       "block of 8 warps, as an H100's counters count it)",
       0.0, "histogram-shared-atomics"},
  };
  return list;
}

const Experiment* find_experiment(const std::string& name) {
  for (const Experiment& e : experiments())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace bankviz
