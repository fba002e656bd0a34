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
  // The caption at the bottom, as many lines as it needs (at most a third of the slide).
  const double cap_size = fs * 1.1, line_h = cap_size * 1.4;
  std::vector<std::string> cap =
      o.caption.empty()
          ? std::vector<std::string>{}
          : wrap_words(o.caption, static_cast<size_t>((W - 2 * m) / (cap_size * 0.56)));
  const size_t most_lines = static_cast<size_t>(H / 3 / line_h);
  if (cap.size() > most_lines) {
    cap.resize(most_lines);
    if (!cap.empty()) cap.back() += " ...";
  }
  const double cap_h = cap.empty() ? 0 : static_cast<double>(cap.size()) * line_h + m;
  const double box_y = y + m * 0.5, box_h = H - box_y - cap_h - m;
  const double box_w = (W - 3 * m) / 2;
  if (tile_index < static_cast<int>(a.scenario.tiles.size()) && box_h > 0) {
    draw_view_in_box(svg, SvgView::Tile, a, fc, tile_index, m, box_y, box_w, box_h);
    draw_view_in_box(svg, SvgView::Banks, a, fc, tile_index, 2 * m + box_w, box_y, box_w, box_h);
  }
  double cy = H - cap_h;
  for (const std::string& line : cap) {
    svg.text(m, cy + cap_size, line, cap_size, pal.text);
    cy += line_h;
  }
  return document(pal, W, H, svg.body.str());
}

}  // namespace bankviz
