// panel_lanes.cpp: the lane strip, under the views, across their whole width (presenter mode and
// the desk alike): bank by bank, the lane whose word that bank serves in the current wavefront,
// in type the back row reads (each digit at least 2.5% of the window's height; the cells' own
// numbers are as small as a cell, and a desk's cells under 12 px carry none).
//
//   lanes  [ 0 ][ 1 ][ 2 ][   ][ 4+] ... [31 ]      one chip per bank, in the bank's colour
//
// Nothing here decides a bank or a lane: they are the frame's lit words (FrameCells::words, the
// model's record). While a lesson's question is open the strip keeps its room, empty: which
// banks serve which lanes, wavefront by wavefront, is what the answer is about.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

// The strip's type in pixels: its digits at least 2.5% of the window's height, and 1.5 px more
// for the anti-aliased edges (digit_px() measures the font's own '0').
float lane_type_px(float window_h) {
  const float per_px = digit_px(g_fonts.bold, 1.0f);
  return std::ceil((window_h * 0.025f + 1.5f) / (per_px > 0 ? per_px : 0.73f));
}

// A chip's height: the digit's and 2 px either side (a digit is centred in its type's line to
// within a few hundredths of its size), so the strip costs the pictures as little as it can.
float chip_height(float window_h) {
  return std::ceil(digit_px(g_fonts.bold, lane_type_px(window_h)) + 5);
}

}  // namespace

float lane_strip_height(const ViewSide& v, const Look& look, float window_h) {
  if (look.slide || !v.analysis || v.analysis->scenario.tiles.empty()) return 0;
  return chip_height(window_h) + 2;
}

void draw_lane_strip(const ViewSide& v, const Look& look, Rect r) {
  if (r.size.y <= 0) return;
  if (!begin_panel("##lanes", r, false)) return ImGui::End();
  const Palette& pal = look.palette;
  const int banks = v.analysis->arch->banks;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // No padding above or below the chips (their own gaps keep them apart).
  const ImVec2 p0(ImGui::GetCursorScreenPos().x, r.pos.y + 1);
  const float window_h = look.layout.height > 0 ? look.layout.height : ImGui::GetIO().DisplaySize.y;
  const float size = lane_type_px(window_h);
  const float h = chip_height(window_h);
  // The row's name on the left, then one chip per bank over the rest of the width.
  const char* name = "lanes";
  const ImVec2 nsz = ImGui::CalcTextSize(name);
  dl->AddText(ImVec2(p0.x, p0.y + (h - nsz.y) / 2), col(pal.text_dim), name);
  const float x0 = p0.x + nsz.x + ImGui::GetStyle().ItemSpacing.x;
  const float right = r.pos.x + r.size.x - ImGui::GetStyle().WindowPadding.x;
  const float chip = std::floor((right - x0) / static_cast<float>(banks));
  // Bank b's lanes in the current wavefront (a broadcast or a wide access: several).
  std::vector<uint32_t> lanes(static_cast<size_t>(banks), 0);
  if (!v.conceal)
    for (const LitWord& w : v.cells->words)
      if (w.in_wavefront && w.bank >= 0 && w.bank < banks)
        lanes[static_cast<size_t>(w.bank)] |= w.lanes;
  for (int b = 0; b < banks; ++b) {
    // A clear gap of the panel's colour between chips: two lanes side by side never read as one
    // number ("24" "21" as "2421").
    const float gap = std::max(1.5f, std::floor(chip * 0.09f));
    const ImVec2 a(x0 + b * chip + gap, p0.y), z(x0 + (b + 1) * chip - gap, p0.y + h);
    const uint32_t l = lanes[static_cast<size_t>(b)];
    if (!l) {
      dl->AddRect(a, z, col(pal.text_dim, 0.35f));
      continue;
    }
    const Rgba fill = pal.bank(b, banks, true);
    dl->AddRectFilled(a, z, col(fill));
    const ImU32 ink = col(ink_on(fill));
    const std::string n = std::to_string(__builtin_ctz(l));
    const ImVec2 c((a.x + z.x) / 2, (a.y + z.y) / 2);
    draw_fitted_text(dl, g_fonts.bold, size, c, z.x - a.x - 2, 0, ink, n);
    if (__builtin_popcount(l) > 1) {
      const float ps = size * 0.5f;
      dl->AddText(g_fonts.bold, ps, ImVec2(z.x - ps * 0.62f, a.y - ps * 0.15f), ink, "+");
    }
    ImGui::LogText("\n%s\n", n.c_str());  // what --dump-layout's texts record
  }
  if (ImGui::IsMouseHoveringRect(r.pos, ImVec2(r.pos.x + r.size.x, r.pos.y + r.size.y)))
    ImGui::SetTooltip(
        "Bank by bank (0 to %d, left to right, in the banks' colours): the lane whose word the "
        "bank serves in this wavefront; '+' where it serves more lanes (a broadcast)",
        banks - 1);
  // The type, also while a question keeps the lanes back (its room is there, empty).
  look.layout.lane_label_px = digit_px(g_fonts.bold, size);
  look.layout.lane_strip = {x0, p0.y, chip * static_cast<float>(banks), h};
  ImGui::End();
}

}  // namespace bankviz::gui
