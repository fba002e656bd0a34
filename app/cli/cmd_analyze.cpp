// cmd_analyze.cpp: `bankviz-cli analyze`, `presets`, `archs`.
#include <iostream>
#include <memory>

#include "bankviz/analysis.h"
#include "bankviz/arch.h"
#include "bankviz/text.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

struct AnalyzeOptions {
  ScenarioOptions scenario;
  bool json = false;
  bool no_pictures = false;
  int step = -1;  // executed step to draw; -1 = the worst memory step
  int warp = 0;
  int wavefront = -1;  // -1 = all wavefronts of the step
};

void run_analyze(const AnalyzeOptions& o) {
  const Scenario s = build_scenario(o.scenario);
  const Analysis a = analyze_or_exit(s);
  if (o.json) {
    write_analysis_json(a, std::cout);
    return;
  }
  std::cout << s.name << (s.title.empty() ? "" : ": " + s.title) << "\n\n" << render_table(a);
  for (const Issue& i : a.issues) std::cout << "note: " << i.message << "\n";
  for (const TileDecl& t : s.tiles) {
    // A CuTe-laid-out tile: its layout, its swizzle in both units, and whether it broadcasts.
    if (!t.cute) continue;
    std::cout << "layout: " << t.name << " = " << t.layout_text() << ", " << t.storage_elements()
              << " elements of " << t.elem_bytes() << " bytes\n";
    if (!t.swizzle.identity())
      std::cout << "swizzle: " << swizzle_units_text(t.swizzle, t.elem_bytes())
                << (t.swizzle_on_address ? ", on the address (the base enters it)" : "") << "\n";
    if (const std::string n = t.layout_note(); !n.empty()) std::cout << "note: " << n << "\n";
  }
  if (o.no_pictures) return;
  const int step = o.step >= 0 ? o.step : a.worst_step();
  if (step < 0) return;
  if (step >= static_cast<int>(a.steps.size()))
    throw Exit{kExitUsage, "--show-step " + std::to_string(step) + ": there are " +
                               std::to_string(a.steps.size()) + " executed steps (0-based)"};
  if (a.steps[static_cast<size_t>(step)].kind == StepKind::Sync)
    throw Exit{kExitUsage, "--show-step " + std::to_string(step) + " is a __syncthreads()"};
  if (o.warp < 0 || o.warp >= a.warp_count())
    throw Exit{kExitUsage, "--warp " + std::to_string(o.warp) + ": the block has " +
                               std::to_string(a.warp_count()) + " warps"};
  const WarpStep& ws = a.warps[static_cast<size_t>(step)][static_cast<size_t>(o.warp)];
  if (o.wavefront >= ws.result.wavefronts)
    throw Exit{kExitUsage, "--wavefront " + std::to_string(o.wavefront) + ": this step needs " +
                               std::to_string(ws.result.wavefronts) + " wavefronts (0-based)"};
  std::cout << "\nstep " << step << " (" << a.steps[static_cast<size_t>(step)].label << "), warp "
            << o.warp << ": " << verdict(ws.result, ws.access.width) << "\n\n"
            << render_tile(a, step, o.warp, o.wavefront) << "\n"
            << render_banks(a, step, o.warp, o.wavefront);
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  auto* cmd = app.add_subcommand(
      "analyze", "model a scenario: wavefronts per warp and step, the tile and the banks");
  add_scenario_options(*cmd, o->scenario);
  cmd->add_flag("--json", o->json, "print the full analysis as JSON");
  cmd->add_flag("--no-pictures", o->no_pictures, "only the table");
  cmd->add_option("--show-step", o->step, "executed step to draw (default: the worst)")
      ->check(non_negative());
  cmd->add_option("--warp", o->warp, "warp to draw (default 0)")->check(non_negative());
  cmd->add_option("--wavefront", o->wavefront, "draw one wavefront only (0-based)")
      ->check(non_negative());
  cmd->callback([o] { run_analyze(*o); });
}

void add_list_commands(CLI::App& app) {
  app.add_subcommand("presets", "list the presets (the seeds' examples)")->callback([] {
    const auto names = preset_names();
    // Where it looked (BANKVIZ_DATA_DIR or BANKVIZ_ASSETS may point at a directory without any).
    if (names.empty()) {
      const std::string assets = assets_dir(), data = data_dir();
      throw Exit{kExitFailed, !assets.empty() ? "no presets found in '" + assets + "/presets'"
                              : data.empty()
                                  ? std::string("no presets found: no data directory")
                                  : "no presets found: the data directory '" + data +
                                        "' has no assets/ (BANKVIZ_DATA_DIR, BANKVIZ_ASSETS)"};
    }
    for (const auto& n : names) std::cout << n << "\n";
  });
  // One line per architecture, then its rules, each labelled published, extrapolated (the guide
  // is silent or ambiguous: our reading) or measured, with where it comes from.
  app.add_subcommand("archs", "list the architectures, their rules and where each comes from")
      ->callback([] {
        for (const Arch& a : all_archs()) {
          std::cout << a.id << "\t" << a.name << "\t" << a.banks << " banks x " << a.bank_bytes
                    << " B\t" << provenance_summary(a) << "\n";
          for (const Rule& r : a.rules) {
            std::string label = std::string(provenance_name(r.provenance)) + ":";
            label.resize(14, ' ');
            std::cout << "  " << label << r.text << " [" << r.where << "]\n";
          }
        }
      });
}

}  // namespace bankviz::cli
