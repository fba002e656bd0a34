// panel_toolbar.cpp: presets, playback, speed, theme, export; where the animation is now.
#include <algorithm>

#include "panels.h"
#include "theme.h"

namespace bankviz::gui {

void draw_toolbar(AppState& s, Rect r) {
  ImGui::SetNextWindowPos(r.pos);
  ImGui::SetNextWindowSize(r.size);
  ImGui::Begin("##toolbar", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoBackground);
  const float fs = ImGui::GetFontSize();
  ImGui::PushFont(g_fonts.bold);
  ImGui::TextUnformatted("bankviz");
  ImGui::PopFont();
  ImGui::SameLine();

  // Presets
  // Presenter mode's large font: keep the bar on one line by leaving out what keys do anyway
  // (step and warp jumps: arrows and W; loop: L).
  const bool compact = s.settings.presenter;
  ImGui::SetNextItemWidth(fs * (compact ? 12 : 17));
  std::string cur = s.preset.empty() ? "(edited)" : s.preset;
  if (ImGui::BeginCombo("##preset", cur.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const Preset& p : s.presets)
      if (ImGui::Selectable(p.name.c_str(), p.name == s.preset)) {
        std::string err;
        if (select_preset(s, p.name, &err, false)) {
          s.settings.preset = p.name;
        } else {
          set_notice(s, err, ImGui::GetTime(), 8, Notice::Error);
        }
      }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button(s.playing ? "Pause" : "Play", ImVec2(fs * 4, 0))) s.playing = !s.playing;
  auto jump = [&](const char* label, StepUnit u, int dir) {
    ImGui::SameLine();
    if (ImGui::Button(label) && s.analysis) {
      s.playing = false;
      s.t = step_time(*s.analysis, s.t, s.playback, u, dir);
      update_frame(s, 0);
    }
  };
  if (!compact) {
    jump("<step", StepUnit::Step, -1);
    jump("<warp", StepUnit::Warp, -1);
  }
  jump("<", StepUnit::Wavefront, -1);
  jump(">", StepUnit::Wavefront, 1);
  if (!compact) {
    jump("warp>", StepUnit::Warp, 1);
    jump("step>", StepUnit::Step, 1);
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(fs * 7);
  double old = s.settings.speed;
  float sp = static_cast<float>(s.settings.speed);
  if (ImGui::SliderFloat("##speed", &sp, 0.1f, 60.0f, "%.1f wf/s", ImGuiSliderFlags_Logarithmic)) {
    s.settings.speed = sp;
    s.t *= old / s.settings.speed;  // keep the current beat when the speed changes
  }
  if (!compact) {
    ImGui::SameLine();
    ImGui::Checkbox("loop", &s.settings.loop);
  }
  ImGui::SameLine();
  if (ImGui::Button(s.settings.light ? "Dark" : "Light")) {
    s.settings.light = !s.settings.light;
    s.want_fonts = true;
  }
  ImGui::SameLine();
  if (ImGui::Checkbox("presenter", &s.settings.presenter)) {
    if (s.settings.presenter) s.settings.views_only = true;
    s.want_fonts = true;
  }
  ImGui::SameLine();
  if (ImGui::Button(s.settings.views_only ? "Controls" : "Views only"))
    s.settings.views_only = !s.settings.views_only;
  ImGui::SameLine();
  if (ImGui::Button("Export")) ImGui::OpenPopup("export");
  if (ImGui::BeginPopup("export")) {
    ImGui::SliderInt("PNG scale", &s.settings.export_scale, 1, 4, "%dx");
    ImGui::Checkbox("light slide theme", &s.settings.export_light);
    if (ImGui::Selectable("PNG of the window (S)")) s.want_screenshot = true;
    if (ImGui::Selectable("SVG of tile + banks (E)")) s.want_svg = true;
    if (ImGui::Selectable("PNG sequence of the animation")) s.want_sequence = true;
    if (ImGui::Selectable("GIF of the animation")) s.want_gif = true;
    ImGui::EndPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("?")) s.show_help = !s.show_help;

  if (!s.notice.empty() && ImGui::GetTime() < s.notice_until) {
    ImGui::SameLine(0, fs);
    // Problems in the conflict colour; a saved file in the plain text colour.
    const Rgba& c = s.notice_kind == Notice::Error ? s.palette.conflict : s.palette.text;
    ImGui::TextColored(colv(c), "%s", s.notice.c_str());
  }
  ImGui::End();
}

}  // namespace bankviz::gui
