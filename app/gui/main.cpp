// bankviz: the app, on the desktop and in the browser. Reads like Dear ImGui's
// example_glfw_opengl3/main.cpp: stages, no logic. The model is bankviz_core; each panel lives in
// its own panel_*.cpp; what differs between the desktop and the browser is the platform layer's
// (platform/platform.h), which runs the main loop.
// The GL header first: in a unity build (scripts/sanitize.sh) this file opens the batch, and a
// later file's GLFW header must not bring in the system's GL before glad's.
#include "platform/gl.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "bankviz/threads.h"
#include "data_dir.h"
#include "heap_reuse.h"
#include "imgui.h"
#include "jobs/analyzer.h"
#ifndef __EMSCRIPTEN__
#include "gpu_client.h"  // --gpu and --gpu-command checked at the start: the desktop's
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

// Everything the main loop's frames share. It lives on the heap: in the browser the loop outlives
// run()'s stack (platform.h run_main_loop).
struct App {
  Options o;
  AppState s;
  Platform platform;
  CellRenderer cells;
  float ui_scale = 1;
  std::string ini;  // ImGui's layout file, "" when not kept
  bool keep_layout = false;
  int code = kExitOk;
  // The loop's own
  std::vector<FrameTiming> times;
  double last = 0;
  int settle = 3;  // frames ImGui needs after an input (popups open on the next frame)
  int frames_drawn = 0;
  double link_checked = -1;
  std::string link;            // the address bar's fragment, as last shown
  std::string saved_settings;  // the settings as last kept (the browser keeps them as they change)

  bool frame();
  int finish();
  void publish_frame_layout();
  void keep_page_current();
};

// One frame: poll (or wait while idle), new frame, UI, render, swap, the UI's requests. False when
// the session ends.
bool App::frame() {
  if (s.want_quit && !capabilities().exits) {
    // A page is not quit: Q there says how to leave instead of stopping the page.
    s.want_quit = false;
    set_notice(s, "the browser keeps bankviz open: close its tab to leave", ImGui::GetTime(), 6);
  }
  if (platform.should_close() || s.want_quit || g_stop) return false;
  // Nothing moves while paused: sleep until an input event (or a measurement's progress tick)
  // instead of redrawing 60 times a second. --frames always renders flat out.
  if (o.frames > 0 || s.playing || settle > 0 || s.exports.job.active()) {
    platform.poll_events();
    settle = std::max(0, settle - 1);
  } else if (platform.wait_events(s.measure.measurer.state() == Measurer::State::Running ||
                                          analysis_stale(s)
                                      ? 0.1
                                      : 0.5)) {
    settle = 3;
  }
  // A file dropped on the window (or picked in the browser) opens where it belongs: a kernel in
  // the "your kernel" window, a scenario, lesson or recording in the views (session.h).
  for (const std::string& path : platform.take_dropped()) open_user_file(s, path, ImGui::GetTime());
  const double now = now_seconds();
  const double dt = last > 0 ? now - last : 1.0 / 60;
  last = now;
  int w = 0, h = 0;
  platform.framebuffer_size(&w, &h);
  FrameTiming ft = render_frame(s, platform, cells, w, h, dt);
  // Timed frames (--frames) run one at a time: wait for the rasterizer, then for the swap.
  // While an export runs the window's frame is waited for too: its cost sets the export's share.
  platform.present(o.frames > 0 || s.exports.job.active(), &ft.finish, &ft.swap);
  const double window_ms = (now_seconds() - now) * 1000;
  if (o.frames > 0) {
    ft.total = window_ms;
    times.push_back(ft);
  }
  // A running export renders a few of its frames here: the window's next frame waits for them.
  const double before_exports = now_seconds();
  handle_export_jobs(s, platform, cells, ui_scale, window_ms);
  if (o.frames > 0 && !times.empty()) {
    const double ms = (now_seconds() - before_exports) * 1000;
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
  if ((++frames_drawn == 1 && o.link_dump_layout) || layout_asked()) publish_frame_layout();
  keep_page_current();
  if (!o.export_gif.empty() && s.exports.last) return false;
  if (o.frames > 0 && static_cast<int>(times.size()) >= o.frames && o.export_gif.empty())
    return false;
  return true;
}

// The browser's `&dump-layout`: the first frame's layout (or, asked by the page, the frame on
// screen's), as `--screenshot --dump-layout` writes it, handed to the page (tests compare it with
// the desktop's at the same size).
void App::publish_frame_layout() {
  int w = 0, h = 0;
  platform.window_size(&w, &h);
  std::string json, err;
  if (!layout_of_first_frame(s, platform, cells, w, h, &json, &err))
    json = "{\"error\": \"" + bankviz::replace_controls(err, '?') + "\"}";
  publish_layout(json);
}

// Twice a second: the address bar links to what is on screen (a link may hold the scenario), and
// in the browser, which has no "quit", the settings are kept as they change.
void App::keep_page_current() {
  const double now = now_seconds();
  if (now - link_checked < 0.5) return;
  link_checked = now;
  const bool sized = !o.link.empty() && o.size_given;
  std::string fragment =
      current_link(s, sized ? std::to_string(o.width) + "x" + std::to_string(o.height) : "");
  if (fragment != link) {
    link = std::move(fragment);
    show_link(link);
  }
  if (capabilities().exits || o.no_settings || o.frames > 0) return;
  keep_place(s);
  std::string json = settings_to_json(s.settings);
  if (json == saved_settings) return;
  std::string err;
  if (save_settings(s.settings, &err))
    persist_settings(config_dir() + "/settings.json");  // into the browser's storage
  else
    set_notice(s, err, ImGui::GetTime(), 8, Notice::Error);
  saved_settings = std::move(json);  // said once, not twice a second
}

// After the loop: exports, frame times, settings and the window layout. The exit status.
int App::finish() {
  int rc = kExitOk;
  if (!o.export_gif.empty()) {
    if (!s.exports.last || !s.exports.last->ok) {
      std::fprintf(stderr, "bankviz: %s\n",
                   s.exports.last ? s.exports.last->error.c_str() : "the export did not finish");
      rc = kExitFailed;
    } else {
      std::printf("wrote %s in %.2f s\n",
                  export_saved_text(*s.exports.last, ExportKind::Gif).c_str(),
                  s.exports.last->seconds);
    }
  }
  if (o.frame_times) {
    int w = 0, h = 0;
    platform.framebuffer_size(&w, &h);
    print_frame_times(times, platform.gl_renderer, w, h);
    std::printf("cells drawn per frame: %zu\n", cells.cells_last_frame());
  }
  // [7] Cleanup: settings and the window layout persist between runs; a failure to save them is
  // reported and is the exit status.
  if (!o.no_settings && o.frames == 0 && !remember_session(s, platform)) rc = kExitFailed;
  if (keep_layout && !save_imgui_ini(ini)) rc = kExitFailed;
  cells.shutdown();
  platform.close();
  ImGui::DestroyContext();
  return rc;
}

// The browser cannot exit on a bad link: it opens the default view and says what was wrong.
// Returns the options to start with, or nullopt with *code to exit with (desktop).
std::optional<Options> command_line(int argc, char** argv, int* code, std::string* problem) {
  if (capabilities().exits) return parse_options(argc, argv, code);
  std::optional<Options> o = parse_options(argc, argv, code, problem);
  if (o || *code == kExitOk) return o;
  char name[] = "bankviz";
  char* none[] = {name, nullptr};
  return parse_options(1, none, code, problem);
}

// Exit statuses: 0 done, 1 the work failed (a file that does not load or cannot be written, no
// way to render), 2 a usage error (options.h). Nothing thrown escapes main.
int run(int argc, char** argv) {
  // [1] Command line
  int code = 0;
  std::string link_problem;
  std::optional<Options> opts = command_line(argc, argv, &code, &link_problem);
  if (!opts) return code;
  // A data directory named but missing is a usage error, not a silent fall-back (data_dir.h).
  if (std::string why = bankviz::data_env_problem(); !why.empty()) {
    std::fprintf(stderr, "bankviz: %s\n", why.c_str());
    return kExitUsage;
  }
#ifndef __EMSCRIPTEN__
  // A GPU elsewhere that cannot be one (a host starting with '-' or holding a space, a blank
  // command) is a usage error here, as in bankviz-cli, not a failed connection later.
  if (std::string why = bankviz::GpuTarget{opts->gpu, opts->gpu_command}.problem(); !why.empty()) {
    std::fprintf(stderr, "bankviz: %s\n", why.c_str());
    return kExitUsage;
  }
#endif
  // A write past the file-size limit (--gif, --svg, a screenshot) fails with a message and
  // leaves no temporary file, instead of SIGXFSZ ending the app (io.h).
  bankviz::ignore_file_size_signal();
  // Headless (--gif, --svg...), a signal ends the app at once, its temporary file removed first;
  // with a window, Ctrl+C or SIGTERM ends the session like closing it, and writes complete.
  bankviz::remove_temporary_files_on_signal();
  bankviz::keep_freed_memory_for_reuse();  // app/shared/heap_reuse.h: analyses in a row
  if (!opts->headless() && opts->frames == 0) {
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
  }

  // [2] The model: settings, presets, the scenario to show. The browser's page thread does
  // core's shared work alone (a lesson's check at its opening): no helper it would wait for.
  bankviz::set_work_alone_on_this_thread(!capabilities().ui_may_wait_for_threads);
  auto app = std::make_unique<App>();
  app->o = std::move(*opts);
  std::string err;
  if (int rc = setup_state(app->s, app->o, &err); rc != kExitOk) {
    if (capabilities().exits || rc != kExitUsage) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return rc;
    }
    // The browser: a link naming no lesson, scene or preset opens the default view, and says so.
    link_problem = err;
    const Options asked = app->o;
    app = std::make_unique<App>();
    char name[] = "bankviz";
    char* none[] = {name, nullptr};
    app->o = *parse_options(1, none, &code);
    // How the page is shown stays as the link asked (its size, the test's layout dump).
    app->o.link_dump_layout = asked.link_dump_layout;
    app->o.width = asked.width;
    app->o.height = asked.height;
    app->o.size_given = asked.size_given;
    if (int again = setup_state(app->s, app->o, &err); again != kExitOk) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return again;
    }
  }
  const Options& o = app->o;
  AppState& s = app->s;
  if (!link_problem.empty()) {
    std::fprintf(stderr, "bankviz: %s\n", link_problem.c_str());
    set_notice(app->s, "this link does not open: " + link_problem, 0, 30, Notice::Error);
  }
  // Outputs that cannot be written are refused before any rendering (and again when written):
  // every picture and layout of --screenshot's (one per --sizes size), none written before.
  std::vector<const std::string*> outs = {&o.gif, &o.export_gif};
  const std::vector<ScreenshotFile> shots = screenshot_files(o);
  for (const ScreenshotFile& f : shots) outs.insert(outs.end(), {&f.png, &f.json});
  for (const std::string* out : outs)
    if (!out->empty())
      if (std::string why = bankviz::output_problem(*out, o.force); !why.empty()) {
        std::fprintf(stderr, "bankviz: %s\n", why.c_str());
        return kExitFailed;
      }
  // Timing runs on a worker thread through the kernels runner; no device is reported there.
  // The browser runs no kernel: the measurement panel says so, and how to measure. On the
  // desktop --gpu or --gpu-command, else the GPU setting (session.h start_gpu).
  start_gpu(s, o);
  s.measure.measurer.request(s.scenario);
  // An SVG needs no OpenGL at all.
  if (!o.svg.empty()) {
    // --slide: the landscape 16:9 slide, --size's width wide; the exports' one theme.
    const bool light = export_light(s.settings);
    wait_for_figures(s);  // the figure on stage, as the window shows it
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

  // [3] OpenGL context: a window when there is one (a display, or the browser's canvas), else
  // EGL surfaceless (headless only)
  Platform& platform = app->platform;
  const bool headless = !o.screenshot.empty() || !o.sequence.empty() || !o.gif.empty();
  std::string window_err;
  // The window opens at the size it had when it was last closed, unless --size says otherwise.
  const bool restore = !o.size_given && !headless && o.frames == 0 && !o.no_settings;
  const int win_w = restore ? s.settings.window_w : o.width;
  const int win_h = restore ? s.settings.window_h : o.height;
  bool opened =
      !o.egl && can_open_window() && platform.open_window(win_w, win_h, !headless, &window_err);
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
  app->keep_layout = !headless && !o.no_settings && o.frames == 0 && !config_dir().empty();
  app->ini = app->keep_layout ? config_dir() + "/imgui.ini" : "";
  load_imgui_ini(s, app->ini);
  if (!platform.start_imgui(&err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return kExitFailed;
  }
  app->ui_scale = o.scale > 0 ? o.scale : s.settings.ui_scale;
  if (platform.has_window() && o.scale <= 0) app->ui_scale *= platform.content_scale();
  if (platform.has_window()) {
    int fw = 0, fh = 0;
    platform.framebuffer_size(&fw, &fh);
    s.view_px_h = static_cast<float>(fh);
  }
  apply_look(s, app->ui_scale);
  if (!app->cells.init(bankviz::data_dir() + "/shaders", &err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return kExitFailed;
  }

  // [5] Headless runs: render, write, exit
  if (headless || (o.frames > 0 && !platform.has_window())) {
    code = run_headless(s, o, platform, app->cells);
    app->cells.shutdown();
    platform.close();
    ImGui::DestroyContext();
    return code;
  }
  if (!o.export_gif.empty()) {
    // As the Export menu's GIF, named: the job runs while the window draws; exit when written.
    s.exports.ask(ExportAsk::Gif);
    s.exports.gif_path = o.export_gif;
    s.exports.gif_force = o.force;
    if (o.whole_animation)
      s.exports.scope = ExportScope::Animation;  // the menu's "whole animation"
  }
  if (o.frames > 0) s.playing = true;
  if (o.frames > 0) platform.set_swap_interval(0);  // time the frames, not the refresh
  app->saved_settings = settings_to_json(s.settings);

  // [6] Main loop: the platform calls frame() once per display refresh (the desktop's loop, or
  // the browser's animation frames); [7] cleanup (App::finish) when it returns false.
  App* loop = app.release();  // the browser never returns here: the loop owns the app
  run_main_loop([loop] {
    if (loop->frame()) return true;
    loop->code = loop->finish();
    return false;
  });
  const int exit_code = loop->code;
  delete loop;
  return exit_code;
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
