// bankviz: the desktop app. Reads like Dear ImGui's example_glfw_opengl3/main.cpp: stages, no
// logic. The model is bankviz_core; each panel lives in its own panel_*.cpp.
#include <glad/gl.h>

#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app_state.h"
#include "cells.h"
#include "imgui.h"
#include "options.h"
#include "platform.h"
#include "session.h"
#include "settings.h"
#include "theme.h"

using namespace bankviz::gui;

int main(int argc, char** argv) {
  // [1] Command line
  int code = 0;
  std::optional<Options> opts = parse_options(argc, argv, &code);
  if (!opts) return code;
  const Options& o = *opts;

  // [2] The model: settings, presets, the scenario to show
  AppState s;
  std::string err;
  if (!setup_state(s, o, &err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return 1;
  }
  // Timing runs on a worker thread through the kernels runner; no device is reported there.
  if (o.frames == 0 || !o.screenshot.empty()) s.measurer.set_runner(measure_with_runner);
  s.measurer.request(s.scenario);
  // An SVG needs no OpenGL at all.
  if (!o.svg.empty()) {
    if (!export_svg(s, s.settings.light, o.svg, o.force, &err)) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return 1;
    }
    std::printf("wrote %s\n", o.svg.c_str());
    if (o.screenshot.empty() && o.sequence.empty() && o.frames == 0) return 0;
  }

  // [3] OpenGL context: a window when there is a display, else EGL surfaceless (headless only)
  Platform platform;
  const bool headless = !o.screenshot.empty() || !o.sequence.empty();
  const char* display = std::getenv("DISPLAY");
  bool opened = false;
  std::string window_err;
  if (!o.egl && display && *display)
    opened = platform.open_window(o.width, o.height, !headless, &window_err);
  if (!opened && (headless || o.frames > 0)) opened = platform.open_egl(&err);
  if (!opened) {
    std::fprintf(stderr, "bankviz: %s\n", (window_err.empty() ? err : window_err).c_str());
    if (!headless) std::fprintf(stderr, "bankviz: without a display, use --screenshot\n");
    return 1;
  }

  // [4] Dear ImGui, fonts, style, our cell shaders
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  std::string ini = config_dir().empty() ? "" : config_dir() + "/imgui.ini";
  ImGui::GetIO().IniFilename = (headless || o.no_settings || ini.empty()) ? nullptr : ini.c_str();
  if (!platform.start_imgui(&err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return 1;
  }
  float ui_scale = o.scale > 0 ? o.scale : s.settings.ui_scale;
  if (platform.window && o.scale <= 0) {
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(platform.window, &sx, &sy);
    ui_scale *= sx;
  }
  apply_look(s, ui_scale);
  CellRenderer cells;
  if (!cells.init(data_dir() + "/shaders", &err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return 1;
  }

  // [5] Headless runs: render, write, exit
  if (headless || (o.frames > 0 && !platform.window)) {
    code = run_headless(s, o, platform, cells);
    cells.shutdown();
    platform.close();
    ImGui::DestroyContext();
    return code;
  }

  // [6] Main loop: poll, new frame, UI, render, swap, then the UI's requests
  std::vector<double> frame_ms;
  if (o.frames > 0) s.playing = true;
  bool fullscreen = false;
  int saved[4] = {0, 0, o.width, o.height};
  auto last = std::chrono::steady_clock::now();
  while (!glfwWindowShouldClose(platform.window) && !s.want_quit) {
    glfwPollEvents();
    auto now = std::chrono::steady_clock::now();
    double dt = std::chrono::duration<double>(now - last).count();
    last = now;
    int w = 0, h = 0;
    glfwGetFramebufferSize(platform.window, &w, &h);
    render_frame(s, platform, cells, w, h, dt);
    glfwSwapBuffers(platform.window);
    handle_requests(s, platform, cells, ui_scale);
    if (s.want_fonts) {
      apply_look(s, ui_scale);
      s.want_fonts = false;
    }
    if (s.fullscreen != fullscreen) {
      fullscreen = s.fullscreen;
      GLFWmonitor* mon = glfwGetPrimaryMonitor();
      if (fullscreen && mon) {
        glfwGetWindowPos(platform.window, &saved[0], &saved[1]);
        glfwGetWindowSize(platform.window, &saved[2], &saved[3]);
        const GLFWvidmode* mode = glfwGetVideoMode(mon);
        glfwSetWindowMonitor(platform.window, mon, 0, 0, mode->width, mode->height,
                             mode->refreshRate);
      } else {
        glfwSetWindowMonitor(platform.window, nullptr, saved[0], saved[1], saved[2], saved[3], 0);
      }
    }
    if (o.frames > 0) {
      glFinish();
      frame_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - now)
              .count());
      if (static_cast<int>(frame_ms.size()) >= o.frames) break;
    }
  }
  if (o.frame_times) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(platform.window, &w, &h);
    print_frame_times(frame_ms, platform.gl_renderer, w, h);
  }

  // [7] Cleanup: settings persist between runs
  if (!o.no_settings && o.frames == 0) {
    if (!s.preset.empty()) s.settings.preset = s.preset;
    if (!save_settings(s.settings, &err)) std::fprintf(stderr, "bankviz: %s\n", err.c_str());
  }
  cells.shutdown();
  platform.close();
  ImGui::DestroyContext();
  return 0;
}
