// svg_compare.cpp: before and after as one 16:9 slide (svg.h render_compare_svg).
//
// Each side's tile and bank views are svg.cpp's, fitted into their boxes (draw_view_in_box); the
// figures are compare.h's and the verdicts frame_cells()' (text.h): nothing is recomputed here.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bankviz/compare.h"
#include "bankviz/svg.h"
#include "bankviz/text.h"
#include "svg_draw.h"

namespace bankviz {

using namespace svg_detail;

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string where(const Analysis& a, const Frame& f, const FrameCells& fc) {
  if (f.step < 0) return "no shared-memory access";
  return fc.label + "  |  warp " + std::to_string(f.warp) + ", wavefront " +
         std::to_string(f.wavefront + 1) + " of " + std::to_string(f.wavefronts) + "  |  " +
         std::string(a.arch ? a.arch->name : "");
}

std::string figures(const Summary& s) {
  if (s.worst_step < 0) return "model: no shared-memory access";
  return "model: worst step " + fmt(s.worst_per_request) + " wavefronts per request; " +
         std::to_string(s.total_wavefronts) + " wavefronts in all (ideal " +
         std::to_string(s.total_ideal) + ")";
}

// One side: its header lines, then its tile view and bank view side by side in the box.
void draw_side(Svg& svg, const char* tag, const Analysis& a, const Frame& f, const Summary& sum,
               const std::string& measured, double x, double y, double w, double h, double fs) {
  const Palette& pal = svg.pal;
  const FrameCells fc = frame_cells(a, f);
  const std::string title = a.scenario.title.empty() ? a.scenario.name : a.scenario.title;
  double ty = y + fs * 1.2;
  svg.text(x, ty, fit(std::string(tag) + ": " + title, w, fs * 1.15), fs * 1.15, pal.text, "start",
           true);
  ty += fs * 1.5;
  svg.text(x, ty, fit(where(a, f, fc), w, fs * 0.85), fs * 0.85, pal.text_dim);
  ty += fs * 1.4;
  if (!fc.verdict.empty()) {
    svg.text(x, ty, fit(fc.verdict, w, fs), fs, fc.wavefronts > fc.ideal ? pal.conflict : pal.text,
             "start", true);
    ty += fs * 1.4;
  }
  svg.text(x, ty, fit(figures(sum), w, fs * 0.85), fs * 0.85, pal.text);
  ty += fs * 1.3;
  if (!measured.empty()) {
    svg.text(x, ty, fit("measured: " + measured, w, fs * 0.85), fs * 0.85, pal.text);
    ty += fs * 1.3;
  }
  for (const std::string& warn : headline_warnings(a, f.step)) {
    svg.text(x, ty, fit(warn, w, fs * 0.85), fs * 0.85, pal.conflict, "start", true);
    ty += fs * 1.3;
  }
  if (a.scenario.tiles.empty()) return;
  const int tile = fc.tile >= 0 ? fc.tile : 0;
  const double vy = ty + fs * 0.4, vh = y + h - vy, gap = fs;
  const double vw = (w - gap) / 2;
  if (vh <= 0) return;
  draw_view_in_box(svg, SvgView::Tile, a, fc, tile, x, vy, vw, vh);
  draw_view_in_box(svg, SvgView::Banks, a, fc, tile, x + vw + gap, vy, vw, vh);
}

}  // namespace

std::string ratio_words(double ratio) {
  if (!(ratio > 0)) return "B / A: no figure (A has none)";
  std::string out = "B / A = " + fmt(ratio);
  if (ratio < 0.995) return out + ": " + fmt(1 / ratio) + "x fewer";
  if (ratio > 1.005) return out + ": " + fmt(ratio) + "x more";
  return out + ": the same";
}

std::string render_compare_svg(const Analysis& a, const Frame& fa, const Analysis& b,
                               const Frame& fb, const CompareSlideOptions& o) {
  const Palette pal = o.light ? light_palette() : dark_palette();
  Svg svg(pal);
  const double W = std::max(320.0, o.width), H = W * 9 / 16;
  const double m = W * 0.02, fs = W * 0.0125;  // margin; body type (20 units on 1600)
  const Comparison c = compare(a, b);
  auto name = [](const Analysis& x) {
    return x.scenario.name.empty() ? x.scenario.title : x.scenario.name;
  };
  svg.text(m, m + fs * 1.6, fit(name(a) + "  vs  " + name(b), W - 2 * m, fs * 1.7), fs * 1.7,
           pal.text, "start", true);
  // The footer: the ratio (and the measured one), then the caption.
  const double foot = fs * (o.measured_ratio.empty() ? 3.4 : 4.8);
  const double top = m + fs * 2.6, bottom = H - m - foot;
  const double col_w = (W - 3 * m) / 2;
  draw_side(svg, "A", a, fa, c.a, o.measured_a, m, top, col_w, bottom - top, fs);
  draw_side(svg, "B", b, fb, c.b, o.measured_b, 2 * m + col_w, top, col_w, bottom - top, fs);
  double y = bottom + fs * 1.4;
  const std::string ratio =
      "model, worst step's wavefronts per request: " + ratio_words(c.per_request_ratio) +
      ";  total wavefronts: B / A = " + fmt(c.total_ratio);
  svg.text(m, y, fit(ratio, W - 2 * m, fs * 1.1), fs * 1.1, pal.text, "start", true);
  if (!o.measured_ratio.empty()) {
    y += fs * 1.4;
    svg.text(m, y,
             fit("measured, cycles per instruction: " + o.measured_ratio, W - 2 * m, fs * 1.1),
             fs * 1.1, pal.text, "start", true);
  }
  y += fs * 1.5;
  // By default, the step on screen in both: what each needs per request there.
  std::string caption = o.caption;
  if (caption.empty() && fa.step >= 0 && fb.step >= 0)
    caption = "on screen: A's " + a.steps[static_cast<size_t>(fa.step)].label + " needs " +
              fmt(a.step_per_request(fa.step)) + " wavefronts per request, B's " +
              b.steps[static_cast<size_t>(fb.step)].label + " " + fmt(b.step_per_request(fb.step));
  svg.text(m, y, fit(caption, W - 2 * m, fs * 0.9), fs * 0.9, pal.text_dim);
  return document(pal, W, H, svg.body.str());
}

}  // namespace bankviz
