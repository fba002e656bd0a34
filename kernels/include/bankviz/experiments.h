// experiments.h: the seeds' own comparisons, run as the seeds ran them.
//
// A generated scenario kernel isolates one shared-memory access; the seeds timed whole programs:
// a histogram of 2^25 values with global against shared atomics, a 21-point filter over 2^24
// points with float against float2, the data-layout kernels in their one-block launch. Each
// experiment here is the seed's kernels (bankviz's own code of them, fixed text: nothing from a
// user), launched as the seed launched them on the present GPU, checked against the CPU and timed.
// Its result stands beside the seed's published figure and the model's prediction, with the
// reason they differ on this GPU in words.
#pragma once

#include <string>
#include <vector>

#include "bankviz/run_types.h"

namespace bankviz {

struct Experiment {
  std::string name;            // "histogram-atomics"
  std::string seed;            // the seed file it comes from
  std::string title;           // one line
  std::string baseline;        // the slower variant's name, as the seed calls it
  std::string improved;        // the faster one's
  std::string published;       // the seed's figure in its words ("10x faster on a Tesla T4")
  double published_ratio = 0;  // baseline time / improved time, as published
  std::string model;           // what the bank model says of the two, in words
  double model_ratio = 0;      // the model's ratio of shared-memory wavefronts; 0 = not modelled
  std::string presets;         // the bankviz presets that show the access
};

// The experiments, in the order of the seeds.
const std::vector<Experiment>& experiments();
const Experiment* find_experiment(const std::string& name);

struct VariantTiming {
  std::string name;
  double ms = 0;          // median of the timed launches (events around each launch)
  bool verified = false;  // the output equals the CPU's
  std::string check;      // "256 bins match the CPU", or what differed
};

struct ExperimentRun {
  RunStatus status = RunStatus::NotRun;
  std::string message;  // for every status but Ok
  DeviceInfo device;
  std::vector<VariantTiming> variants;  // baseline first
  double ratio = 0;                     // baseline ms / improved ms
  std::string why;  // measured against published and model, and why they differ, in words
};

// Compiles, runs, verifies and times both variants on the first GPU (timing_runs launches each,
// after one warm-up). Every failure is a value; without a GPU, NoCuda with the driver's reason.
// The data-layout experiment runs `scenarios` (the presets named in Experiment::presets, in that
// order) in written mode; the others take none.
ExperimentRun run_experiment(const Experiment& e, int timing_runs = 10,
                             const std::vector<Scenario>& scenarios = {});

}  // namespace bankviz
