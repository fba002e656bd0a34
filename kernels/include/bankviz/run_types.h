// run_types.h: the vocabulary of kernels/: what a run is asked (RunOptions), what it reports
// (RunStatus, RunResult and its timings, DeviceInfo), and the pieces that need no Runner: a result
// in words, the watchdog's estimate and wait, the model's arch for a GPU, NVRTC alone. The files
// below the facade include this; the facade itself, Runner, is runner.h.
//
// Every failure is a value, never a crash: a RunResult's status says which, its message why.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bankviz/codegen.h"
#include "bankviz/counters.h"
#include "bankviz/reference.h"
#include "bankviz/scenario.h"

namespace bankviz {

struct DeviceInfo {
  bool present = false;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;
  std::string sm;  // "sm_90": what NVRTC compiles for
  int sm_count = 0;
  int clock_khz = 0;  // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (the boost clock)
  int max_threads_per_block = 0;
  int64_t shared_per_block = 0;        // without opt-in (48 KB)
  int64_t shared_per_block_optin = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int64_t shared_per_sm = 0;
  std::string model_arch;  // arch.h id whose rules describe this GPU ("hopper", "maxwell")
};

enum class RunStatus {
  Ok,            // ran; see verification for the result check
  NotRun,        // nothing has run or failed yet: a result's state until its run decides it
  NoCuda,        // built without CUDA, no driver, or no device: message has the reason
  BadScenario,   // the scenario cannot become a kernel, or the CPU evaluation refused it
  CompileError,  // NVRTC rejected the source: message quotes the generated line
  TooLarge,      // the tile or the block exceeds what the device allows (message names it)
  LaunchError,   // the launch or the kernel failed (a fault: this process cannot run kernels again)
  BadArguments,  // profile: the kernel's parameters and the --arg given do not match
  Timeout,       // the kernel would run too long (model estimate) or did not finish in time;
                 // a kernel that was stopped took the context with it: the next run makes a new one
};
const char* run_status_name(RunStatus s);

struct RunOptions {
  RunMode mode = RunMode::Written;
  int timing_runs = 5;         // timed repetitions; the best (exposed) or median (written) is kept
  int written_launches = 200;  // launches between two events, written mode
  int64_t reps = 0;            // exposed mode repeats per measured step (0: sized for ~2 ms)
  bool warmup = true;          // one untimed launch of each configuration first
  // Watchdog. Exposed mode refuses a launch whose model estimate exceeds max_launch_ms (the
  // automatic repeat count is lowered to fit); any wait for the GPU gives up after timeout_ms,
  // resets the CUDA context and reports RunStatus::Timeout. The reset itself waits until the
  // running kernel ends (the driver cannot cut it short), which the estimate keeps to seconds.
  double max_launch_ms = 2000;
  double timeout_ms = 10000;
  // Read the GPU's shared-memory counters (CUPTI, counters.h) in launches of their own after the
  // timed ones: per step (exposed) or per kernel (written), beside the model.
  bool counters = true;
};

// Written mode: the lesson's launch.
struct WrittenTiming {
  int64_t grid = 1;
  int launches = 0;
  double us_per_launch = 0;  // events around `launches` back-to-back launches, median run
  double us_single = 0;      // events around one launch (includes launch overhead), median
  // The lesson's launch once more with the counters on: per lesson block, every shared step.
  CounterComparison hw;
};

// Exposed mode: one row per scenario memory step.
struct StepTiming {
  int step = 0;  // index into Scenario::steps
  std::string label;
  std::string kind;  // "load", "store", "atomic"
  int64_t reps = 0;
  int64_t instructions_per_block = 0;  // warp instructions of this step, once (no repeats)
  double ms = 0;                       // best of timing_runs, measured launch
  double cycles_per_instruction = 0;   // measured: SM cycles per warp-wide shared instruction
  double model_wavefronts = 0;         // present GPU's model: wavefronts per warp instruction
  double scenario_wavefronts = 0;      // the scenario's own arch (differs for Kepler 8-byte, cc1.x)
  // The prediction (plan.h predict_step_cost()): cycles per warp instruction, one per wavefront
  // as written unless `prediction` names another rule (cp.async's copy, a load with inactive
  // lanes, a float atomic's compare-and-swap loop as compiled).
  double predicted_cycles = 0;
  std::string prediction;
  double ratio = 0;  // measured cycles / predicted cycles (1.0 = the prediction exactly)
  double bytes_per_clock_per_sm = 0;  // bytes the active lanes asked for, per SM cycle
  // The step's launch: only the lesson's warps with an active lane in it (bit w of
  // lesson_warps = the lesson's warp w), as 1-D blocks of block_threads, blocks_per_sm of them
  // on each SM (grid in all), and its baseline (every step once, same launch) in baseline_ms.
  // A block may hold `replicas` copies of those warps (each playing the same lesson threads on
  // its own copy of every tile, codegen.h), so that a step of one or two lesson warps still fills
  // the SM (kFullWarps): block_threads = replicas x the mask's lanes, and the step's instructions
  // per launched block are replicas x instructions_per_block.
  int64_t grid = 0;
  int blocks_per_sm = 0;
  int block_threads = 0;
  uint32_t lesson_warps = 0;
  int replicas = 1;
  double baseline_ms = 0;
  // Index (from 0, in launch order within this run) of the last timed launch of the baseline
  // and of the step, so hardware counters (ncu) can be matched to them.
  int baseline_launch = -1, measured_launch = -1;
  // Warps of the SM that execute this step (launched warps x resident blocks), and of the SM's
  // 4 warp schedulers how many hold one (block b's warp w in warp slot b * W + w, scheduler
  // slot % 4). Measured on an H200 (2026-11-22): each warp pushes a shared instruction only
  // every ~10 (loads) to ~14 (stores) cycles when few warps take part, whatever the schedulers:
  // with fewer than kSharedBoundWarps active warps per SM the warps, not the banks, set the pace
  // (with the lesson's block shape the dot product's `cacheIndex < 32` steps had 8 warps: 1.3x
  // loads, 1.7x stores), so such a step is not a test of the bank model: shared_bound is false.
  // Launching only the step's warps, in small blocks, is what lifts them to kSharedBoundWarps;
  // replicas of one-warp steps lift them further, to kFullWarps.
  int active_warps_per_sm = 0;
  int schedulers = 0;
  bool shared_bound = false;
  // cp.async also reads its source (global memory, through L1) in the same pipe: an H100
  // measured 2.2 to 3.4 cycles per warp instruction below 4 wavefronts, however few its shared
  // write needs, and about 0.45 cycles more than its wavefronts from 4 up (plan.h copy_cycles(),
  // which predicts it). Below kCopyCycles wavefronts the copy, not the banks, sets the pace:
  // copy_bound, said in the explanation; the prediction follows the copy.
  bool copy_bound = false;
  // The step's launch (repeats 2) less its baseline, with the counters on: this step once, per
  // lesson block, beside the model of the present GPU.
  CounterComparison hw;
};

inline constexpr double kCopyCycles = 5.0;
inline constexpr int kSharedBoundWarps = 32;
// Warps per SM that exposed mode aims for when it chooses replicas (an H100/H200 SM holds 64).
inline constexpr int kFullWarps = 64;

struct ExposedTiming {
  int64_t grid = 0;  // the launch of all the lesson's warps (each step's own: StepTiming)
  int blocks_per_sm = 0;
  double baseline_ms = 0;  // every step once, all warps
  std::vector<StepTiming> steps;
};

struct RunResult {
  RunStatus status = RunStatus::NotRun;
  std::string message;  // for every status but Ok: what went wrong, in words
  RunMode mode = RunMode::Written;
  DeviceInfo device;
  std::string source;         // the kernel that ran (or failed to compile)
  std::string compile_log;    // NVRTC's log, when it said anything
  bool cache_hit = false;     // the cubin and the loaded module came from the in-memory caches
                              // (both bounded: a kernel not run for a while is compiled again)
  double compile_ms = 0;      // NVRTC (0 when cached)
  double run_ms = 0;          // everything after compiling: launches, copies, verification
  std::string scenario_arch;  // the scenario's arch id
  std::string arch_note;      // why measurement and the scenario's model may differ
  Verification verification;
  std::vector<std::string> races;  // from the CPU evaluation
  WrittenTiming written;
  ExposedTiming exposed;
  // The hardware counters: Ok (read into written.hw / each step's hw), Off, or why not
  // (counters_message: counter_problem()'s words with the fix). Timing never depends on them.
  CounterStatus counters = CounterStatus::Off;
  std::string counters_message;
  double counters_ms = 0;       // what reading them added to the run
  std::string counters_timing;  // where that time went (CUPTI's steps)
};

// Words a student understands for a result: what the run's mode measures, and, when the
// scenario simulates another architecture (Kepler's 8-byte banks, cc 1.x's 16 banks), which GPU
// the measurement ran on, the model's prediction for that GPU next to the scenario's, and why
// they differ; for exposed runs also which steps are issue-bound rather than bank-bound.
// Paragraphs separated by blank lines. `s` is the scenario that ran. Empty for a failed run.
std::string explain_result(const Scenario& s, const RunResult& r);
// The hardware counters beside the model in words (part of explain_result()): whether they agree,
// and for each row that does not, why (blocks that differ, the compiler's instructions, a rule
// set that is not measured), or why no counters were read, with the fix. Empty when not asked.
std::string explain_counters(const RunResult& r);
// Just the mode's explanation (what "as written" and "exposed" measure, and why they differ).
std::string explain_mode(RunMode m);

// Watchdog pieces (no GPU needed).
// The model's estimate of one exposed launch, in ms: every wavefront (or, when more, every warp
// instruction) of each memory step costs one cycle of the SM's shared pipe, the measured step
// `reps` times (measure = -1: none), blocks_per_sm blocks one after the other, all SMs at once.
// A lower bound on the real time: issue-bound steps run up to ~1.7x longer. -1 if the scenario
// cannot be analyzed.
double estimate_exposed_launch_ms(const Scenario& s, int measure, int64_t reps, int blocks_per_sm,
                                  int clock_khz);
enum class WaitOutcome { Done, Failed, TimedOut };
// Polls `query` (returns 0: done, 1: not ready yet, 2: failed) until it is done or failed, or
// timeout_ms has passed since the call.
WaitOutcome wait_with_timeout(const std::function<int()>& query, double timeout_ms);

// True when this build has the CUDA toolkit (NVRTC and the driver API headers).
bool built_with_cuda();

// The arch.h id whose rules describe a GPU of this compute capability.
std::string model_arch_for(int cc_major, int cc_minor);

// NVRTC alone, no device needed: compiles the source for an sm ("sm_90") and returns the log.
// ok=false with the message (the generated line quoted) on error or when built without CUDA.
struct CompileCheck {
  bool ok = false;
  std::string message;
  std::string log;
  double ms = 0;
  size_t cubin_bytes = 0;
};
CompileCheck compile_only(const KernelSource& k, const std::string& sm);

}  // namespace bankviz
