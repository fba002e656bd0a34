// svg_slide.cpp: the frame's tile and bank views as one 16:9 slide (svg.h render_slide_svg).
//
//   +---------------------------------------------------------------+
//   | title                                                         |
//   | step  |  warp, wavefront  |  architecture                     |
//   |   [tile view]                    [bank view, its per-bank     |
//   |                                   passes and the verdict]     |
//   | the lesson's caption, wrapped                                 |
//   +---------------------------------------------------------------+
//
// The views are svg.cpp's, each fitted into its half (draw_view_in_box): nothing about banks or
// conflicts is decided here.
#include <algorithm>
#include <sstream>
#include <vector>

#include "bankviz/svg.h"
#include "svg_draw.h"

namespace bankviz {

using namespace svg_detail;

namespace {

// Words of `text` in lines of at most `chars` characters (a longer word gets a line of its own).
std::vector<std::string> wrap_words(const std::string& text, size_t chars) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string word, line;
  while (in >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > chars) {
      lines.push_back(line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

std::string render_slide_svg(const Analysis& a, const Frame& f, const SlideSvgOptions& o) {
  const Palette pal = o.light ? light_palette() : dark_palette();
  Svg svg(pal);
  const double W = std::max(320.0, o.width), H = W * 9 / 16;
  const double m = W / 64, fs = W / 64;  // margin and the header's type
  const FrameCells fc = o.conceal ? conceal_answer(frame_cells(a, f)) : frame_cells(a, f);
  const int tile_index = fc.tile >= 0 ? fc.tile : 0;
  double y = m;
  const std::string title = a.scenario.title.empty() ? a.scenario.name : a.scenario.title;
  svg.text(m, y + fs * 1.3, fit(title, W - 2 * m, fs * 1.4), fs * 1.4, pal.text, "start", true);
  y += fs * 2;
  if (f.step >= 0) {
    const std::string wavefront = o.conceal ? std::string()
                                            : ", wavefront " + std::to_string(f.wavefront + 1) +
                                                  " of " + std::to_string(f.wavefronts);
    const std::string where = fc.label + "  |  warp " + std::to_string(f.warp) + wavefront +
                              "  |  " + std::string(a.arch ? a.arch->name : "");
    svg.text(m, y + fs, fit(where, W - 2 * m, fs * 0.9), fs * 0.9, pal.text_dim);
    y += fs * 1.6;
  }
  // At the bottom, in type a room reads (presenter mode's: the window's height / 40, larger for
  // the verdict): the verdict, the caption in as many lines as it needs (at most a third of the
  // slide), and the question with its answer once revealed.
  const double cap_size = H / 34, line_h = cap_size * 1.35, verdict_size = H / 30;
  const size_t chars = static_cast<size_t>((W - 2 * m) / (cap_size * 0.56));
  std::vector<std::string> cap =
      o.caption.empty() ? std::vector<std::string>{} : wrap_words(o.caption, chars);
  const size_t most_lines = static_cast<size_t>(H / 3 / line_h);
  if (cap.size() > most_lines) {
    cap.resize(most_lines);
    if (!cap.empty()) cap.back() += " ...";
  }
  std::vector<std::string> ask;
  if (!o.question.empty())
    ask = wrap_words("Q: " + o.question + (o.answer.empty() ? "" : "    A: " + o.answer),
                     static_cast<size_t>((W - 2 * m) / (cap_size * 0.62)));
  const bool verdict = !o.conceal && f.step >= 0 && !fc.verdict.empty();
  const double verdict_h = verdict ? verdict_size * 1.5 : 0;
  const bool measured = !o.conceal && f.step >= 0 && !o.measured.empty();
  const double words_h = static_cast<double>(cap.size() + ask.size() + (measured ? 1 : 0)) * line_h;
  const double bottom_h = verdict_h + words_h + (verdict_h + words_h > 0 ? m : 0);
  const double box_y = y + m * 0.5, box_h = H - box_y - bottom_h - m;
  const double box_w = (W - 3 * m) / 2;
  // The views without their own verdict line: the slide's is drawn at the room's size below.
  FrameCells views = fc;
  views.verdict.clear();
  if (tile_index < static_cast<int>(a.scenario.tiles.size()) && box_h > 0) {
    draw_view_in_box(svg, SvgView::Tile, a, views, tile_index, m, box_y, box_w, box_h);
    draw_view_in_box(svg, SvgView::Banks, a, views, tile_index, 2 * m + box_w, box_y, box_w, box_h);
  }
  double cy = H - bottom_h;
  if (verdict) {
    svg.text(m, cy + verdict_size, fit(fc.verdict, W - 2 * m, verdict_size), verdict_size,
             fc.wavefronts > fc.ideal ? pal.conflict : pal.text, "start", true);
    cy += verdict_h;
  }
  if (measured) {
    svg.text(m, cy + cap_size, fit(o.measured, W - 2 * m, cap_size), cap_size, pal.text);
    cy += line_h;
  }
  for (const std::string& line : cap) {
    svg.text(m, cy + cap_size, line, cap_size, pal.text);
    cy += line_h;
  }
  for (const std::string& line : ask) {
    svg.text(m, cy + cap_size, line, cap_size, o.answer.empty() ? pal.lit_border : pal.text,
             "start", true);
    cy += line_h;
  }
  return document(pal, W, H, svg.body.str());
}

}  // namespace bankviz
