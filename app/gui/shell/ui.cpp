// ui.cpp: the window's layout, keyboard shortcuts and helpers shared by the panels.
//
//  +----------------------------------------------------------------------+
//  | toolbar                                                              |
//  (views only -- key V, and presenter mode's start -- drops the left column: the tile and bank
//   views and the timeline take the whole width)
//  +-------------+----------------------------+----------------------------+
//  | scenario    | logical tile               | physical banks             |
//  | controls    |                            |                            |
//  +-------------+                            |                            |
//  | measurement |                            |                            |
//  +-------------+----------------------------+----------------------------+
//  | kernel src  | warp timeline                                           |
//  +-------------+---------------------------------------------------------+
#include <GLFW/glfw3.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "data_dir.h"
#include "lesson/notes.h"
#include "platform/platform.h"
#include "platform/theme.h"
#include "shell/desk.h"
#include "shell/panels.h"
#include "shell/session.h"
#include "views/tile_bands.h"

namespace bankviz::gui {

// [SECTION] The texts a frame draws (--dump-layout's "texts": what a room can read)
// ImGui's own log records every text its widgets render while it is on. It stops at the End() of
// each window (and forgets a buffer then), so every panel turns it on again (begin_panel), into
// one file the pieces are appended to; the frame reads it back. Texts drawn straight into a draw
// list are added by draw_text(). Only for --dump-layout: nothing is logged otherwise.

namespace {
bool g_capture = false;
std::string g_log_path;  // a private temporary file while capturing

void stop_log() {
  if (ImGui::GetCurrentContext()) ImGui::LogFinish();  // a no-op when not logging
}

void start_frame_log() {
  if (!g_capture) return;
  stop_log();
  std::FILE* f = std::fopen(g_log_path.c_str(), "wb");  // this frame's texts only
  if (f) std::fclose(f);
}
// The analysis on screen, or null before the first one.
const Analysis* ptr(const std::optional<Analysis>& a) {
  return a ? &*a : nullptr;
}

}  // namespace

void capture_texts(bool on) {
  stop_log();
  if (!g_log_path.empty()) std::remove(g_log_path.c_str());
  g_log_path.clear();
  g_capture = false;
  if (!on) return;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/bankviz-texts-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) return;  // no texts in the layout; nothing else depends on them
  ::close(fd);
  g_log_path = pattern;
  g_capture = true;
}

std::vector<std::string> captured_texts() {
  stop_log();
  std::vector<std::string> out;
  if (!g_capture) return out;
  std::ifstream in(g_log_path, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
    if (a != std::string::npos) out.push_back(line.substr(a, b - a + 1));
  }
  return out;
}

void draw_text(ImDrawList* dl, ImFont* font, float size, ImVec2 pos, ImU32 color,
               const std::string& text) {
  dl->AddText(font, size, pos, color, text.c_str());
  ImGui::LogText("\n%s\n", text.c_str());  // recorded only while capture_texts() is on
}

// A slide's frame (draw_slide): its panels are windows of their own. ImGui keeps a window's
// sizes from its last frame (the scroll bars it shows follow them), and the window's own frames,
// drawn between a GIF's from the Export menu, gave the slide's panels the window's sizes: a
// frame here and there showed a scroll bar the next did not.
static bool g_slide_frame = false;

bool begin_panel(const char* title, Rect r, bool title_bar) {
  std::string slide_title;
  if (g_slide_frame) {
    slide_title = std::string(title) + "###slide " + title;  // the same label, an id of its own
    title = slide_title.c_str();
  }
  ImGui::SetNextWindowPos(r.pos);
  ImGui::SetNextWindowSize(r.size);
  // No background: the panels tile the window, and the frame is cleared to the panel colour
  // (render_frame). A software rasterizer (llvmpipe under Xvfb) pays per blended pixel, and a
  // full-window layer of panel backgrounds cost more than all the cells together.
  bool open = ImGui::Begin(
      title, nullptr,
      ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
          ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
          ImGuiWindowFlags_NoBackground | (title_bar ? 0 : ImGuiWindowFlags_NoTitleBar));
  // Without a background ImGui draws no border either: outline the panel ourselves.
  ImGui::GetWindowDrawList()->AddRect(r.pos, ImVec2(r.pos.x + r.size.x, r.pos.y + r.size.y),
                                      ImGui::GetColorU32(ImGuiCol_Border));
  // 0: no tree node opens for the log. Appends to the frame's file.
  if (g_capture) ImGui::LogToFile(0, g_log_path.c_str());
  return open;
}

std::string lanes_text(uint32_t lanes) {
  std::string out;
  for (int i = 0; i < 32;) {
    if (!(lanes >> i & 1u)) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < 32 && (lanes >> (j + 1) & 1u)) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(i);
    if (j > i) out += (j == i + 1 ? ", " : "-") + std::to_string(j);
    i = j + 1;
  }
  return out.empty() ? "none" : out;
}

ImU32 degree_color(const Palette& p, int wavefronts, int ideal) {
  // Green at the ideal, through amber, to red at 8x the ideal or worse.
  float x = ideal > 0 ? std::min(1.0f, (static_cast<float>(wavefronts) / ideal - 1) / 7.0f) : 1;
  if (wavefronts <= ideal) x = 0;
  float r = x < 0.5f ? 0.25f + 1.3f * x : 0.9f;
  float g = x < 0.5f ? 0.65f : 0.65f - 1.0f * (x - 0.5f);
  float b = 0.25f - 0.15f * x;
  if (p.light) {
    r = std::min(1.0f, r + 0.1f);
    g = std::min(1.0f, g + 0.1f);
  }
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

void arch_rules_label(const Arch& arch, const Palette& p) {
  const bool extrapolated = arch.has(Provenance::Extrapolated);
  const std::string summary = "rules: " + provenance_summary(arch);
  if (extrapolated) {
    ImGui::TextColored(colv(p.conflict), "%s", summary.c_str());
  } else {
    ImGui::TextDisabled("%s", summary.c_str());
  }
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
  ImGui::TextUnformatted(std::string(arch.source).c_str());
  ImGui::Separator();
  for (const Rule& r : arch.rules) {
    const char* label = provenance_name(r.provenance);
    if (r.provenance == Provenance::Extrapolated) {
      ImGui::TextColored(colv(p.conflict), "%s", label);
    } else {
      ImGui::TextDisabled("%s", label);
    }
    ImGui::SameLine();
    ImGui::TextWrapped("%s [%s]", std::string(r.text).c_str(), std::string(r.where).c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

bool short_window(float height) {
  // 1280x720 and 1024x768 (1280x800 too) at the desk's type: there a lesson's 32-row tile had
  // 6 px cells under the toolbar's two rows, the caption, the title bars and the status line.
  return height < ImGui::GetFontSize() * 48;
}

bool dense_desk(const Settings& settings, bool slide, float height) {
  return !settings.presenter && !slide && short_window(height);
}

Look look(AppState& s) {
  return Look{s.palette, s.settings, s.layout, s.slide};
}

ViewSide main_view(AppState& s) {
  ViewSide v;
  v.analysis = s.analysis ? &*s.analysis : nullptr;
  v.frame = &s.frame;
  v.cells = &s.cells;
  v.version = s.version;
  v.stale = analysis_stale(s);
  v.errors = &s.errors;
  v.tile_layout = &s.tile_layout;
  v.bank_layout = &s.bank_layout;
  v.conceal = asking(s);
  v.measured = main_stage_line(s);
  v.playing = s.playing;
  v.analyzing_s = v.stale ? s.analyzer.busy_seconds() : 0;
  // While comparing, each side's header shows its own verdict (panel_compare.cpp).
  v.verdict = !s.compare.open;
  return v;
}

std::string main_stage_line(const AppState& s) {
  if (asking(s) || !s.analysis || s.frame.step < 0 ||
      s.frame.step >= static_cast<int>(s.analysis->steps.size()))
    return {};
  std::optional<Measurement> m = s.measure.measurer.current();
  return m ? stage_line(*m, s.analysis->steps[static_cast<size_t>(s.frame.step)].step) : "";
}

void control_tip(const char* text) {
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void hover_tooltip(const Hover& hover, const ViewSide& v) {
  if (!v.analysis || !hover.active) return;
  const Analysis& a = *v.analysis;
  int ti = v.cells->tile >= 0 ? v.cells->tile : 0;
  const TileDecl& t = a.scenario.tiles[ti];
  const Arch& arch = *a.arch;
  ImGui::BeginTooltip();
  if (hover.element >= 0) {
    std::vector<int64_t> sub = t.unlinear(hover.element);
    std::string idx;
    for (int64_t v : sub) idx += '[' + std::to_string(v) + ']';
    ImGui::PushFont(g_fonts.mono);
    ImGui::Text("%s%s%s", t.name.c_str(), idx.c_str(),
                t.is_padding(hover.element) ? "  (padding)" : "");
    ImGui::PopFont();
    layout_tooltip_lines(t, hover.element);
    const uint32_t byte = static_cast<uint32_t>(t.byte_offset(hover.element));
    ImGui::Text("byte address %u, word %u, bank %d", byte, arch.word_of(byte), arch.bank_of(byte));
  } else {
    ImGui::Text("word %u, bank %d: not part of %s", hover.word, arch.bank_of_word(hover.word),
                t.name.c_str());
  }
  uint32_t lanes = 0;
  for (const LitLane& l : v.cells->lanes)
    if ((hover.element >= 0 && l.element == hover.element) ||
        (hover.element < 0 && arch.word_of(l.byte) == hover.word))
      lanes |= 1u << l.lane;
  for (const LitWord& w : v.cells->words)
    if (hover.element < 0 && w.word == hover.word) lanes |= w.lanes;
  if (lanes) {
    ImGui::Text("lanes of warp %d: %s", v.frame->warp, lanes_text(lanes).c_str());
  } else {
    ImGui::TextDisabled("not touched by warp %d in this step", v.frame->warp);
  }
  ImGui::EndTooltip();
}

namespace {

// Editing (history.h): Ctrl+S saves, also while typing (again to the file saved before, else the
// "Save as" dialog); Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo, when no field is being typed in
// (there Ctrl+Z undoes the field's own typing). True when the key was one of them.
bool edit_shortcuts(AppState& s) {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.KeyCtrl) return false;
  if (ImGui::IsKeyPressed(GLFW_KEY_S)) {
    if (s.edit.saved_path.empty()) {
      s.edit.open_save = true;
    } else {
      save_draft(s, s.edit.saved_path, true, ImGui::GetTime());
    }
    return true;
  }
  if (io.WantTextInput) return false;
  if (ImGui::IsKeyPressed(GLFW_KEY_Z)) {
    io.KeyShift ? redo_edit(s) : undo_edit(s);
    return true;
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_Y)) {
    redo_edit(s);
    return true;
  }
  return false;
}

void shortcuts(AppState& s) {
  ImGuiIO& io = ImGui::GetIO();
  if (edit_shortcuts(s) || io.WantTextInput) return;
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key); };
  auto jump = [&](StepUnit u, int dir) {
    if (!s.analysis) return;
    s.playing = false;
    s.t = step_time(*s.analysis, s.t, s.playback, u, dir);
    update_frame(s, 0);
  };
  if (pressed(GLFW_KEY_SPACE)) s.playing = !s.playing;
  if (pressed(GLFW_KEY_RIGHT)) jump(StepUnit::Wavefront, 1);
  if (pressed(GLFW_KEY_LEFT)) jump(StepUnit::Wavefront, -1);
  if (pressed(GLFW_KEY_DOWN)) jump(StepUnit::Step, 1);
  if (pressed(GLFW_KEY_UP)) jump(StepUnit::Step, -1);
  if (pressed(GLFW_KEY_W)) jump(StepUnit::Warp, io.KeyShift ? -1 : 1);
  if (pressed(GLFW_KEY_HOME)) {
    s.t = beat_time(0, s.playback);
    update_frame(s, 0);
  }
  auto speed = [&](double f) {
    double old = s.settings.speed;
    s.settings.speed = std::clamp(old * f, 0.1, 60.0);
    s.t *= old / s.settings.speed;
  };
  if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD)) speed(1.5);
  if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT)) speed(1 / 1.5);
  if (pressed(GLFW_KEY_L)) s.settings.loop = !s.settings.loop;
  if (pressed(GLFW_KEY_T)) {
    s.settings.light = !s.settings.light;
    s.want_fonts = true;
  }
  if (pressed(GLFW_KEY_P)) {
    s.settings.presenter = !s.settings.presenter;
    if (s.settings.presenter) s.settings.views_only = true;
    s.want_fonts = true;
  }
  if (pressed(GLFW_KEY_V)) s.settings.views_only = !s.settings.views_only;
  if (pressed(GLFW_KEY_M)) s.show_toolbar = !s.show_toolbar;
  if (pressed(GLFW_KEY_C)) s.lesson.caption_full = !s.lesson.caption_full;
  if (pressed(GLFW_KEY_N)) s.show_notes = !s.show_notes;
  if (pressed(GLFW_KEY_F11)) s.fullscreen = !s.fullscreen;
  if (pressed(GLFW_KEY_S)) s.exports.ask(ExportAsk::Screenshot);
  if (pressed(GLFW_KEY_E)) s.exports.ask(ExportAsk::Svg);
  if (pressed(GLFW_KEY_A)) s.advisor.open = !s.advisor.open;
  if (pressed(GLFW_KEY_K)) s.profiler.open = !s.profiler.open;
  if (pressed(GLFW_KEY_F1) || (pressed(GLFW_KEY_SLASH) && io.KeyShift)) s.show_help = !s.show_help;
  // A presentation clicker sends PageDown/PageUp (next/back) and B or period (its "blank" key):
  // next and back through the lesson's scenes, or through the steps without a lesson.
  const bool next = pressed(GLFW_KEY_PAGE_DOWN) || pressed(GLFW_KEY_PERIOD);
  const bool back = pressed(GLFW_KEY_PAGE_UP) || pressed(GLFW_KEY_B);
  if (next || back) clicker(s, next ? 1 : -1);
  // Escape closes help, else leaves presenter mode; Q (or Ctrl+Q) quits.
  if (pressed(GLFW_KEY_ESCAPE)) {
    if (s.show_help) {
      s.show_help = false;
    } else if (s.settings.presenter) {
      s.settings.presenter = false;
      s.settings.views_only = false;
      s.want_fonts = true;
    }
  }
  // Edits not saved: the first Q says so (the window's close button and headless runs quit).
  if (pressed(GLFW_KEY_Q)) {
    const double now = ImGui::GetTime();
    if (s.edit.unsaved && (s.edit.quit_warned < 0 || now - s.edit.quit_warned > 4)) {
      s.edit.quit_warned = now;
      set_notice(s, "edited, not saved: Ctrl+S saves; Q again quits", now, 4, Notice::Error);
    } else {
      s.want_quit = true;
    }
  }
}

// The comparison in `r`, and what its buttons asked: "Measure both" (its failure is the strip's
// note), Close (after B's views were drawn).
void compare_panel(AppState& s, const ViewSide& mv, const Look& lk, CellRenderer& cells, Rect r) {
  const CompareAsk ask = draw_compare(s.compare, mv, s.measure.measurer, lk, s.hover, cells, r);
  if (ask.measure_both) {
    std::string why;
    if (!measure_both(s, &why)) s.compare.measure_note = why;
  }
  if (ask.close) close_compare(s);
}

}  // namespace

// The instructor's notes of the lesson scene on screen, "" without one.
static std::string scene_notes(const AppState& s) {
  if (!s.lesson.file || s.lesson.scene < 0 ||
      s.lesson.scene >= static_cast<int>(s.lesson.file->scenes.size()))
    return {};
  return s.lesson.file->scenes[static_cast<size_t>(s.lesson.scene)].notes;
}

std::string toolbar_scenario_name(const AppState& s) {
  // A lesson's embedded scene has no preset: its scenario's name, as long as it is unedited; a
  // kernel's line opened from the K window: its file and line, as long as it is unedited.
  if (!s.preset.empty()) return s.preset;
  if (s.lesson.file && s.draft.name == s.scenario.name && s.errors.empty()) return s.draft.name;
  if (const OpenedLine* o = opened_line(s)) return o->label;
  return "(edited)";
}

namespace {

// The toolbar, and what was asked of it done here.
void toolbar_panel(AppState& s, Rect r) {
  const ToolbarView v{s.presets,
                      s.preset,
                      toolbar_scenario_name(s),
                      s.playing,
                      s.compare.open,
                      ptr(s.analysis),
                      s.playback,
                      s.frame,
                      lesson_catalog(s),
                      s.lesson.file ? s.lesson.catalog : "",
                      s.lesson.scene,
                      s.settings.lesson_places,
                      &s.measure.gpu_menu,
                      s.measure.measurer.source()};
  const ToolbarAsk ask = draw_toolbar(v, s.settings, s.exports, s.layout, r);
  s.toolbar_h = ask.height;
  if (ask.preset) {
    std::string err;
    if (!choose_preset(s, *ask.preset, &err))
      set_notice(s, err, ImGui::GetTime(), 8, Notice::Error);
  }
  if (ask.lesson) {
    std::string err;
    if (!open_catalog_lesson(s, ask.lesson->first, ask.lesson->second, &err))
      set_notice(s, err, ImGui::GetTime(), 10, Notice::Error);
  }
  if (ask.play) s.playing = !s.playing;
  if (ask.jump && s.analysis) {
    s.playing = false;
    s.t = step_time(*s.analysis, s.t, s.playback, ask.jump->first, ask.jump->second);
    update_frame(s, 0);
  }
  if (ask.speed_was > 0) s.t *= ask.speed_was / s.settings.speed;  // the same beat
  if (ask.fonts) s.want_fonts = true;
  if (ask.help) s.show_help = !s.show_help;
  if (ask.open_file) pick_file();
  if (ask.sweep) s.sweep.open = !s.sweep.open;
  if (ask.experiments) s.experiments.open = !s.experiments.open;
  if (ask.author) s.author.open = !s.author.open;
  if (ask.compare.open) {
    std::string err;
    if (!open_compare(s, *ask.compare.open, &err))
      set_notice(s, err, ImGui::GetTime(), 8, Notice::Error);
  }
  if (ask.compare.close) close_compare(s);
  if (ask.use_gpu) use_gpu_menu(s);
}

// The scenario panel, and what it asked done here (undo, redo, reset, an edit into the history).
void controls_panel(AppState& s, Rect r) {
  ScenarioEditor ed{s.draft,         s.edit,    s.advisor.layouts,       s.scenario, s.errors,
                    ptr(s.analysis), s.palette, &s.layout.padding_field, asking(s)};
  ControlsAsk ask = draw_controls(ed, r);
  if (ask.undo) undo_edit(s);
  if (ask.redo) redo_edit(s);
  if (ask.reset) reset_draft(s);
  if (ask.before) apply_edit(s, *ask.before, ask.field);
  if (ask.end_field) s.edit.history.end_field();
}

// The "Write a lesson" window, and what it asked done here: the view on screen added as a scene,
// the lesson saved (checked as `lessons --check` checks it, captions fitted in this type).
void author_panel(AppState& s) {
  const AuthorAsk ask = draw_author(s.author, ptr(s.analysis), s.frame.step, asking(s), s.palette);
  if (ask.add) {
    std::string why;
    if (!s.analysis) {
      s.author.note = "the scenario on screen does not analyze: nothing to add";
    } else if (add_scene(s.author, *s.analysis, s.frame.step, &why)) {
      s.author.note = "added scene " + std::to_string(s.author.lesson.scenes.size());
    } else {
      s.author.note = why;
    }
  }
  if (ask.save) save_lesson(s.author, assets_dir() + "/presets", ask.force, bold_widths());
}

// Presenter mode's split of the views' width w: the tile's share. Each view's share gives the
// tile's columns and the banks cells of one size, each view's labels counted; a wide tile's columns
// are its band's (views/tile_bands.h) where bands give it larger cells in their share, as the
// tile view then finds for itself (its rule over its height, less its header line).
float presenter_tile_width(TileGrid g, int banks, float w, float views_h) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float fs = ImGui::GetFontSize(), pad = st.WindowPadding.x * 2;
  const float et = ImGui::CalcTextSize("0000").x + 4 + pad;
  const float eb = ImGui::CalcTextSize("000000").x + 6 + pad;
  const float height = views_h - fs * 1.5f - st.WindowPadding.y * 2 - 4;
  const float cb = static_cast<float>(banks);
  auto split_for = [&](int64_t b) {
    const float ct = static_cast<float>(std::max<int64_t>(1, g.cols / b));
    return std::floor(std::clamp((ct * (w - eb) + cb * et) / (ct + cb), w * 0.3f, w * 0.7f));
  };
  float best = split_for(1);
  const float one = tile_bands(g, best - et, height, fs * 1.3f, 4, fs * 2.6f, 1).cell;
  float best_cell = one;
  for (int64_t b = 2; b <= 8; ++b) {
    if (!bands_fit(g, b)) continue;
    const float tw = split_for(b);
    const float cell = tile_bands(g, tw - et, height, fs * 1.3f, 4, fs * 2.6f, b).cell;
    if (cell > best_cell && cell >= one * 1.2f) {
      best = tw;
      best_cell = cell;
    }
  }
  return best;
}

}  // namespace

// The slide an export renders (16:9, s.slide): the lesson's caption, the tile view and the bank
// view side by side (a comparison's both sides), the verdict; no toolbar, sidebar or timeline,
// and no keys.
static void draw_slide(AppState& s, CellRenderer& cells) {
  s.hover = {};
  ImGuiIO& io = ImGui::GetIO();
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  s.layout = {};
  s.layout.width = W;
  s.layout.height = H;
  s.layout.font_px = ImGui::GetFontSize();
  const Look lk = look(s);
  const float cap =
      std::min(std::floor(H / 3), lesson_height(s.lesson, ptr(s.analysis), s.draft.title, lk, W));
  // Presenter mode's bank view leaves the verdict to a strip of its own (as in the window).
  const ViewSide mv = main_view(s);
  const float vh =
      s.settings.presenter && mv.verdict ? std::min(std::floor(H / 4), verdict_height(mv, W)) : 0;
  const float views_h = H - cap - vh, tile_w = std::floor(W * 0.5f);
  if (cap > 0) draw_lesson(s.lesson, ptr(s.analysis), s.draft.title, lk, {{0, 0}, {W, cap}});
  update_compare(s);  // B follows A's playhead (the export's beat)
  if (s.compare.open) {
    compare_panel(s, mv, lk, cells, {{0, cap}, {W, views_h}});
  } else {
    draw_tile_view(mv, lk, s.hover, cells, {{0, cap}, {tile_w, views_h}});
    draw_bank_view(mv, lk, s.hover, cells, {{tile_w, cap}, {W - tile_w, views_h}});
  }
  if (vh > 0) {
    begin_panel("##slide_verdict", {{0, cap + views_h}, {W, vh}}, false);
    draw_verdict_text(mv, lk);
    ImGui::End();
  }
}

void draw_ui(AppState& s, CellRenderer& cells, bool input) {
  start_frame_log();  // the texts of this frame only
  if (s.slide) {
    g_slide_frame = true;
    try {
      draw_slide(s, cells);
    } catch (...) {
      g_slide_frame = false;
      throw;
    }
    g_slide_frame = false;
    return stop_log();
  }
  // An export's frame acts on no key: the window's frame already has. (Its clock may not have
  // moved, as in a browser, where a key still down would read as pressed again: S exported twice.)
  if (input) shortcuts(s);
  s.hover = {};
  ImGuiIO& io = ImGui::GetIO();
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  const float fs = ImGui::GetFontSize();
  const ImGuiStyle& st = ImGui::GetStyle();
  const bool pres = s.settings.presenter;
  // Presenter mode gives the room to the pictures: the toolbar stays collapsed until key M.
  const bool toolbar = !pres || s.show_toolbar;
  // The toolbar wraps onto more rows in a narrow window: its height is the last frame's.
  const float bar = toolbar ? std::max(ImGui::GetFrameHeight() + st.WindowPadding.y * 2,
                                       std::min(s.toolbar_h, H * 0.3f))
                            : 0;
  s.layout = {};
  s.layout.width = W;
  s.layout.height = H;
  s.layout.font_px = fs;
  const Look lk = look(s);
  const bool dense = dense_desk(s.settings, s.slide, H);  // shell/desk.h
  // The status line: a fixed strip at the bottom of the desk layout; presenter mode and a dense
  // desk (a short window) draw it over the timeline's foot only while it has news (nothing moves
  // either way).
  const float status = pres || dense ? 0 : status_height();
  // Views only: no sidebar at all; the views are what the back row of a classroom must read.
  const bool views_only = s.settings.views_only;
  const float side = views_only ? 0 : std::floor(std::clamp(fs * 21, W * 0.18f, W * 0.32f));
  const float x0 = side, w = W - side;
  // A lesson's caption spans the window under the toolbar (at most a third of it).
  const float cap =
      std::min(std::floor(H / 3), lesson_height(s.lesson, ptr(s.analysis), s.draft.title, lk, W));
  const float y0 = bar + cap, h = H - bar - cap - status;
  // Sidebar: scenario controls, then measurement and kernel source when shown. The views get
  // the rest of the height. Presenter mode with the sidebar open shows only the controls.
  // A short window (720p) gives the kernel source more of the sidebar: five lines of it at
  // 1280x720 where a quarter showed three (the controls and the measurement scroll).
  const bool short_side = dense || h < fs * 34;
  float meas_h =
      s.settings.show_measure && !pres ? std::floor(h * (short_side ? 0.18f : 0.22f)) : 0;
  float src_h = s.settings.show_source && !pres ? std::floor(h * (short_side ? 0.36f : 0.26f)) : 0;
  // A lesson scene's instructor's notes under the controls, from their share (at most half).
  const std::string notes = pres || views_only ? std::string() : scene_notes(s);
  const float notes_h = notes_height(notes, side, std::floor((h - meas_h - src_h) * 0.5f));
  const float ctl_h = h - meas_h - src_h - notes_h;
  // Presenter mode: the timeline is a strip of the verdict (across the whole width, where the
  // bank view's half would wrap it onto three lines; the keys and the clicker replace the
  // scrubber), the step labels and the rows that matter (presenter_timeline_height), so that the
  // tile and the banks get the height.
  const bool gpu = s.measure.measurer.state() != Measurer::State::Unavailable;
  const float tl_h = pres ? presenter_timeline_height(main_view(s), gpu, w, h)
                          : desk_timeline_height(main_view(s), w, h);
  // The lane strip between the views and the timeline (one bank view: not while comparing).
  const float lanes_h = s.compare.open ? 0 : lane_strip_height(main_view(s), lk, H);
  const float views_h = h - tl_h - lanes_h;
  // Presenter mode splits the width so that the tile's columns (a wide tile's bands) and the
  // banks get cells of one size; the desk view halves it.
  float tile_w = std::floor(w * 0.5f);
  if (pres && s.analysis && !s.analysis->scenario.tiles.empty()) {
    const int ti = s.cells.tile >= 0 ? s.cells.tile : 0;
    tile_w = presenter_tile_width(tile_grid(s.analysis->scenario.tiles[static_cast<size_t>(ti)]),
                                  s.analysis->arch->banks, w, views_h);
  }

  if (toolbar) toolbar_panel(s, {{0, 0}, {W, bar}});
  if (cap > 0) {
    const int move =
        draw_lesson(s.lesson, ptr(s.analysis), s.draft.title, lk, {{0, bar}, {W, cap}});
    if (move != 0) clicker(s, move);
  }
  if (!views_only) {
    controls_panel(s, {{0, y0}, {side, ctl_h}});
    if (notes_h > 0) draw_scene_notes(notes, asking(s), {{0, y0 + ctl_h}, {side, notes_h}});
    if (meas_h > 0)
      draw_measurement(s.measure, ptr(s.analysis), asking(s), s.palette,
                       {{0, y0 + ctl_h + notes_h}, {side, meas_h}});
    if (src_h > 0) {
      // Ask before telling: the kernel's header comment names the scenario's title and
      // description ("... the column read is a 32-way conflict"). While the question is open the
      // source is generated without them (under a version of its own: its cache is per version).
      Scenario untitled;
      if (asking(s)) {
        untitled = s.scenario;
        untitled.title.clear();
        untitled.description.clear();
      }
      draw_source(asking(s) ? untitled : s.scenario, asking(s) ? -2 - s.version : s.version,
                  {{0, y0 + ctl_h + notes_h + meas_h}, {side, src_h}}, opened_line(s));
    }
  }
  // Before and after (compare.h): both sides share the views' rectangle; B follows A's playhead.
  update_compare(s);
  update_sweep(s);
  update_experiments(s.experiments);
  const ViewSide mv = main_view(s);
  if (s.compare.open) {
    compare_panel(s, mv, lk, cells, {{x0, y0}, {w, views_h}});
  } else {
    draw_tile_view(mv, lk, s.hover, cells, {{x0, y0}, {tile_w, views_h}});
    draw_bank_view(mv, lk, s.hover, cells, {{x0 + tile_w, y0}, {w - tile_w, views_h}});
  }
  if (lanes_h > 0) draw_lane_strip(mv, lk, {{x0, y0 + views_h}, {w, lanes_h}});
  // Key N where no sidebar holds the notes: over the views' lower right corner (the instructor's
  // glance; the room sees them only when asked for, and only after the answer).
  if (notes_h <= 0 && s.show_notes && !scene_notes(s).empty() && !s.compare.open) {
    const float nw = std::floor(std::min(w * 0.5f, fs * 36));
    const float nh = notes_height(scene_notes(s), nw, std::floor(views_h * 0.6f));
    draw_scene_notes(scene_notes(s), asking(s), {{x0 + w - nw, y0 + views_h - nh}, {nw, nh}});
  }
  const TimelineAsk scrub =
      draw_timeline(mv, gpu, lk, cells, {{x0, y0 + views_h + lanes_h}, {w, tl_h}});
  if (scrub.beat >= 0) {
    s.t = beat_time(scrub.beat, s.playback);
    update_frame(s, 0);
  } else if (scrub.step >= 0) {
    seek(s, scrub.step, scrub.warp, 0);
  }
  if (status > 0) {
    draw_status(s.status, s.exports.job, s.edit.unsaved, lk, {{0, H - status}, {W, status}});
  } else if (status_has_news(s.status, s.exports.job)) {
    const float sh = status_height();
    draw_status(s.status, s.exports.job, s.edit.unsaved, lk, {{0, H - sh}, {W, sh}});
  }
  draw_help(s.show_help);
  draw_save_dialog(s.edit, s.draft, s.palette, [&s](const std::string& path, bool force) {
    return save_draft(s, path, force, ImGui::GetTime());
  });
  const AdvisorAsk advice = draw_advisor(s.advisor, s.analysis.has_value(), s.version, s.palette);
  if (advice.advise) start_advice(s);
  if (advice.apply) apply_advice(s, *advice.apply);
  open_profile_ask(s, draw_profile(s.profiler, s.palette));
  switch (draw_sweep(s.sweep, s.measure.measurer, s.palette)) {
    case SweepAsk::Sweep:
      run_sweep(s);
      break;
    case SweepAsk::Measure:
      if (std::string why; !start_sweep_measure(s, &why)) s.sweep.measure_note = why;
      break;
    case SweepAsk::None:
      break;
  }
  draw_experiments(s.experiments, s.measure.measurer, s.palette);
  author_panel(s);
  stop_log();
}

float digit_px(ImFont* font, float size) {
  const ImFontGlyph* g = font->FindGlyph('0');
  if (!g || font->FontSize <= 0) return size * 0.73f;
  return (g->Y1 - g->Y0) * size / font->FontSize;
}

void draw_lane_label(ImDrawList* dl, ImVec2 center, float cell, uint32_t lanes, bool presenter,
                     Rgba chip, ScreenLayout& layout) {
  if (!lanes) return;
  // Every label of a grid the same size (sized for two digits), so the smallest is as readable
  // as the largest; more than one lane on the cell adds a small '+' in its top-right corner.
  const std::string n = std::to_string(__builtin_ctz(lanes));
  const float size = lane_label_size("00", cell, presenter);
  const float dpx = digit_px(g_fonts.bold, size);
  layout.lane_digit_px = layout.lane_digit_px > 0 ? std::min(layout.lane_digit_px, dpx) : dpx;
  // Black or white, whichever stands out more on the chip: at least 4.5:1 on every bank's colour
  // in both themes (svg.h ink_on; white on the yellow chip was 1.18:1). No shadow: a halo of the
  // other colour would blur the digit's edge against the chip.
  const ImU32 ink = col(ink_on(chip));
  draw_fitted_text(dl, g_fonts.bold, size, center, cell - 2, 0, ink, n);
  if (__builtin_popcount(lanes) > 1) {
    const float ps = size * 0.6f;
    const ImVec2 q(center.x + cell * 0.5f - ps * 0.62f, center.y - cell * 0.5f - ps * 0.1f);
    dl->AddText(g_fonts.bold, ps, q, ink, "+");
  }
}

float lane_label_size(const char* text, float cell, bool presenter) {
  // As tall as the cell allows in presenter mode (the back row reads them): draw_fitted_text
  // narrows a label wider than the cell, as a condensed face would. The desk view stays modest.
  const float fs = ImGui::GetFontSize();
  if (!presenter) return std::min(fs * 1.1f, cell * 0.6f);
  const float w1 = g_fonts.bold->CalcTextSizeA(1.0f, 1e9f, 0, text).x;  // width per pixel of size
  float size = cell * 0.95f;
  // Narrowed to no less than 60% of its width; past that, smaller.
  if (w1 > 0) size = std::min(size, (cell - 2) / (w1 * 0.6f));
  return std::max(size, std::min(fs, cell * 0.6f));
}

void draw_fitted_text(ImDrawList* dl, ImFont* font, float size, ImVec2 center, float width,
                      ImU32 shadow, ImU32 ink, const std::string& text) {
  const ImVec2 sz = font->CalcTextSizeA(size, 1e9f, 0, text.c_str());
  const float k = sz.x > width && sz.x > 0 ? std::max(0.6f, width / sz.x) : 1.0f;
  const ImVec2 p(center.x - sz.x / 2, center.y - sz.y / 2);
  // Glyphs are quads in the draw list: narrowing them about the centre is a condensed face.
  const int first = dl->VtxBuffer.Size;
  if (shadow) dl->AddText(font, size, ImVec2(p.x + 1, p.y + 1), shadow, text.c_str());
  dl->AddText(font, size, p, ink, text.c_str());
  if (k < 1.0f)
    for (int i = first; i < dl->VtxBuffer.Size; ++i)
      dl->VtxBuffer[i].pos.x = center.x + (dl->VtxBuffer[i].pos.x - center.x) * k;
}

}  // namespace bankviz::gui
