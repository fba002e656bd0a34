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

#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

bool notice_shown(const StatusState& st) {
  return !st.text.empty() && ImGui::GetCurrentContext() && ImGui::GetTime() < st.until;
}

}  // namespace

float status_height() {
  return std::ceil(ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2);
}

bool status_has_news(const StatusState& st, const ExportJob& job) {
  return notice_shown(st) || job.active();
}

void draw_status(StatusState& st, ExportJob& job, bool unsaved, const Look& look, Rect r) {
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
  if (unsaved && !look.settings.presenter) {
    sep();
    ImGui::TextColored(colv(look.palette.conflict), "edited, not saved");
    control_tip("The scenario differs from the file or preset it came from: Ctrl+S saves it");
  }
  if (job.active()) {
    // A GIF or sequence on its way: frames encoded of all, the time so far, and Cancel.
    sep();
    const ExportProgress pr = job.progress();
    char text[64];
    std::snprintf(text, sizeof text, "%d/%d frames, %.1f s", pr.encoded, pr.total, pr.seconds);
    const float bar_w = ImGui::CalcTextSize("0000/0000 frames, 00.0 s").x + fs;
    ImGui::ProgressBar(pr.total > 0 ? static_cast<float>(pr.encoded) / pr.total : 0,
                       ImVec2(bar_w, 0), text);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Exporting %s: the window keeps working meanwhile; an edit cancels it",
                        job.request().path.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) job.cancel();
    control_tip("Stop the export; nothing is written");
  }
  if (notice_shown(st)) {
    // Problems in the conflict colour; a saved file in the plain text colour, cut to the line
    // (the whole text is in the tooltip).
    sep();
    const Rgba& c = st.kind == Notice::Error ? look.palette.conflict : look.palette.text;
    ImGui::PushStyleColor(ImGuiCol_Text, colv(c));
    ImGui::TextUnformatted(st.text.c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", st.text.c_str());
  }
  look.layout.status = {r.pos.x, r.pos.y, r.size.x, r.size.y};
  ImGui::End();
}

}  // namespace bankviz::gui
