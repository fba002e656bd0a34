// session.cpp: set-up, rendering and exports (see session.h).
//
// [SECTION] Set-up
// [SECTION] Look
// [SECTION] Frames
// [SECTION] Exports
// [SECTION] Headless
#include "shell/session.h"

#include "platform/gl.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "backends/imgui_impl_opengl3.h"
#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "bankviz/svg.h"
#include "catalog.h"
#include "data_dir.h"
#include "export/gif.h"
#include "imgui.h"
#include "platform/capture.h"
#include "platform/theme.h"
#include "shell/frame_guard.h"
#include "shell/link.h"
#include "shell/panels.h"
#ifndef __EMSCRIPTEN__
#include "measure/remote_gpu.h"  // a GPU elsewhere: the desktop's (process code)
#endif

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
  load_presets(s, assets_dir() + "/presets");
  if (!o.no_settings) {
    std::string problem;
    s.measure.validation = load_validation_record(&problem);
    if (!problem.empty()) std::fprintf(stderr, "bankviz: %s\n", problem.c_str());
  }
  if (!o.lesson.empty()) {
    // A name, as for presets: a name that names no lesson is a usage error listing them.
    const std::string path = catalog_path("lessons", o.lesson, error);
    if (path.empty()) return kExitUsage;
    // A scene the lesson does not have is a usage error too (--scene 99), not failed work.
    if (const LessonLoad l = load_lesson_file(path);
        l.lesson && o.scene > static_cast<int>(l.lesson->scenes.size())) {
      *error = "--scene " + std::to_string(o.scene) + ": lesson '" + o.lesson + "' has " +
               std::to_string(l.lesson->scenes.size()) + " scenes";
      return kExitUsage;
    }
    if (!open_catalog_lesson(s, o.lesson, o.scene - 1, error)) return kExitFailed;
    if (o.reveal) {
      reveal_answer(s);
      s.playing = false;  // a still picture of the answer's first wavefront
    }
  } else if (!o.compare.empty()) {
    // Before and after (compare.h): A is the app's scenario, B beside it.
    if (int rc = setup_compare(s, o.compare[0], o.compare[1], error); rc != kExitOk) return rc;
  } else if (!o.scenario.empty()) {
    if (!load_draft_file(s, o.scenario, o.scenario, error)) return kExitFailed;
  } else if (!o.scenario_text.empty()) {
    // A link's scenario: a bad one is the link's fault, a usage error like a bad flag.
    if (!load_draft(s, scenario_from_json(o.scenario_text), "the link's scenario", error))
      return kExitUsage;
  } else if (!o.preset.empty()) {
    // A name given on the command line that names no preset is a usage error, as in bankviz-cli.
    if (!has_preset(s, o.preset)) {
      select_preset(s, o.preset, error);  // the message lists the presets
      return kExitUsage;
    }
    if (!select_preset(s, o.preset, error)) return kExitFailed;
  } else if (!open_first_view(s, error)) {
    return kExitFailed;
  }
  if (!o.sweep.empty() && !open_sweep(s, o.sweep, error)) return kExitUsage;
  // --kernel-file: the "your kernel" window's run, and the line opened as it recorded it (the
  // beat below is sought in that picture).
  if (!o.kernel_file.empty()) {
    ProfileForm f;
    f.file = o.kernel_file;
    f.kernel = o.kernel;
    f.block = o.block;
    f.args = o.kernel_args;
    f.shared = o.shared;
    f.record = o.record_cpu;
    f.record_gpu = !o.record_cpu;
    std::string why;
    // A value bankviz-cli would refuse (the block, an argument, the kernel's name) is a usage
    // error, as it is there: the form's own check, or bankviz-cli's exit status 2.
    if (profile_argv("bankviz-cli", f, &why).empty()) {
      *error = "--kernel-file: " + why;
      return kExitUsage;
    }
    if (!open_kernel_line(s, f, static_cast<uint32_t>(o.line), &why)) {
      *error = "--kernel-file: " + why;
      return s.profiler.outcome && s.profiler.outcome->usage ? kExitUsage : kExitFailed;
    }
    // A picture written to a file: the views, not the window (unless --kernel-window).
    s.profiler.open = !o.headless() || o.kernel_window;
    s.analyzer.wait(1e9);
    poll_analysis(s);
  }
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
  // Presenter mode sizes its type for the window's height; the style grows with it. A slide is
  // for a projector: presenter mode's type for its height in either mode (its colours and
  // layout stay the mode's).
  const float px = font_px(scale, s.settings.presenter || s.slide, s.view_px_h);
  apply_style(s.palette, scale * px / font_px(scale, s.settings.presenter), s.settings.presenter);
  load_fonts(px);
}

bool look_outdated(const AppState& s, float scale, int px_h) {
  if (!s.settings.presenter) return false;
  return std::abs(font_px(scale, true, static_cast<float>(px_h)) - g_fonts.size) > 0.5f;
}

// [SECTION] Frames

FrameTiming render_frame(AppState& s, Platform& p, CellRenderer& cells, int width, int height,
                         double dt, bool input, ExportCanvas* canvas, bool draw) {
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  FrameTiming ft;
  auto t0 = clock::now();
  p.new_frame(width, height, dt, input);
  // An export's frame: the mouse is nowhere (no hover, no tooltip in the file). Buttons and keys
  // are left alone: the window's own frame has already seen them.
  if (!input) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
  cells.new_frame(col(s.palette.panel));
  try {
    update_frame(s, dt);
    draw_ui(s, cells, input);
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
  if (!draw) {
    ft.ui = ft.total = ms(t0, t1);
    return ft;
  }
  glViewport(0, 0, width, height);
  // The panels draw no background of their own (begin_panel): the clear is their background.
  const Rgba& bg = s.palette.panel;
  if (canvas) {
    canvas->draw(ImGui::GetDrawData(), bg, width, height);
  } else {
    glClearColor(bg.r / 255.f, bg.g / 255.f, bg.b / 255.f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }
  auto t2 = clock::now();
  ft.ui = ms(t0, t1);
  ft.submit = ms(t1, t2);
  ft.total = ms(t0, t2);
  return ft;
}

// [SECTION] Export frames drawn where they changed

namespace {

using PxRect = ImVec4;  // x0, y0, x1, y1 in pixels (panels.h has a PxRect of its own)

void add_point(PxRect* r, ImVec2 p) {
  r->x = std::min(r->x, p.x);
  r->y = std::min(r->y, p.y);
  r->z = std::max(r->z, p.x);
  r->w = std::max(r->w, p.y);
}

PxRect empty_rect() {
  return {FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX};
}

PxRect intersect(const PxRect& a, const PxRect& b) {
  return {std::max(a.x, b.x), std::max(a.y, b.y), std::min(a.z, b.z), std::min(a.w, b.w)};
}

bool is_empty(const PxRect& r) {
  return !(r.z > r.x && r.w > r.y);
}

bool same_vertex(const ImDrawVert& a, const ImDrawVert& b) {
  return a.pos.x == b.pos.x && a.pos.y == b.pos.y && a.uv.x == b.uv.x && a.uv.y == b.uv.y &&
         a.col == b.col;
}

uint32_t rgb_of(const Rgba& c) {
  return static_cast<uint32_t>(c.r) << 16 | static_cast<uint32_t>(c.g) << 8 | c.b;
}

bool same_cell(const CellInstance& a, const CellInstance& b) {
  return a.fill == b.fill && a.edge == b.edge && a.stripe == b.stripe && a.edge_px == b.edge_px &&
         a.gap_px == b.gap_px;
}

}  // namespace

struct ExportCanvas::List {
  std::string owner;  // the window that drew it (lists are matched by it between frames)
  std::vector<ImDrawVert> vtx;
  std::vector<ImDrawIdx> idx;
  std::vector<ImDrawCmd> cmd;
  std::vector<std::optional<CellGrid>> grids;  // per command: the cells it drew, if any
};

ExportCanvas::ExportCanvas() = default;
ExportCanvas::~ExportCanvas() = default;

void ExportCanvas::reset() {
  lists_.clear();
  valid_ = false;
}

std::vector<ImVec4> ExportCanvas::changed(const ImDrawData* dd, const Rgba& bg, int w,
                                          int h) const {
  const PxRect whole = {0, 0, static_cast<float>(w), static_cast<float>(h)};
  if (!valid_ || w != width_ || h != height_ || rgb_of(bg) != bg_ ||
      ImGui::GetIO().Fonts->TexID != font_tex_ || g_fonts.size != font_px_)
    return {whole};
  std::vector<PxRect> dirty;
  auto add = [&](PxRect r, const PxRect& clip) {
    r = intersect(r, clip);
    if (!is_empty(r)) dirty.push_back(r);
  };
  // Each list against the previous frame's list of the same window; a window that came or went
  // is dirty wherever it draws.
  std::vector<bool> matched(lists_.size(), false);
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    const ImDrawList& now = *dd->CmdLists[l];
    const std::string owner = now._OwnerName ? now._OwnerName : "";
    size_t m = lists_.size();
    for (size_t i = 0; i < lists_.size() && m == lists_.size(); ++i)
      if (!matched[i] && lists_[i].owner == owner) m = i;
    if (m == lists_.size()) {
      for (const ImDrawCmd& b : now.CmdBuffer) add(b.ClipRect, whole);
      continue;
    }
    matched[m] = true;
    const List& was = lists_[m];
    const bool same_shape = now.CmdBuffer.Size == static_cast<int>(was.cmd.size());
    for (int k = 0; same_shape && k < now.CmdBuffer.Size; ++k) {
      const ImDrawCmd& a = was.cmd[static_cast<size_t>(k)];
      const ImDrawCmd& b = now.CmdBuffer[k];
      const PxRect clip_a = a.ClipRect, clip_b = b.ClipRect;
      const bool same_clip = clip_a.x == clip_b.x && clip_a.y == clip_b.y && clip_a.z == clip_b.z &&
                             clip_a.w == clip_b.w;
      if (a.UserCallback != b.UserCallback || a.TextureId != b.TextureId || !same_clip ||
          (b.UserCallback && a.ElemCount != b.ElemCount)) {
        // Something else is drawn here: all of both commands' clip rectangles.
        add(clip_a, whole);
        add(clip_b, whole);
        continue;
      }
      if (b.UserCallback) {
        // Our cells (any other callback draws nothing): the box of the cells that changed.
        const CellGrid* g = CellRenderer::grid_of(b);
        const std::optional<CellGrid>& old = was.grids[static_cast<size_t>(k)];
        if (!g) continue;
        if (!old || old->x != g->x || old->y != g->y || old->cell_w != g->cell_w ||
            old->cell_h != g->cell_h || old->rows != g->rows || old->cols != g->cols) {
          add(clip_b, whole);
          continue;
        }
        PxRect box = empty_rect();
        for (int row = 0; row < g->rows; ++row)
          for (int col = 0; col < g->cols; ++col) {
            const size_t i = static_cast<size_t>(row) * g->cols + col;
            if (same_cell(old->cells[i], g->cells[i])) continue;
            add_point(&box, {g->x + col * g->cell_w, g->y + row * g->cell_h});
            add_point(&box, {g->x + (col + 1) * g->cell_w, g->y + (row + 1) * g->cell_h});
          }
        add(box, clip_b);
        continue;
      }
      // Triangles, compared by their corners' values: the ones that differ, old and new, between
      // the common start and the common end (a label with more or fewer glyphs shifts the
      // triangles after it in the buffer, not on screen). Outside their box both frames draw the
      // same triangles in the same order.
      const auto corner = [](const List& list, const ImDrawCmd& cmd, unsigned t,
                             unsigned v) -> const ImDrawVert* {
        const size_t i = cmd.IdxOffset + t * 3 + v;
        if (i >= list.idx.size()) return nullptr;
        const size_t k = cmd.VtxOffset + list.idx[i];
        return k < list.vtx.size() ? &list.vtx[k] : nullptr;
      };
      const auto corner_now = [&](unsigned t, unsigned v) -> const ImDrawVert* {
        const size_t i = b.IdxOffset + t * 3 + v;
        if (i >= static_cast<size_t>(now.IdxBuffer.Size)) return nullptr;
        const size_t k = b.VtxOffset + now.IdxBuffer[static_cast<int>(i)];
        return k < static_cast<size_t>(now.VtxBuffer.Size) ? &now.VtxBuffer[static_cast<int>(k)]
                                                           : nullptr;
      };
      const auto same_tri = [&](unsigned ta, unsigned tb) {
        for (unsigned v = 0; v < 3; ++v) {
          const ImDrawVert* x = corner(was, a, ta, v);
          const ImDrawVert* y = corner_now(tb, v);
          if (!x || !y || !same_vertex(*x, *y)) return false;
        }
        return true;
      };
      const unsigned na = a.ElemCount / 3, nb = b.ElemCount / 3;
      unsigned head = 0, tail = 0;
      while (head < na && head < nb && same_tri(head, head)) ++head;
      while (tail < na - head && tail < nb - head && same_tri(na - 1 - tail, nb - 1 - tail)) ++tail;
      PxRect box = empty_rect();
      for (unsigned t = head; t < na - tail; ++t) {
        bool all_same = na == nb;  // equal counts: only the triangles that differ
        if (all_same) all_same = same_tri(t, t);
        if (all_same) continue;
        for (unsigned v = 0; v < 3; ++v)
          if (const ImDrawVert* x = corner(was, a, t, v)) add_point(&box, x->pos);
        if (na == nb)
          for (unsigned v = 0; v < 3; ++v)
            if (const ImDrawVert* y = corner_now(t, v)) add_point(&box, y->pos);
      }
      if (na != nb)
        for (unsigned t = head; t < nb - tail; ++t)
          for (unsigned v = 0; v < 3; ++v)
            if (const ImDrawVert* y = corner_now(t, v)) add_point(&box, y->pos);
      add(box, clip_b);
    }
    if (!same_shape) {
      // Commands came or went: everything either frame drew in this list.
      for (const ImDrawCmd& a : was.cmd) add(a.ClipRect, whole);
      for (const ImDrawCmd& b : now.CmdBuffer) add(b.ClipRect, whole);
    }
  }
  for (size_t i = 0; i < lists_.size(); ++i)
    if (!matched[i])
      for (const ImDrawCmd& a : lists_[i].cmd) add(a.ClipRect, whole);
  // Whole pixels, a pixel of margin; overlapping rectangles merged; many become one.
  for (PxRect& r : dirty)
    r = intersect(
        {std::floor(r.x) - 1, std::floor(r.y) - 1, std::ceil(r.z) + 1, std::ceil(r.w) + 1}, whole);
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < dirty.size() && !merged; ++i)
      for (size_t j = i + 1; j < dirty.size() && !merged; ++j)
        if (!is_empty(intersect(dirty[i], dirty[j]))) {
          add_point(&dirty[i], {dirty[j].x, dirty[j].y});
          add_point(&dirty[i], {dirty[j].z, dirty[j].w});
          dirty.erase(dirty.begin() + static_cast<long>(j));
          merged = true;
        }
  }
  constexpr size_t kMostRects = 6;
  double area = 0;
  for (const PxRect& r : dirty) area += static_cast<double>(r.z - r.x) * (r.w - r.y);
  if (dirty.size() > kMostRects || area > 0.5 * w * h) return {whole};
  return dirty;
}

void ExportCanvas::draw(ImDrawData* dd, const Rgba& bg, int w, int h) {
  const std::vector<PxRect> rects = changed(dd, bg, w, h);
  glClearColor(bg.r / 255.f, bg.g / 255.f, bg.b / 255.f, 1);
  // Every command runs inside each rectangle, clipped to it: the pixels come out as a whole
  // frame's would (each is computed on its own), and the framebuffer keeps the rest.
  std::vector<ImVec4> clips;
  for (int l = 0; l < dd->CmdListsCount; ++l)
    for (const ImDrawCmd& cmd : dd->CmdLists[l]->CmdBuffer) clips.push_back(cmd.ClipRect);
  for (const PxRect& r : rects) {
    glEnable(GL_SCISSOR_TEST);
    glScissor(static_cast<GLint>(r.x), static_cast<GLint>(h - r.w), static_cast<GLsizei>(r.z - r.x),
              static_cast<GLsizei>(r.w - r.y));
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    size_t i = 0;
    for (int l = 0; l < dd->CmdListsCount; ++l)
      for (ImDrawCmd& cmd : dd->CmdLists[l]->CmdBuffer) cmd.ClipRect = intersect(clips[i++], r);
    ImGui_ImplOpenGL3_RenderDrawData(dd);
  }
  ++frames_;
  rects_ += rects.size();
  if (rects.size() == 1 && rects[0].x == 0 && rects[0].y == 0 && rects[0].z == w && rects[0].w == h)
    ++whole_frames_;
  // What this frame drew, for the next one to compare with.
  size_t i = 0;
  lists_.resize(static_cast<size_t>(dd->CmdListsCount));
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    ImDrawList& now = *dd->CmdLists[l];
    List& keep = lists_[static_cast<size_t>(l)];
    keep.owner = now._OwnerName ? now._OwnerName : "";
    for (ImDrawCmd& cmd : now.CmdBuffer) cmd.ClipRect = clips[i++];
    keep.vtx.assign(now.VtxBuffer.begin(), now.VtxBuffer.end());
    keep.idx.assign(now.IdxBuffer.begin(), now.IdxBuffer.end());
    keep.cmd.assign(now.CmdBuffer.begin(), now.CmdBuffer.end());
    keep.grids.assign(keep.cmd.size(), std::nullopt);
    for (size_t k = 0; k < keep.cmd.size(); ++k)
      if (const CellGrid* g = CellRenderer::grid_of(keep.cmd[k])) {
        CellGrid copy;
        copy.x = g->x;
        copy.y = g->y;
        copy.cell_w = g->cell_w;
        copy.cell_h = g->cell_h;
        copy.rows = g->rows;
        copy.cols = g->cols;
        copy.cells = g->cells;
        keep.grids[k] = std::move(copy);
      }
  }
  width_ = w;
  height_ = h;
  bg_ = rgb_of(bg);
  font_tex_ = ImGui::GetIO().Fonts->TexID;
  font_px_ = g_fonts.size;
  valid_ = true;
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
          // Three frames, the last one drawn: ImGui sizes a window from its content on the
          // frame before, so from a fresh start a scroll bar was still a frame behind on the
          // second (a run's first picture differed by a scroll bar's grab from the same size
          // drawn after another: AskBeforeTelling/SizesInOneRun). The first two are laid out,
          // not rasterized. A frame that failed (render_frame caught an exception) fails the
          // export rather than being written.
          const int failed = s.failed_frames;
          for (int i = 0; i < 2; ++i) render_frame(s, p, cells, w, h, 0, false, nullptr, false);
          render_frame(s, p, cells, w, h, 0, false);
          if (s.failed_frames != failed) throw std::runtime_error(s.status.text);
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
  if (restore_scale > 0) {
    const bool slide = s.slide;
    s.slide = false;  // the window's own type again (a slide's is presenter mode's)
    apply_look(s, restore_scale);
    s.slide = slide;
  }
  return ok;
}

std::string human_bytes(uint64_t n) {
  char buf[32];
  if (n < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%llu KB", static_cast<unsigned long long>((n + 1023) / 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(n) / (1024.0 * 1024.0));
  }
  return buf;
}

std::string absolute_text(const std::string& path) {
  std::error_code ec;
  const fs::path full = fs::absolute(path, ec);
  return ec ? path : full.string();
}

// What an export frame changes in the state (the slide layout, its theme, the beat's time), put
// back when it goes out of scope, also when rendering throws. The fonts stay the window's: a
// font atlas rebuilt twice per UI frame would cost more than the frame itself.
class ExportFrameState {
 public:
  ExportFrameState(AppState& s, const ExportRequest& r, float ui_scale)
      : s_(s),
        t_(s.t),
        playing_(s.playing),
        slide_(s.slide),
        speed_(s.settings.speed),
        loop_(s.settings.loop),
        only_warp_(s.playback.only_warp),
        light_(s.settings.light),
        palette_(s.palette),
        style_(ImGui::GetStyle()),
        default_font_(ImGui::GetIO().FontDefault) {
    s.slide = r.slide;
    s.playing = false;
    s.settings.speed = r.playback.speed;
    s.settings.loop = r.playback.loop;
    s.playback.only_warp = r.playback.only_warp;
    // A slide's frames in presenter type for the slide's height, as --gif's and a PNG slide's
    // (pump_export put that set in the atlas): the window's own type was the desk's.
    swapped_ = r.slide && g_slide_fonts.ui && g_slide_fonts.ui != g_fonts.ui;
    if (swapped_) {
      std::swap(g_fonts, g_slide_fonts);
      ImGui::GetIO().FontDefault = g_fonts.ui;
    }
    if (r.light != s.settings.light || swapped_) {
      s.settings.light = r.light;
      s.palette = r.light ? light_palette() : dark_palette();
      if (s.settings.presenter) s.palette = high_contrast(s.palette);
      const bool pres = s.settings.presenter;
      apply_style(s.palette, ui_scale * g_fonts.size / font_px(ui_scale, pres), pres);
    }
  }
  ~ExportFrameState() {
    if (swapped_) std::swap(g_fonts, g_slide_fonts);
    ImGui::GetIO().FontDefault = default_font_;
    s_.t = t_;
    s_.playing = playing_;
    s_.slide = slide_;
    s_.settings.speed = speed_;
    s_.settings.loop = loop_;
    s_.playback.only_warp = only_warp_;
    s_.settings.light = light_;
    s_.palette = palette_;
    ImGui::GetStyle() = style_;
    update_frame(s_, 0);  // the window's frame again
  }
  ExportFrameState(const ExportFrameState&) = delete;
  ExportFrameState& operator=(const ExportFrameState&) = delete;

 private:
  AppState& s_;
  double t_;
  bool playing_, slide_;
  double speed_;
  bool loop_;
  int only_warp_;
  bool light_;
  Palette palette_;
  ImGuiStyle style_;
  ImFont* default_font_;
  bool swapped_ = false;
};

}  // namespace

bool export_png(AppState& s, Platform& p, CellRenderer& cells, int lw, int lh, float scale,
                bool light, const std::string& path, bool force, std::string* error) {
  // Say no before rendering (and again when writing: write_file_atomic).
  if (std::string why = output_problem(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  const auto px = [&](int l) { return static_cast<int64_t>(static_cast<float>(l) * scale); };
  if (std::string why = export_size_problem(px(lw), px(lh), false); !why.empty()) {
    *error = "cannot write '" + path + "': " + why;
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

bool export_slide_svg(const AppState& s, bool light, double width, const std::string& path,
                      bool force, std::string* error) {
  if (!s.analysis) {
    *error = "nothing to export: the scenario does not analyze";
    return false;
  }
  if (std::string why = output_problem(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  // While comparing: both sides, as the PNG slide draws them.
  if (s.compare.open && s.compare.b_analysis)
    return write_text(path, compare_slide_svg(s, light, width), force, error);
  SlideSvgOptions o;
  o.light = light;
  o.width = width;
  if (s.lesson.file && s.lesson.scene >= 0 &&
      s.lesson.scene < static_cast<int>(s.lesson.file->scenes.size()))
    o.caption = scene_caption(s.lesson.file->scenes[static_cast<size_t>(s.lesson.scene)],
                              *s.analysis, s.lesson.step, s.lesson.revealed);
  o.conceal = asking(s);            // a question's slide keeps its answer back too
  o.measured = main_stage_line(s);  // the figure on stage (empty while asking)
  return write_text(path, render_slide_svg(*s.analysis, s.frame, o), force, error);
}

bool start_export(AppState& s, ExportKind kind, const std::string& path, ExportScope scope,
                  bool slide, bool light, int width, int height, bool force, std::string* error) {
  if (s.exports.job.active()) {
    const ExportProgress pr = s.exports.job.progress();
    *error = "an export is already running (" + std::to_string(pr.encoded) + " of " +
             std::to_string(pr.total) + " frames): wait for it, or cancel it in the toolbar";
    return false;
  }
  if (!s.analysis) {
    *error = "nothing to export: the scenario does not analyze";
    return false;
  }
  if (std::string why = export_size_problem(width, height, true); !why.empty()) {
    *error = "cannot write '" + path + "': " + why;
    return false;
  }
  update_frame(s, 0);
  ExportRequest r;
  r.kind = kind;
  r.path = path;
  r.beats = export_beats(*s.analysis, s.playback, s.frame, scope, error);
  if (r.beats.empty()) return false;
  r.playback = s.playback;
  r.width = width;
  r.height = height;
  // A step's GIF plays in at most 10 s, a whole animation in at most 60 s (kMaxExportFrames
  // frames at the shortest delay, 2 cs, take 40 s).
  r.delay_cs = gif_delay_cs(s.playback.speed, r.beats.size(),
                            scope == ExportScope::Step ? kGifStepSeconds : kGifAnimationSeconds);
  r.loop = s.playback.loop || scope == ExportScope::Step;
  r.force = force;
  Palette pal = light ? light_palette() : dark_palette();
  if (s.settings.presenter) pal = high_contrast(pal);
  r.palette_seed = palette_seed(pal);
  r.version = s.version;
  r.slide = slide;
  r.light = light;
  return s.exports.job.start(std::move(r), error);
}

namespace {

// The running export's framebuffer and canvas, kept from one pump to the next (the app has one
// OpenGL context); released when the job ends.
struct ExportTarget {
  Offscreen fbo;
  ExportCanvas canvas;
};

ExportTarget& export_target() {
  static ExportTarget t;
  return t;
}

}  // namespace

std::optional<ExportResult> pump_export(AppState& s, Platform& p, CellRenderer& cells,
                                        float ui_scale, double budget_ms) {
  ExportJob& job = s.exports.job;
  if (!job.active()) return std::nullopt;
  // The frames must all show one analysis: an edit during the export stops it.
  if (s.version != job.request().version) job.cancel("the scenario changed while exporting");
  ExportTarget& target = export_target();
  if (job.next_beat() >= 0) {
    const ExportRequest& r = job.request();
    Offscreen& fbo = target.fbo;
    std::string err;
    if (job.progress().rendered == 0) target.canvas.reset();  // a new job: its first frame whole
    // A slide's type (ExportFrameState): in the atlas once, between the window's frames.
    if (const float px = font_px(ui_scale, true, static_cast<float>(r.height));
        r.slide && (!g_slide_fonts.ui || std::abs(g_slide_fonts.size - px) > 0.5f))
      load_fonts(g_fonts.size, px);
    if (!fbo.ensure(r.width, r.height, &err)) {
      job.cancel(err);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      {
        ExportFrameState look(s, r, ui_scale);
        fbo.bind();
        try {
          for (int b; (b = job.next_beat()) >= 0;) {
            s.t = beat_time(b, r.playback);
            // The job's first frame is drawn twice (ImGui settles sizes on the first); the slide
            // lays itself out from the display size alone, so the later ones, drawn once, came
            // out byte-identical to drawn twice (measured: BENCHMARKS.md). A frame a panel threw
            // in (render_frame caught it) fails the export rather than being written.
            const int failed = s.failed_frames;
            const bool first = job.progress().rendered == 0;
            for (int i = 0; i < (first ? 2 : 1); ++i)
              render_frame(s, p, cells, r.width, r.height, 0, false, &target.canvas);
            if (s.failed_frames != failed) throw std::runtime_error(s.status.text);
            glFinish();
            job.submit(fbo.read_rgba());
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            if (ms >= budget_ms) break;
          }
        } catch (...) {
          job.cancel("rendering failed: " + current_exception_text());
        }
        Offscreen::unbind();
      }
    }
  }
  std::optional<ExportResult> result = job.take_result();
  if (result) {
    target.fbo.destroy();
    target.canvas.reset();
  }
  return result;
}

std::string export_saved_text(const ExportResult& r, ExportKind kind) {
  const std::string where = absolute_text(r.path);
  const std::string frames = std::to_string(r.frames) + (r.frames == 1 ? " frame" : " frames");
  if (kind == ExportKind::Sequence)
    return frames + " in " + where + " (" + human_bytes(r.bytes) + ")";
  return where + " (" + human_bytes(r.bytes) + ", " + frames + ")";
}

double export_budget_ms(double window_ms) {
  return std::clamp(window_ms * kExportShare, kExportMinMs, kExportMaxMs);
}

namespace {

// An export's outcome: where files land in place (the desktop) the notice names the file; in the
// browser the file is handed over as a download (platform.h deliver_file) and leaves the page.
void finish_export(AppState& s, bool ok, const std::string& path, const std::string& saved,
                   const std::string& error, double now) {
  if (ok && !capabilities().files_in_place) {
    deliver_file(path);
    set_notice(s, "downloaded " + fs::path(path).filename().string(), now);
    return;
  }
  report_export(s, ok, saved, error, now);
}

}  // namespace

void handle_export_jobs(AppState& s, Platform& p, CellRenderer& cells, float ui_scale,
                        double window_ms) {
  const double now = ImGui::GetTime();
  // A running GIF or sequence: a few of its frames, then the window's next frame.
  if (std::optional<ExportResult> r =
          pump_export(s, p, cells, ui_scale, export_budget_ms(window_ms))) {
    const ExportKind kind = s.exports.job.request().kind;
    if (kind == ExportKind::Gif)
      finish_export(s, r->ok, r->path, export_saved_text(*r, kind), r->error, now);
    else
      report_export(s, r->ok, export_saved_text(*r, kind), r->error, now);
    s.exports.last = r;
  }
  const bool light = export_light(s.settings);
  const int slide_w = s.exports.full_hd ? 1920 : kSlideWidth;
  const int slide_h = s.exports.full_hd ? 1080 : kSlideHeight;
  if (s.exports.take(ExportAsk::SlidePng)) {
    // The views-only 16:9 slide of this frame: 1280x720, or the same slide at 1.5x.
    std::string err, path = next_free_name("", "bankviz-slide", "png");
    bool ok = false;
    try {
      s.slide = true;
      ok = !path.empty() &&
           offscreen(s, p, cells, kSlideWidth, kSlideHeight, s.exports.full_hd ? 1.5f : 1.0f, light,
                     ui_scale, &err, [&](auto render, int w, int h) {
                       return write_png(path, w, h, render(), false, &err);
                     });
      if (path.empty()) err = "no free file name for bankviz-slide-NNNN.png";
    } catch (...) {
      err = "export failed: " + current_exception_text();
    }
    s.slide = false;
    finish_export(s, ok, path, absolute_text(path), err, now);
  }
  if (s.exports.take(ExportAsk::SlideSvg)) {
    // The landscape 16:9 SVG slide: tile left, banks right, the lesson's caption under them.
    std::string err, path = next_free_name("", "bankviz-slide", "svg");
    bool ok = false;
    try {
      if (path.empty()) err = "no free file name for bankviz-slide-NNNN.svg";
      ok = !path.empty() && export_slide_svg(s, light, slide_w, path, false, &err);
    } catch (...) {
      err = "export failed: " + current_exception_text();
    }
    finish_export(s, ok, path, absolute_text(path), err, now);
  }
  // A GIF or a sequence starts a job; its frames are rendered over the next UI frames.
  auto start = [&](ExportKind kind, std::string path, const char* stem, const char* ext) {
    std::string err;
    if (kind == ExportKind::Sequence && !capabilities().files_in_place) {
      // A folder of PNG files is one download each: the browser gives the animation as a GIF.
      report_export(s, false, "",
                    "a PNG sequence is a folder of files, which a browser cannot save: export the "
                    "animation as a GIF",
                    now);
      return;
    }
    if (path.empty()) path = next_free_name("", stem, ext);
    if (path.empty()) err = std::string("no free file name for ") + stem + "-NNNN." + ext;
    try {
      const bool force = kind == ExportKind::Gif && s.exports.gif_force;
      if (!path.empty() &&
          start_export(s, kind, path, s.exports.scope, true, light, slide_w, slide_h, force, &err))
        return;
    } catch (...) {
      err = "export failed: " + current_exception_text();
    }
    report_export(s, false, "", err, now);
    if (kind == ExportKind::Gif && !s.exports.gif_path.empty()) {
      ExportResult failed;
      failed.path = path;
      failed.error = err;
      s.exports.last = failed;
    }
  };
  if (s.exports.take(ExportAsk::Link)) {
    const std::string link = link_for(current_link(s));
    if (copy_to_clipboard(link))
      set_notice(s, "copied the link: " + bankviz::replace_controls(link, '?'), now, 6);
    else
      set_notice(s, "no clipboard here; the link: " + link, now, 12);
  }
  if (s.exports.take(ExportAsk::Sequence)) start(ExportKind::Sequence, "", "bankviz-frames", "d");
  if (s.exports.take(ExportAsk::Gif)) start(ExportKind::Gif, s.exports.gif_path, "bankviz", "gif");
  s.exports.gif_path.clear();  // --export-gif names the first GIF only
}

void handle_requests(AppState& s, Platform& p, CellRenderer& cells, float ui_scale) {
  if (!s.exports.wants(ExportAsk::Screenshot) && !s.exports.wants(ExportAsk::Svg)) return;
  int lw = 1600, lh = 1000;
  if (p.has_window()) p.window_size(&lw, &lh);
  double now = ImGui::GetTime();
  bool light = export_light(s.settings);
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
    finish_export(s, ok, path, saved_prefix + (ec ? path : full.string()), err, now);
  };
  if (s.exports.take(ExportAsk::Screenshot))
    attempt("bankviz", "png", "", [&](const std::string& path, std::string* err) {
      return offscreen(
          s, p, cells, lw, lh, scale, light, ui_scale, err,
          [&](auto render, int w, int h) { return write_png(path, w, h, render(), false, err); });
    });
  if (s.exports.take(ExportAsk::Svg))
    attempt("bankviz", "svg", "", [&](const std::string& path, std::string* err) {
      return export_svg(s, light, path, false, err);
    });
}

namespace {

nlohmann::json layout_json(const AppState& s, float scale) {
  auto grid = [](const GridLayout& g) {
    // A tile in bands (views/tile_bands.h): cell (r, c) at x + (c % band_cols) * cell,
    // y + ((c / band_cols) * band_stride + r) * cell.
    return nlohmann::json{{"x", g.x},
                          {"y", g.y},
                          {"cell", g.cell},
                          {"rows", g.rows},
                          {"cols", g.cols},
                          {"first_line", g.first_line},
                          {"bands", g.bands},
                          {"band_cols", g.band_cols > 0 ? g.band_cols : g.cols},
                          {"band_stride", g.band_stride > 0 ? g.band_stride : g.rows}};
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
      {"timeline_row_cut", l.timeline_row_cut},
      {"tile_header_cut", l.tile_header_cut},
      {"timeline_current_visible", l.timeline_current_visible},
      {"status", box(l.status)},
      {"lane_digit_px", l.lane_digit_px},
      {"bank_count_px", l.bank_count_px},
      {"bank_counts", box(l.bank_counts)},
      {"lane_label_px", l.lane_label_px},
      {"lane_strip", box(l.lane_strip)},
      {"caption", box(l.caption)},
      {"padding_field", box(l.padding_field)},
      {"timeline_legend", box(l.timeline_legend)},
      {"scene_buttons", l.scene_buttons},
      {"compare_buttons", l.compare_buttons},
      {"tile", grid(s.tile_layout)},
      {"banks", grid(s.bank_layout)},
      {"frame", {{"step", s.frame.step}, {"warp", s.frame.warp}, {"wavefront", s.frame.wavefront}}},
      // What a room can read in the frame: every text the panels drew, line by line.
      {"texts", captured_texts()},
      {"asking", asking(s)},
      // The lesson on screen ("" without one) and its scene, 1-based (0 without one).
      {"lesson", s.lesson.file ? s.lesson.file->name : ""},
      {"scene", s.lesson.file ? s.lesson.scene + 1 : 0},
      {"toolbar_scenario", toolbar_scenario_name(s)}};
  if (s.profiler.open)  // the "your kernel" window's source list as last drawn
    j["kernel_window"] = {
        {"shown_line", s.profiler.shown_line},
        {"highlighted", s.profiler.highlighted},
        {"visible_first", s.profiler.visible_first},
        {"visible_last", s.profiler.visible_last},
        {"rows_left", s.profiler.rows_left},
        {"rows_right", s.profiler.rows_right},
        {"row_texts", nlohmann::json::array()},
        {"open", s.profiler.open},
        {"outcome_lines", s.profiler.outcome ? s.profiler.outcome->lines.size() : 0}};
  if (s.profiler.open)
    for (const auto& r : s.profiler.row_texts)
      j["kernel_window"]["row_texts"].push_back({r.line, r.y, r.h});
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
  return j;
}

}  // namespace

bool write_layout(const AppState& s, const std::string& path, float scale, bool force,
                  std::string* error) {
  return write_text(path, layout_json(s, scale).dump(2) + "\n", force, error);
}

bool layout_of_first_frame(AppState& s, Platform& p, CellRenderer& cells, int w, int h,
                           std::string* json, std::string* error) {
  // As run_headless()'s --screenshot: the analysis waited for, the frame drawn offscreen with
  // the exports' theme and its texts captured, so the JSON is the desktop's at the same size.
  s.analyzer.wait(1e9);
  poll_analysis(s);
  capture_texts(true);
  const bool ok = offscreen(s, p, cells, w, h, 1.0f, export_light(s.settings), 0, error,
                            [](auto render, int, int) {
                              render();
                              return true;
                            });
  if (ok) *json = layout_json(s, 1.0f).dump(2) + "\n";
  capture_texts(false);
  return ok;
}

void open_user_file(AppState& s, const std::string& path, double now) {
  const std::string shown = bankviz::replace_controls(path.substr(path.rfind('/') + 1), '?');
  std::string why;
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".cu" || ext == ".cuh") {
    // A kernel: the "your kernel" window (profile/profiler.h).
    if (open_dropped_source(s.profiler, path, &why))
      set_notice(s, "opened " + shown + " in 'your kernel': pick the kernel and the launch", now,
                 6);
    else
      set_notice(s, why, now, 8, Notice::Error);
    return;
  }
  if (ext != ".json") {
    // A recording bankviz-cli profile --save-recording wrote: its lines in 'your kernel'.
    if (open_saved_recording(s.profiler, path, &why))
      set_notice(s, "opened the recording " + shown + " in 'your kernel': open a line to see it",
                 now, 6);
    else
      set_notice(s, why, now, 8, Notice::Error);
    return;
  }
  // A lesson has scenes; anything else is read as a scenario (a preset is one), and a file that
  // is neither says why as a scenario file would.
  const TextRead r = read_text_file(path, kMaxScenarioBytes);
  if (!r.text) {
    set_notice(s, "cannot open " + r.error, now, 8, Notice::Error);
    return;
  }
  const bool lesson = r.text->find("\"scenes\"") != std::string::npos;
  // A lesson of the user's is not the catalog's: its scenes are not remembered as the catalog
  // lesson's place (a failed open leaves the lesson on screen as it was).
  const std::string catalog = s.lesson.catalog;
  if (lesson) s.lesson.catalog.clear();
  const bool ok = lesson ? open_lesson(s, path, assets_dir() + "/presets", 0, &why)
                         : load_draft(s, scenario_from_json(*r.text), shown, &why, false);
  if (ok) {
    if (!lesson)
      close_lesson(s);  // a scenario closes the lesson it replaces
    else
      s.settings.lesson.clear();  // a start opens the catalog's lessons, not this file
    set_notice(s, "opened " + shown, now, 4);
  } else {
    s.lesson.catalog = catalog;
    set_notice(s, why, now, 10, Notice::Error);
  }
}

std::string current_link(const AppState& s, const std::string& size) {
  LinkView v;
  v.size = size;
  v.presenter = s.settings.presenter;
  v.light = s.settings.light;
  const bool unedited = scenario_to_json(s.draft) == s.edit.clean_json;
  std::string unknown;
  if (s.lesson.file && unedited &&
      !catalog_path("lessons", s.lesson.file->name, &unknown).empty()) {
    v.lesson = s.lesson.file->name;
    v.scene = s.lesson.scene + 1;
    v.revealed = s.lesson.revealed;
  } else if (!s.preset.empty()) {
    v.preset = s.preset;
  } else {
    v.scenario = &s.draft;
  }
  return make_link(v);
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
    sum_parts.exports += f.exports;
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
  if (sum_parts.exports > 0)
    std::printf("mean ms: export frames rendered between window frames %.2f\n",
                sum_parts.exports / n);
}

namespace {

// One PNG of the window as it stands (one of screenshot_files(): --screenshot, --answer-screenshot,
// at --size or one of --sizes) and, when it names one, where its grids and texts were drawn
// (--dump-layout).
bool write_screenshot(AppState& s, const Options& o, Platform& p, CellRenderer& cells, float scale,
                      bool light, const ScreenshotFile& f, std::string* err) {
  s.slide = o.slide;  // the Export menu's PNG slide, at --size
  capture_texts(!f.json.empty());
  const bool shot = export_png(s, p, cells, f.width, f.height, scale, light, f.png, o.force, err);
  s.slide = false;
  if (shot)
    std::printf("wrote %s (%dx%d, %s%s)\n", f.png.c_str(), static_cast<int>(f.width * scale),
                static_cast<int>(f.height * scale), p.gl_renderer.c_str(),
                p.egl_platform.empty() ? "" : (", EGL " + p.egl_platform).c_str());
  const bool dumped = !shot || f.json.empty() || write_layout(s, f.json, scale, o.force, err);
  capture_texts(false);
  return shot && dumped;
}

}  // namespace

void wait_for_figures(AppState& s) {
  s.measure.measurer.wait(240);  // a GPU (here or elsewhere) or a recorded set
  // A comparison measures both sides (update_compare runs A, then B, through the one
  // Measurer): the picture waits for the pair, as a person watching the window would.
  if (s.compare.open) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(240);
    update_compare(s);
    while (s.compare.measuring != CompareState::Measuring::Idle &&
           std::chrono::steady_clock::now() < until) {
      s.measure.measurer.wait(1);
      update_compare(s);
    }
  }
}

int run_headless(AppState& s, const Options& o, Platform& p, CellRenderer& cells) {
  float scale = o.scale > 0 ? o.scale : 1.0f;
  const bool light = export_light(s.settings);  // --theme, else the app's default
  std::string err;
  // Set-up waited for the analysis; make sure nothing is pending before the pictures are taken.
  s.analyzer.wait(1e9);
  poll_analysis(s);
  if (!o.screenshot.empty()) {
    wait_for_figures(s);
    // The question's pictures, at --size or at each of --sizes (main.cpp checked every name).
    const std::vector<ScreenshotFile> shots = screenshot_files(o);
    for (const ScreenshotFile& f : shots)
      if (!f.told && !write_screenshot(s, o, p, cells, scale, light, f, &err)) {
        std::fprintf(stderr, "bankviz: %s\n", err.c_str());
        return kExitFailed;
      }
    // What the measurement panel shows: a GPU's timing, or why there is none.
    if (auto m = s.measure.measurer.last(); m && m->ok && !m->recorded.empty()) {
      // A recorded figure (no GPU here): where and when it was measured.
      std::printf("recorded figure (%s): %.2f cycles/instr (exposed)\n", m->recorded.c_str(),
                  m->cycles_per_instruction);
    } else if (m && m->ok && m->partial) {
      // A figure alone (a comparison's side): exposed mode, no launch of the lesson's.
      std::printf("measured on %s: %.2f cycles/instr (exposed)\n", m->device.c_str(),
                  m->cycles_per_instruction);
    } else if (m && m->ok) {
      std::printf("measured on %s: %.2f cycles/instr, %.2f us/launch (%s)\n", m->device.c_str(),
                  m->cycles_per_instruction, m->microseconds, m->mode.c_str());
    } else {
      std::printf("no measurement: %s\n",
                  m ? m->error.c_str() : s.measure.measurer.reason().c_str());
    }
    // --answer-screenshot: the clicker's reveal, held on the answer's first wavefront as
    // --reveal holds it, in the same run: what moves (nothing should) is what the room sees move.
    // Then the answer's pictures at the same sizes.
    if (!o.answer_screenshot.empty()) {
      reveal_answer(s);
      s.playing = false;
    }
    for (const ScreenshotFile& f : shots)
      if (f.told && !write_screenshot(s, o, p, cells, scale, light, f, &err)) {
        std::fprintf(stderr, "bankviz: %s\n", err.c_str());
        return kExitFailed;
      }
  }
  // --sequence and --gif: the views-only 16:9 slide the Export menu renders (1280x720 unless
  // --size), through the same job as the app's exports, run to completion: the current step's
  // wavefronts with --step, else (or with --whole-animation) every beat.
  // The slides' frames carry the figure on stage, as the window's do: measured first.
  if (!o.sequence.empty() || !o.gif.empty()) wait_for_figures(s);
  auto run_job = [&](ExportKind kind, const std::string& path) {
    const int lw = o.size_given ? o.width : kSlideWidth,
              lh = o.size_given ? o.height : kSlideHeight;
    const int w = static_cast<int>(lw * scale), h = static_cast<int>(lh * scale);
    s.view_px_h = static_cast<float>(h);
    s.slide = true;  // the job's frames are slides: presenter type (apply_look)
    apply_look(s, scale);
    s.slide = false;
    const ExportScope scope =
        o.whole_animation || o.step < 0 ? ExportScope::Animation : ExportScope::Step;
    if (!start_export(s, kind, path, scope, true, light, w, h, o.force, &err)) {
      std::fprintf(stderr, "bankviz: %s\n", err.c_str());
      return false;
    }
    for (;;) {
      if (std::optional<ExportResult> r = pump_export(s, p, cells, scale, 1e9)) {
        if (!r->ok) {
          std::fprintf(stderr, "bankviz: %s\n", r->error.c_str());
          return false;
        }
        if (kind == ExportKind::Sequence) {
          std::printf("wrote %d frames into %s\n", r->frames, path.c_str());
        } else {
          std::printf("wrote %s (%d frames)\n", path.c_str(), r->frames);
        }
        if (o.frame_times) {
          const ExportCanvas& c = export_target().canvas;
          std::printf(
              "export: %d frames drawn in %.2f s, %d of them whole, %d rectangles in the "
              "others\n",
              c.frames(), r->seconds, c.whole_frames(), c.rects() - c.whole_frames());
        }
        return true;
      }
      s.exports.job.wait_for_room(1);  // the worker is a few frames behind
    }
  };
  if (!o.sequence.empty() && !run_job(ExportKind::Sequence, o.sequence)) return kExitFailed;
  if (!o.gif.empty() && !run_job(ExportKind::Gif, o.gif)) return kExitFailed;
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
  keep_place(s);
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

// [SECTION] Where the measured figures come from (the GPU menu, --gpu, --gpu-command)

void start_gpu(AppState& s, const Options& o) {
  Measurer& m = s.measure.measurer;
  // The browser runs no kernel: the recorded figures where exactly the scenario was recorded
  // (the page unpacks assets/recorded into its files before the app starts: bankviz-page.js).
  if (!capabilities().processes) {
#ifdef __EMSCRIPTEN__
    if (use_served_gpu(m)) return;  // opened from `bankviz-cli serve --http`: its GPU
#endif
    return use_recorded(m, "no GPU in a browser: the recorded figures");
  }
  if (o.frames != 0 && o.screenshot.empty()) return;  // a headless render measures nothing
#ifndef __EMSCRIPTEN__
  GpuMenu& g = s.measure.gpu_menu;
  g.session_only = !o.gpu.empty() || !o.gpu_command.empty();
  if (g.session_only) {
    g.source = o.gpu.empty() ? Settings::GpuSource::Command : Settings::GpuSource::Ssh;
    g.host = o.gpu;
    g.command = o.gpu_command;
  } else {
    g.source = s.settings.gpu_source;
    g.host = s.settings.gpu_host;
    g.command = s.settings.gpu_command;
  }
  // The window and the headless pictures (--screenshot, --svg, --gif, --sequence) alike: without
  // a GPU here, the recorded figure where the scenario was recorded (hidden while a question is
  // open, as a live one is).
  g.problem = use_gpu_setting(m, g.source, g.host, g.command);
  if (g.problem.empty()) return;
  // A saved setting that cannot be used (the flags were checked at the start): said, and this
  // machine's GPU used instead.
  set_notice(s, "the GPU setting: " + g.problem + "; measuring on this machine", 0, 30,
             Notice::Error);
  std::fprintf(stderr, "bankviz: the GPU setting: %s; measuring on this machine\n",
               g.problem.c_str());
  use_gpu_setting(m, Settings::GpuSource::Here, "", "");
#endif
}

void use_gpu_menu(AppState& s) {
#ifndef __EMSCRIPTEN__
  GpuMenu& g = s.measure.gpu_menu;
  g.problem = use_gpu_setting(s.measure.measurer, g.source, g.host, g.command);
  if (!g.problem.empty()) return;
  g.session_only = false;
  s.settings.gpu_source = g.source;
  s.settings.gpu_host = g.host;
  s.settings.gpu_command = g.command;
  s.measure.measurer.request(s.scenario);
#else
  (void)s;
#endif
}

}  // namespace bankviz::gui
