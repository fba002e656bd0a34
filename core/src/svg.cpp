// svg.cpp: palettes and the SVG of the tile and bank views (see svg.h).
//
// [SECTION] Palette
// [SECTION] Scene helpers
// [SECTION] Tile view
// [SECTION] Bank view
// [SECTION] A view fitted into a box
// [SECTION] Document
#include "bankviz/svg.h"

#include "bankviz/printable.h"
#include "svg_draw.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace bankviz {

// [SECTION] Palette

std::string Rgba::hex() const {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

namespace {

Rgba hsl(double h, double s, double l) {
  auto f = [&](double n) {
    double k = std::fmod(n + h / 30.0, 12.0);
    double a = s * std::min(l, 1.0 - l);
    double v = l - a * std::max(-1.0, std::min({k - 3.0, 9.0 - k, 1.0}));
    return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
  };
  return {f(0), f(8), f(4), 255};
}

Rgba rgb(uint32_t hex) {
  return {static_cast<uint8_t>(hex >> 16), static_cast<uint8_t>(hex >> 8),
          static_cast<uint8_t>(hex), 255};
}

}  // namespace

Rgba Palette::bank(int bank, int banks, bool lit) const {
  if (banks <= 0) banks = 32;
  // Hue walks the wheel once across the banks; odd banks are a step lighter/darker so that
  // neighbours stay distinct even where hues are close (greens).
  // Hues 25..335 only: pure red is kept for conflicts.
  double h = 25.0 + 310.0 * ((bank % banks + banks) % banks) / banks;
  bool odd = (bank & 1) != 0;
  if (light) return lit ? hsl(h, 0.85, odd ? 0.42 : 0.50) : hsl(h, 0.55, odd ? 0.80 : 0.86);
  return lit ? hsl(h, 0.90, odd ? 0.58 : 0.64) : hsl(h, 0.35, odd ? 0.24 : 0.30);
}

int conflict_level(int wavefronts, int ideal) {
  if (ideal <= 0) return wavefronts > 0 ? kConflictLevels - 1 : 0;
  if (wavefronts <= ideal) return 0;
  if (wavefronts <= 2 * ideal) return 1;
  if (wavefronts <= 4 * ideal) return 2;
  return 3;
}

const char* conflict_level_name(int level) {
  static const char* const kNames[kConflictLevels] = {"ideal", "2x", "3-4x", "5x+"};
  return kNames[std::clamp(level, 0, kConflictLevels - 1)];
}

Rgba conflict_level_color(int level) {
  // Chosen for the distances under simulated colour-vision deficiencies (svg.h): a lightness
  // ramp from the pale yellow outwards, hues that differ for trichromats too.
  static const uint32_t kColours[kConflictLevels] = {0x0a93d3, 0xfdf598, 0xe35e0a, 0x801923};
  return rgb(kColours[std::clamp(level, 0, kConflictLevels - 1)]);
}

namespace {
double linear(uint8_t c) {
  const double v = c / 255.0;
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}
double luminance(Rgba c) {
  return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}
}  // namespace

double contrast_ratio(Rgba a, Rgba b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

Rgba ink_on(Rgba chip) {
  const Rgba black{0, 0, 0, 255}, white{255, 255, 255, 255};
  return contrast_ratio(chip, black) >= contrast_ratio(chip, white) ? black : white;
}

Rgba lit_ring_on(Rgba chip) {
  const Rgba ink = ink_on(chip);
  return ink.r == 0 ? Rgba{255, 255, 255, 255} : Rgba{0, 0, 0, 255};
}

Palette dark_palette() {
  Palette p;
  p.light = false;
  p.background = rgb(0x15171c);
  p.panel = rgb(0x1e2128);
  p.text = rgb(0xe8eaf0);
  p.text_dim = rgb(0x9aa0ad);
  p.grid = rgb(0x0e0f12);
  p.padding = rgb(0x2a2c31);
  p.padding_stripe = rgb(0x50535b);
  p.lit_border = rgb(0xffffff);
  p.conflict = rgb(0xff3b30);
  p.touched_border = rgb(0xb8bcc6);
  return p;
}

Palette light_palette() {
  Palette p;
  p.light = true;
  p.background = rgb(0xffffff);
  p.panel = rgb(0xf4f5f7);
  p.text = rgb(0x111318);
  p.text_dim = rgb(0x555a66);
  p.grid = rgb(0xffffff);
  p.padding = rgb(0xe4e5e8);
  p.padding_stripe = rgb(0xa4a7ae);
  p.lit_border = rgb(0x000000);
  p.conflict = rgb(0xd70015);
  p.touched_border = rgb(0x555a66);
  return p;
}

Palette high_contrast(Palette p) {
  p.text = p.light ? rgb(0x000000) : rgb(0xffffff);
  p.text_dim = p.light ? rgb(0x222222) : rgb(0xdddddd);
  p.background = p.light ? rgb(0xffffff) : rgb(0x000000);
  p.panel = p.background;
  return p;
}

// [SECTION] Scene helpers

namespace svg_detail {

// User text as XML character data: markup escaped, control characters (printable.h: ESC and BEL
// are not XML at all) shown as '?'.
std::string esc(std::string_view s) {
  std::string out;
  for (char c : replace_controls(s, '?')) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Numbers print without trailing zeros so goldens are stable and small.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string fit(const std::string& s, double width, double size) {
  const size_t most = static_cast<size_t>(std::max(4.0, width / (size * 0.56)));
  return s.size() <= most ? s : s.substr(0, most - 3) + "...";
}

namespace {

// Which word each byte of the tile falls in: word -> (first element, all padding?).
struct WordInfo {
  int64_t element = -1;
  bool padding = true;
};

std::map<uint32_t, WordInfo> tile_words(const TileDecl& t, const Arch& arch) {
  std::map<uint32_t, WordInfo> out;
  int eb = t.elem_bytes();
  for (int64_t e = 0; e < t.elements(); ++e) {
    int64_t b = t.byte_offset(e);
    bool pad = t.is_padding(e);
    const uint32_t last = arch.word_of(static_cast<uint32_t>(b + eb - 1));
    for (uint32_t word = arch.word_of(static_cast<uint32_t>(b)); word <= last; ++word) {
      WordInfo& w = out[word];
      if (w.element < 0) w.element = e;
      w.padding = w.padding && pad;
    }
  }
  return out;
}

std::string lane_text(uint32_t lanes) {
  int n = __builtin_popcount(lanes);
  if (n == 0) return "";
  int first = __builtin_ctz(lanes);
  if (n == 1) return std::to_string(first);
  return std::to_string(first) + "+";
}

}  // namespace

// [SECTION] Tile view

double draw_tile(Svg& svg, const Analysis& a, const FrameCells& fc, int tile_index, double x0,
                 double y0, double cell) {
  const TileDecl& t = a.scenario.tiles[tile_index];
  const Palette& pal = svg.pal;
  const Arch& arch = a.arch ? *a.arch : default_arch();
  TileGrid g = tile_grid(t);
  double fs = cell * 0.5;
  svg.text(x0, y0 + fs * 1.2, "Logical tile: " + t.declaration(), fs * 1.3, pal.text, "start",
           true);
  double gx = x0 + cell * 1.5, gy = y0 + fs * 2.2 + cell;
  for (int64_t c = 0; c < g.cols; ++c)
    if (g.cols <= 40 || c % 8 == 0)
      svg.text(gx + (c + 0.5) * cell, gy - cell * 0.3, std::to_string(c), fs * 0.8, pal.text_dim,
               "middle");
  std::map<int64_t, const LitLane*> lit;
  std::map<int64_t, uint32_t> lanes_at;
  if (fc.tile == tile_index)
    for (const LitLane& l : fc.lanes) {
      lanes_at[l.element] |= 1u << l.lane;
      if (l.in_wavefront || !lit.count(l.element)) lit[l.element] = &l;
    }
  for (int64_t r = 0; r < g.rows; ++r) {
    if (g.rows <= 40 || r % 8 == 0)
      svg.text(gx - cell * 0.3, gy + (r + 0.7) * cell, std::to_string(r), fs * 0.8, pal.text_dim,
               "end");
    for (int64_t c = 0; c < g.cols; ++c) {
      int64_t e = grid_element(t, r, c);
      if (e < 0) continue;
      double x = gx + c * cell, y = gy + r * cell;
      int bank = arch.bank_of(static_cast<uint32_t>(t.byte_offset(e)));
      auto it = lit.find(e);
      bool now = it != lit.end() && it->second->in_wavefront;
      if (t.is_padding(e)) {
        svg.rect(x, y, cell, cell, "url(#hatch)", pal.grid.hex(), 1);
      } else {
        svg.rect(x, y, cell, cell, pal.bank(bank, arch.banks, now).hex(), pal.grid.hex(), 1);
      }
      if (it != lit.end()) {
        const Rgba& border = now ? pal.lit_border : pal.touched_border;
        svg.rect(x + 1.5, y + 1.5, cell - 3, cell - 3, "none", border.hex(), now ? 2.5 : 1);
        // The lane digit in the ink that stands out on its chip (svg.h ink_on), as on the screen.
        const Rgba ink = t.is_padding(e) ? pal.text : ink_on(pal.bank(bank, arch.banks, true));
        if (now)
          svg.text(x + cell * 0.5, y + cell * 0.68, lane_text(lanes_at[e]), fs, ink, "middle",
                   true);
      }
    }
  }
  return gy + g.rows * cell + cell;
}

// [SECTION] Bank view

double draw_banks(Svg& svg, const Analysis& a, const FrameCells& fc, int tile_index, double x0,
                  double y0, double cell) {
  const TileDecl& t = a.scenario.tiles[tile_index];
  const Palette& pal = svg.pal;
  const Arch& arch = a.arch ? *a.arch : default_arch();
  const int banks = arch.banks;
  double fs = cell * 0.5;
  std::string head = "Physical banks: " + std::to_string(banks) + " x " +
                     std::to_string(arch.bank_bytes) + " B, one row per " +
                     std::to_string(arch.line_bytes_shown()) + "-byte line";
  svg.text(x0, y0 + fs * 1.2, head, fs * 1.3, pal.text, "start", true);
  auto words = tile_words(t, arch);
  std::map<uint32_t, const LitWord*> lit;
  if (fc.tile == tile_index)
    for (const LitWord& w : fc.words) lit[w.word] = &w;
  // Lines to draw: every line of the tile when it is small, else the lines the warp touches.
  std::set<uint32_t> lines;
  for (auto& [w, _] : words) lines.insert(arch.line_of_word(w));
  if (lines.size() > 64) {
    lines.clear();
    for (auto& [w, _] : lit) lines.insert(arch.line_of_word(w));
  }
  double gx = x0 + cell * 2.5, gy = y0 + fs * 2.2 + cell;
  for (int b = 0; b < banks; ++b)
    svg.text(gx + (b + 0.5) * cell, gy - cell * 0.3, std::to_string(b), fs * 0.8, pal.text_dim,
             "middle");
  double y = gy;
  uint32_t prev = 0;
  bool first = true;
  for (uint32_t line : lines) {
    if (!first && line != prev + 1) y += cell * 0.5;  // a gap marks skipped lines
    first = false;
    prev = line;
    svg.text(gx - cell * 0.3, y + cell * 0.7,
             std::to_string(int64_t{line} * arch.line_bytes_shown()), fs * 0.8, pal.text_dim,
             "end");
    for (int b = 0; b < banks; ++b) {
      uint32_t word = arch.word_at(line, b);
      double x = gx + b * cell;
      auto wi = words.find(word);
      auto li = lit.find(word);
      bool now = li != lit.end() && li->second->in_wavefront;
      if (wi == words.end()) {
        svg.rect(x, y, cell, cell, pal.panel.hex(), pal.grid.hex(), 1);
      } else if (wi->second.padding) {
        svg.rect(x, y, cell, cell, "url(#hatch)", pal.grid.hex(), 1);
      } else {
        svg.rect(x, y, cell, cell, pal.bank(b, banks, now).hex(), pal.grid.hex(), 1);
      }
      if (li != lit.end()) {
        const LitWord& w = *li->second;
        if (w.conflict) {
          svg.rect(x + 1.5, y + 1.5, cell - 3, cell - 3, "none", pal.conflict.hex(), 3);
          // A word waiting for a later wavefront: a ring of the background inside, as on the
          // screen (cells.h): against the banks' 32 dark hues no one red stays apart for every
          // viewer (under protanopia the dark theme's red and a yellow-green bank were Delta E
          // 6.8 apart), against the background it does (tests/core/test_colours.cpp).
          // A lit word's ring is black or white, whichever its lane digit is not (svg.h
          // lit_ring_on): the red stands apart from it for every viewer too.
          const Rgba ring = now ? lit_ring_on(pal.bank(b, banks, true)) : pal.background;
          svg.rect(x + 3.75, y + 3.75, cell - 7.5, cell - 7.5, "none", ring.hex(), 1.5);
        } else {
          const Rgba& border = now ? pal.lit_border : pal.touched_border;
          svg.rect(x + 1.5, y + 1.5, cell - 3, cell - 3, "none", border.hex(), now ? 2.5 : 1);
        }
        const bool padding = wi != words.end() && wi->second.padding;
        const Rgba ink = padding ? pal.text : ink_on(pal.bank(b, banks, true));
        if (now)
          svg.text(x + cell * 0.5, y + cell * 0.68, lane_text(w.lanes), fs, ink, "middle", true);
      }
    }
    y += cell;
  }
  // Per-bank load: how many wavefronts each bank must serve for this warp; red where serve()
  // found the bank conflicting.
  if (fc.tile == tile_index && !fc.bank_load.empty()) {
    svg.text(gx - cell * 0.3, y + cell * 0.75, "load", fs * 0.8, pal.text_dim, "end");
    for (int b = 0; b < banks && b < static_cast<int>(fc.bank_load.size()); ++b) {
      int n = fc.bank_load[b];
      const Rgba& c = fc.conflicted(b) ? pal.conflict : pal.text;
      svg.text(gx + (b + 0.5) * cell, y + cell * 0.75, std::to_string(n), fs, c, "middle",
               fc.conflicted(b));
    }
    y += cell * 1.2;
    svg.text(x0, y + fs * 1.4, fc.verdict, fs * 1.4,
             fc.wavefronts > fc.ideal ? pal.conflict : pal.text, "start", true);
    y += fs * 2;
    if (fc.extra_pass) {
      svg.text(x0, y + fs * 1.2,
               "this wavefront: the extra pass the guide charges a 128-bit quarter-warp (no word "
               "of its own)",
               fs * 1.1, pal.text_dim);
      y += fs * 2;
    }
  }
  return y + cell;
}

// [SECTION] A view fitted into a box

namespace {
// Everything a view draws scales with its cell size (the stroke insets aside): its extent at
// cell 1, from a drawing thrown away, scales to any cell.
ViewExtent unit_extent(SvgView view, const Analysis& a, const FrameCells& fc, int tile_index) {
  Palette pal = light_palette();
  Svg scratch(pal);
  const TileDecl& t = a.scenario.tiles[tile_index];
  ViewExtent e;
  if (view == SvgView::Tile) {
    e.h = draw_tile(scratch, a, fc, tile_index, 0, 0, 1);
    e.w = static_cast<double>(tile_grid(t).cols) + 3;
  } else {
    e.h = draw_banks(scratch, a, fc, tile_index, 0, 0, 1);
    e.w = (a.arch ? a.arch->banks : kMaxBanks) + 4;
  }
  return e;
}
}  // namespace

double draw_view_in_box(Svg& svg, SvgView view, const Analysis& a, const FrameCells& fc,
                        int tile_index, double x, double y, double w, double h) {
  if (tile_index < 0 || tile_index >= static_cast<int>(a.scenario.tiles.size())) return 0;
  const ViewExtent unit = unit_extent(view, a, fc, tile_index);
  if (unit.w <= 0 || unit.h <= 0) return 0;
  const double cell = std::min(w / unit.w, h / unit.h);
  if (view == SvgView::Tile) {
    draw_tile(svg, a, fc, tile_index, x, y, cell);
  } else {
    draw_banks(svg, a, fc, tile_index, x, y, cell);
  }
  return cell;
}

std::string document(const Palette& pal, double width, double height, const std::string& body) {
  std::ostringstream doc;
  doc << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\""
      << num(height) << "\" viewBox=\"0 0 " << num(width) << " " << num(height)
      << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      << "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\""
      << pal.padding.hex() << "\"/><rect width=\"2\" height=\"6\" fill=\""
      << pal.padding_stripe.hex() << "\"/></pattern></defs>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"" << pal.background.hex() << "\"/>\n"
      << body << "</svg>\n";
  return doc.str();
}

}  // namespace svg_detail

// [SECTION] Document

using namespace svg_detail;

std::string render_svg(const Analysis& a, const Frame& f, const SvgOptions& o) {
  Palette pal = o.light ? light_palette() : dark_palette();
  Svg svg(pal);
  FrameCells fc = frame_cells(a, f);
  int tile_index = fc.tile >= 0 ? fc.tile : 0;
  double cell = o.cell > 4 ? o.cell : 4;
  double fs = cell * 0.5;
  double y = 8;
  std::string title = a.scenario.title.empty() ? a.scenario.name : a.scenario.title;
  svg.text(8, y + fs * 1.6, title, fs * 1.7, pal.text, "start", true);
  y += fs * 2.4;
  if (f.step >= 0) {
    std::string where = fc.label + "  |  warp " + std::to_string(f.warp) + ", wavefront " +
                        std::to_string(f.wavefront + 1) + " of " + std::to_string(f.wavefronts) +
                        "  |  " + std::string(a.arch ? a.arch->name : "");
    svg.text(8, y + fs * 1.2, where, fs * 1.1, pal.text_dim);
    y += fs * 2;
  }
  double width = 8;
  if (!a.scenario.tiles.empty() && tile_index < static_cast<int>(a.scenario.tiles.size())) {
    const TileDecl& t = a.scenario.tiles[tile_index];
    if (o.tile_view) {
      TileGrid g = tile_grid(t);
      y = draw_tile(svg, a, fc, tile_index, 8, y, cell);
      width = std::max(width, 8 + cell * (g.cols + 3));
    }
    if (o.bank_view) {
      int banks = a.arch ? a.arch->banks : kMaxBanks;
      y = draw_banks(svg, a, fc, tile_index, 8, y, cell);
      width = std::max(width, 8 + cell * (banks + 4));
    }
  }
  width = std::max(width, 8 + fs * 0.6 * 1.4 * 60);  // room for the verdict line
  return document(pal, width, y, svg.body.str());
}

}  // namespace bankviz
