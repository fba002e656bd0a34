// panel_tile.cpp: the logical tile, as the kernel declares it.
//
// One cell per element of the padded array, coloured by the bank of its first byte:
//   (row, col) -> element -> byte = base + swizzle(element) * elem_bytes -> Arch::bank_of(byte)
// Padding elements are hatched (they hold no data, they only shift the next row's banks).
// The current wavefront's elements are lit and labelled with the lanes that touch them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "platform/theme.h"
#include "shell/desk.h"
#include "shell/panels.h"
#include "views/tile_bands.h"
#include "views/timeline_label.h"

namespace bankviz::gui {

namespace {

// A dense desk's step label (shell/desk.h) on one line with the warp counter's short form (its
// widest: two digits a wavefront figure, so the choice is the same from a question to its
// answer): the label whole, or nearly (threadIdx.x as tx, the tile's name dropped), else ""
// (the label keeps a line of its own).
std::string desk_label_beside_counter(const ViewSide& v, float right) {
  const Analysis& a = *v.analysis;
  char counter[96];
  std::snprintf(counter, sizeof counter, "warp %d/%d  wavefront 88/88", v.frame->warp,
                a.warp_count());
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float room = right - ImGui::GetCursorScreenPos().x - ImGui::CalcTextSize(counter).x - gap;
  ImFont* bold = g_fonts.bold;
  const std::string& full = a.steps[static_cast<size_t>(v.frame->step)].label;
  const std::string label = fit_step_label(
      full, room,
      [bold](const std::string& t) {
        return bold->CalcTextSizeA(bold->FontSize, 1e9f, 0, t.c_str()).x;
      },
      tile_names(a.scenario));
  const bool whole = !label.empty() && label.find('~') == std::string::npos &&
                     (label == full || label.find('[') != std::string::npos);
  return whole ? label : std::string();
}

}  // namespace

void draw_tile_view(const ViewSide& v, const Look& look, Hover& hover, CellRenderer& cr, Rect r) {
  const std::string title = std::string("Logical tile") + v.id;
  // A dense desk (a short window) gives the title bar's height to the cells (shell/desk.h).
  const bool dense = dense_desk(look.settings, look.slide, ImGui::GetIO().DisplaySize.y);
  if (!begin_panel(title.c_str(), r, !look.settings.presenter && !dense)) return ImGui::End();
  if (!v.analysis || v.analysis->scenario.tiles.empty()) {
    ImGui::TextDisabled("No analysis yet: fix the errors in the controls.");
    return ImGui::End();
  }
  const Analysis& a = *v.analysis;
  const Palette& pal = look.palette;
  int ti = v.cells->tile >= 0 ? v.cells->tile : 0;
  const TileDecl& t = a.scenario.tiles[ti];
  const Arch& arch = *a.arch;
  TileGrid g = tile_grid(t);

  // Each part of the header goes on the same line only when it fits (a narrow projector wraps).
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  auto same_line_if = [&](const char* text) {
    const float x = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
    if (x + ImGui::CalcTextSize(text).x <= right) ImGui::SameLine();
  };
  ImGui::PushFont(g_fonts.mono);
  ImGui::TextWrapped("%s", t.declaration().c_str());
  ImGui::PopFont();
  const std::string legend =
      std::string("colour = bank") + (t.pad > 0 ? ", hatched = padding" : "");
  if (!look.settings.presenter) {  // presenter mode gives the line to the cells
    same_line_if(legend.c_str());
    ImGui::TextDisabled("%s", legend.c_str());
  }
  draw_layout_caption(t);
  // Where the animation is, in words: the step, the warp, the wavefront.
  if (v.frame->step >= 0) {
    // Presenter mode keeps the header to one line (the height is the cells'): the step's label
    // goes beside the declaration (below), the desk view gives it its own line; a dense desk
    // (a short window) shares that line with the counter where the label, shortened as the
    // timeline's columns shorten it (threadIdx.x as tx), fits beside the counter's short form.
    const std::string dense_label = dense ? desk_label_beside_counter(v, right) : "";
    if (!dense_label.empty()) {
      ImGui::PushFont(g_fonts.bold);
      ImGui::TextUnformatted(dense_label.c_str());
      ImGui::PopFont();
    } else if (!look.settings.presenter) {
      ImGui::PushFont(g_fonts.bold);
      ImGui::TextWrapped("%s", a.steps[v.frame->step].label.c_str());
      ImGui::PopFont();
    }
    // Presenter mode says it shorter, on the declaration's line and never wrapped (the cells keep
    // their size from the question to its answer), in the longest form that fits whole: a counter
    // clipped to "wavefront 1/3" would say 3. While a question is open the wavefront counter would
    // give its answer away: the warp only.
    char buf[4][96];
    int forms = 0;
    const int warp = v.frame->warp, warps = a.warp_count();
    const int wf = v.frame->wavefront + 1, wfs = v.frame->wavefronts;
    // At the desk the counter goes beside the step's label where its longest form fits (two
    // digits a wavefront figure), else its short form where that fits (a short window's tile
    // keeps the line for its cells), else under it; chosen from the longest forms, so alike from
    // a question to its answer: the grid below stays put when the wavefront counter comes.
    char longest[96], shortest[96];
    std::snprintf(longest, sizeof longest, "warp %d of %d   wavefront 88 of 88", warp, warps);
    std::snprintf(shortest, sizeof shortest, "warp %d/%d  wavefront 88/88", warp, warps);
    const float beside = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
    const bool desk_short =
        !look.settings.presenter &&
        (!dense_label.empty() || (beside + ImGui::CalcTextSize(longest).x > right &&
                                  beside + ImGui::CalcTextSize(shortest).x <= right));
    if (!look.settings.presenter) {
      if (v.conceal)
        std::snprintf(buf[forms++], sizeof buf[0], desk_short ? "warp %d/%d" : "warp %d of %d",
                      warp, warps);
      else if (desk_short)
        std::snprintf(buf[forms++], sizeof buf[0], "warp %d/%d  wavefront %d/%d", warp, warps, wf,
                      wfs);
      else
        std::snprintf(buf[forms++], sizeof buf[0], "warp %d of %d   wavefront %d of %d", warp,
                      warps, wf, wfs);
    } else if (v.conceal) {
      std::snprintf(buf[forms++], sizeof buf[0], "warp %d/%d", warp, warps);
      std::snprintf(buf[forms++], sizeof buf[0], "warp %d", warp);
    } else {
      std::snprintf(buf[forms++], sizeof buf[0], "warp %d/%d  wavefront %d/%d", warp, warps, wf,
                    wfs);
      std::snprintf(buf[forms++], sizeof buf[0], "warp %d  wavefront %d/%d", warp, wf, wfs);
      std::snprintf(buf[forms++], sizeof buf[0], "wavefront %d/%d", wf, wfs);
    }
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const char* where = buf[0];
    if (look.settings.presenter) {
      const float line_room = right - (ImGui::GetItemRectMax().x + gap * 2);
      where = nullptr;
      for (int i = 0; i < forms && !where; ++i)
        if (ImGui::CalcTextSize(buf[i]).x <= line_room) where = buf[i];
    }
    if (look.settings.presenter && !v.conceal && where) {
      // The statement on screen, whole where it fits: the timeline's column shortens it ("tap
      // [s~ (i=1)"). Clipped to the line, never wrapped, so the cells keep their size from step
      // to step; while a question is open the verdict's strip names the step whole instead.
      const float room =
          right - (ImGui::GetItemRectMax().x + gap) - ImGui::CalcTextSize(where).x - gap * 3;
      ImGui::PushFont(g_fonts.bold);
      const std::string label = fit_step_label(
          a.steps[v.frame->step].label, room,
          [](const std::string& text) { return ImGui::CalcTextSize(text.c_str()).x; },
          tile_names(a.scenario));
      // Whole or nearly (threadIdx.x as tx, the tile's name dropped), else not at all: a label
      // cut to "ta~ (i=1)" says nothing.
      const std::string& full = a.steps[v.frame->step].label;
      if (!label.empty() && label.find('~') == std::string::npos &&
          (label == full || label.find('[') != std::string::npos)) {
        ImGui::SameLine(0, gap * 2);
        ImGui::TextUnformatted(label.c_str());
      }
      ImGui::PopFont();
    }
    if (where) {
      if (look.settings.presenter)
        ImGui::SameLine(0, gap * 2);
      else
        same_line_if(desk_short ? shortest : longest);
      ImGui::TextUnformatted(where);
      if (ImGui::GetItemRectMax().x > right + 0.5f) look.layout.tile_header_cut = true;
    }
  }

  // Lanes of the current warp step on each element; lit = served in this wavefront.
  std::map<int64_t, std::pair<uint32_t, bool>> lanes;
  if (v.cells->tile == ti)
    for (const LitLane& l : v.cells->lanes) {
      auto& e = lanes[l.element];
      e.first |= 1u << l.lane;
      e.second = e.second || l.in_wavefront;
    }

  const float fs = ImGui::GetFontSize();
  const float label_w = ImGui::CalcTextSize("0000").x;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  // A wide tile in bands where that gives larger cells (views/tile_bands.h), each band under its
  // own column numbers (presenter mode's split of the width counted them: ui.cpp).
  const float head = fs * 1.3f;
  const TileBands tb = tile_bands(g, avail.x - label_w - 4, avail.y - 4, head, 4.0f, fs * 2.6f);
  const float cell = tb.cell;
  const int64_t drows = tb.display_rows(), dcols = tb.band_cols;
  ImGui::BeginChild("tile_grid", avail, false, ImGuiWindowFlags_HorizontalScrollbar);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 grid0(origin.x + label_w + 4, origin.y + head);
  ImGui::Dummy(ImVec2(label_w + 4 + cell * static_cast<float>(dcols),
                      head + cell * static_cast<float>(drows)));
  // A grid cell's centre on the screen (its band's place).
  auto centre = [&](int64_t element) {
    int64_t row, c, dr, dc;
    grid_cell(t, element, &row, &c);
    tb.place(row, c, &dr, &dc);
    return ImVec2(grid0.x + (static_cast<float>(dc) + 0.5f) * cell,
                  grid0.y + (static_cast<float>(dr) + 0.5f) * cell);
  };

  // Only the visible rows and columns of the display: the largest tile has 58,000 cells.
  ImVec2 clip0 = ImGui::GetWindowPos(),
         clip1(clip0.x + ImGui::GetWindowWidth(), clip0.y + ImGui::GetWindowHeight());
  int64_t r0 = std::max<int64_t>(0, static_cast<int64_t>((clip0.y - grid0.y) / cell));
  int64_t r1 = std::min<int64_t>(drows, static_cast<int64_t>((clip1.y - grid0.y) / cell) + 1);
  int64_t c0 = std::max<int64_t>(0, static_cast<int64_t>((clip0.x - grid0.x) / cell));
  int64_t c1 = std::min<int64_t>(dcols, static_cast<int64_t>((clip1.x - grid0.x) / cell) + 1);
  float gap = cell >= 8 ? 1.0f : 0.0f;
  // Rebuilt only when what it shows changes: the analysis, the lit beat, the scroll, the theme.
  CellGrid& grid = cr.grid(v.tile_grid);
  GridKey key;
  key.add(v.version).add(ti).add(v.cells->tile).add(v.frame->step).add(v.frame->warp);
  key.add(v.frame->wavefront).add(r0).add(r1).add(c0).add(c1).add(grid0.x).add(grid0.y);
  key.add(cell).add(pal).add(v.conceal).add(tb.bands);
  const int64_t elements = t.elements();
  if (grid.stale(key.value(), grid0.x + c0 * cell, grid0.y + r0 * cell, cell, cell,
                 static_cast<int>(r1 - r0), static_cast<int>(c1 - c0))) {
    for (int64_t dr = r0; dr < r1; ++dr)
      for (int64_t dc = c0; dc < c1; ++dc) {
        int64_t row, c;
        if (!tb.grid_at(dr, dc, &row, &c)) continue;  // between bands: no cell
        const int64_t e = row * g.cols + c;  // grid_element(), without re-deriving the grid
        if (e >= elements) continue;
        CellInstance& ci = grid.at(static_cast<int>(dr - r0), static_cast<int>(dc - c0));
        ci.gap_px = gap;
        auto it = lanes.find(e);
        bool now = it != lanes.end() && it->second.second;
        if (t.is_padding(e)) {
          ci.fill = col(pal.padding);
          ci.stripe = col(pal.padding_stripe);
        } else {
          int bank = arch.bank_of(static_cast<uint32_t>(t.byte_offset(e)));
          ci.fill = col(pal.bank(bank, arch.banks, now));
        }
        if (it != lanes.end()) {
          ci.edge = col(now ? pal.lit_border : pal.touched_border);
          ci.edge_px = now ? std::max(2.0f, cell * 0.14f) : 1.0f;
        }
      }
  }
  cr.draw(dl, grid);

  // Labels: column numbers over each band, row numbers, lanes on lit cells.
  ImU32 dim = col(pal.text_dim);
  int every = cell >= fs * 1.6f ? 1 : cell >= fs * 0.8f ? 4 : 8;
  for (int64_t band = 0; band < tb.bands; ++band) {
    const float y = grid0.y + static_cast<float>(band * tb.stride()) * cell - fs * 1.2f;
    if (y + fs < clip0.y || y > clip1.y) continue;
    for (int64_t dc = c0; dc < c1; ++dc) {
      const int64_t c = band * tb.band_cols + dc;
      // A band's first column is numbered too where the next number is not beside it.
      if (c >= g.cols || (c % every != 0 && (dc != 0 || every - c % every < 3))) continue;
      std::string n = std::to_string(c);
      ImVec2 sz = ImGui::CalcTextSize(n.c_str());
      dl->AddText(ImVec2(grid0.x + (static_cast<float>(dc) + 0.5f) * cell - sz.x / 2, y), dim,
                  n.c_str());
    }
  }
  for (int64_t dr = r0; dr < r1; ++dr) {
    int64_t row, c;
    if (!tb.grid_at(dr, 0, &row, &c) || (row % every != 0 && cell < fs)) continue;
    std::string n = std::to_string(row);
    ImVec2 sz = ImGui::CalcTextSize(n.c_str());
    const float y = grid0.y + (static_cast<float>(dr) + 0.5f) * cell - sz.y / 2;
    dl->AddText(ImVec2(grid0.x - sz.x - 4, y), dim, n.c_str());
  }
  if (cell >= (look.settings.presenter ? 8 : 12))
    for (auto& [e, info] : lanes) {
      if (!info.second) continue;
      const int bank = arch.bank_of(static_cast<uint32_t>(t.byte_offset(e)));
      draw_lane_label(dl, centre(e), cell, info.first, look.settings.presenter,
                      pal.bank(bank, arch.banks, true), look.layout);
    }

  // Follow the animation: keep the first lit element in view while playing.
  if (v.playing)
    for (auto& [e, info] : lanes)
      if (info.second) {
        float y = centre(e).y - grid0.y - cell * 0.5f + head;
        if (y < ImGui::GetScrollY() || y + cell > ImGui::GetScrollY() + ImGui::GetWindowHeight())
          ImGui::SetScrollY(std::max(0.0f, y - ImGui::GetWindowHeight() / 2));
        break;
      }

  *v.tile_layout = {grid0.x,  grid0.y,      cell,
                    g.rows,   g.cols,       0,
                    tb.bands, tb.band_cols, tb.bands > 1 ? tb.stride() : 0};
  if (ImGui::IsWindowHovered()) {
    ImVec2 m = ImGui::GetMousePos();
    const int64_t dr = static_cast<int64_t>(std::floor((m.y - grid0.y) / cell));
    const int64_t dc = static_cast<int64_t>(std::floor((m.x - grid0.x) / cell));
    int64_t row = -1, c = -1;
    const int64_t e = tb.grid_at(dr, dc, &row, &c) ? grid_element(t, row, c) : -1;
    if (e >= 0) {
      hover.active = true;
      hover.element = e;
      hover.has_word = true;
      hover.word = arch.word_of(static_cast<uint32_t>(t.byte_offset(e)));
      hover_tooltip(hover, v);
    }
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace bankviz::gui
