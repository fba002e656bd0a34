// panel_status.cpp: the status line along the window's bottom edge: what changed and what is
// under way, in one fixed place.
//
//   edited, not saved | exporting [=====     ] 120/400 frames, 1.2 s [Cancel] | saved out.png
//
// Nothing that comes and goes ("edited", a notice, an export's progress) may push the controls
// around: the desk layout keeps this strip's height whether or not it has anything to say, and
// presenter mode draws it over the bottom of the views only while it has.
#include <cmath>
#include <cstdio>

#include "panels.h"
#include "theme.h"

namespace bankviz::gui {

namespace {

bool notice_shown(const AppState& s) {
  return !s.notice.empty() && ImGui::GetCurrentContext() && ImGui::GetTime() < s.notice_until;
}

}  // namespace

float status_height() {
  return std::ceil(ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2);
}

bool status_has_news(const AppState& s) {
  return notice_shown(s) || s.export_job.active();
}

void draw_status(AppState& s, Rect r) {
  if (!begin_panel("##status", r, false)) return ImGui::End();
  const float fs = ImGui::GetFontSize();
  bool first = true;
  auto sep = [&] {
    if (!first) {
      ImGui::SameLine();
      ImGui::TextDisabled("|");
      ImGui::SameLine();
    }
    first = false;
  };
  ImGui::AlignTextToFramePadding();
  if (s.unsaved && !s.settings.presenter) {
    sep();
    ImGui::TextColored(colv(s.palette.conflict), "edited, not saved");
    control_tip("The scenario differs from the file or preset it came from: Ctrl+S saves it");
  }
  if (s.export_job.active()) {
    // A GIF or sequence on its way: frames encoded of all, the time so far, and Cancel.
    sep();
    const ExportProgress pr = s.export_job.progress();
    char text[64];
    std::snprintf(text, sizeof text, "%d/%d frames, %.1f s", pr.encoded, pr.total, pr.seconds);
    const float bar_w = ImGui::CalcTextSize("0000/0000 frames, 00.0 s").x + fs;
    ImGui::ProgressBar(pr.total > 0 ? static_cast<float>(pr.encoded) / pr.total : 0,
                       ImVec2(bar_w, 0), text);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Exporting %s: the window keeps working meanwhile; an edit cancels it",
                        s.export_job.request().path.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) s.export_job.cancel();
    control_tip("Stop the export; nothing is written");
  }
  if (notice_shown(s)) {
    // Problems in the conflict colour; a saved file in the plain text colour, cut to the line
    // (the whole text is in the tooltip).
    sep();
    const Rgba& c = s.notice_kind == Notice::Error ? s.palette.conflict : s.palette.text;
    ImGui::PushStyleColor(ImGuiCol_Text, colv(c));
    ImGui::TextUnformatted(s.notice.c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.notice.c_str());
  }
  s.layout.status = {r.pos.x, r.pos.y, r.size.x, r.size.y};
  ImGui::End();
}

}  // namespace bankviz::gui
