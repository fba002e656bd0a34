// svg_draw.h (private to core): the pieces svg.cpp draws its views with, shared by the
// comparison slide (svg_compare.cpp) so that both draw a tile or a bank view the same way.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "bankviz/analysis.h"
#include "bankviz/frame.h"
#include "bankviz/svg.h"

namespace bankviz::svg_detail {

std::string esc(std::string_view s);  // XML text
std::string num(double v);            // a number without trailing zeros
// Cut to what a line of `width` units holds at font `size` (about 0.56 em per character).
std::string fit(const std::string& s, double width, double size);

// An SVG body being written with one palette.
struct Svg {
  std::ostringstream body;
  const Palette& pal;
  explicit Svg(const Palette& p) : pal(p) {}

  void rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& stroke = "", double sw = 0) {
    body << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
         << "\" height=\"" << num(h) << "\" fill=\"" << fill << "\"";
    if (!stroke.empty()) body << " stroke=\"" << stroke << "\" stroke-width=\"" << num(sw) << "\"";
    body << "/>\n";
  }
  void text(double x, double y, std::string_view s, double size, const Rgba& c,
            const char* anchor = "start", bool bold = false) {
    body << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(size)
         << "\" fill=\"" << c.hex() << "\" text-anchor=\"" << anchor << "\"";
    if (bold) body << " font-weight=\"bold\"";
    body << ">" << esc(s) << "</text>\n";
  }
};

// The two views at (x0, y0) with cells of `cell` units; each returns the y below what it drew.
double draw_tile(Svg& svg, const Analysis& a, const FrameCells& fc, int tile_index, double x0,
                 double y0, double cell);
double draw_banks(Svg& svg, const Analysis& a, const FrameCells& fc, int tile_index, double x0,
                  double y0, double cell);

enum class SvgView { Tile, Banks };
struct ViewExtent {
  double w = 0, h = 0;
};
// One view drawn as large as fits the box (x, y, w, h); returns the cell size it used (0 when
// there is no such tile).
double draw_view_in_box(Svg& svg, SvgView view, const Analysis& a, const FrameCells& fc,
                        int tile_index, double x, double y, double w, double h);

// The standalone document around a body: size, font, the padding hatch, the background.
std::string document(const Palette& pal, double width, double height, const std::string& body);

}  // namespace bankviz::svg_detail
