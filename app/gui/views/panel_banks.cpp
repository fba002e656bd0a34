// panel_banks.cpp: the physical view: banks as columns, 128-byte lines as rows.
//
//   byte address -> Arch::word_of -> (Arch::line_of_word, Arch::bank_of_word)
// The same tile elements as the tile view, placed by address. Which banks conflict is the
// model's record (AccessResult::conflict_banks, copied into FrameCells): those banks' words are
// outlined in red, and the per-bank load row shows the passes each bank makes, red where it
// conflicts. Nothing here decides a bank or a conflict.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bankviz/text.h"
#include "platform/theme.h"
#include "shell/desk.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

// word -> first element stored in it, for the tile's whole byte range (cached per analysis).
struct WordMap {
  int version = -1, tile = -1;
  const Analysis* analysis = nullptr;
  uint32_t first_word = 0;
  std::vector<int64_t> element;  // -1: no element (gap before the tile)
  std::vector<uint8_t> padding;  // every element in the word is padding
};

const WordMap& word_map(const ViewSide& v, int ti) {
  // One map per side (the main views and a comparison's B draw in the same frame).
  static WordMap maps[2];
  WordMap& m = maps[v.tile_grid == GridId::Tile ? 0 : 1];
  if (m.version == v.version && m.tile == ti && m.analysis == v.analysis) return m;
  const TileDecl& t = v.analysis->scenario.tiles[ti];
  const Arch& arch = *v.analysis->arch;
  uint32_t lo = UINT32_MAX, hi = 0;
  for (int64_t e = 0; e < t.elements(); ++e) {
    const uint32_t b = static_cast<uint32_t>(t.byte_offset(e));
    lo = std::min(lo, arch.word_of(b));
    hi = std::max(hi, arch.word_of(b + static_cast<uint32_t>(t.elem_bytes()) - 1));
  }
  if (lo > hi) lo = hi = 0;
  m.version = v.version;
  m.tile = ti;
  m.analysis = v.analysis;
  m.first_word = arch.word_at(arch.line_of_word(lo), 0);  // start at a line boundary
  size_t n = arch.word_at(arch.line_of_word(hi) + 1, 0) - m.first_word;
  m.element.assign(n, -1);
  m.padding.assign(n, 1);
  for (int64_t e = 0; e < t.elements(); ++e) {
    int64_t b = t.byte_offset(e);
    bool pad = t.is_padding(e);
    const uint32_t last = arch.word_of(static_cast<uint32_t>(b + t.elem_bytes() - 1));
    for (uint32_t word = arch.word_of(static_cast<uint32_t>(b)); word <= last; ++word) {
      size_t i = static_cast<size_t>(word - m.first_word);
      if (m.element[i] < 0) m.element[i] = e;
      if (!pad) m.padding[i] = 0;
    }
  }
  return m;
}

// The per-bank count row: one row, each count centred on its bank; font size and height.
struct CountRow {
  float size = 0;
  float height = 0;
};

// The cell size the grid will get, before the footer is known (the count row depends on it; the
// footer's few pixels rarely change it).
float cell_guess(ImVec2 avail, int banks, int64_t lines) {
  const float fs = ImGui::GetFontSize();
  const float label_w = ImGui::CalcTextSize("000000").x;
  float cell = std::floor(std::min((avail.x - label_w - 6) / banks,
                                   (avail.y - fs * 4.5f - fs * 1.3f) / static_cast<float>(lines)));
  return std::clamp(cell, 4.0f, fs * 2.6f);
}

// Where bank b's count may spread, as [left, right] offsets from its column's left edge: its
// column and half of each neighbour's that has no count; bank 0 keeps clear of the row's label.
std::pair<float, float> count_span(const std::vector<int>& load, int b, float cell) {
  auto empty = [&](int i) {
    return i >= 0 && i < static_cast<int>(load.size()) && load[static_cast<size_t>(i)] <= 0;
  };
  return {empty(b - 1) ? -cell * 0.5f : 0.0f, cell + (empty(b + 1) ? cell * 0.5f : 0.0f)};
}

CountRow count_row(const Look& look, const ViewSide& v, float width, float cell) {
  const float fs = ImGui::GetFontSize();
  CountRow r;
  if (width <= 0) return r;
  // One size for the whole row: the largest at which every count fits its room once narrowed as
  // a condensed face (draw_fitted_text: to 70%), capped by the type.
  const float most = look.settings.presenter ? fs * 1.2f : fs;
  r.size = most;
  const std::vector<int>& load = v.cells->bank_load;
  for (int b = 0; b < static_cast<int>(load.size()); ++b) {
    if (load[static_cast<size_t>(b)] <= 0) continue;
    const std::string t = std::to_string(load[static_cast<size_t>(b)]);
    const float w1 = g_fonts.ui->CalcTextSizeA(1.0f, 1e9f, 0, t.c_str()).x * 0.7f;
    const auto [l, rr] = count_span(load, b, cell);
    r.size = std::min(r.size, (rr - l - 2) / std::max(w1, 1e-3f));
  }
  r.size = std::max(r.size, 6.0f);
  // The row's height is the largest type's, whatever the counts are (none while a question is
  // open): the grid above never changes size when they come.
  r.height = std::ceil(most * 1.2f);
  return r;
}

// The verdict for the lit warp step, in the big font: red when it conflicts; "analyzing..." while
// a newer edit is being analyzed.
float verdict_text_height(const ViewSide& v, float width) {
  if (v.stale) return g_fonts.big->FontSize + ImGui::GetFontSize() * 1.4f;
  if (v.cells->verdict.empty()) return 0;
  float h =
      g_fonts.big->CalcTextSizeA(g_fonts.big->FontSize, 1e9f, width, v.cells->verdict.c_str()).y;
  if (!v.measured.empty())
    h += ImGui::GetStyle().ItemSpacing.y +
         g_fonts.bold->CalcTextSizeA(g_fonts.bold->FontSize, 1e9f, width, v.measured.c_str()).y;
  return h;
}

void verdict_text(const ViewSide& v, const Look& look) {
  const Palette& pal = look.palette;
  const ImVec2 v0 = ImGui::GetCursorScreenPos();
  if (v.stale) {
    // A large edit analyzes on the worker (analyzer.h): the picture above is the last good one.
    ImGui::PushFont(g_fonts.big);
    ImGui::TextDisabled("analyzing... %.1f s", v.analyzing_s);
    ImGui::PopFont();
    ImGui::TextDisabled("showing the last scenario that analyzed");
  } else if (!v.cells->verdict.empty()) {
    ImGui::PushFont(g_fonts.big);
    bool bad = v.cells->wavefronts > v.cells->ideal;
    ImGui::PushStyleColor(ImGuiCol_Text, bad ? colv(pal.conflict) : colv(pal.text));
    ImGui::TextWrapped("%s", v.cells->verdict.c_str());
    ImGui::PopStyleColor();
    ImGui::PopFont();
    if (!v.measured.empty()) {
      // The GPU on stage: the real kernel's figure for this step beside the model's.
      ImGui::PushFont(g_fonts.bold);
      ImGui::TextWrapped("%s", v.measured.c_str());
      ImGui::PopFont();
    }
    const ImVec2 v1 = ImGui::GetItemRectMax();
    (v.verdict_box ? *v.verdict_box : look.layout.verdict) = {v0.x, v0.y, v1.x - v0.x, v1.y - v0.y};
  }
}

}  // namespace

void draw_verdict_text(const ViewSide& v, const Look& look) {
  verdict_text(v, look);
}

float verdict_height(const ViewSide& v, float width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float text = verdict_text_height(v, width - st.WindowPadding.x * 2);
  return text > 0 ? std::ceil(text + st.WindowPadding.y * 2) : 0;
}

void draw_bank_view(const ViewSide& v, const Look& look, Hover& hover, CellRenderer& cr, Rect r) {
  const std::string title = std::string("Physical banks") + v.id;
  // A dense desk (a short window) gives the title bar's height to the cells (shell/desk.h).
  const bool dense = dense_desk(look.settings, look.slide, ImGui::GetIO().DisplaySize.y);
  if (!begin_panel(title.c_str(), r, !look.settings.presenter && !dense)) return ImGui::End();
  if (!v.analysis || v.analysis->scenario.tiles.empty()) {
    ImGui::TextDisabled("No analysis yet.");
    return ImGui::End();
  }
  const Analysis& a = *v.analysis;
  const Palette& pal = look.palette;
  int ti = v.cells->tile >= 0 ? v.cells->tile : 0;
  const Arch& arch = *a.arch;
  const int banks = arch.banks;
  const WordMap& wm = word_map(v, ti);
  const int64_t lines = static_cast<int64_t>(wm.element.size()) / banks;
  const uint32_t first_line = arch.line_of_word(wm.first_word);
  // Grid cell (line, bank) -> index into the word map.
  auto index_of = [&](int64_t line, int b) {
    return static_cast<size_t>(arch.word_at(first_line + static_cast<uint32_t>(line), b) -
                               wm.first_word);
  };

  // Where the eyes are, in every mode, above the picture: an edit that does not analyze (the
  // picture is the last good one), races and out-of-bounds accesses (text.h headline_warnings).
  ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
  if (v.errors && !v.errors->empty())
    ImGui::TextWrapped("STALE PICTURE: the edit does not analyze: %s",
                       v.errors->front().format().c_str());
  // (Not while a lesson's question is open: a race line can be its answer. Their room is kept,
  // blank, so that the picture does not move when the reveal draws them.)
  const std::vector<std::string> warnings = headline_warnings(a, v.frame->step);
  if (!v.conceal) {
    for (const std::string& w : warnings) ImGui::TextWrapped("%s", w.c_str());
  } else if (!warnings.empty()) {
    const float wrap = ImGui::GetContentRegionAvail().x, gap = ImGui::GetStyle().ItemSpacing.y;
    float room = -gap;
    for (const std::string& w : warnings)
      room += ImGui::CalcTextSize(w.c_str(), nullptr, false, wrap).y + gap;
    ImGui::Dummy(ImVec2(1, room));
  }
  ImGui::PopStyleColor();
  // Presenter mode gives this line's height to the cells unless the banks are unusual (the
  // note below says how); the bank numbers along the top remain.
  const bool unusual = v.cells->extra_pass || arch.bank_bytes != 4 || a.arch->half_warp_unit;
  if (!look.settings.presenter || unusual)
    ImGui::TextWrapped("%d banks x %d B, one row per %d-byte line", banks, arch.bank_bytes,
                       arch.line_bytes_shown());
  // The architecture's note beside it when it fits, else on its own line (never cut off).
  auto note = [&](const char* text, bool red) {
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const float x = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
    if (x + ImGui::CalcTextSize(text).x <= right) ImGui::SameLine();
    if (red) {
      ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.text_dim));
    }
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
  };
  // Red draws the eye, except while a question is open: no conflict colour before its answer.
  if (v.cells->extra_pass) {
    note("extra pass (guide: \"add 1\")", !v.conceal);
  } else if (arch.bank_bytes == 8) {
    note("Kepler 8-byte mode (a modern GPU runs 4-byte banks)", !v.conceal);
  } else if (a.arch->half_warp_unit) {
    note("cc 1.x: each half-warp is served alone", false);
  }

  std::map<uint32_t, const LitWord*> lit;
  if (v.cells->tile == ti)
    for (const LitWord& w : v.cells->words) lit[w.word] = &w;

  const float fs = ImGui::GetFontSize();
  const float label_w = ImGui::CalcTextSize("000000").x;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  // Below the picture: the per-bank passes row and the verdict, sized for what they hold so
  // that neither is cut off (the verdict wraps in a narrow window).
  const CountRow counts =
      count_row(look, v, avail.x - label_w - 6, cell_guess(avail, banks, lines));
  // Presenter mode draws the verdict in its own strip under both views (draw_verdict). The desk
  // keeps two lines of the big type for it whether or not there is one (a question keeps it back
  // until its answer): the grid above does not change size when the answer comes.
  // The measured figure's line under the verdict takes no room of its own: it shows where the
  // verdict leaves it room (the sidebar's measurement panel has every figure), so the grid does
  // not change size when a figure comes, goes or waits for the answer.
  ViewSide told = v;
  told.measured.clear();
  float verdict_h = look.settings.presenter || !v.verdict
                        ? 0
                        : std::max(verdict_text_height(told, avail.x),
                                   g_fonts.big->FontSize * 2 + ImGui::GetStyle().ItemSpacing.y);
  // While a question keeps it back, at least the room its answer's verdict will take (a long
  // one wraps onto a third line in a narrow panel).
  if (verdict_h > 0 && v.conceal && v.frame) {
    const std::string told = frame_cells(*v.analysis, *v.frame).verdict;
    verdict_h =
        std::max(verdict_h,
                 g_fonts.big->CalcTextSizeA(g_fonts.big->FontSize, 1e9f, avail.x, told.c_str()).y);
  }
  const float footer = counts.height + ImGui::GetStyle().ItemSpacing.y * 2 + verdict_h;
  float cell = std::floor(std::min((avail.x - label_w - 6) / banks,
                                   (avail.y - footer - fs * 1.3f) / static_cast<float>(lines)));
  cell = std::clamp(cell, 4.0f, fs * 2.6f);

  // The grid's own height where it fits (else the room, scrolled): the per-bank counts come
  // right under its last line, beside their banks, not at the panel's foot under a short tile.
  const float grid_h =
      std::min(avail.y - footer, std::ceil(fs * 1.3f + cell * static_cast<float>(lines) + 2));
  ImGui::BeginChild("bank_grid", ImVec2(avail.x, grid_h), false);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 grid0(origin.x + label_w + 6, origin.y + fs * 1.3f);
  ImGui::Dummy(ImVec2(label_w + 6 + cell * banks, fs * 1.3f + cell * lines));
  float wy0 = ImGui::GetWindowPos().y, wy1 = wy0 + ImGui::GetWindowHeight();
  int64_t l0 = std::max<int64_t>(0, static_cast<int64_t>((wy0 - grid0.y) / cell));
  int64_t l1 = std::min<int64_t>(lines, static_cast<int64_t>((wy1 - grid0.y) / cell) + 1);
  float gap = cell >= 8 ? 1.0f : 0.0f;
  // Rebuilt only when what it shows changes (see CellGrid).
  CellGrid& grid = cr.grid(v.bank_grid);
  GridKey key;
  key.add(v.version).add(ti).add(v.cells->tile).add(v.frame->step).add(v.frame->warp);
  key.add(v.frame->wavefront).add(l0).add(l1).add(grid0.x).add(grid0.y).add(cell).add(pal);
  key.add(v.conceal);
  if (grid.stale(key.value(), grid0.x, grid0.y + l0 * cell, cell, cell, static_cast<int>(l1 - l0),
                 banks)) {
    for (int64_t line = l0; line < l1; ++line)
      for (int b = 0; b < banks; ++b) {
        const size_t i = index_of(line, b);
        const uint32_t word = wm.first_word + static_cast<uint32_t>(i);
        CellInstance& ci = grid.at(static_cast<int>(line - l0), b);
        ci.gap_px = gap;
        auto li = lit.find(word);
        bool now = li != lit.end() && li->second->in_wavefront;
        if (wm.element[i] < 0) {
          ci.fill = col(pal.background);
        } else if (wm.padding[i]) {
          ci.fill = col(pal.padding);
          ci.stripe = col(pal.padding_stripe);
        } else {
          ci.fill = col(pal.bank(b, banks, now));
        }
        if (li != lit.end()) {
          if (li->second->conflict) {
            ci.edge = col(pal.conflict);
            ci.edge_px = std::max(2.0f, cell * 0.1f);
            // Inside the outline a ring the red stands apart from for every viewer (svg.cpp,
            // tests/core/test_colours.cpp): the background for a word waiting for a later
            // wavefront (the red on a dark yellow-green bank read as one colour under
            // protanopia), black or white for a lit one, whichever its lane digit on the bright
            // chip is not (svg.h lit_ring_on; the red on some chips was Delta E 12.5 under
            // deuteranopia), so that a digit reaching into the ring stays legible.
            ci.stripe = col(now ? lit_ring_on(pal.bank(b, banks, true)) : pal.background);
            ci.ring = true;
          } else {
            ci.edge = col(now ? pal.lit_border : pal.touched_border);
            ci.edge_px = now ? std::max(2.0f, cell * 0.14f) : 1.0f;
          }
        }
      }
  }
  cr.draw(dl, grid);

  ImU32 dim = col(pal.text_dim);
  int every = cell >= fs * 1.6f ? 1 : cell >= fs * 0.8f ? 4 : 8;
  for (int b = 0; b < banks; b += every) {
    std::string n = std::to_string(b);
    ImVec2 sz = ImGui::CalcTextSize(n.c_str());
    dl->AddText(ImVec2(grid0.x + (b + 0.5f) * cell - sz.x / 2, grid0.y - fs * 1.2f), dim,
                n.c_str());
  }
  for (int64_t line = l0; line < l1; ++line)
    if (cell >= fs * 0.9f || line % every == 0) {
      std::string n = std::to_string((first_line + line) * arch.line_bytes_shown());
      ImVec2 sz = ImGui::CalcTextSize(n.c_str());
      dl->AddText(ImVec2(grid0.x - sz.x - 6, grid0.y + (line + 0.5f) * cell - sz.y / 2), dim,
                  n.c_str());
    }
  if (cell >= (look.settings.presenter ? 8 : 12))
    for (auto& [word, w] : lit) {
      if (!w->in_wavefront || word < wm.first_word) continue;
      const float line = static_cast<float>(arch.line_of_word(word) - first_line);
      draw_lane_label(dl, ImVec2(grid0.x + (w->bank + 0.5f) * cell, grid0.y + (line + 0.5f) * cell),
                      cell, w->lanes, look.settings.presenter, pal.bank(w->bank, banks, true),
                      look.layout);
    }
  if (v.playing)
    for (auto& [word, w] : lit)
      if (w->in_wavefront && word >= wm.first_word) {
        float y = static_cast<float>(arch.line_of_word(word) - first_line) * cell + fs * 1.3f;
        if (y < ImGui::GetScrollY() || y + cell > ImGui::GetScrollY() + ImGui::GetWindowHeight())
          ImGui::SetScrollY(std::max(0.0f, y - ImGui::GetWindowHeight() / 2));
        break;
      }
  *v.bank_layout = {grid0.x, grid0.y, cell, lines, banks, first_line, 1, 0, 0};
  if (ImGui::IsWindowHovered()) {
    ImVec2 m = ImGui::GetMousePos();
    int64_t line = static_cast<int64_t>(std::floor((m.y - grid0.y) / cell));
    int64_t b = static_cast<int64_t>(std::floor((m.x - grid0.x) / cell));
    if (line >= 0 && line < lines && b >= 0 && b < banks) {
      const size_t i = index_of(line, static_cast<int>(b));
      hover.active = true;
      hover.has_word = true;
      hover.word = wm.first_word + static_cast<uint32_t>(i);
      hover.element = wm.element[i];
      hover_tooltip(hover, v);
    }
  }
  ImGui::EndChild();

  // Per-bank passes: wavefronts each bank serves for this warp, red where the model found the
  // bank conflicting (FrameCells::conflicted, from serve()). Labelled by the step's kind; one row,
  // each count centred on its bank's column (count_row sizes them), with a rule between columns
  // so that two 16s never read as 1616.
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  float x0 = p0.x + label_w + 6;
  dl = ImGui::GetWindowDrawList();
  const char* kind = v.frame->step >= 0 ? step_kind_name(a.steps[v.frame->step].kind) : "passes";
  {
    const ImVec2 ksz = ImGui::CalcTextSize(kind);
    dl->AddText(ImVec2(x0 - 6 - ksz.x, p0.y + (counts.height - ksz.y) / 2), dim, kind);
  }
  if (!v.cells->bank_load.empty() && counts.size > 0) {
    const ImU32 rule = col(pal.text_dim, 0.35f);
    for (int b = 0; b <= banks; ++b)
      dl->AddLine(ImVec2(x0 + b * cell, p0.y), ImVec2(x0 + b * cell, p0.y + counts.height), rule);
    for (int b = 0; b < banks && b < static_cast<int>(v.cells->bank_load.size()); ++b) {
      int n = v.cells->bank_load[b];
      if (n <= 0) continue;
      bool bad = v.cells->conflicted(b);
      std::string t = std::to_string(n);
      ImFont* f = bad ? g_fonts.bold : g_fonts.ui;
      // Centred on its column, or on its span where the text is wider than the column.
      const auto [l, rr] = count_span(v.cells->bank_load, b, cell);
      const float tw = f->CalcTextSizeA(counts.size, 1e9f, 0, t.c_str()).x;
      const float cx = tw <= cell - 2 ? (b + 0.5f) * cell : b * cell + (l + rr) * 0.5f;
      draw_fitted_text(dl, f, counts.size, ImVec2(x0 + cx, p0.y + counts.height * 0.5f), rr - l - 2,
                       0, bad ? col(pal.conflict) : col(pal.text), t);
      ImGui::LogText("\n%s\n", t.c_str());  // what --dump-layout's texts record
    }
  }
  // The counts' type and row, also while a question keeps them back (its row is there, empty).
  if (counts.size > 0) look.layout.bank_count_px = digit_px(g_fonts.ui, counts.size);
  if (v.bank_grid == GridId::Banks)
    look.layout.bank_counts = {x0, p0.y, cell * static_cast<float>(banks), counts.height};
  if (ImGui::IsMouseHoveringRect(p0, ImVec2(p0.x + avail.x, p0.y + counts.height)))
    ImGui::SetTooltip(
        "Passes each bank makes for this warp's %s: one per wavefront it serves; red where the "
        "bank is in conflict (more distinct words than one pass serves)",
        kind);
  ImGui::Dummy(ImVec2(1, counts.height));
  if (!look.settings.presenter && v.verdict)
    verdict_text(verdict_text_height(v, avail.x) <= verdict_h ? v : told, look);

  ImGui::End();
}

}  // namespace bankviz::gui
