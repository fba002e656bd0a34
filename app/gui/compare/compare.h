// compare.h: the app's before/after view, sweep window and seeds' experiments window: their
// state and the operations on it. The figures are core's (compare.h: summarize, compare, sweep);
// the timing is the app's Measurer (measure.h) and kernels/experiments.h. The panels
// (panel_compare.cpp, panel_sweep.cpp, panel_experiments.cpp) draw them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bankviz/compare.h"
#include "bankviz/experiments.h"
#include "bankviz/frame.h"
#include "bankviz/scenario.h"
#include "jobs/latest_job.h"

namespace bankviz::gui {

struct AppState;

// [SECTION] Before and after (CompareState lives in app_state.h)

// A candidate for side B of the current scenario: a preset that extends its name
// ("row-write-column-read" -> "row-write-column-read-padded") or the current scenario with one
// change made through core's apply_sweep_value (padding +1, a swizzle, float2).
struct CompareChoice {
  std::string label;         // "row-write-column-read-padded" / "this scenario, padding +1"
  std::string preset;        // the preset to load, or empty
  std::string param, value;  // else the change: apply_sweep_value(current, param, value)
};
// B's candidates for A, the scenario on screen (`preset`: its preset's name, empty when edited or a
// file; `analysis`: A's, for the one-change variants).
struct Preset;
std::vector<CompareChoice> compare_choices(const std::string& preset,
                                           const std::vector<Preset>& presets,
                                           const Analysis* analysis);

// Opens the comparison of the app's scenario (A) with b (checked and analyzed here). False with
// the first problem when b does not analyze.
bool open_compare(AppState& s, const Scenario& b, const std::string& name, std::string* error);
bool open_compare(AppState& s, const CompareChoice& c, std::string* error);
void close_compare(AppState& s);

// Per frame while comparing: B follows A (core's follow_playhead, frame.h); "Measure both"
// advances (A, then B, then A again so that the measurement panel shows A).
void update_compare(AppState& s);
// Starts "Measure both"; false with the reason when no GPU (or another measurement runs).
bool measure_both(AppState& s, std::string* why);

// Both sides as one 16:9 SVG slide (core's render_compare_svg), `width` units wide, with the
// measured figures when "Measure both" ran.
std::string compare_slide_svg(const AppState& s, bool light, double width = 1600);

// `bankviz --compare A B`: A and B each a preset name or a scenario file (a path, or a name
// ending in .json). Returns kExitOk, kExitUsage (an unknown preset) or kExitFailed.
int setup_compare(AppState& s, const std::string& a, const std::string& b, std::string* error);

// [SECTION] Sweep window

// The parameters: core's kSweepParams (compare.h), shown in the window's list in that order.

struct SweepState {
  bool open = false;
  int param = 0;                   // index into kSweepParams
  char range[256] = "0..32";       // the values, as parse_sweep() reads them after "param="
  std::string error;               // parse_sweep's message
  std::string scenario;            // the name of what was swept
  Scenario base;                   // what was swept (measurements apply values to it)
  std::vector<SweepPoint> points;  // core's sweep()
  int version = -1;                // AppState::version swept (an edit sweeps again: update_sweep)
  double seconds = 0;              // how long the sweep took
  // Measure: each valid point in turn through the app's Measurer; cancel stops after the one
  // running.
  bool measuring = false;
  size_t next = 0;                            // the point being measured
  std::vector<std::optional<double>> cycles;  // measured cycles per instruction, per point
  std::vector<std::string> notes;             // why a point has no measurement
  std::string measure_note;
};
// The sweep plot's y axes are log2: wavefronts per request go 1, 2, 4, ... 32, and each doubling
// gets the same height (a linear axis crowded 1, 2 and 4 together at the bottom).
struct Log2Axis {
  double bottom = 1, top = 2;  // powers of two, bottom < top
  std::vector<double> ticks;   // bottom, 2 * bottom, ... top: evenly spaced
  // Where v sits: 0 at bottom, 1 at top, in log2 (clamped to [0, 1]).
  double fraction(double v) const;
};
// The axis over [lo, hi]: bottom the power of two at or below lo, top the one at or above hi (at
// least twice bottom); values of at most 0 count as the bottom. The model's axis starts at 1.
Log2Axis log2_axis(double lo, double hi);
// A tick's label: "1", "32", "0.5".
std::string log2_tick_label(double v);

// Runs core's sweep() of the app's scenario; false with the parse error.
bool run_sweep(AppState& s);
// `--sweep pad=0..32`: sets the parameter and range from "param=values", opens the window and
// runs the sweep; false with parse_sweep's message.
bool open_sweep(AppState& s, const std::string& spec, std::string* error);
bool start_sweep_measure(AppState& s, std::string* why);
void cancel_sweep_measure(SweepState& w);
// Per frame: takes a finished measurement and queues the next; after an edit, sweeps the new
// scenario again when the last sweep took under kSweepAgainSeconds (so the plot follows the
// controls; a slow one waits for the Sweep button).
inline constexpr double kSweepAgainSeconds = 0.1;
void update_sweep(AppState& s);

// [SECTION] The seeds' experiments window

struct ExperimentsState {
  ExperimentsState();
  bool open = false;
  std::vector<std::optional<ExperimentRun>> results;  // per experiments() entry
  int running = -1;                                   // the experiment being run
  LatestJob<int, ExperimentRun> job;                  // its run (experiments() index)
  std::string note;                                   // why the last Run did not start
};
// Starts experiment i on a worker thread (one at a time).
bool start_experiment(ExperimentsState& x, int i, std::string* why);
void update_experiments(ExperimentsState& x);  // per frame: takes a finished run

}  // namespace bankviz::gui
