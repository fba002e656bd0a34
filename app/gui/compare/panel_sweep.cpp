// panel_sweep.cpp: one parameter of the scenario over a range, plotted (compare.h SweepState).
//
// The points are core's sweep() (each value applied, checked and analyzed on its own): the plot
// reads Summary::worst_per_request, never re-analyzes. With a GPU, "Measure" runs each valid
// value through the app's Measurer in turn and plots cycles per instruction on a second axis.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "bankviz/compare.h"
#include "format.h"
#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

// A sensible first range for each parameter (the user edits it): core's, beside the list.
const char* default_range(int param) {
  const int last = static_cast<int>(std::size(kSweepFirstValues)) - 1;
  return kSweepFirstValues[std::clamp(param, 0, last)];
}

// The plot: x = the values in order; left axis the model's worst wavefronts per request, right
// axis measured cycles per instruction, both log2 (Log2Axis). Invalid values are gaps with the
// reason on hover.
void plot(const SweepState& w, const Palette& pal, ImVec2 size) {
  const float fs = ImGui::GetFontSize();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##sweep_plot", size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const size_t n = w.points.size();
  if (n == 0) return;
  double ymax = 1, cmin = 0, cmax = 0;
  for (size_t i = 0; i < n; ++i) {
    if (w.points[i].summary) ymax = std::max(ymax, w.points[i].summary->worst_per_request);
    if (i < w.cycles.size() && w.cycles[i] && *w.cycles[i] > 0) {
      cmin = cmin > 0 ? std::min(cmin, *w.cycles[i]) : *w.cycles[i];
      cmax = std::max(cmax, *w.cycles[i]);
    }
  }
  // Both axes log2 (compare.h Log2Axis): 1, 2, 4, ... 32 wavefronts evenly spaced.
  const Log2Axis model_axis = log2_axis(1, ymax);
  const bool measured = cmax > 0;
  const Log2Axis meas_axis = log2_axis(cmin, cmax);
  const float left = fs * 4, right = measured ? fs * 4 : fs, top = fs * 1.5f, bottom = fs * 3.2f;
  const ImVec2 a0(p0.x + left, p0.y + top), a1(p0.x + size.x - right, p0.y + size.y - bottom);
  if (a1.x <= a0.x || a1.y <= a0.y) return;
  const ImU32 axis = col(pal.text_dim), text = col(pal.text);
  const ImU32 model_c = col(pal.conflict), meas_c = IM_COL32(60, 140, 255, 255);
  dl->AddLine(ImVec2(a0.x, a1.y), a1, axis);
  dl->AddLine(a0, ImVec2(a0.x, a1.y), axis);
  auto x_of = [&](size_t i) {
    return n == 1 ? (a0.x + a1.x) / 2 : a0.x + (a1.x - a0.x) * static_cast<float>(i) / (n - 1);
  };
  auto y_of = [&](double v, const Log2Axis& axis) {
    return a1.y - (a1.y - a0.y) * static_cast<float>(axis.fraction(v));
  };
  // Ticks at every power of two, labelled where a label fits (at least a line apart).
  auto ticks = [&](const Log2Axis& axis, ImU32 c, bool left) {
    float last = FLT_MAX;
    for (double v : axis.ticks) {
      const float y = y_of(v, axis);
      if (left) dl->AddLine(ImVec2(a0.x - 3, y), ImVec2(a1.x, y), col(pal.grid));
      if (last - y < fs) continue;
      last = y;
      const std::string t = log2_tick_label(v);
      const ImVec2 sz = ImGui::CalcTextSize(t.c_str());
      dl->AddText(ImVec2(left ? a0.x - sz.x - fs * 0.3f : a1.x + fs * 0.3f, y - sz.y / 2), c,
                  t.c_str());
    }
  };
  ticks(model_axis, model_c, true);
  if (measured) ticks(meas_axis, meas_c, false);
  // X labels: as many as fit.
  float widest = fs;
  for (const SweepPoint& pt : w.points)
    widest = std::max(widest, ImGui::CalcTextSize(pt.value.c_str()).x + fs * 0.5f);
  const size_t every = std::max<size_t>(
      1, static_cast<size_t>(std::ceil(widest / std::max(1.0f, (a1.x - a0.x) / n))));
  for (size_t i = 0; i < n; i += every) {
    const ImVec2 sz = ImGui::CalcTextSize(w.points[i].value.c_str());
    dl->AddText(ImVec2(x_of(i) - sz.x / 2, a1.y + fs * 0.3f), text, w.points[i].value.c_str());
  }
  const std::string xlabel = std::string(kSweepParams[w.param]) + " (values swept)";
  dl->AddText(
      ImVec2((a0.x + a1.x) / 2 - ImGui::CalcTextSize(xlabel.c_str()).x / 2, a1.y + fs * 1.6f), axis,
      xlabel.c_str());
  dl->AddText(ImVec2(p0.x, p0.y), model_c, "model: worst step's wavefronts per request (log2)");
  if (measured) {
    const char* m = "measured: cycles per instruction (memory steps summed; log2)";
    dl->AddText(ImVec2(p0.x + size.x - ImGui::CalcTextSize(m).x, p0.y), meas_c, m);
  }
  // The series: a line between neighbouring valid points, a gap at an invalid one.
  auto series = [&](auto value_of, const Log2Axis& axis, ImU32 c) {
    std::optional<ImVec2> prev;
    for (size_t i = 0; i < n; ++i) {
      const std::optional<double> v = value_of(i);
      if (!v) {
        prev.reset();
        continue;
      }
      const ImVec2 p(x_of(i), y_of(*v, axis));
      if (prev) dl->AddLine(*prev, p, c, 2.0f);
      dl->AddCircleFilled(p, std::max(3.0f, fs * 0.22f), c);
      prev = p;
    }
  };
  series(
      [&](size_t i) -> std::optional<double> {
        if (!w.points[i].summary) return std::nullopt;
        return w.points[i].summary->worst_per_request;
      },
      model_axis, model_c);
  if (measured)
    series([&](size_t i) { return i < w.cycles.size() ? w.cycles[i] : std::nullopt; }, meas_axis,
           meas_c);
  // Invalid values: a hatch mark on the axis.
  for (size_t i = 0; i < n; ++i)
    if (!w.points[i].summary)
      dl->AddText(ImVec2(x_of(i) - fs * 0.25f, a1.y - fs * 1.2f), col(pal.conflict), "x");
  // Hover: the nearest value's figures, or why it has none.
  if (ImGui::IsItemHovered()) {
    const float mx = ImGui::GetMousePos().x;
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
      if (std::abs(x_of(i) - mx) < std::abs(x_of(best) - mx)) best = i;
    const SweepPoint& pt = w.points[best];
    dl->AddLine(ImVec2(x_of(best), a0.y), ImVec2(x_of(best), a1.y), axis);
    ImGui::BeginTooltip();
    ImGui::Text("%s = %s", kSweepParams[w.param], pt.value.c_str());
    if (pt.summary) {
      ImGui::Text("worst step: %s", pt.summary->worst_label.c_str());
      ImGui::Text("%.2f wavefronts per request; %d wavefronts in all (ideal %d)",
                  pt.summary->worst_per_request, pt.summary->total_wavefronts,
                  pt.summary->total_ideal);
    } else {
      ImGui::TextColored(colv(pal.conflict), "not valid: %s", pt.error.c_str());
    }
    if (best < w.cycles.size() && w.cycles[best])
      ImGui::Text("measured: %.2f cycles per instruction (memory steps summed)", *w.cycles[best]);
    else if (best < w.notes.size() && !w.notes[best].empty())
      ImGui::TextDisabled("not measured: %s", w.notes[best].c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace

SweepAsk draw_sweep(SweepState& w, const Measurer& measurer, const Palette& pal) {
  SweepAsk ask = SweepAsk::None;
  if (!w.open) return ask;
  const ImVec2 disp = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(disp.x * 0.6f, disp.y * 0.55f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos(ImVec2(disp.x * 0.2f, disp.y * 0.2f), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Sweep", &w.open)) {
    ImGui::End();
    return ask;
  }
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(fs * 6);
  if (ImGui::Combo("##param", &w.param, kSweepParams, static_cast<int>(std::size(kSweepParams))))
    std::snprintf(w.range, sizeof w.range, "%s", default_range(w.param));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The parameter of the first tile (or the block) to vary");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(fs * 14);
  const bool enter =
      ImGui::InputText("##range", w.range, sizeof w.range, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Values: a range 0..32 (inclusive) or a list 0,1,4 for pad, rows, cols; int,float2 for "
        "elem; "
        "none;3,0,3;5,0,5 for swizzle (CuTe Swizzle<B,M,S>)");
  ImGui::SameLine();
  if (ImGui::Button("Sweep") || enter) ask = SweepAsk::Sweep;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Analyze the current scenario once per value (the model)");
  ImGui::SameLine();
  if (w.measuring) {
    ImGui::Text("measuring %zu of %zu", w.next + 1, w.points.size());
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) cancel_sweep_measure(w);
  } else if (measurer.state() == Measurer::State::Unavailable) {
    ImGui::TextDisabled("no GPU: the model only");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", measurer.reason().c_str());
  } else if (ImGui::Button("Measure")) {
    ask = SweepAsk::Measure;
  }
  if (!w.error.empty()) ImGui::TextColored(colv(pal.conflict), "%s", w.error.c_str());
  if (!w.measure_note.empty()) ImGui::TextDisabled("%s", w.measure_note.c_str());
  if (!w.points.empty()) {
    ImGui::TextDisabled("%s: %zu values", w.scenario.c_str(), w.points.size());
    ImVec2 avail = ImGui::GetContentRegionAvail();
    plot(w, pal, ImVec2(avail.x, std::max(avail.y, fs * 8)));
  }
  ImGui::End();
  return ask;
}

}  // namespace bankviz::gui
