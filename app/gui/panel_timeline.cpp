// panel_timeline.cpp: every warp (rows) by every executed step (columns), each box the number of
// wavefronts that warp needed for that step; a scrubber over all beats of the animation.
#include <algorithm>
#include <cmath>
#include <string>

#include "panels.h"
#include "theme.h"
#include "timeline_label.h"

namespace bankviz::gui {

namespace {

// The legend of the boxes' colours, on the current line when it fits, else on the next: how far
// a warp step is from its ideal (degree_color), a sync, no shared access, the current box.
void draw_legend(AppState& s) {
  const Palette& pal = s.palette;
  const float fs = ImGui::GetFontSize();
  struct Item {
    ImU32 fill;
    const char* label;
    const char* tip;
    bool outline = false;
  };
  const Item items[] = {
      {degree_color(pal, 1, 1), "ideal",
       "As few wavefronts as the request needs: no bank conflict"},
      {degree_color(pal, 2, 1), "2x",
       "Twice the ideal wavefronts: a 2-way conflict (or worse in "
       "part of the request)"},
      {degree_color(pal, 4, 1), "4x", "Four times the ideal wavefronts"},
      {degree_color(pal, 8, 1), "8x+",
       "Eight times the ideal or more: the red end (32x is a "
       "32-way conflict)"},
      {col(pal.padding), "sync", "__syncthreads(): no shared-memory access"},
      {col(pal.background), "no access", "This warp has no active lane in this step"},
      {col(pal.background), "now",
       "The box outlined in white (black in the light theme): the "
       "step and warp the views show",
       true},
  };
  const float sw = fs * 0.9f, gap = ImGui::GetStyle().ItemSpacing.x;
  float w = ImGui::CalcTextSize("colour:").x + gap;
  for (const Item& it : items) w += sw + gap * 0.5f + ImGui::CalcTextSize(it.label).x + gap;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + gap + w <= right) ImGui::SameLine();
  const ImVec2 start = ImGui::GetCursorScreenPos();
  ImGui::TextDisabled("colour:");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Each box: the wavefronts a warp needed for a step, coloured by how far "
        "that is from the ideal; the number in it is the wavefront count");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (const Item& it : items) {
    ImGui::SameLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float y = p.y + (ImGui::GetTextLineHeight() - sw) / 2;
    ImGui::Dummy(ImVec2(sw, ImGui::GetTextLineHeight()));
    const bool hovered = ImGui::IsItemHovered();
    dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + sw, y + sw), it.fill);
    dl->AddRect(ImVec2(p.x, y), ImVec2(p.x + sw, y + sw),
                it.outline ? col(pal.lit_border) : col(pal.text_dim, 0.5f), 0, 0,
                it.outline ? 2.0f : 1.0f);
    ImGui::SameLine(0, gap * 0.5f);
    ImGui::TextUnformatted(it.label);
    if (hovered || ImGui::IsItemHovered()) ImGui::SetTooltip("%s", it.tip);
  }
  const ImVec2 end = ImGui::GetItemRectMax();
  s.layout.timeline_legend = {start.x, start.y, end.x - start.x, end.y - start.y};
}

}  // namespace

void draw_timeline(AppState& s, CellRenderer& cr, Rect r) {
  if (!begin_panel("Warp timeline", r, !s.settings.presenter)) return ImGui::End();
  if (!s.analysis) {
    ImGui::TextDisabled("No analysis yet.");
    return ImGui::End();
  }
  const Analysis& a = *s.analysis;
  const Palette& pal = s.palette;
  const float fs = ImGui::GetFontSize();
  int steps = static_cast<int>(a.steps.size());
  int warps = a.warp_count();

  // Scrubber first, so it never scrolls away; presenter mode shows the verdict there instead.
  if (s.settings.presenter) {
    draw_verdict_text(s);
  } else {
    int beats = s.frame.beats;
    int beat = std::max(0, s.frame.beat);
    ImGui::SetNextItemWidth(-fs * 16);
    if (beats > 0 && ImGui::SliderInt("##scrub", &beat, 0, beats - 1, "beat %d")) {
      s.t = beat_time(beat, s.playback);
      update_frame(s, 0);
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Drag through the animation: one beat is one wavefront of one warp");
    ImGui::SameLine();
    ImGui::Text("total %d wavefronts, ideal %d", a.total_wavefronts(), a.total_ideal());
    draw_legend(s);
  }

  const float label_w = ImGui::CalcTextSize("warp 00").x + fs * 0.8f;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  float col_w = std::clamp((avail.x - label_w) / std::max(1, steps), fs * 2.2f, fs * 12);
  // Presenter mode keeps rows tall enough to read and scrolls to the current warp instead.
  const float min_row = s.settings.presenter ? fs * 0.8f : 2.0f;
  float row_h =
      std::clamp(std::floor((avail.y - fs * 1.5f) / std::max(1, warps)), min_row, fs * 1.35f);
  // Presenter mode scrolls to the current warp itself: no scroll bars to take the rows' room.
  ImGui::BeginChild(
      "tl", avail, false,
      s.settings.presenter ? ImGuiWindowFlags_NoScrollbar : ImGuiWindowFlags_HorizontalScrollbar);
  if (s.settings.presenter && s.frame.warp >= 0) {
    const float y = fs * 1.4f + s.frame.warp * row_h;
    const float view = ImGui::GetWindowHeight();
    if (y < ImGui::GetScrollY() + fs * 1.4f || y + row_h > ImGui::GetScrollY() + view)
      ImGui::SetScrollY(std::max(0.0f, y - fs * 1.4f));
  }
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
    // The label, shortened to fit without losing what tells steps apart (timeline_label.h).
    const std::string lbl = fit_step_label(a.steps[st].label, col_w - 6, [](const std::string& t) {
      return ImGui::CalcTextSize(t.c_str()).x;
    });
    ImVec2 p(g0.x + st * col_w + 4, o.y);
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
  {
    // What a room sees of the timeline: the panel and the rows in view.
    const float top = std::max(g0.y, ImGui::GetWindowPos().y);
    const float bottom =
        std::min(g0.y + row_h * warps, ImGui::GetWindowPos().y + ImGui::GetWindowHeight());
    s.layout.timeline = {r.pos.x, r.pos.y, r.size.x, r.size.y};
    s.layout.timeline_rows = {g0.x, top, col_w * steps, std::max(0.0f, bottom - top)};
    s.layout.timeline_rows_visible =
        row_h > 0 ? static_cast<int>(std::max(0.0f, bottom - top) / row_h + 0.01f) : 0;
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
