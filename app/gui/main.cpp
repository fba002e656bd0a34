// bankviz: the desktop app. Reads like Dear ImGui's example_glfw_opengl3/main.cpp: stages, no
// logic. The model is bankviz_core; each panel lives in its own panel_*.cpp.
#include <glad/gl.h>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "data_dir.h"
#include "heap_reuse.h"
#include "imgui.h"
#include "jobs/analyzer.h"
#ifndef __EMSCRIPTEN__
#include "measure/remote_gpu.h"  // a GPU elsewhere: the desktop's (process code)
#endif
#include "platform/cells.h"
#include "platform/platform.h"
#include "platform/theme.h"
#include "printable_output.h"
#include "shell/app_state.h"
#include "shell/options.h"
#include "shell/session.h"
#include "shell/settings.h"
#include "stack.h"

using namespace bankviz::gui;

namespace {

// With a window, Ctrl+C or a SIGTERM ends the session like closing the window: settings are saved.
// (Headless runs keep the default: a signal stops them at once.)
volatile std::sig_atomic_t g_stop = 0;
void request_stop(int) {
  g_stop = 1;
}

// Exit statuses: 0 done, 1 the work failed (a file that does not load or cannot be written, no
// way to render), 2 a usage error (options.h). Nothing thrown escapes main.
int run(int argc, char** argv) {
  // [1] Command line
  int code = 0;
  std::optional<Options> opts = parse_options(argc, argv, &code);
  if (!opts) return code;
  const Options& o = *opts;
  // A data directory named but missing is a usage error, not a silent fall-back (data_dir.h).
  if (std::string why = bankviz::data_env_problem(); !why.empty()) {
    std::fprintf(stderr, "bankviz: %s\n", why.c_str());
    return kExitUsage;
  }
  // A write past the file-size limit (--gif, --svg, a screenshot) fails with a message and
  // leaves no temporary file, instead of SIGXFSZ ending the app (io.h).
  bankviz::ignore_file_size_signal();
  // Headless (--gif, --svg...), a signal ends the app at once, its temporary file removed first;
  // with a window, Ctrl+C or SIGTERM ends the session like closing it, and writes complete.
  bankviz::remove_temporary_files_on_signal();
  bankviz::keep_freed_memory_for_reuse();  // app/shared/heap_reuse.h: analyses in a row
  if (!o.headless() && o.frames == 0) {
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
  }

  // [2] The model: settings, presets, the scenario to show
  AppState s;
  std::string err;
  if (int rc = setup_state(s, o, &err); rc != kExitOk) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return rc;
  }
  // Outputs that cannot be written are refused before any rendering (and again when written).
  for (const std::string* out : {&o.screenshot, &o.gif, &o.dump_layout, &o.export_gif})
    if (!out->empty())
      if (std::string why = bankviz::output_problem(*out, o.force); !why.empty()) {
        std::fprintf(stderr, "bankviz: %s\n", why.c_str());
        return kExitFailed;
      }
  // Timing runs on a worker thread through the kernels runner; no device is reported there.
  // --gpu or --gpu-command: a GPU elsewhere; else this machine's, and without one the recorded
  // measurements (measure/remote_gpu.h).
  if (o.frames == 0 || !o.screenshot.empty()) {
#ifndef __EMSCRIPTEN__
    use_gpu(s.measure.measurer, bankviz::GpuTarget{o.gpu, o.gpu_command});
#else
    s.measure.measurer.set_runner(measure_recorded);  // the browser: the recorded figures
#endif
  }
  s.measure.measurer.request(s.scenario);
  // An SVG needs no OpenGL at all.
  if (!o.svg.empty()) {
    // --slide: the landscape 16:9 slide, --size's width wide; the exports' one theme.
    const bool light = export_light(s.settings);
    const bool ok = o.slide ? export_slide_svg(s, light, o.width, o.svg, o.force, &err)
                            : export_svg(s, light, o.svg, o.force, &err);
    if (!ok) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return kExitFailed;
    }
    std::printf("wrote %s\n", o.svg.c_str());
    if (o.screenshot.empty() && o.sequence.empty() && o.gif.empty() && o.frames == 0)
      return kExitOk;
  }

  // [3] OpenGL context: a window when there is a display, else EGL surfaceless (headless only)
  Platform platform;
  const bool headless = !o.screenshot.empty() || !o.sequence.empty() || !o.gif.empty();
  const char* display = std::getenv("DISPLAY");
  bool opened = false;
  std::string window_err;
  // The window opens at the size it had when it was last closed, unless --size says otherwise.
  const bool restore = !o.size_given && !headless && o.frames == 0 && !o.no_settings;
  const int win_w = restore ? s.settings.window_w : o.width;
  const int win_h = restore ? s.settings.window_h : o.height;
  if (!o.egl && display && *display)
    opened = platform.open_window(win_w, win_h, !headless, &window_err);
  if (!opened && (headless || o.frames > 0)) opened = platform.open_egl(&err);
  if (!opened) {
    // Without a display and without a headless output nothing was tried: say that, not "".
    const std::string why = !window_err.empty() ? window_err
                            : !err.empty()      ? err
                                                : "no display: DISPLAY is not set";
    std::fprintf(stderr, "bankviz: %s\n", why.c_str());
    if (!headless)
      std::fprintf(stderr,
                   "bankviz: without a display, draw to a file: --screenshot FILE.png or --svg "
                   "FILE.svg\n");
    return kExitFailed;
  }

  // [4] Dear ImGui, fonts, style, our cell shaders
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  // ImGui's layout file is read and written by us (session.h): bounded, and checked.
  ImGui::GetIO().IniFilename = nullptr;
  const bool keep_layout = !headless && !o.no_settings && o.frames == 0 && !config_dir().empty();
  const std::string ini = keep_layout ? config_dir() + "/imgui.ini" : "";
  load_imgui_ini(s, ini);
  if (!platform.start_imgui(&err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return kExitFailed;
  }
  float ui_scale = o.scale > 0 ? o.scale : s.settings.ui_scale;
  if (platform.window && o.scale <= 0) {
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(platform.window, &sx, &sy);
    ui_scale *= sx;
  }
  if (platform.window) {
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(platform.window, &fw, &fh);
    s.view_px_h = static_cast<float>(fh);
  }
  apply_look(s, ui_scale);
  CellRenderer cells;
  if (!cells.init(bankviz::data_dir() + "/shaders", &err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return kExitFailed;
  }

  // [5] Headless runs: render, write, exit
  if (headless || (o.frames > 0 && !platform.window)) {
    code = run_headless(s, o, platform, cells);
    cells.shutdown();
    platform.close();
    ImGui::DestroyContext();
    return code;
  }

  // [6] Main loop: poll (or wait while idle), new frame, UI, render, swap, the UI's requests
  std::vector<FrameTiming> times;
  if (!o.export_gif.empty()) {
    // As the Export menu's GIF, named: the job runs while the window draws; exit when written.
    s.exports.ask(ExportAsk::Gif);
    s.exports.gif_path = o.export_gif;
    s.exports.gif_force = o.force;
    if (o.whole_animation)
      s.exports.scope = ExportScope::Animation;  // the menu's "whole animation"
  }
  if (o.frames > 0) s.playing = true;
  if (o.frames > 0) glfwSwapInterval(0);  // time the frames, not the display's refresh
  auto last = std::chrono::steady_clock::now();
  int settle = 3;  // frames ImGui needs after an input (popups open on the next frame)
  while (!glfwWindowShouldClose(platform.window) && !s.want_quit && !g_stop) {
    // Nothing moves while paused: sleep until an input event (or a measurement's progress tick)
    // instead of redrawing 60 times a second. --frames always renders flat out.
    if (o.frames > 0 || s.playing || settle > 0 || s.exports.job.active()) {
      glfwPollEvents();
      settle = std::max(0, settle - 1);
    } else if (platform.wait_events(s.measure.measurer.state() == Measurer::State::Running ||
                                            analysis_stale(s)
                                        ? 0.1
                                        : 0.5)) {
      settle = 3;
    }
    // A .cu file dropped on the window opens in the "your kernel" window (profile/profiler.h).
    for (const std::string& path : platform.take_dropped()) {
      std::string why;
      if (open_dropped_source(s.profiler, path, &why))
        set_notice(s,
                   "opened " + bankviz::replace_controls(s.profiler.form.file, '?') +
                       " in 'your kernel': pick the kernel and the launch",
                   ImGui::GetTime(), 6);
      else
        set_notice(s, why, ImGui::GetTime(), 8, Notice::Error);
    }
    auto now = std::chrono::steady_clock::now();
    double dt = std::chrono::duration<double>(now - last).count();
    last = now;
    int w = 0, h = 0;
    glfwGetFramebufferSize(platform.window, &w, &h);
    FrameTiming ft = render_frame(s, platform, cells, w, h, dt);
    // Timed frames (--frames) run one at a time: wait for the rasterizer, then for the swap.
    // While an export runs the window's frame is waited for too: its cost sets the export's share.
    platform.present(o.frames > 0 || s.exports.job.active(), &ft.finish, &ft.swap);
    const double window_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - now).count();
    if (o.frames > 0) {
      ft.total =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - now).count();
      times.push_back(ft);
    }
    // A running export renders a few of its frames here: the window's next frame waits for them.
    const auto before_exports = std::chrono::steady_clock::now();
    handle_export_jobs(s, platform, cells, ui_scale, window_ms);
    if (o.frames > 0 && !times.empty()) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                  before_exports)
                            .count();
      times.back().exports = ms;
      times.back().total += ms;
    }
    handle_requests(s, platform, cells, ui_scale);
    // Presenter mode's type follows the window's height (a resize, full screen, a projector).
    if (s.want_fonts || look_outdated(s, ui_scale, h)) {
      s.view_px_h = static_cast<float>(h);
      apply_look(s, ui_scale);
      s.want_fonts = false;
    }
    platform.set_fullscreen(s.fullscreen);
    if (!o.export_gif.empty() && s.exports.last) break;
    if (o.frames > 0 && static_cast<int>(times.size()) >= o.frames && o.export_gif.empty()) break;
  }
  code = kExitOk;
  if (!o.export_gif.empty()) {
    if (!s.exports.last || !s.exports.last->ok) {
      std::fprintf(stderr, "bankviz: %s\n",
                   s.exports.last ? s.exports.last->error.c_str() : "the export did not finish");
      code = kExitFailed;
    } else {
      std::printf("wrote %s in %.2f s\n",
                  export_saved_text(*s.exports.last, ExportKind::Gif).c_str(),
                  s.exports.last->seconds);
    }
  }
  if (o.frame_times) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(platform.window, &w, &h);
    print_frame_times(times, platform.gl_renderer, w, h);
    std::printf("cells drawn per frame: %zu\n", cells.cells_last_frame());
  }

  // [7] Cleanup: settings and the window layout persist between runs; a failure to save them is
  // reported and is the exit status.
  if (!o.no_settings && o.frames == 0 && !remember_session(s, platform)) code = kExitFailed;
  if (keep_layout && !save_imgui_ini(ini)) code = kExitFailed;
  cells.shutdown();
  platform.close();
  ImGui::DestroyContext();
  return code;
}

// run() with nothing thrown escaping and standard output checked.
int guarded_main(int argc, char** argv) {
  int code = kExitFailed;
  try {
    code = run(argc, argv);
  } catch (...) {
    // Out of memory or any other exception outside the guarded frame: say so, never abort.
    std::fprintf(stderr, "bankviz: stopped: %s\n", current_exception_text().c_str());
    return kExitFailed;
  }
  // What was printed ("wrote out.png") must have reached standard output.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "bankviz: cannot write to standard output: %s\n", std::strerror(errno));
    return code == kExitOk ? kExitFailed : code;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // Whatever the app prints (a path, a preset's name, a title in a message) reaches the terminal
  // as text, never as terminal control (printable_output.h).
  bankviz::filter_standard_streams();
  // The app, and the workers it starts, run on threads with the model's stack (stack.h), so a
  // legal expression nested 200 deep does not end it by SIGSEGV under a small `ulimit -s`.
  return bankviz::run_with_the_model_stack(guarded_main, argc, argv);
}
