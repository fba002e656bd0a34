// panel_toolbar.cpp: presets, playback, speed, theme, export; where the animation is now.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "platform/platform.h"
#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

// The toolbar flows: each item goes on the current row when it fits, else starts the next row,
// so that a narrow window (a 1024x768 projector in presenter mode) wraps the bar instead of
// cutting Export and help off.
struct Flow {
  float right = 0;  // the window's right edge for items
  bool first = true;
  float max_x = 0;  // rightmost item edge placed
  int rows = 1;
  // Call before an item of width w.
  void next(float w) {
    if (!first) {
      const float x = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
      if (x + w <= right) {
        ImGui::SameLine();
      } else {
        ++rows;
      }
    }
    first = false;
  }
  void done() { max_x = std::max(max_x, ImGui::GetItemRectMax().x); }
};

float button_w(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}
float checkbox_w(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
         ImGui::CalcTextSize(label, nullptr, true).x;
}

// The Export menu: what each export holds, with a tooltip on every item.
void draw_export_menu(const ToolbarView& v, Settings& settings, ExportState& exports) {
  auto tip = [](const char* text) {
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
  };
  ImGui::TextDisabled("slide (GIF, sequence, PNG slide)");
  if (ImGui::RadioButton("1280x720", !exports.full_hd)) exports.full_hd = false;
  tip("Slide size 1280x720 (16:9): the tile, the banks, the verdict and a lesson's caption");
  ImGui::SameLine();
  if (ImGui::RadioButton("1920x1080", exports.full_hd)) exports.full_hd = true;
  tip("Slide size 1920x1080 (16:9)");
  bool whole = exports.scope == ExportScope::Animation;
  if (ImGui::Checkbox("whole animation", &whole))
    exports.scope = whole ? ExportScope::Animation : ExportScope::Step;
  tip("GIF and sequence: every step of every warp, instead of the current step of the current "
      "warp (its wavefronts)");
  // Every export's theme: the window's unless chosen (settings.h export_light).
  using Theme = Settings::ExportTheme;
  Theme& theme = settings.export_theme;
  ImGui::TextDisabled("theme");
  ImGui::SameLine();
  if (ImGui::RadioButton("as the window", theme == Theme::App)) theme = Theme::App;
  tip("Every export (GIF, sequence, PNG and SVG slides) in the theme the window shows");
  ImGui::SameLine();
  if (ImGui::RadioButton("light", theme == Theme::Light)) theme = Theme::Light;
  tip("Every export in the light theme (projectors and paper), whatever the window shows");
  ImGui::SameLine();
  if (ImGui::RadioButton("dark", theme == Theme::Dark)) theme = Theme::Dark;
  tip("Every export in the dark theme, whatever the window shows");
  ImGui::SliderInt("PNG scale", &settings.export_scale, 1, 4, "%dx");
  tip("Pixels per point of the window PNG (2x for print)");
  // What a GIF or sequence would hold now, before it is asked for.
  std::string why;
  int frames = 0;
  if (v.analysis)
    frames = static_cast<int>(
        export_beats(*v.analysis, v.playback, v.frame, exports.scope, &why).size());
  const std::string count = frames > 0 ? " (" + std::to_string(frames) + " frames)" : "";
  ImGui::Separator();
  const std::string gif = "GIF" + count;
  if (ImGui::Selectable(gif.c_str())) exports.ask(ExportAsk::Gif);
  tip(frames > 0 ? "Animated GIF of the slide, one frame per wavefront; exported in the background "
                   "with progress and Cancel"
                 : why.c_str());
  const std::string seq = "PNG sequence" + count;
  if (ImGui::Selectable(seq.c_str())) exports.ask(ExportAsk::Sequence);
  tip(frames > 0 ? "One PNG of the slide per wavefront, into a new folder" : why.c_str());
  if (ImGui::Selectable(v.comparing ? "PNG slide (both sides)" : "PNG slide"))
    exports.ask(ExportAsk::SlidePng);
  tip("This frame as a 16:9 slide: views only, no toolbar or sidebar");
  if (!v.comparing) {
    if (ImGui::Selectable("SVG slide (16:9)")) exports.ask(ExportAsk::SlideSvg);
    tip("Tile left, banks right, the verdict and a lesson's caption under them: a landscape "
        "vector slide at the slide size");
  }
  ImGui::Separator();
  if (ImGui::Selectable("PNG of the window (S)")) exports.ask(ExportAsk::Screenshot);
  tip("The whole window as it is, at the PNG scale");
  if (v.comparing) {
    if (ImGui::Selectable("Comparison slide, SVG 16:9 (E)")) exports.ask(ExportAsk::Svg);
    tip("Both sides, their verdicts and the ratio B / A as one 16:9 vector slide");
  } else {
    if (ImGui::Selectable("SVG of tile + banks (E)")) exports.ask(ExportAsk::Svg);
    tip("The tile and bank views as a portrait vector page");
  }
  ImGui::Separator();
  if (ImGui::Selectable("Copy link")) exports.ask(ExportAsk::Link);
  tip("A link that opens this view (lesson scene, preset or scenario, presenter mode, theme) in "
      "the browser build, or with bankviz --link");
  ImGui::EndPopup();
}

// The Lessons menu: each lesson of the catalog, a submenu of its scenes; the one on screen and
// its scene ticked, and where each lesson was left ("continue at scene 4").
void draw_lessons_menu(const ToolbarView& v, ToolbarAsk& ask) {
  if (v.lessons.empty()) ImGui::TextDisabled("no lessons in the assets folder");
  for (const LessonEntry& e : v.lessons) {
    const bool here = e.name == v.lesson;
    if (!e.ok) {
      ImGui::TextDisabled("%s", e.name.c_str());
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", e.title.c_str());
      continue;
    }
    const std::string label = (here ? "* " : "") + e.name;
    if (!ImGui::BeginMenu(label.c_str())) {
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.title.c_str());
      continue;
    }
    ImGui::TextDisabled("%s", e.title.c_str());
    const auto left = v.places.find(e.name);
    const int at = left != v.places.end() && left->second >= 1 &&
                           left->second <= static_cast<int>(e.scenes.size())
                       ? left->second - 1
                       : 0;
    if (at > 0 && !here) {
      const std::string cont = "Continue at scene " + std::to_string(at + 1);
      if (ImGui::MenuItem(cont.c_str())) ask.lesson = {e.name, at};
    }
    ImGui::Separator();
    for (size_t i = 0; i < e.scenes.size(); ++i) {
      const std::string scene = std::to_string(i + 1) + ". " + e.scenes[i];
      const bool current = here && static_cast<int>(i) == v.scene;
      if (ImGui::MenuItem(scene.c_str(), nullptr, current))
        ask.lesson = {e.name, static_cast<int>(i)};
    }
    ImGui::EndMenu();
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Write a lesson...")) ask.author = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Add views as scenes (caption, question, the model's answer), reorder them and save a "
        "lesson file that bankviz-cli lessons --check accepts");
}

}  // namespace

ToolbarAsk draw_toolbar(const ToolbarView& v, Settings& settings, ExportState& exports,
                        ScreenLayout& layout, Rect r) {
  ToolbarAsk ask;
  ImGui::SetNextWindowPos(r.pos);
  ImGui::SetNextWindowSize(r.size);
  ImGui::Begin("##toolbar", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoBackground);
  const float fs = ImGui::GetFontSize();
  Flow flow;
  flow.right = r.pos.x + r.size.x - ImGui::GetStyle().WindowPadding.x;
  const float top = ImGui::GetCursorScreenPos().y;
  auto item = [&](float w) { flow.next(w); };
  ImGui::PushFont(g_fonts.bold);
  item(ImGui::CalcTextSize("bankviz").x);
  ImGui::TextUnformatted("bankviz");
  ImGui::PopFont();
  flow.done();

  // Presets
  // Presenter mode's large font: leave out what keys do anyway (step and warp jumps: arrows and
  // W; loop: L); what remains wraps onto a second row when the window is narrow.
  const bool compact = settings.presenter;
  const float combo_w = fs * (compact ? 11 : 17);
  item(combo_w);
  ImGui::SetNextItemWidth(combo_w);
  if (ImGui::BeginCombo("##preset", v.preset_label.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const Preset& p : v.presets) {
      if (ImGui::Selectable(p.name.c_str(), p.name == v.preset)) ask.preset = p.name;
      // What the preset shows, in its own words (its file's title).
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", preset_title(p).c_str());
    }
    // Where the platform has a file picker (the browser): a file from the user's disk.
    if (capabilities().file_picker) {
      ImGui::Separator();
      if (ImGui::Selectable("Open a file...")) ask.open_file = true;
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "A scenario, preset or lesson (.json), or a kernel (.cu), from your disk "
            "(or drop it on the page)");
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The seeds' examples: each opens on the step it is about");
  flow.done();
  // Lessons: each of the catalog's, by scene; the place in each is remembered (settings.h).
  item(button_w("Lessons"));
  if (ImGui::Button("Lessons")) ImGui::OpenPopup("lessons");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The guided lessons, scene by scene: each asks before it tells (clicker: "
        "PageDown or . next, PageUp or B back)");
  flow.done();
  if (ImGui::BeginPopup("lessons")) {
    draw_lessons_menu(v, ask);
    ImGui::EndPopup();
  }
  item(fs * 4);
  if (ImGui::Button(v.playing ? "Pause" : "Play", ImVec2(fs * 4, 0))) ask.play = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Play or pause the animation (Space)");
  flow.done();
  auto jump = [&](const char* label, StepUnit u, int dir, const char* tip) {
    item(button_w(label));
    if (ImGui::Button(label)) ask.jump = {u, dir};
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    flow.done();
  };
  if (!compact) {
    jump("<step", StepUnit::Step, -1, "Previous step (Up)");
    jump("<warp", StepUnit::Warp, -1, "Previous warp (Shift+W)");
  }
  jump("<", StepUnit::Wavefront, -1, "Previous wavefront (Left)");
  jump(">", StepUnit::Wavefront, 1, "Next wavefront (Right)");
  if (!compact) {
    jump("warp>", StepUnit::Warp, 1, "Next warp (W)");
    jump("step>", StepUnit::Step, 1, "Next step (Down)");
  }
  item(fs * 7);
  ImGui::SetNextItemWidth(fs * 7);
  const double old = settings.speed;
  float sp = static_cast<float>(settings.speed);
  if (ImGui::SliderFloat("##speed", &sp, 0.1f, 60.0f, "%.1f wf/s", ImGuiSliderFlags_Logarithmic)) {
    settings.speed = sp;
    ask.speed_was = old;  // the caller keeps the current beat
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Animation speed in wavefronts per second (+ and -)");
  flow.done();
  if (!compact) {
    item(checkbox_w("loop"));
    ImGui::Checkbox("loop", &settings.loop);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Start again after the last beat (L)");
    flow.done();
  }
  const char* theme = settings.light ? "Dark" : "Light";
  item(button_w(theme));
  if (ImGui::Button(theme)) {
    settings.light = !settings.light;
    ask.fonts = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Switch the colour theme (T)");
  flow.done();
  item(checkbox_w("presenter"));
  if (ImGui::Checkbox("presenter", &settings.presenter)) {
    if (settings.presenter) settings.views_only = true;
    ask.fonts = true;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Large type, high contrast, views only (P; Escape leaves it). Clicker keys: "
        "PageDown or . next, PageUp or B back");
  flow.done();
  const char* views = settings.views_only ? "Controls" : "Views only";
  item(button_w(views));
  if (ImGui::Button(views)) settings.views_only = !settings.views_only;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show or hide the sidebar (V)");
  flow.done();
  // Before and after, the sweep, the seeds' experiments (compare.h).
  item(button_w("Compare"));
  if (ImGui::Button("Compare")) ImGui::OpenPopup("compare");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Before and after: this scenario (A) beside a padded, swizzled or float2 "
        "variant or any preset (B), sharing one playhead, with the ratio B / A");
  ask.compare = draw_compare_menu(ImGui::IsPopupOpen("compare")
                                      ? compare_choices(v.preset, v.presets, v.analysis)
                                      : std::vector<CompareChoice>{},
                                  v.presets, v.comparing);
  flow.done();
  item(button_w("Sweep"));
  if (ImGui::Button("Sweep")) ask.sweep = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Vary padding, rows, columns, element type or swizzle over a range and plot "
        "the model's wavefronts per request (and, with a GPU, measured cycles)");
  flow.done();
  if (!compact) {
    item(button_w("Experiments"));
    if (ImGui::Button("Experiments")) ask.experiments = true;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "The seeds' own comparisons: published ratio, the model's prediction, and "
          "with a GPU the measured one");
    flow.done();
  }
  // Where the measured figures come from: this machine, a GPU over ssh, a command, recorded.
  if (!compact && v.gpu_menu) {
    item(button_w("GPU"));
    if (ImGui::Button("GPU")) ImGui::OpenPopup("gpu");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Measured figures from: %s",
                        v.gpu_source.empty() ? "this machine's GPU" : v.gpu_source.c_str());
    ask.use_gpu = draw_gpu_menu(*v.gpu_menu, v.gpu_source);
    flow.done();
  }
  item(button_w("Export"));
  if (ImGui::Button("Export")) ImGui::OpenPopup("export");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("GIF, PNG sequence, PNG and SVG slides, window PNG, SVG");
  flow.done();
  if (ImGui::BeginPopup("export")) draw_export_menu(v, settings, exports);
  // An export's progress and the notices are the status line's (panel_status.cpp).
  item(button_w("?"));
  if (ImGui::Button("?")) ask.help = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Keys and what the views show (F1)");
  flow.done();

  const float bottom = ImGui::GetItemRectMax().y;
  ask.height = std::ceil(bottom - r.pos.y + ImGui::GetStyle().WindowPadding.y);
  layout.toolbar = {r.pos.x, top, flow.max_x - r.pos.x, bottom - top};
  layout.toolbar_rows = flow.rows;
  ImGui::End();
  return ask;
}

}  // namespace bankviz::gui
