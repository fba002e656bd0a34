// options.cpp: command-line parsing with CLI11 (see options.h).
#include "options.h"

#include <CLI/CLI.hpp>
#include <cstdio>

namespace bankviz::gui {

std::optional<Options> parse_options(int argc, char** argv, int* exit_code) {
  Options o;
  CLI::App app{"bankviz: see CUDA shared-memory bank conflicts, warp by warp"};
  std::string theme, size;
  app.add_option("--preset", o.preset, "preset name (assets/presets/NAME.json)");
  app.add_option("--scenario", o.scenario, "scenario JSON file")->check(CLI::ExistingFile);
  app.add_option("--theme", theme, "light or dark")->check(CLI::IsMember({"light", "dark"}));
  app.add_flag("--presenter", o.presenter, "large fonts, high contrast, views only");
  app.add_flag("--views-only", o.views_only, "hide the sidebar: the views fill the window (key V)");
  app.add_option("--scale", o.scale, "UI / export scale, 1 to 4")->check(CLI::Range(0.5f, 4.0f));
  app.add_option("--screenshot", o.screenshot, "render, write this PNG and exit");
  app.add_option("--svg", o.svg, "write an SVG of the tile and bank views and exit");
  app.add_option("--sequence", o.sequence, "write one PNG per beat into this directory and exit");
  app.add_option("--gif", o.gif, "write the animation as an animated GIF and exit");
  app.add_option("--dump-layout", o.dump_layout, "with --screenshot: write grid positions (JSON)");
  app.add_flag("--force", o.force, "overwrite existing output files");
  app.add_option("--frames", o.frames, "render N frames and exit")->check(CLI::Range(1, 100000));
  app.add_flag("--frame-times", o.frame_times, "print frame-time statistics");
  app.add_option("--size", size, "window size, WxH (default 1600x1000)");
  app.add_option("--step", o.step, "executed step to show (0-based)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warp", o.warp, "warp to show")->check(CLI::NonNegativeNumber);
  app.add_option("--wavefront", o.wavefront, "wavefront to show (0-based)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-settings", o.no_settings, "do not read or write the settings file");
  app.add_flag("--egl", o.egl, "render headless through EGL even when a display exists");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    *exit_code = app.exit(e);
    return std::nullopt;
  }
  if (!theme.empty()) o.theme = theme;
  if (!size.empty()) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w < 640 || h < 400 || w > 8192 ||
        h > 8192) {
      std::fprintf(stderr, "bankviz: --size %s: expected WxH between 640x400 and 8192x8192\n",
                   size.c_str());
      *exit_code = 2;
      return std::nullopt;
    }
    o.width = w;
    o.height = h;
    o.size_given = true;
  }
  if (!o.preset.empty() && !o.scenario.empty()) {
    std::fprintf(stderr, "bankviz: give --preset or --scenario, not both\n");
    *exit_code = 2;
    return std::nullopt;
  }
  if (o.frame_times && o.frames == 0) o.frames = 120;
  *exit_code = 0;
  return o;
}

}  // namespace bankviz::gui
