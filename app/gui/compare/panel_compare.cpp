// panel_compare.cpp: before and after, side by side, sharing one playhead (compare.h).
//
//  +-----------------------------------------------------------------------+
//  | A vs B: the model's ratio B / A   [Measure both]  measured ...  [Close] |
//  +-----------------------------------+-----------------------------------+
//  | A: name, figures, verdict         | B: name, figures, verdict         |
//  | tile view   | bank view           | tile view   | bank view           |
//  | (stacked when a side is tall)     |                                   |
//  +-----------------------------------+-----------------------------------+
// Side A is the app's scenario (main_view: the controls, keys and timeline drive it); side B
// follows A's playhead (follow_playhead). Both sides draw with panel_tile/panel_banks.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bankviz/svg.h"
#include "format.h"
#include "platform/theme.h"
#include "shell/panels.h"
#include "views/timeline_label.h"

namespace bankviz::gui {

namespace {

std::string figures(const Summary& sum) {
  if (sum.worst_step < 0) return "model: no shared-memory access";
  return "model: worst step " + fixed(sum.worst_per_request, 2) + " wavefronts/request, " +
         std::to_string(sum.total_wavefronts) + " in all";
}

// A side's measured cycles per instruction at executed step `step` of its analysis (the step's
// own exposed run), 0 without one.
double step_cycles(const std::optional<Measurement>& m, const Analysis& a, int step) {
  if (!m || !m->ok || step < 0 || step >= static_cast<int>(a.steps.size())) return 0;
  for (const Measurement::StepFigure& f : m->steps)
    if (f.step == a.steps[static_cast<size_t>(step)].step) return f.cycles;
  return 0;
}

// Side B: its own analysis and frame, concealed and playing as A is.
ViewSide b_view(CompareState& c, const ViewSide& a) {
  ViewSide v;
  v.id = "##b";
  v.analysis = c.b_analysis ? &*c.b_analysis : nullptr;
  v.frame = &c.b_frame;
  v.cells = &c.b_cells;
  v.version = c.b_version;
  v.tile_grid = GridId::CompareTile;
  v.bank_grid = GridId::CompareBanks;
  v.tile_layout = &c.b_tile_layout;
  v.bank_layout = &c.b_bank_layout;
  v.verdict_box = &c.b_verdict;
  v.conceal = a.conceal;
  v.playing = a.playing;
  if (!v.conceal && c.measured_b && v.analysis && c.b_frame.step >= 0 &&
      c.b_frame.step < static_cast<int>(v.analysis->steps.size()))
    v.measured =
        stage_line(*c.measured_b, v.analysis->steps[static_cast<size_t>(c.b_frame.step)].step);
  return v;
}

// A side's header: which side and its name, the model's figures (and the measured ones), its
// verdict in the big font. Every line wraps in a narrow column; its height for a column `w` wide.
std::string measured_line(const std::optional<Measurement>& m) {
  if (!m || !m->ok) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf, "measured: %.2f cycles/instr (model %.2f wavefronts/instr) on %s",
                m->cycles_per_instruction, m->predicted, m->device.c_str());
  return buf;
}

float header_height(const Look& look, const ViewSide& v, const Summary& sum,
                    const std::optional<Measurement>& m, float w) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float inner = w - st.WindowPadding.x * 2;
  // verdict_height() counts the window's padding once for the whole header.
  float h = ImGui::GetTextLineHeightWithSpacing();
  if (look.settings.presenter) return std::ceil(h + verdict_height(v, w));  // name and verdict
  h += ImGui::CalcTextSize(figures(sum).c_str(), nullptr, false, inner).y + st.ItemSpacing.y;
  const std::string ml = measured_line(m);
  if (!ml.empty()) h += ImGui::CalcTextSize(ml.c_str(), nullptr, false, inner).y + st.ItemSpacing.y;
  return std::ceil(h + verdict_height(v, w));
}

void draw_header(const Look& look, const ViewSide& v, const char* tag, const Summary& sum,
                 const std::optional<Measurement>& m, Rect r) {
  const std::string id = std::string("##compare_head_") + tag;
  if (!begin_panel(id.c_str(), r, false)) return ImGui::End();
  const Analysis& a = *v.analysis;
  ImGui::PushFont(g_fonts.bold);
  ImGui::TextUnformatted(tag);
  ImGui::SameLine();
  ImGui::TextUnformatted(a.scenario.name.c_str());
  ImGui::PopFont();
  if (ImGui::IsItemHovered() && !a.scenario.title.empty())
    ImGui::SetTooltip("%s", a.scenario.title.c_str());
  // The step on screen, beside the name where it fits whole or nearly (a room reads which access
  // the two sides compare; the timeline's column shortens it).
  if (v.frame && v.frame->step >= 0 && v.frame->step < static_cast<int>(a.steps.size())) {
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float room = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x -
                       ImGui::GetItemRectMax().x - gap * 2;
    const std::string& full = a.steps[static_cast<size_t>(v.frame->step)].label;
    const std::string label = fit_step_label(
        full, room, [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; },
        tile_names(a.scenario));
    if (!label.empty() && label.find('~') == std::string::npos &&
        (label == full || label.find('[') != std::string::npos)) {
      ImGui::SameLine(0, gap * 2);
      ImGui::TextUnformatted(label.c_str());
    }
  }
  // The figures are the answer while a lesson's question is open; presenter mode says it with the
  // verdict and the measured line under it.
  if (!v.conceal && !look.settings.presenter) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(look.palette.text_dim));
    ImGui::TextWrapped("%s", figures(sum).c_str());
    ImGui::PopStyleColor();
    if (const std::string ml = measured_line(m); !ml.empty()) ImGui::TextWrapped("%s", ml.c_str());
  }
  draw_verdict_text(v, look);
  ImGui::End();
}

// The tile and bank views of one side in its box: side by side, or stacked when that gives the
// cells more room (a tall tile in a narrow half).
void draw_views(const Look& look, Hover& hover, const ViewSide& v, CellRenderer& cells, Rect r) {
  if (!v.analysis || v.analysis->scenario.tiles.empty()) {
    draw_tile_view(v, look, hover, cells, r);
    return;
  }
  if (look.settings.presenter) {
    // A room compares the banks: each side's bank view gets the whole half (the tile view's
    // padding shows in the banks' hatched words too).
    draw_bank_view(v, look, hover, cells, r);
    return;
  }
  const TileDecl& t = v.analysis->scenario.tiles[v.cells->tile >= 0 ? v.cells->tile : 0];
  const TileGrid g = tile_grid(t);
  const float rows = static_cast<float>(std::max<int64_t>(g.rows, 1)) + 6;
  const float cols = static_cast<float>(std::max<int64_t>(g.cols, v.analysis->arch->banks)) + 4;
  const float side_by_side = std::min(r.size.x / 2 / cols, r.size.y / rows);
  const float stacked = std::min(r.size.x / cols, r.size.y / 2 / rows);
  if (side_by_side >= stacked) {
    const float w = std::floor(r.size.x / 2);
    draw_tile_view(v, look, hover, cells, {r.pos, {w, r.size.y}});
    draw_bank_view(v, look, hover, cells, {{r.pos.x + w, r.pos.y}, {r.size.x - w, r.size.y}});
  } else {
    const float h = std::floor(r.size.y / 2);
    draw_tile_view(v, look, hover, cells, {r.pos, {r.size.x, h}});
    draw_bank_view(v, look, hover, cells, {{r.pos.x, r.pos.y + h}, {r.size.x, r.size.y - h}});
  }
}

// The ratio strip across the top: the model's B / A, "Measure both" and what it measured; what
// its buttons asked (the caller closes the comparison after this frame's views).
CompareAsk draw_ratio(CompareState& c, const ViewSide& a, const Measurer& measurer,
                      const Look& look, const Comparison& cmp, Rect r) {
  CompareAsk ask;
  if (!begin_panel("##compare_ratio", r, false)) {
    ImGui::End();
    return ask;
  }
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const bool conceal = a.conceal;
  const bool measured = c.measured_a && c.measured_b && c.measured_a->ok && c.measured_b->ok &&
                        c.measured_a->cycles_per_instruction > 0;
  ImGui::PushFont(g_fonts.bold);
  std::string head = "worst step's wavefronts per request, " + ratio_words(cmp.per_request_ratio) +
                     ";  total wavefronts, B / A = " + fixed(cmp.total_ratio, 3);
  if (conceal) {
    head = "B / A: shown with the answer";  // ask before telling
  } else if (measured) {
    // The GPU on stage: the measured ratio first, the model's beside it, like for like: cycles
    // per instruction of each side's worst step against its wavefronts per request.
    std::string card = c.measured_a->device_name;
    if (card.rfind("NVIDIA ", 0) == 0) card = card.substr(7);
    if (size_t sp = card.find(' '); sp != std::string::npos) card.resize(sp);
    const double ca = step_cycles(c.measured_a, *a.analysis, cmp.a.worst_step);
    const double cb = c.b_analysis ? step_cycles(c.measured_b, *c.b_analysis, cmp.b.worst_step) : 0;
    // A recorded figure says where and when ("measured on H200, recorded 2026-11-29").
    const std::string where =
        c.measured_a->recorded.empty() ? "measured on " + card : c.measured_a->recorded;
    if (ca > 0 && cb > 0)
      head = where + ": worst step's cycles per instruction, " + ratio_words(cb / ca) +
             ";  model " + ratio_words(cmp.per_request_ratio);
  }
  // Wrapped short of the Close button, which stands at the right of the first line.
  const float close_w = look.slide ? 0
                                   : ImGui::CalcTextSize("Close comparison").x +
                                         ImGui::GetStyle().FramePadding.x * 2 +
                                         ImGui::GetStyle().ItemSpacing.x;
  ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x - close_w);
  ImGui::TextUnformatted(head.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopFont();
  const bool running = c.measuring != CompareState::Measuring::Idle;
  if (conceal) {
    // Nothing measured is shown before the reveal.
  } else if (look.settings.presenter) {
    // One line for a room: the headline above; measuring happens by itself.
    if (running) {
      ImGui::SameLine();
      ImGui::TextDisabled("measuring %s...", c.measuring == CompareState::Measuring::A ? "A" : "B");
    }
  } else if (measurer.state() == Measurer::State::Unavailable) {
    ImGui::TextDisabled("no GPU here: the model's figures only");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", measurer.reason().c_str());
  } else {
    if (running) {
      ImGui::BeginDisabled();
      ImGui::Button(c.measuring == CompareState::Measuring::A ? "Measuring A..."
                                                              : "Measuring B...");
      ImGui::EndDisabled();
    } else if (ImGui::Button("Measure both")) {
      ask.measure_both = true;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Runs A, then B, on the GPU (exposed mode: each memory step repeated until the banks "
          "are the bottleneck) and shows cycles per instruction and their ratio");
    if (c.measured_a && c.measured_b && c.measured_a->cycles_per_instruction > 0) {
      ImGui::SameLine();
      const double mr = c.measured_b->cycles_per_instruction / c.measured_a->cycles_per_instruction;
      const double pr =
          c.measured_a->predicted > 0 ? c.measured_b->predicted / c.measured_a->predicted : 0;
      ImGui::TextWrapped(
          "measured B / A = %.3f (A %.2f, B %.2f cycles/instr); model over the same steps "
          "%.3f",
          mr, c.measured_a->cycles_per_instruction, c.measured_b->cycles_per_instruction, pr);
    }
    if (!c.measure_note.empty()) {
      ImGui::SameLine();
      ImGui::TextColored(colv(look.palette.conflict), "%s", c.measure_note.c_str());
    }
  }
  // A slide (look.slide: exports) shows the figures only, no button.
  if (!look.slide) {
    ImGui::SameLine();
    const char* close = "Close comparison";
    const float bw = ImGui::CalcTextSize(close).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SetCursorPosX(
        std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - bw));
    ask.close = ImGui::Button(close);
    ++look.layout.compare_buttons;
    control_tip("Back to one scenario (A stays as it is)");
  }
  const ImVec2 p1 = ImGui::GetItemRectMax();
  c.ratio = {p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};  // the close button is the rightmost item
  ImGui::End();
  return ask;
}

float ratio_height(const Look& look, float width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float line = look.settings.presenter ? 0 : ImGui::GetFrameHeightWithSpacing();
  // The head line wraps in a narrow window: room for two of it.
  // The longest head (measured), wrapped short of the Close button.
  const float close_w =
      ImGui::CalcTextSize("Close comparison").x + st.FramePadding.x * 2 + st.ItemSpacing.x;
  const float head =
      g_fonts.bold
          ->CalcTextSizeA(g_fonts.bold->FontSize, 1e9f, width - st.WindowPadding.x * 2 - close_w,
                          "measured on H100: worst step's cycles per instruction, B / A = "
                          "0.0311: 32.1x fewer;  model B / A = 0.0312: 32x fewer")
          .y;
  return std::ceil(head + line * 1.3f + st.WindowPadding.y * 2);
}

}  // namespace

CompareAsk draw_compare(CompareState& c, const ViewSide& main, const Measurer& measurer,
                        const Look& look, Hover& hover, CellRenderer& cells, Rect r) {
  if (!c.b_analysis) return {};
  if (!main.analysis) {
    draw_tile_view(main, look, hover, cells, r);  // says why there is nothing to show
    return {};
  }
  const Analysis& an = *main.analysis;
  const Comparison cmp = compare(an, *c.b_analysis);
  const float ratio_h = std::min(r.size.y * 0.25f, ratio_height(look, r.size.x));
  const CompareAsk ask = draw_ratio(c, main, measurer, look, cmp, {r.pos, {r.size.x, ratio_h}});
  const float half = std::floor(r.size.x / 2);
  ViewSide a = main;
  a.verdict = false;
  a.verdict_box = &c.a_verdict;
  // Each side's measured figure is its own run of the pair ("Measure both", automatic with a GPU).
  a.measured.clear();
  const int step = main.frame ? main.frame->step : -1;
  if (!a.conceal && c.measured_a && step >= 0 && step < static_cast<int>(an.steps.size()))
    a.measured = stage_line(*c.measured_a, an.steps[static_cast<size_t>(step)].step);
  ViewSide b = b_view(c, main);
  b.verdict = false;
  const float y = r.pos.y + ratio_h, h = r.size.y - ratio_h;
  const float head_h =
      std::min(h * 0.4f, std::max(header_height(look, a, cmp.a, c.measured_a, half),
                                  header_height(look, b, cmp.b, c.measured_b, r.size.x - half)));
  draw_header(look, a, "A", cmp.a, c.measured_a, {{r.pos.x, y}, {half, head_h}});
  draw_header(look, b, "B", cmp.b, c.measured_b, {{r.pos.x + half, y}, {r.size.x - half, head_h}});
  draw_views(look, hover, a, cells, {{r.pos.x, y + head_h}, {half, h - head_h}});
  draw_views(look, hover, b, cells, {{r.pos.x + half, y + head_h}, {r.size.x - half, h - head_h}});
  return ask;  // the caller closes after B's views, which read B while the frame is built
}

CompareMenuAsk draw_compare_menu(const std::vector<CompareChoice>& choices,
                                 const std::vector<Preset>& presets, bool comparing) {
  CompareMenuAsk ask;
  if (!ImGui::BeginPopup("compare")) return ask;
  ImGui::TextDisabled("Compare this scenario (A) with B:");
  for (const CompareChoice& choice : choices)
    if (ImGui::Selectable(choice.label.c_str())) ask.open = choice;
  if (ImGui::BeginMenu("any preset as B")) {
    for (const Preset& p : presets)
      if (ImGui::MenuItem(p.name.c_str())) ask.open = CompareChoice{p.name, p.name, "", ""};
    ImGui::EndMenu();
  }
  if (comparing) {
    ImGui::Separator();
    if (ImGui::Selectable("Close the comparison")) ask.close = true;
    control_tip("Back to one scenario (A stays as it is)");
  }
  ImGui::EndPopup();
  return ask;
}

}  // namespace bankviz::gui
