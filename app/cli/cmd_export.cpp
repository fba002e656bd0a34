// cmd_export.cpp: `bankviz-cli export --svg out.svg [scenario flags as analyze]`: the tile and
// bank views of one frame as SVG, the same picture the desktop app draws (core/svg.h); with
// --slide the frame as the 16:9 slide, and with --compare A B both scenarios on one 16:9 slide
// (their views, verdicts and the ratio B / A), B on the beat that follows A's (follow_playhead).
// Where exactly the scenario was recorded on a GPU (assets/recorded, recorded.h), a slide shows
// the recorded figure as the app's stage does, labelled ("measured on H200, recorded ...").
#include <iostream>
#include <memory>

#include "bankviz/analysis.h"
#include "bankviz/frame.h"
#include "bankviz/io.h"
#include "bankviz/svg.h"
#include "commands.h"
#include "common.h"
#include "recorded.h"

namespace bankviz::cli {
namespace {

struct ExportOptions {
  ScenarioOptions scenario;
  std::vector<std::string> compare;  // --compare A B
  std::string svg;
  bool force = false;
  bool dark = false;
  bool slide = false;
  double width = 1600;        // --width: a slide's width in SVG units
  std::string view = "both";  // tile, banks, both
  int step = -1;              // executed step; -1 = the worst memory step
  int warp = 0;
  int wavefront = 0;
  double cell = 22;
};

bool any_scenario_flag(const ScenarioOptions& s) {
  return !s.file.empty() || !s.preset.empty() || !s.arch.empty() || !s.elem.empty() ||
         !s.dims.empty() || s.pad || s.dynamic || !s.swizzle.empty() || !s.layout.empty() ||
         !s.block.empty() || !s.defines.empty() || !s.lets.empty() || !s.steps.empty();
}

// The frame drawn: --show-step (default: the worst memory step), --warp, --wavefront.
Frame frame_of(const Analysis& a, const ExportOptions& o, const Playback& p) {
  const int step = o.step >= 0 ? o.step : a.worst_step();
  if (step < 0) return {};
  const double t = time_of(a, p, step, o.warp, o.wavefront);
  if (t < 0)
    throw Exit{kExitUsage, "no frame at --show-step " + std::to_string(step) + " --warp " +
                               std::to_string(o.warp) + " --wavefront " +
                               std::to_string(o.wavefront) +
                               " (a sync, an idle warp, or too few wavefronts)"};
  return frame_at(a, t, p);
}

std::string render(const ExportOptions& o) {
  Playback p;
  p.loop = false;
  if (!o.compare.empty()) {
    // A first, then B: each one's problem names it (build_scenario's messages).
    const auto [sa, sb] = scenario_pair(o.compare[0], o.compare[1]);
    const Analysis a = analyze_or_exit(sa);
    const Analysis b = analyze_or_exit(sb);
    const Frame fa = frame_of(a, o, p);
    CompareSlideOptions co;
    co.light = !o.dark;
    co.width = o.width;
    recorded_compare_figures(shipped_recorded_sets(), sa, sb, co);
    return render_compare_svg(a, fa, b, follow_playhead(b, fa, p), co);
  }
  const Analysis a = analyze_or_exit(build_scenario(o.scenario));
  const Frame f = frame_of(a, o, p);
  if (o.slide) {
    SlideSvgOptions so;
    so.light = !o.dark;
    so.width = o.width;
    if (f.step >= 0)
      so.measured = recorded_step_words(shipped_recorded_sets(), a.scenario,
                                        a.steps[static_cast<size_t>(f.step)].step);
    return render_slide_svg(a, f, so);
  }
  SvgOptions so;
  so.light = !o.dark;
  so.cell = o.cell;
  so.tile_view = o.view != "banks";
  so.bank_view = o.view != "tile";
  return render_svg(a, f, so);
}

void run_export(const ExportOptions& o) {
  if (std::string why = extension_problem(o.svg, "svg"); !why.empty())
    throw Exit{kExitUsage, "--svg: " + why};
  // Said before any work; said again by the write itself if the file appears meanwhile.
  if (std::string why = output_problem(o.svg, o.force); !why.empty()) throw Exit{kExitFailed, why};
  if (std::string why = write_file_atomic(o.svg, render(o), o.force); !why.empty())
    throw Exit{kExitFailed, why};
  std::cout << "wrote " << o.svg << "\n";
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand(
      "export",
      "write the tile and bank views of one frame as SVG (or a 16:9 slide of it, or of "
      "two scenarios compared)");
  add_scenario_options(*cmd, o->scenario);
  cmd->add_option("--svg", o->svg, "output SVG file")->required()->check(non_empty_path());
  cmd->add_option("--compare", o->compare,
                  "A B: two presets or scenario files on one 16:9 slide, with both verdicts and "
                  "the ratio B / A (B on the beat that follows A's)")
      ->expected(2);
  cmd->add_flag("--slide", o->slide,
                "the frame as a 16:9 slide: title, tile left, banks and verdict right (always so "
                "with --compare)");
  CLI::Option* width = cmd->add_option("--width", o->width,
                                       "with --slide or --compare: the slide's width (default "
                                       "1600; the height is 9/16 of it)")
                           ->check(finite_number())
                           ->check(CLI::Range(320.0, 8192.0));
  cmd->add_flag("--force", o->force, "overwrite an existing file");
  cmd->add_flag("--dark", o->dark, "dark theme (default: light, for slides)");
  CLI::Option* view = cmd->add_option("--view", o->view, "tile, banks or both")
                          ->check(CLI::IsMember({"tile", "banks", "both"}));
  cmd->add_option("--show-step", o->step,
                  "executed step to draw (default: the worst; with --compare: A's)")
      ->check(non_negative());
  cmd->add_option("--warp", o->warp, "warp to draw (default 0)")->check(non_negative());
  cmd->add_option("--wavefront", o->wavefront, "wavefront to light (default 0)");
  CLI::Option* cell = cmd->add_option("--cell", o->cell, "cell size in px (default 22)")
                          ->check(finite_number())
                          ->check(CLI::Range(6.0, 80.0));
  cmd->callback([o, width, view, cell] {
    const bool slide = o->slide || !o->compare.empty();
    if (!o->compare.empty() && any_scenario_flag(o->scenario))
      throw Exit{kExitUsage,
                 "--compare A B names both scenarios: not with --preset, --file or the scenario "
                 "flags (give them to each side's file)"};
    if (slide && (view->count() > 0 || cell->count() > 0))
      throw Exit{kExitUsage,
                 "--view and --cell shape the views' SVG, not a slide (--slide, "
                 "--compare): the slide fits both views to its size (--width)"};
    if (!slide && width->count() > 0)
      throw Exit{kExitUsage, "--width sizes a slide: give --slide or --compare"};
    run_export(*o);
  });
}

}  // namespace bankviz::cli
