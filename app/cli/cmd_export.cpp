// cmd_export.cpp: `bankviz-cli export --svg out.svg [scenario flags as analyze]`: the tile and
// bank views of one frame as SVG, the same picture the desktop app draws (core/svg.h).
#include <iostream>
#include <memory>

#include "bankviz/analysis.h"
#include "bankviz/frame.h"
#include "bankviz/io.h"
#include "bankviz/svg.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

struct ExportOptions {
  ScenarioOptions scenario;
  std::string svg;
  bool force = false;
  bool dark = false;
  std::string view = "both";  // tile, banks, both
  int step = -1;              // executed step; -1 = the worst memory step
  int warp = 0;
  int wavefront = 0;
  double cell = 22;
};

void run_export(const ExportOptions& o) {
  // Said before any work; said again by the write itself if the file appears meanwhile.
  if (std::string why = output_problem(o.svg, o.force); !why.empty()) throw Exit{kExitFailed, why};
  const Scenario s = build_scenario(o.scenario);
  const Analysis a = analyze_or_exit(s);
  Playback p;
  p.loop = false;
  int step = o.step >= 0 ? o.step : a.worst_step();
  Frame f;
  if (step >= 0) {
    double t = time_of(a, p, step, o.warp, o.wavefront);
    if (t < 0)
      throw Exit{kExitUsage, "no frame at --show-step " + std::to_string(step) + " --warp " +
                                 std::to_string(o.warp) + " --wavefront " +
                                 std::to_string(o.wavefront) +
                                 " (a sync, an idle warp, or too few wavefronts)"};
    f = frame_at(a, t, p);
  }
  SvgOptions so;
  so.light = !o.dark;
  so.cell = o.cell;
  so.tile_view = o.view != "banks";
  so.bank_view = o.view != "tile";
  if (std::string why = write_file_atomic(o.svg, render_svg(a, f, so), o.force); !why.empty())
    throw Exit{kExitFailed, why};
  std::cout << "wrote " << o.svg << "\n";
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "write the tile and bank views of one frame as SVG");
  add_scenario_options(*cmd, o->scenario);
  cmd->add_option("--svg", o->svg, "output SVG file")->required();
  cmd->add_flag("--force", o->force, "overwrite an existing file");
  cmd->add_flag("--dark", o->dark, "dark theme (default: light, for slides)");
  cmd->add_option("--view", o->view, "tile, banks or both")
      ->check(CLI::IsMember({"tile", "banks", "both"}));
  cmd->add_option("--show-step", o->step, "executed step to draw (default: the worst)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--warp", o->warp, "warp to draw (default 0)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--wavefront", o->wavefront, "wavefront to light (default 0)");
  cmd->add_option("--cell", o->cell, "cell size in px (default 22)")
      ->check(finite_number())
      ->check(CLI::Range(6.0, 80.0));
  cmd->callback([o] { run_export(*o); });
}

}  // namespace bankviz::cli
