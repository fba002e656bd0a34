// bench_remeasure: how long the app's figure takes to follow an edit on a GPU (issue 18, item 4:
// "every edit that changes the kernel re-measures in the background, so the figure follows the
// controls within a second").
//
// The app's Measurer (app/gui/measure/measure.cpp measure_with_runner) keeps one Runner for its
// worker's life and, per edit, runs the scenario in exposed mode (the figure on stage), then as
// written, then reads the compiled kernel's SASS. This program makes the same calls on one warm
// Runner for a series of edits (each preset as loaded, then padding +1, then float2) and prints the
// wall time of each part, so the table says where the second goes. The app now hands the figure
// (exposed timing without counters, the first column) over before the rest (measure.h).
//
//   bench_remeasure PRESETS_DIR [PRESET...]
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/compare.h"
#include "bankviz/compiled.h"
#include "bankviz/runner.h"
#include "bankviz/scenario.h"

using namespace bankviz;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Edit {
  std::string what;
  Scenario scenario;
};

std::vector<Edit> edits_of(const std::string& dir, const std::string& name) {
  std::vector<Edit> out;
  ScenarioLoad l = load_scenario_file(dir + "/" + name + ".json");
  if (!l.scenario) {
    std::fprintf(stderr, "%s: does not load\n", name.c_str());
    return out;
  }
  out.push_back({name, *l.scenario});
  if (l.scenario->tiles.empty()) return out;
  const std::string pad = std::to_string(l.scenario->tiles[0].pad + 1);
  if (ScenarioLoad p = apply_sweep_value(*l.scenario, "pad", pad); p.scenario)
    out.push_back({name + " pad=" + pad, *p.scenario});
  if (ScenarioLoad f = apply_sweep_value(*l.scenario, "elem", "float2"); f.scenario)
    out.push_back({name + " float2", *f.scenario});
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_remeasure PRESETS_DIR [PRESET...]\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::vector<std::string> names;
  for (int i = 2; i < argc; ++i) names.emplace_back(argv[i]);
  if (names.empty())
    names = {"row-write-column-read", "kepler-filter-float", "histogram-shared-atomics",
             "dot-product-reduction", "matmul-tile32"};
  Runner runner;
  std::string reason;
  const double t0 = now_s();
  const DeviceInfo dev = runner.device(&reason);
  if (!dev.present) {
    std::printf("no CUDA device: %s\n", reason.c_str());
    return 1;
  }
  std::printf("%s (%s), first device() %.3f s\n", dev.name.c_str(), dev.sm.c_str(), now_s() - t0);
  // figure: exposed mode without counters (what the stage line needs); exposed: with them, as the
  // app measures; total: exposed + written + compiled, the app's measurement today.
  std::printf("%-34s %8s %8s %8s %8s %8s  %s\n", "edit", "figure", "exposed", "written", "compiled",
              "total", "cycles/instr (without counters)");
  for (const std::string& name : names)
    for (const Edit& e : edits_of(dir, name)) {
      if (!analyze(e.scenario).analysis) {
        std::printf("%-34s does not analyze\n", e.what.c_str());
        continue;
      }
      RunOptions o;
      o.mode = RunMode::Exposed;
      o.counters = false;  // the figure alone: timing without the counters' launches
      const double z = now_s();
      const RunResult fig = runner.run(e.scenario, o);
      if (fig.status != RunStatus::Ok) {  // not a timing: the run's refusal (float2 atomics)
        std::printf("%-34s not run: %s: %s\n", e.what.c_str(), run_status_name(fig.status),
                    fig.message.c_str());
        continue;
      }
      o.counters = true;
      const double a = now_s();
      const RunResult ex = runner.run(e.scenario, o);
      const double b = now_s();
      o.mode = RunMode::Written;
      const RunResult wr = runner.run(e.scenario, o);
      const double c = now_s();
      const AsCompiled ac = as_compiled(e.scenario, find_arch(dev.model_arch));
      const double d = now_s();
      double cycles = 0, fig_cycles = 0;
      for (const StepTiming& st : ex.exposed.steps) cycles += st.cycles_per_instruction;
      for (const StepTiming& st : fig.exposed.steps) fig_cycles += st.cycles_per_instruction;
      std::printf("%-34s %7.3fs %7.3fs %7.3fs %7.3fs %7.3fs  %s %.2f (%.2f) cycles/instr%s\n",
                  e.what.c_str(), a - z, b - a, c - b, d - c, d - a, run_status_name(ex.status),
                  cycles, fig_cycles, ac.error.empty() ? "" : " (no SASS)");
    }
  return 0;
}
