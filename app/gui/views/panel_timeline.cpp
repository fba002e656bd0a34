// panel_timeline.cpp: every warp (rows) by every executed step (columns), each box the number of
// wavefronts that warp needed for that step; a scrubber over all beats of the animation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "imgui_internal.h"  // the rows' child window: its horizontal scroll bar
#include "platform/theme.h"
#include "shell/desk.h"
#include "shell/panels.h"
#include "views/timeline_label.h"

namespace bankviz::gui {

namespace {

// The legend of the boxes' colours, on the current line when it fits, else on the next: how far
// a warp step is from its ideal (core's conflict levels), a sync, no shared access, the current
// box.
void draw_legend(const Look& look) {
  const Palette& pal = look.palette;
  const float fs = ImGui::GetFontSize();
  struct Item {
    ImU32 fill;
    const char* label;
    const char* tip;
    bool outline = false;
  };
  // The conflict levels (core svg.h: apart for every viewer), then what is not a level.
  static const char* const kTips[kConflictLevels] = {
      "As few wavefronts as the request needs: no bank conflict",
      "Up to twice the ideal wavefronts: a 2-way conflict (or one in part of the request)",
      "Three to four times the ideal wavefronts",
      "Five times the ideal or more (32x is a 32-way conflict)"};
  std::vector<Item> items;
  for (int level = 0; level < kConflictLevels; ++level)
    items.push_back({col(conflict_level_color(level)), conflict_level_name(level), kTips[level]});
  items.push_back({col(pal.padding), "sync", "__syncthreads(): no shared-memory access"});
  items.push_back({col(pal.background), "no access", "This warp has no active lane in this step"});
  items.push_back({col(pal.background), "now",
                   "The box outlined in white (black in the light theme): the step and warp the "
                   "views show",
                   true});
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
  look.layout.timeline_legend = {start.x, start.y, end.x - start.x, end.y - start.y};
}

// Presenter mode's rows: whole rows tall enough to read, the current warp's among them; one where
// the type is at its smallest for the window (720p, 768p: the cells need the height), else two.
int presenter_rows(const ViewSide& v) {
  const int warps = v.analysis ? v.analysis->warp_count() : 1;
  const int want = ImGui::GetIO().DisplaySize.y >= ImGui::GetFontSize() * 39 ? 2 : 1;
  return std::max(1, std::min(warps, want));
}

// The desk's smallest row: its number still readable.
float number_row_h() {
  return std::ceil(ImGui::GetFontSize() * 0.8f);
}

float presenter_row_h() {
  return std::floor(ImGui::GetFontSize() * 1.15f);
}

// The step labels' row.
float label_row_h() {
  return std::floor(ImGui::GetFontSize() * 1.4f);
}

// The label column and the step columns' width of the timeline in a panel `width` wide.
struct StepColumns {
  float label_w = 0, col_w = 0;
};
StepColumns step_columns(int steps, float avail_x, bool pres) {
  const float fs = ImGui::GetFontSize();
  StepColumns c;
  c.label_w = ImGui::CalcTextSize("warp 00").x + fs * 0.8f;
  // Columns wide enough for a label that keeps its meaning ("s=16: sdata[tid] += ..."); more
  // steps than fit scroll, the current one always in view.
  c.col_w =
      std::clamp((avail_x - c.label_w) / std::max(1, steps), fs * (pres ? 6.0f : 3.5f), fs * 12);
  return c;
}

// The longest words the figure on stage commonly has (a recorded one's).
constexpr const char* kFigureWords =
    "measured on H200, recorded 2026-11-29: 000.00 cycles per instruction, model 000";

// Presenter mode's measured figure (ViewSide::measured) to the right of the timeline's step
// columns, over the label row and the rows, where a few steps leave room for kFigureWords (a
// longer figure is clipped there): then the verdict's
// strip needs no line of its own for it, and the pictures keep its height (a GPU, here or
// elsewhere, or a recorded set, costs the room nothing). Empty (w 0) where it does not fit.
struct FigurePlace {
  float x = 0, w = 0;  // from the panel's content left
};
FigurePlace figure_place(const ViewSide& v, float width) {
  if (!v.verdict || !v.analysis) return {};
  const ImGuiStyle& st = ImGui::GetStyle();
  const float fs = ImGui::GetFontSize(), avail = width - st.WindowPadding.x * 2;
  const int steps = static_cast<int>(v.analysis->steps.size());
  const StepColumns c = step_columns(steps, avail, true);
  FigurePlace p;
  p.x = c.label_w + c.col_w * static_cast<float>(steps) + fs;
  p.w = avail - p.x;
  if (p.w < fs * 10) return {};
  const float need = g_fonts.bold->CalcTextSizeA(g_fonts.bold->FontSize, 1e9f, p.w, kFigureWords).y;
  const float rows = label_row_h() + static_cast<float>(presenter_rows(v)) * presenter_row_h();
  return need <= rows ? p : FigurePlace{};
}

// Draws the figure at `place`, its top at y (the label row's), clipped to the rows' height.
void draw_figure_beside(const ViewSide& v, const Look& look, FigurePlace place, ImVec2 at) {
  if (v.measured.empty()) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = label_row_h() + static_cast<float>(presenter_rows(v)) * presenter_row_h();
  const ImVec2 p(at.x + place.x, at.y);
  dl->PushClipRect(p, ImVec2(p.x + place.w, p.y + h), true);
  dl->AddText(g_fonts.bold, g_fonts.bold->FontSize, p, col(look.palette.text), v.measured.c_str(),
              nullptr, place.w);
  dl->PopClipRect();
  ImGui::LogText("\n%s\n", v.measured.c_str());  // recorded only while capture_texts() is on
}

// Presenter mode's verdict room atop the timeline strip: the same before and after a reveal (and
// whether or not this frame has a verdict), so that neither the pictures nor the timeline's rows
// change under the class: one line of the big type, and the measured figure's line wherever a GPU
// measures and the step columns leave no room beside them for it (more only for a verdict that
// wraps).
float verdict_room(const ViewSide& v, bool gpu, float width) {
  if (!v.verdict) return 0;  // a comparison: each side's header has its verdict
  const ImGuiStyle& st = ImGui::GetStyle();
  const float wrap = width - st.WindowPadding.x * 2;
  // The figure's line under the verdict (where it does not stand beside the step columns), as
  // tall as a recorded figure's words wrap to: the same whether or not a figure has come.
  const bool under = gpu && figure_place(v, width).w <= 0;
  const float figure =
      under
          ? st.ItemSpacing.y +
                std::max(
                    g_fonts.bold->FontSize * 1.2f,
                    g_fonts.bold->CalcTextSizeA(g_fonts.bold->FontSize, 1e9f, wrap, kFigureWords).y)
          : 0;
  float room = g_fonts.big->FontSize * 1.2f + figure;
  // The room the answer's verdict will take (a long one wraps in a narrow window), while a question
  // keeps it back and after: the strip is as tall before the reveal as after.
  if (v.analysis && v.frame) {
    const std::string told = v.conceal ? frame_cells(*v.analysis, *v.frame).verdict
                             : v.cells ? v.cells->verdict
                                       : std::string();
    room = std::max(
        room,
        g_fonts.big->CalcTextSizeA(g_fonts.big->FontSize, 1e9f, wrap, told.c_str()).y + figure);
  }
  ViewSide told = v;
  if (figure_place(v, width).w > 0) told.measured.clear();  // beside the columns
  return std::max(room, verdict_height(told, width) - st.WindowPadding.y * 2);
}

// While a question is open the verdict's room names the step it asks about, whole where it fits
// (the timeline's column shortens it: "tap [s~ (i=1)"): a class must read which access the
// picture and the question are about.
void draw_asked_step(const ViewSide& v, const Look& look) {
  if (!v.analysis || v.frame->step < 0 ||
      v.frame->step >= static_cast<int>(v.analysis->steps.size()))
    return;
  ImFont* big = g_fonts.big;
  const std::string label = fit_step_label(
      v.analysis->steps[static_cast<size_t>(v.frame->step)].label, ImGui::GetContentRegionAvail().x,
      [big](const std::string& t) {
        return big->CalcTextSizeA(big->FontSize, 1e9f, 0, t.c_str()).x;
      },
      tile_names(v.analysis->scenario));
  ImGui::PushFont(big);
  ImGui::PushStyleColor(ImGuiCol_Text, colv(look.palette.text));
  ImGui::TextUnformatted(label.c_str());
  ImGui::PopStyleColor();
  ImGui::PopFont();
}

}  // namespace

float presenter_timeline_height(const ViewSide& v, bool gpu, float width, float h) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float rows = static_cast<float>(presenter_rows(v)) * presenter_row_h();
  return std::floor(std::min(h * 0.4f, verdict_room(v, gpu, width) + label_row_h() + rows +
                                           st.WindowPadding.y * 2 + st.ItemSpacing.y + 2));
}

float desk_timeline_height(const ViewSide& v, float width, float h) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float fs = ImGui::GetFontSize();
  const int warps = v.analysis ? v.analysis->warp_count() : 1;
  const int steps = v.analysis ? static_cast<int>(v.analysis->steps.size()) : 1;
  // The panel's title bar and padding, the scrubber's line, the legend's (it wraps under the
  // scrubber in a narrow window), the step labels, a scroll bar where the steps' narrowest
  // columns overflow (draw_timeline), and three rows at the smallest height that still reads
  // their numbers (more scroll).
  const float label_w = ImGui::CalcTextSize("warp 00").x + fs * 0.8f;
  const bool sideways =
      label_w + static_cast<float>(steps) * fs * 3.5f >
      width - st.WindowPadding.x * 2 - st.ScrollbarSize;  // the rows' vertical bar beside them
  // (No title bar on a dense desk: shell/desk.h; this is the desk's.)
  const bool titled = !short_window(ImGui::GetIO().DisplaySize.y);
  const float chrome = (titled ? fs + st.FramePadding.y * 2 : 0) + st.WindowPadding.y * 2 +
                       ImGui::GetFrameHeight() + ImGui::GetTextLineHeight() + st.ItemSpacing.y * 2 +
                       label_row_h() + (sideways ? st.ScrollbarSize : 0);
  const float rows = static_cast<float>(std::clamp(warps, 1, 3)) * number_row_h();
  return std::floor(std::min(h * 0.4f, std::max(h * 0.2f, chrome + rows + 2)));
}

TimelineAsk draw_timeline(const ViewSide& v, bool gpu, const Look& look, CellRenderer& cr, Rect r) {
  TimelineAsk ask;
  // A dense desk (a short window) gives the title bar's height to the views (shell/desk.h).
  const bool dense = dense_desk(look.settings, look.slide, ImGui::GetIO().DisplaySize.y);
  if (!begin_panel("Warp timeline", r, !look.settings.presenter && !dense)) {
    ImGui::End();
    return ask;
  }
  if (!v.analysis) {
    ImGui::TextDisabled("No analysis yet.");
    ImGui::End();
    return ask;
  }
  const Analysis& a = *v.analysis;
  const Palette& pal = look.palette;
  const float fs = ImGui::GetFontSize();
  int steps = static_cast<int>(a.steps.size());
  int warps = a.warp_count();
  // Ask before telling: while a lesson's question is open the boxes are neutral and uncounted.
  const bool conceal = v.conceal;

  // Scrubber first, so it never scrolls away; presenter mode shows the verdict there instead.
  const FigurePlace beside = look.settings.presenter ? figure_place(v, r.size.x) : FigurePlace{};
  if (look.settings.presenter) {
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const float room = verdict_room(v, gpu, r.size.x);
    if (v.verdict && v.conceal) {
      draw_asked_step(v, look);
    } else if (v.verdict) {
      ViewSide told = v;
      if (beside.w > 0) told.measured.clear();  // drawn beside the step columns below
      draw_verdict_text(told, look);
    }
    if (room > 0)
      ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + room + ImGui::GetStyle().ItemSpacing.y));
  } else {
    int beats = v.frame->beats;
    int beat = std::max(0, v.frame->beat);
    if (conceal) {
      // Ask before telling: the knob's place among the beats (one per wavefront) would say how
      // many wavefronts the asked warp needs. In its place until the answer, a still bar.
      ImGui::BeginDisabled();
      ImGui::Button("scrubber: after the answer (PageDown)",
                    ImVec2(ImGui::GetContentRegionAvail().x - fs * 16, 0));
      ImGui::EndDisabled();
    } else {
      ImGui::SetNextItemWidth(-fs * 16);
      if (beats > 0 && ImGui::SliderInt("##scrub", &beat, 0, beats - 1, "beat %d")) {
        ask.beat = beat;
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Drag through the animation: one beat is one wavefront of one warp");
    }
    // The totals wait for the answer too, in a room of their size; the legend (the colours'
    // key, no figure) stays: the rows below keep their place when the answer comes.
    ImGui::SameLine();
    char total[96];
    std::snprintf(total, sizeof total, "total %d wavefronts, ideal %d", a.total_wavefronts(),
                  a.total_ideal());
    if (conceal) {
      ImGui::Dummy(ImGui::CalcTextSize(total));
    } else {
      ImGui::TextUnformatted(total);
    }
    draw_legend(look);
  }

  const bool pres = look.settings.presenter;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  // Presenter mode shows a few whole rows tall enough to read and scrolls to the current warp;
  // the desk fits every warp it can, each row tall enough for its boxes' numbers (more scroll).
  float row_h = pres ? presenter_row_h()
                     : std::clamp(std::floor((avail.y - label_row_h()) / std::max(1, warps)),
                                  number_row_h(), fs * 1.35f);
  // At the desk, rows that scroll bring a vertical scroll bar: the step columns leave it its
  // width, or they would overflow by that much and a horizontal bar would cover the last row in
  // view (1024x768).
  const bool rows_scroll = !pres && label_row_h() + row_h * static_cast<float>(warps) > avail.y;
  const StepColumns columns =
      step_columns(steps, avail.x - (rows_scroll ? ImGui::GetStyle().ScrollbarSize : 0), pres);
  const float label_w = columns.label_w, col_w = columns.col_w;
  if (beside.w > 0) draw_figure_beside(v, look, beside, ImGui::GetCursorScreenPos());
  if (pres) {
    // Whole rows only: the strip holds an integral number of them under the labels.
    const int fit = std::max(1, static_cast<int>((avail.y - label_row_h()) / row_h));
    avail.y = label_row_h() + static_cast<float>(std::min(fit, warps)) * row_h;
  }
  // Presenter mode scrolls to the current warp itself: no scroll bars to take the rows' room.
  ImGui::BeginChild("tl", avail, false,
                    look.settings.presenter ? ImGuiWindowFlags_NoScrollbar
                                            : ImGuiWindowFlags_HorizontalScrollbar);
  if ((pres || v.playing) && v.frame->warp >= 0) {
    // The current warp's row in view, scrolled by whole rows (at the desk while it plays).
    const int shown = std::max(1, static_cast<int>((avail.y - label_row_h()) / row_h + 0.01f));
    const int top = static_cast<int>(ImGui::GetScrollY() / row_h + 0.5f);
    if (v.frame->warp < top || v.frame->warp >= top + shown)
      ImGui::SetScrollY(static_cast<float>(std::max(0, v.frame->warp - shown + 1)) * row_h);
  }
  if (v.frame->step >= 0) {
    // The current step's column in view (a scenario of many steps scrolls sideways).
    const float x = label_w + v.frame->step * col_w, view = ImGui::GetWindowWidth();
    if (x < ImGui::GetScrollX() + label_w || x + col_w > ImGui::GetScrollX() + view)
      ImGui::SetScrollX(std::max(0.0f, x - label_w - col_w));
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 o = ImGui::GetCursorScreenPos();
  ImVec2 g0(o.x + label_w, o.y + label_row_h());
  ImGui::Dummy(ImVec2(label_w + col_w * steps, label_row_h() + row_h * warps));
  CellGrid& grid = cr.grid(GridId::Timeline);
  GridKey key;
  key.add(v.version).add(v.frame->step).add(v.frame->warp).add(g0.x).add(g0.y).add(col_w);
  key.add(row_h).add(pal).add(conceal);
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
                  : conceal             ? col(pal.touched_border)
                            : col(conflict_level_color(conflict_level(res.wavefronts, res.ideal)));
        if (st == v.frame->step && w == v.frame->warp) {
          ci.edge = col(pal.lit_border);
          ci.edge_px = 2;
        }
      }
    }
  }
  cr.draw(dl, grid);
  // The step labels stay at the top when the rows scroll, over the cells.
  const float ly = std::max(o.y, ImGui::GetWindowPos().y);
  dl->AddRectFilled(ImVec2(g0.x, ly), ImVec2(g0.x + col_w * steps, ly + label_row_h()),
                    col(pal.panel));
  const std::vector<std::string> tiles = tile_names(a.scenario);
  for (int st = 0; st < steps; ++st) {
    // The label, shortened to fit without losing what tells steps apart (timeline_label.h).
    const std::string lbl = fit_step_label(
        a.steps[st].label, col_w - 6,
        [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; }, tiles);
    ImVec2 p(g0.x + st * col_w + 4, ly);
    dl->PushClipRect(ImVec2(p.x, p.y), ImVec2(p.x + col_w - 6, p.y + fs * 1.3f), true);
    draw_text(dl, ImGui::GetFont(), fs, p, st == v.frame->step ? col(pal.text) : col(pal.text_dim),
              lbl);
    dl->PopClipRect();
  }
  // Under the label row: the rows scroll beneath it, so what belongs to a row is clipped to it.
  const ImVec2 wpos = ImGui::GetWindowPos();
  dl->PushClipRect(ImVec2(wpos.x, ly + label_row_h()),
                   ImVec2(wpos.x + ImGui::GetWindowWidth(), wpos.y + ImGui::GetWindowHeight()),
                   true);
  // The warp labels stay at the left edge when the steps scroll sideways, over the cells.
  const float lx = std::max(o.x, wpos.x);
  dl->AddRectFilled(ImVec2(lx, g0.y), ImVec2(lx + label_w, g0.y + row_h * warps), col(pal.panel));
  // A marker at the current warp's row: rows can be a few pixels high.
  if (v.frame->warp >= 0) {
    float y = g0.y + (v.frame->warp + 0.5f) * row_h;
    float x = lx + label_w - 4;
    dl->AddTriangleFilled(ImVec2(x - fs * 0.5f, y - fs * 0.35f),
                          ImVec2(x - fs * 0.5f, y + fs * 0.35f), ImVec2(x, y), col(pal.lit_border));
  }
  int every = 1;
  while (every * row_h < fs * 1.05f) every *= 2;
  for (int w = 0; w < warps; w += every) {
    std::string n = "warp " + std::to_string(w);
    // Centred on its row, but never above the first (rows can be a few pixels high).
    draw_text(dl, ImGui::GetFont(), fs,
              ImVec2(lx, std::max(g0.y, g0.y + w * row_h + (row_h - fs) / 2)),
              w == v.frame->warp ? col(pal.text) : col(pal.text_dim), n);
  }
  // Every box its number (a cue that is not colour), in the ink that contrasts most with it.
  if (!conceal) {
    ImFont* font = ImGui::GetFont();
    const float size = std::min(fs, row_h - 1);
    for (int st = 0; st < steps && st < static_cast<int>(a.warps.size()); ++st) {
      if (a.steps[st].kind == StepKind::Sync) continue;
      for (int w = 0; w < warps && w < static_cast<int>(a.warps[st].size()); ++w) {
        const AccessResult& res = a.warps[st][w].result;
        if (res.wavefronts == 0) continue;
        const std::string n = std::to_string(res.wavefronts);
        const ImVec2 sz = font->CalcTextSizeA(size, 1e9f, 0, n.c_str());
        const Rgba chip = conflict_level_color(conflict_level(res.wavefronts, res.ideal));
        draw_text(
            dl, font, size,
            ImVec2(g0.x + (st + 0.5f) * col_w - sz.x / 2, g0.y + w * row_h + (row_h - sz.y) / 2),
            col(ink_on(chip)), n);
      }
    }
  }
  dl->PopClipRect();
  {
    // What a room sees of the timeline: the panel and the rows in view.
    // (Not under a horizontal scroll bar: a row it covers is not in view.)
    const ImVec2 wp = ImGui::GetWindowPos();
    const float top = std::max(g0.y, wp.y + label_row_h());
    const float bottom =
        std::min(g0.y + row_h * warps,
                 wp.y + ImGui::GetWindowHeight() - ImGui::GetCurrentWindow()->ScrollbarSizes.y);
    look.layout.timeline = {r.pos.x, r.pos.y, r.size.x, r.size.y};
    look.layout.timeline_rows = {g0.x, top, col_w * steps, std::max(0.0f, bottom - top)};
    const float rows = row_h > 0 ? std::max(0.0f, bottom - top) / row_h : 0;
    look.layout.timeline_rows_visible = static_cast<int>(rows + 0.01f);
    // A row cut through (a part of one shown) reads as a broken picture.
    look.layout.timeline_row_cut = std::abs(rows - std::round(rows)) > 0.02f;
    // The box of the step and warp on screen, wholly in view.
    if (v.frame->step >= 0 && v.frame->warp >= 0) {
      const float cx = g0.x + v.frame->step * col_w, cy = g0.y + v.frame->warp * row_h;
      look.layout.timeline_current_visible = cx >= wp.x + label_w - 1 &&
                                             cx + col_w <= wp.x + ImGui::GetWindowWidth() + 1 &&
                                             cy >= top - 1 && cy + row_h <= bottom + 1;
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
      if (res.wavefronts > 0 && !conceal)
        ImGui::Text("%d wavefronts, ideal %d", res.wavefronts, res.ideal);
      ImGui::EndTooltip();
      if (ImGui::IsMouseClicked(0)) {
        ask.step = st;
        ask.warp = w;
      }
    }
  }
  ImGui::EndChild();
  ImGui::End();
  return ask;
}

}  // namespace bankviz::gui
