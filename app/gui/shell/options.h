// options.h: the desktop app's command line.
//
//   bankviz [--preset NAME | --scenario FILE | --lesson NAME [--scene N] | --compare A B]
//           [--sweep PARAM=VALUES] [--theme light|dark]
//           [--presenter] [--views-only]
//           [--scale S]
//           [--screenshot out.png [--force]] [--svg out.svg] [--sequence DIR] [--gif out.gif]
//           [--answer-screenshot answer.png]   (with --lesson: then the scene revealed)
//           [--sizes WxH,WxH...]   (with --screenshot: each picture at every size, NAME-WxH.png)
//           [--whole-animation]
//           [--frames N --frame-times] [--size 1600x1000] [--step I --warp W --wavefront K]
//           [--link '#lesson=NAME&scene=N...']   (the browser's links: link.h)
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exit_status.h"

namespace bankviz::gui {

// Exit statuses (exit_status.h, shared with bankviz-cli), named here for the app's files.
using bankviz::kExitFailed;
using bankviz::kExitOk;
using bankviz::kExitUsage;

struct Options {
  std::string preset;                // preset name (assets/presets/NAME.json)
  std::string scenario;              // a scenario JSON file
  std::string scenario_text;         // a scenario's JSON from a link (#scenario=, link.h)
  std::string link;                  // --link: the fragment it came from
  bool link_dump_layout = false;     // the link's &dump-layout (the browser page writes it)
  std::string lesson;                // lesson name (assets/lessons/NAME.json)
  int scene = 1;                     // with --lesson: the scene to open (1-based)
  bool reveal = false;               // with --lesson: its question answered (after the reveal)
  std::vector<std::string> compare;  // --compare A B: two presets or scenario files side by side
  std::string sweep;                 // --sweep pad=0..32: open the sweep window on this sweep
  std::optional<std::string> theme;  // "light" / "dark"; overrides settings
  bool presenter = false;
  float scale = 0;          // 0 = settings; 0.5..4 (screenshots: 1 when 0)
  std::string screenshot;   // render, write this PNG, exit
  std::string svg;          // write this SVG of the tile and bank views, exit
  std::string sequence;     // write one PNG per beat into this directory, exit
  std::string gif;          // write the animation as an animated GIF, exit
  std::string dump_layout;  // write where the grids were drawn (JSON), for tests
  // With --lesson and --screenshot: then the answer revealed as the clicker reveals it, in the
  // same run (the question's slide and its answer's), and that frame's layout.
  std::string answer_screenshot;
  std::string answer_dump_layout;
  bool force = false;                      // overwrite existing output files
  int frames = 0;                          // render N frames then exit
  bool frame_times = false;                // print frame-time statistics (an export's, with --gif)
  int width = 1600, height = 1000;         // window (logical) size
  bool size_given = false;                 // --size was given (else the saved window size)
  bool views_only = false;                 // start with the sidebar hidden
  int step = -1, warp = 0, wavefront = 0;  // show this beat (step = executed step index)
  bool no_settings = false;                // ignore and do not write the settings file
  // Measure on a GPU elsewhere (README "Measure on a remote GPU"): an ssh destination, or a
  // command speaking bankviz's protocol (measure/remote_gpu.h).
  std::string gpu, gpu_command;
  bool egl = false;  // force the EGL surfaceless path even with a display
  // --kernel-file FILE.cu --kernel NAME --line N [--block B] [--args "..."] [--shared N]
  // [--record-cpu]: the "your kernel" window run on that launch (Profile, block (0,0,0) recorded
  // on the GPU; or Record on the CPU) and line N opened as the window's "open" does.
  std::string kernel_file, kernel, block = "32", kernel_args;
  int shared = 0, line = 0;
  bool record_cpu = false;
  bool kernel_window = false;  // --kernel-window: the window stays open (headless too)

  // With the window: the current step as a slide GIF (the background job), then exit.
  std::string export_gif;
  // With --screenshot or --svg: the views-only 16:9 slide (no toolbar, sidebar or timeline).
  // --gif and --sequence always render that slide.
  bool slide = false;
  // With --gif, --sequence or --export-gif: every beat, not only the current step's wavefronts.
  bool whole_animation = false;

  // --sizes 1024x768,1280x720,...: --screenshot's pictures (and --dump-layout's, the answer's)
  // at each of these window sizes, in one run: NAME-WxH.png (screenshot_files()).
  std::vector<std::pair<int, int>> sizes;

  bool headless() const {
    return !screenshot.empty() || !svg.empty() || !sequence.empty() || !gif.empty();
  }
};

// One picture --screenshot and --answer-screenshot ask for: its window size, whether the lesson's
// answer is revealed, its PNG and its layout JSON ("" without --dump-layout or
// --answer-dump-layout). In the order they are drawn: the question's at every size, then (the
// reveal) the answer's at every size. With --sizes, each name gains -WxH before its extension.
struct ScreenshotFile {
  int width = 0, height = 0;
  bool told = false;
  std::string png, json;
};
std::vector<ScreenshotFile> screenshot_files(const Options& o);

// Parses argv. Returns nullopt after printing help (*exit_code 0) or a usage error (2). With
// `message`, a usage error's text goes there instead of standard error (the browser shows it).
std::optional<Options> parse_options(int argc, char** argv, int* exit_code,
                                     std::string* message = nullptr);

}  // namespace bankviz::gui
