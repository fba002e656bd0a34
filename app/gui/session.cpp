// session.cpp: set-up, rendering and exports (see session.h).
//
// [SECTION] Set-up
// [SECTION] Look
// [SECTION] Frames
// [SECTION] Exports
// [SECTION] Headless
#include "session.h"

#include <glad/gl.h>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "backends/imgui_impl_opengl3.h"
#include "bankviz/io.h"
#include "bankviz/svg.h"
#include "capture.h"
#include "data_dir.h"
#include "frame_guard.h"
#include "gif.h"
#include "imgui.h"
#include "panels.h"
#include "theme.h"

namespace bankviz::gui {

namespace fs = std::filesystem;

// [SECTION] Set-up

int setup_state(AppState& s, const Options& o, std::string* error) {
  if (!o.no_settings && !o.headless() && o.frames == 0) {
    std::vector<std::string> problems;
    s.settings = load_settings(&problems);
    for (const std::string& p : problems) std::fprintf(stderr, "bankviz: %s\n", p.c_str());
    if (!problems.empty()) set_notice(s, problems.front(), 0, 10, Notice::Error);
  }
  if (o.theme) s.settings.light = *o.theme == "light";
  // Presenter mode gives the room to the pictures: the sidebar starts hidden (key V shows it).
  if (o.presenter) s.settings.presenter = s.settings.views_only = true;
  if (o.views_only) s.settings.views_only = true;
  load_presets(s, data_dir() + "/assets/presets");
  if (!o.lesson.empty()) {
    // A name, as for presets: a name that names no lesson is a usage error listing them.
    const std::string dir = data_dir() + "/assets/lessons";
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    if (std::find(names.begin(), names.end(), o.lesson) == names.end()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      *error = "no lesson named '" + o.lesson + "'" +
               (list.empty() ? " (no lessons in " + dir + ")" : "; lessons: " + list);
      return kExitUsage;
    }
    if (!open_lesson(s, dir + "/" + o.lesson + ".json", data_dir() + "/assets/presets", o.scene - 1,
                     error))
      return kExitFailed;
  } else if (!o.compare.empty()) {
    // Before and after (compare.h): A is the app's scenario, B beside it.
    if (int rc = setup_compare(s, o.compare[0], o.compare[1], error); rc != kExitOk) return rc;
  } else if (!o.scenario.empty()) {
    if (!load_draft_file(s, o.scenario, o.scenario, error)) return kExitFailed;
  } else if (!o.preset.empty()) {
    // A name given on the command line that names no preset is a usage error, as in bankviz-cli.
    if (!has_preset(s, o.preset)) {
      select_preset(s, o.preset, error);  // the message lists the presets
      return kExitUsage;
    }
    if (!select_preset(s, o.preset, error)) return kExitFailed;
  } else {
    std::string name = !s.settings.preset.empty() ? s.settings.preset : "row-write-column-read";
    std::string err;
    if (!select_preset(s, name, &err)) {
      // A stale preset in the settings: say so and fall back to the first preset.
      set_notice(s, err, 0, 10, Notice::Error);
      if (s.presets.empty() || !select_preset(s, s.presets.front().name, &err)) {
        *error = "no usable preset in " + data_dir() + "/assets/presets: " + err;
        return kExitFailed;
      }
    }
  }
  if (!o.sweep.empty() && !open_sweep(s, o.sweep, error)) return kExitUsage;
  if (o.step >= 0 && !seek(s, o.step, o.warp, o.wavefront)) {
    *error = "no beat at --step " + std::to_string(o.step) + " --warp " + std::to_string(o.warp) +
             " --wavefront " + std::to_string(o.wavefront) +
             " (steps without shared-memory access, or too few wavefronts)";
    return kExitUsage;
  }
  return kExitOk;
}

// [SECTION] Look

void apply_look(AppState& s, float scale) {
  s.palette = s.settings.light ? light_palette() : dark_palette();
  if (s.settings.presenter) s.palette = high_contrast(s.palette);
  // Presenter mode sizes its type for the window's height; the style grows with it.
  const float px = font_px(scale, s.settings.presenter, s.view_px_h);
  apply_style(s.palette, scale * px / font_px(scale, s.settings.presenter), s.settings.presenter);
  load_fonts(px);
}

bool look_outdated(const AppState& s, float scale, int px_h) {
  if (!s.settings.presenter) return false;
  return std::abs(font_px(scale, true, static_cast<float>(px_h)) - g_fonts.size) > 0.5f;
}

// [SECTION] Frames

FrameTiming render_frame(AppState& s, Platform& p, CellRenderer& cells, int width, int height,
                         double dt) {
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  FrameTiming ft;
  auto t0 = clock::now();
  p.new_frame(width, height, dt);
  ImGui::NewFrame();
  cells.new_frame(col(s.palette.panel));
  try {
    update_frame(s, dt);
    draw_ui(s, cells);
  } catch (...) {
    // A panel or the model threw half way (out of memory, ...): close what the frame left open,
    // say what happened, and keep the state; the next frame draws it again.
    recover_imgui_frame();
    ++s.failed_frames;
    std::string what = "this frame failed: " + current_exception_text();
    std::fprintf(stderr, "bankviz: %s\n", what.c_str());
    set_notice(s, std::move(what), ImGui::GetTime(), 10, Notice::Error);
  }
  ImGui::Render();
  auto t1 = clock::now();
  glViewport(0, 0, width, height);
  // The panels draw no background of their own (begin_panel): the clear is their background.
  const Rgba& bg = s.palette.panel;
  glClearColor(bg.r / 255.f, bg.g / 255.f, bg.b / 255.f, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  auto t2 = clock::now();
  ft.ui = ms(t0, t1);
  ft.submit = ms(t1, t2);
  ft.total = ms(t0, t2);
  return ft;
}

// [SECTION] Exports

namespace {

// Renders offscreen with a temporary look; restores the look (and the window's framebuffer)
// afterwards, also when `each` throws: the exception becomes the error.
template <typename Fn>
bool offscreen(AppState& s, Platform& p, CellRenderer& cells, int lw, int lh, float scale,
               bool light, float restore_scale, std::string* error, Fn&& each) {
  int w = static_cast<int>(lw * scale), h = static_cast<int>(lh * scale);
  Offscreen fbo;
  if (!fbo.ensure(w, h, error)) return false;
  bool old_light = s.settings.light;
  const float old_h = s.view_px_h;
  s.settings.light = light;
  s.view_px_h = static_cast<float>(h);
  apply_look(s, scale);
  fbo.bind();
  bool ok = false;
  try {
    ok = each(
        [&] {
          // Two frames: ImGui settles sizes on the first. A frame that failed (render_frame
          // caught an exception) fails the export rather than being written.
          const int failed = s.failed_frames;
          for (int i = 0; i < 2; ++i) render_frame(s, p, cells, w, h, 0);
          if (s.failed_frames != failed) throw std::runtime_error(s.notice);
          glFinish();
          return fbo.read_rgba();
        },
        w, h);
  } catch (...) {
    *error = "export failed: " + current_exception_text();
    ok = false;
  }
  Offscreen::unbind();
  fbo.destroy();
  s.settings.light = old_light;
  s.view_px_h = old_h;
  if (restore_scale > 0) apply_look(s, restore_scale);
  return ok;
}

constexpr int kMaxBeats = 2000;  // frames of a sequence or a GIF

std::string frame_name(int beat) {
  char name[32];
  std::snprintf(name, sizeof name, "frame-%04d.png", beat + 1);
  return name;
}

}  // namespace

bool export_png(AppState& s, Platform& p, CellRenderer& cells, int lw, int lh, float scale,
                bool light, const std::string& path, bool force, std::string* error) {
  // Say no before rendering (and again when writing: write_file_atomic).
  if (std::string why = output_problem(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  return offscreen(s, p, cells, lw, lh, scale, light, 0, error, [&](auto render, int w, int h) {
    return write_png(path, w, h, render(), force, error);
  });
}

bool export_svg(const AppState& s, bool light, const std::string& path, bool force,
                std::string* error) {
  if (!s.analysis) {
    *error = "nothing to export: the scenario does not analyze";
    return false;
  }
  if (std::string why = output_problem(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  if (s.compare.open && s.compare.b_analysis) {
    // While comparing: both sides as one 16:9 slide (svg.h render_compare_svg).
    return write_text(path, compare_slide_svg(s, light), force, error);
  }
  SvgOptions o;
  o.light = light;
  return write_text(path, render_svg(*s.analysis, s.frame, o), force, error);
}

bool export_sequence(AppState& s, Platform& p, CellRenderer& cells, int lw, int lh, float scale,
                     bool light, const std::string& dir, bool force, std::string* error) {
  if (!s.analysis) {
    *error = "nothing to export: the scenario does not analyze";
    return false;
  }
  int beats = beat_count(*s.analysis, s.playback);
  if (beats > kMaxBeats) {
    *error = "the animation has " + std::to_string(beats) + " beats; a sequence is limited to " +
             std::to_string(kMaxBeats) + " (pick one warp with the timeline, or a smaller block)";
    return false;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) {
    *error = "cannot create the directory '" + dir + "'" + (ec ? ": " + ec.message() : "");
    return false;
  }
  // Every frame's name is checked before the first is written: an existing frame (without
  // --force) or a special file in the way stops the sequence before it starts, not half way.
  for (int b = 0; b < beats; ++b)
    if (std::string why = output_problem((fs::path(dir) / frame_name(b)).string(), force);
        !why.empty()) {
      *error = why;
      return false;
    }
  double t0 = s.t;
  bool was_playing = s.playing;
  s.playing = false;
  int written = 0;
  bool ok = offscreen(s, p, cells, lw, lh, scale, light, 0, error, [&](auto render, int w, int h) {
    for (int b = 0; b < beats; ++b) {
      s.t = beat_time(b, s.playback);
      if (!write_png((fs::path(dir) / frame_name(b)).string(), w, h, render(), force, error))
        return false;
      ++written;
    }
    return true;
  });
  if (!ok && written > 0)
    *error += " (the sequence is incomplete: " + std::to_string(written) + " of " +
              std::to_string(beats) + " frames were written)";
  s.t = t0;
  s.playing = was_playing;
  return ok;
}

bool export_gif(AppState& s, Platform& p, CellRenderer& cells, int lw, int lh, float scale,
                bool light, const std::string& path, bool force, std::string* error) {
  if (!s.analysis) {
    *error = "nothing to export: the scenario does not analyze";
    return false;
  }
  // Say no before rendering hundreds of frames (and again when writing: write_file_atomic).
  if (std::string why = output_problem(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  int beats = beat_count(*s.analysis, s.playback);
  if (beats == 0) {
    *error = "nothing to animate: no step of this scenario touches shared memory";
    return false;
  }
  if (beats > kMaxBeats) {
    *error = "the animation has " + std::to_string(beats) + " beats; a GIF is limited to " +
             std::to_string(kMaxBeats) + " (a smaller block, or fewer steps)";
    return false;
  }
  // GIF delays are in hundredths of a second; browsers treat less than 2 as 10.
  double speed = s.playback.speed > 0 ? s.playback.speed : 1.0;
  int delay_cs = std::clamp(static_cast<int>(std::lround(100.0 / speed)), 2, 65535);
  double t0 = s.t;
  bool was_playing = s.playing;
  s.playing = false;
  std::vector<uint8_t> bytes;
  bool ok = offscreen(s, p, cells, lw, lh, scale, light, 0, error, [&](auto render, int w, int h) {
    std::optional<GifWriter> gif;
    for (int b = 0; b < beats; ++b) {
      s.t = beat_time(b, s.playback);
      std::vector<uint8_t> px = render();
      if (!gif) {
        // The palette: the theme's colours first, then the first frame's most frequent others.
        gif.emplace(w, h, gif_palette({&px}, palette_seed(s.palette)), delay_cs, s.playback.loop);
      }
      gif->add_frame(px);
    }
    bytes = gif->finish();
    return true;
  });
  s.t = t0;
  s.playing = was_playing;
  return ok && write_binary(path, bytes, force, error);
}

void handle_requests(AppState& s, Platform& p, CellRenderer& cells, float ui_scale) {
  if (!s.want_screenshot && !s.want_svg && !s.want_sequence && !s.want_gif && !s.want_slide_png)
    return;
  int lw = 1600, lh = 1000;
  if (p.window) glfwGetWindowSize(p.window, &lw, &lh);
  double now = ImGui::GetTime();
  bool light = s.settings.export_light;
  float scale = static_cast<float>(s.settings.export_scale);
  // Each export reports in the notice: "saved ..." in the text colour, a failure in red. Nothing
  // thrown (out of memory for a large GIF) escapes: it is reported and the app goes on.
  auto attempt = [&](const char* stem, const char* ext, const char* saved_prefix, auto&& run) {
    std::string err, path = next_free_name("", stem, ext);
    bool ok = false;
    try {
      ok = !path.empty() && run(path, &err);
      if (path.empty()) err = std::string("no free file name for ") + stem + "-NNNN." + ext;
    } catch (...) {
      err = "export failed: " + current_exception_text();
    }
    // The notice names the full path: the user must find the file (the working directory of an
    // app started from a menu is rarely obvious).
    std::error_code ec;
    const fs::path full = path.empty() ? fs::path() : fs::absolute(path, ec);
    report_export(s, ok, saved_prefix + (ec ? path : full.string()), err, now);
  };
  if (s.want_screenshot)
    attempt("bankviz", "png", "", [&](const std::string& path, std::string* err) {
      return offscreen(
          s, p, cells, lw, lh, scale, light, ui_scale, err,
          [&](auto render, int w, int h) { return write_png(path, w, h, render(), false, err); });
    });
  if (s.want_svg)
    attempt("bankviz", "svg", "", [&](const std::string& path, std::string* err) {
      return export_svg(s, light, path, false, err);
    });
  if (s.want_sequence) {
    attempt("bankviz-frames", "d", "frames in ", [&](const std::string& path, std::string* err) {
      return export_sequence(s, p, cells, lw, lh, scale, light, path, false, err);
    });
    apply_look(s, ui_scale);
  }
  if (s.want_gif) {
    attempt("bankviz", "gif", "", [&](const std::string& path, std::string* err) {
      return export_gif(s, p, cells, lw, lh, scale, light, path, false, err);
    });
    apply_look(s, ui_scale);
  }
  if (s.want_slide_png)
    attempt("bankviz-slide", "png", "", [&](const std::string& path, std::string* err) {
      // A 16:9 slide of the views only (the comparison's both sides), 1920x1080 at the scale.
      const bool views_only = s.settings.views_only;
      s.settings.views_only = true;
      const bool ok = offscreen(
          s, p, cells, 1920, 1080, scale, light, ui_scale, err,
          [&](auto render, int w, int h) { return write_png(path, w, h, render(), false, err); });
      s.settings.views_only = views_only;
      return ok;
    });
  s.want_screenshot = s.want_svg = s.want_sequence = s.want_gif = false;
  s.want_slide_png = false;
}

bool write_layout(const AppState& s, const std::string& path, float scale, bool force,
                  std::string* error) {
  auto grid = [](const GridLayout& g) {
    return nlohmann::json{{"x", g.x},       {"y", g.y},       {"cell", g.cell},
                          {"rows", g.rows}, {"cols", g.cols}, {"first_line", g.first_line}};
  };
  auto box = [](const Box& b) {
    return nlohmann::json{{"x", b.x}, {"y", b.y}, {"w", b.w}, {"h", b.h}};
  };
  const ScreenLayout& l = s.layout;
  nlohmann::json j = {
      {"scale", scale},
      {"window", {{"w", l.width}, {"h", l.height}}},
      {"font_px", l.font_px},
      {"toolbar", box(l.toolbar)},
      {"toolbar_rows", l.toolbar_rows},
      {"verdict", box(l.verdict)},
      {"timeline", box(l.timeline)},
      {"timeline_rows", box(l.timeline_rows)},
      {"timeline_rows_visible", l.timeline_rows_visible},
      {"lane_digit_px", l.lane_digit_px},
      {"bank_count_px", l.bank_count_px},
      {"caption", box(l.caption)},
      {"tile", grid(s.tile_layout)},
      {"banks", grid(s.bank_layout)},
      {"frame",
       {{"step", s.frame.step}, {"warp", s.frame.warp}, {"wavefront", s.frame.wavefront}}}};
  if (s.compare.open) {
    const CompareState& c = s.compare;
    j["compare"] = {
        {"b_tile", grid(c.b_tile_layout)},
        {"b_banks", grid(c.b_bank_layout)},
        {"a_verdict", box(c.a_verdict)},
        {"b_verdict", box(c.b_verdict)},
        {"ratio", box(c.ratio)},
        {"b_frame",
         {{"step", c.b_frame.step}, {"warp", c.b_frame.warp}, {"wavefront", c.b_frame.wavefront}}}};
  }
  return write_text(path, j.dump(2) + "\n", force, error);
}

// [SECTION] Headless

void print_frame_times(const std::vector<FrameTiming>& t, const std::string& renderer, int w,
                       int h) {
  if (t.empty()) return;
  std::vector<double> v;
  FrameTiming sum_parts;
  for (const FrameTiming& f : t) {
    v.push_back(f.total);
    sum_parts.ui += f.ui;
    sum_parts.submit += f.submit;
    sum_parts.finish += f.finish;
    sum_parts.swap += f.swap;
  }
  const double n = static_cast<double>(t.size());
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  double mean = sum / v.size();
  auto pct = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))]; };
  std::printf("frames %zu  size %dx%d  renderer %s\n", v.size(), w, h, renderer.c_str());
  std::printf("frame ms: mean %.2f  median %.2f  p95 %.2f  max %.2f  (%.1f fps)\n", mean, pct(0.5),
              pct(0.95), v.back(), 1000.0 / mean);
  std::printf("mean ms: ui (cpu) %.2f  submit %.2f  finish %.2f  swap %.2f\n", sum_parts.ui / n,
              sum_parts.submit / n, sum_parts.finish / n, sum_parts.swap / n);
}

int run_headless(AppState& s, const Options& o, Platform& p, CellRenderer& cells) {
  float scale = o.scale > 0 ? o.scale : 1.0f;
  bool light = s.settings.light;
  std::string err;
  // Set-up waited for the analysis; make sure nothing is pending before the pictures are taken.
  s.analyzer.wait(1e9);
  poll_analysis(s);
  if (!o.screenshot.empty()) {
    s.measurer.wait(240);  // a GPU host shows its measured timing in the screenshot
    if (!export_png(s, p, cells, o.width, o.height, scale, light, o.screenshot, o.force, &err)) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return kExitFailed;
    }
    std::printf("wrote %s (%dx%d, %s%s)\n", o.screenshot.c_str(), static_cast<int>(o.width * scale),
                static_cast<int>(o.height * scale), p.gl_renderer.c_str(),
                p.egl_platform.empty() ? "" : (", EGL " + p.egl_platform).c_str());
    // What the measurement panel shows: a GPU's timing, or why there is none.
    if (auto m = s.measurer.last(); m && m->ok) {
      std::printf("measured on %s: %.2f cycles/instr, %.2f us/launch (%s)\n", m->device.c_str(),
                  m->cycles_per_instruction, m->microseconds, m->mode.c_str());
    } else {
      std::printf("no measurement: %s\n", m ? m->error.c_str() : s.measurer.reason().c_str());
    }
    if (!o.dump_layout.empty() && !write_layout(s, o.dump_layout, scale, o.force, &err)) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return kExitFailed;
    }
  }
  if (!o.sequence.empty()) {
    if (!export_sequence(s, p, cells, o.width, o.height, scale, light, o.sequence, o.force, &err)) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return kExitFailed;
    }
    std::printf("wrote %d frames into %s\n", beat_count(*s.analysis, s.playback),
                o.sequence.c_str());
  }
  if (!o.gif.empty()) {
    if (!export_gif(s, p, cells, o.width, o.height, scale, light, o.gif, o.force, &err)) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return kExitFailed;
    }
    std::printf("wrote %s (%d frames)\n", o.gif.c_str(), beat_count(*s.analysis, s.playback));
  }
  if (o.frames > 0 && !p.window) {
    // No window: time frames rendered into an offscreen buffer.
    Offscreen fbo;
    int w = static_cast<int>(o.width * scale), h = static_cast<int>(o.height * scale);
    if (!fbo.ensure(w, h, &err)) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return kExitFailed;
    }
    s.view_px_h = static_cast<float>(h);
    apply_look(s, scale);
    fbo.bind();
    s.playing = true;
    std::vector<FrameTiming> times;
    for (int i = 0; i < o.frames; ++i) {
      FrameTiming ft = render_frame(s, p, cells, w, h, 1.0 / 60);
      auto t0 = std::chrono::steady_clock::now();
      glFinish();
      ft.finish =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      ft.total += ft.finish;
      times.push_back(ft);
    }
    if (o.frame_times) print_frame_times(times, p.gl_renderer + " (offscreen, EGL)", w, h);
  }
  return kExitOk;
}

bool remember_session(AppState& s, const Platform& p) {
  if (!s.preset.empty()) s.settings.preset = s.preset;
  p.windowed_size(&s.settings.window_w, &s.settings.window_h);  // also when closed full screen
  s.settings.window_w = std::clamp(s.settings.window_w, 640, 8192);
  s.settings.window_h = std::clamp(s.settings.window_h, 400, 8192);
  std::string err;
  if (!save_settings(s.settings, &err)) {
    std::fprintf(stderr, "bankviz: %s\n", err.c_str());
    return false;
  }
  return true;
}

// [SECTION] ImGui's layout file

void load_imgui_ini(AppState& s, const std::string& path) {
  std::error_code ec;
  if (path.empty() || !fs::exists(fs::symlink_status(path, ec))) return;  // first start
  TextRead text = read_text_file(path, kMaxSettingsBytes);
  if (!text.text) {
    std::string why = "window layout: " + text.error + "; using the default layout";
    std::fprintf(stderr, "bankviz: %s\n", why.c_str());
    set_notice(s, why, 0, 10, Notice::Error);
    return;
  }
  ImGui::LoadIniSettingsFromMemory(text.text->data(), text.text->size());
}

bool save_imgui_ini(const std::string& path) {
  if (path.empty()) return true;
  size_t n = 0;
  const char* data = ImGui::SaveIniSettingsToMemory(&n);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::string err = write_file_atomic(path, std::string_view(data, n), true);
  if (!err.empty()) {
    std::fprintf(stderr, "bankviz: cannot save the window layout: %s\n", err.c_str());
    return false;
  }
  return true;
}

}  // namespace bankviz::gui
