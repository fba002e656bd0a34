// panel_timeline.cpp: every warp (rows) by every executed step (columns), each box the number of
// wavefronts that warp needed for that step; a scrubber over all beats of the animation.
#include <algorithm>
#include <cmath>

#include "panels.h"
#include "theme.h"

namespace bankviz::gui {

void draw_timeline(AppState& s, CellRenderer& cr, Rect r) {
  if (!begin_panel("Warp timeline", r)) return ImGui::End();
  if (!s.analysis) {
    ImGui::TextDisabled("No analysis yet.");
    return ImGui::End();
  }
  const Analysis& a = *s.analysis;
  const Palette& pal = s.palette;
  const float fs = ImGui::GetFontSize();
  int steps = static_cast<int>(a.steps.size());
  int warps = a.warp_count();

  // Scrubber first, so it never scrolls away.
  int beats = s.frame.beats;
  int beat = std::max(0, s.frame.beat);
  ImGui::SetNextItemWidth(-fs * 16);
  if (beats > 0 && ImGui::SliderInt("##scrub", &beat, 0, beats - 1, "beat %d")) {
    s.t = beat_time(beat, s.playback);
    update_frame(s, 0);
  }
  ImGui::SameLine();
  ImGui::Text("total %d wavefronts, ideal %d", a.total_wavefronts(), a.total_ideal());

  const float label_w = ImGui::CalcTextSize("warp 00").x + fs * 0.8f;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  float col_w = std::clamp((avail.x - label_w) / std::max(1, steps), fs * 2.2f, fs * 12);
  float row_h =
      std::clamp(std::floor((avail.y - fs * 1.5f) / std::max(1, warps)), 2.0f, fs * 1.35f);
  ImGui::BeginChild("tl", avail, false, ImGuiWindowFlags_HorizontalScrollbar);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 o = ImGui::GetCursorScreenPos();
  ImVec2 g0(o.x + label_w, o.y + fs * 1.4f);
  ImGui::Dummy(ImVec2(label_w + col_w * steps, fs * 1.4f + row_h * warps));
  CellGrid& grid = cr.grid(GridId::Timeline);
  GridKey key;
  key.add(s.version).add(s.frame.step).add(s.frame.warp).add(g0.x).add(g0.y).add(col_w);
  key.add(row_h).add(pal);
  if (grid.stale(key.value(), g0.x, g0.y, col_w, row_h, warps, steps)) {
    for (int st = 0; st < steps; ++st) {
      bool sync = a.steps[st].kind == StepKind::Sync;
      for (int w = 0; w < warps && st < static_cast<int>(a.warps.size()); ++w) {
        if (w >= static_cast<int>(a.warps[st].size())) break;
        const AccessResult& res = a.warps[st][w].result;
        CellInstance& ci = grid.at(w, st);
        ci.gap_px = row_h >= 8 ? 1.0f : 0.0f;
        ci.fill = sync                  ? col(pal.padding)
                  : res.wavefronts == 0 ? col(pal.background)
                                        : degree_color(pal, res.wavefronts, res.ideal);
        if (st == s.frame.step && w == s.frame.warp) {
          ci.edge = col(pal.lit_border);
          ci.edge_px = 2;
        }
      }
    }
  }
  cr.draw(dl, grid);
  for (int st = 0; st < steps; ++st) {
    std::string lbl = a.steps[st].label;
    ImVec2 sz = ImGui::CalcTextSize(lbl.c_str());
    ImVec2 p(g0.x + st * col_w + 4, o.y);
    if (sz.x > col_w - 6) {
      lbl = lbl.substr(0, static_cast<size_t>(std::max(1.0f, (col_w - 6) / (fs * 0.55f))));
    }
    dl->PushClipRect(ImVec2(p.x, p.y), ImVec2(p.x + col_w - 6, p.y + fs * 1.3f), true);
    dl->AddText(p, st == s.frame.step ? col(pal.text) : col(pal.text_dim), lbl.c_str());
    dl->PopClipRect();
  }
  // A marker at the current warp's row: rows can be a few pixels high.
  if (s.frame.warp >= 0) {
    float y = g0.y + (s.frame.warp + 0.5f) * row_h;
    float x = g0.x - 4;
    dl->AddTriangleFilled(ImVec2(x - fs * 0.5f, y - fs * 0.35f),
                          ImVec2(x - fs * 0.5f, y + fs * 0.35f), ImVec2(x, y), col(pal.lit_border));
  }
  int every = 1;
  while (every * row_h < fs * 1.05f) every *= 2;
  for (int w = 0; w < warps; w += every) {
    std::string n = "warp " + std::to_string(w);
    dl->AddText(ImVec2(o.x, g0.y + w * row_h + (row_h - fs) / 2),
                w == s.frame.warp ? col(pal.text) : col(pal.text_dim), n.c_str());
  }
  if (row_h >= fs * 0.9f)
    for (int st = 0; st < steps && st < static_cast<int>(a.warps.size()); ++st) {
      if (a.steps[st].kind == StepKind::Sync) continue;
      for (int w = 0; w < warps && w < static_cast<int>(a.warps[st].size()); ++w) {
        const AccessResult& res = a.warps[st][w].result;
        if (res.wavefronts == 0) continue;
        std::string n = std::to_string(res.wavefronts);
        ImVec2 sz = ImGui::CalcTextSize(n.c_str());
        dl->AddText(
            ImVec2(g0.x + (st + 0.5f) * col_w - sz.x / 2, g0.y + w * row_h + (row_h - sz.y) / 2),
            pal.light ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255), n.c_str());
      }
    }
  // Click a box to jump there.
  if (ImGui::IsWindowHovered()) {
    ImVec2 m = ImGui::GetMousePos();
    int st = static_cast<int>(std::floor((m.x - g0.x) / col_w));
    int w = static_cast<int>(std::floor((m.y - g0.y) / row_h));
    if (st >= 0 && st < steps && w >= 0 && w < warps && st < static_cast<int>(a.warps.size()) &&
        w < static_cast<int>(a.warps[st].size())) {
      const AccessResult& res = a.warps[st][w].result;
      ImGui::BeginTooltip();
      ImGui::Text("%s, warp %d", a.steps[st].label.c_str(), w);
      if (res.wavefronts > 0) ImGui::Text("%d wavefronts, ideal %d", res.wavefronts, res.ideal);
      ImGui::EndTooltip();
      if (ImGui::IsMouseClicked(0)) seek(s, st, w, 0);
    }
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace bankviz::gui
