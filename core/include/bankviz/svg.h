// svg.h: the tile view and the bank view as SVG, and the colours the screen shares with them.
//
// The desktop app and the SVG draw the same things in the same colours: cells coloured by bank,
// padding hatched, the current wavefront's cells lit and labelled with lanes, conflicting bank
// words outlined, a per-bank load count and the verdict in words.
#pragma once

#include <cstdint>
#include <string>

#include "bankviz/analysis.h"
#include "bankviz/frame.h"

namespace bankviz {

struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 255;
  std::string hex() const;  // "#rrggbb"
};

// The colours of one theme. The same values colour the screen (ImGui + shaders) and the SVG.
struct Palette {
  bool light = false;
  Rgba background, panel, text, text_dim, grid, padding, padding_stripe, lit_border, conflict,
      touched_border;
  // A cell of `bank` among `banks`: neighbouring banks get clearly different hues so a column
  // read that hits one bank shows as one colour. lit: the cell is in the current wavefront.
  Rgba bank(int bank, int banks, bool lit) const;
};
Palette dark_palette();
Palette light_palette();
// Presenter mode: stronger contrast on top of either theme.
Palette high_contrast(Palette p);

// [SECTION] Conflict levels: how far a request is from its ideal, for everyone
//
// Four levels the timeline's boxes, their legend and the slides share: ideal, up to 2x, up to 4x,
// more. The colours stay apart for every viewer: neighbouring levels differ by at least 20 (CIE
// Delta E 1976 and 2000) under simulated protanopia, deuteranopia and tritanopia (Machado 2009,
// tests/core/test_colours.cpp), mostly by lightness (blue, pale yellow, orange, dark red), and a
// box carries its number too, so that nothing rests on hue alone.
inline constexpr int kConflictLevels = 4;
// 0: wavefronts <= ideal; 1: up to twice; 2: up to four times; 3: more (a request without an
// ideal, wavefronts > 0, is 3).
int conflict_level(int wavefronts, int ideal);
const char* conflict_level_name(int level);  // "ideal", "2x", "3-4x", "5x+"
Rgba conflict_level_color(int level);        // one set for both themes
// WCAG 2's contrast ratio of two colours (1 to 21), and the ink (black or white) with the larger
// one on `chip`: every level's number is at least 4.5:1 on its box.
double contrast_ratio(Rgba a, Rgba b);
Rgba ink_on(Rgba chip);
// The ring inside a conflict's outline on a word lit in the current wavefront (a bright bank
// chip carrying its lane digit): the other of black and white than ink_on(chip). The outline's
// red stands apart from it for every viewer, where against some bright chips it did not (Delta E
// 12.5 under deuteranopia), and a digit that reaches into the ring stays as legible as on its chip.
Rgba lit_ring_on(Rgba chip);

// [SECTION] The frame as one 16:9 slide (svg_slide.cpp)
//
//   +---------------------------------------------------------------+
//   | title; step | warp, wavefront | architecture                  |
//   |   [tile view]                    [bank view, per-bank passes, |
//   |                                   the verdict]                 |
//   | the measured figure; the lesson's caption                     |
//   +---------------------------------------------------------------+
struct SlideSvgOptions {
  bool light = true;    // light slide theme (false: dark)
  double width = 1600;  // SVG user units; the height is width * 9 / 16
  std::string caption;  // a lesson's caption under the views, wrapped (empty: none)
  // A lesson's question under the caption ("Q: ..."), and once revealed its answer beside it
  // ("A: 32 (the model)"); empty: none. The verdict and these are in presenter-sized type (the
  // verdict at H / 30: 36 px on a 1080 px slide), not scaled with the views.
  std::string question;
  std::string answer;
  // A lesson's question is open: the request drawn whole with nothing counted or judged
  // (frame.h conceal_answer): no wavefront counter, per-bank counts, conflict colours or verdict.
  bool conceal = false;
  // The measured figure of the frame's step under the verdict, as the stage shows it ("measured
  // on H200, recorded 2026-11-29: 32.02 cycles per instruction, model 32"); empty: none. Not
  // drawn while `conceal`.
  std::string measured;
};
// The frame's tile view (left) and bank view (right) fitted into a landscape 16:9 slide.
std::string render_slide_svg(const Analysis& a, const Frame& f, const SlideSvgOptions& o = {});

struct SvgOptions {
  bool tile_view = true;  // draw the logical tile
  bool bank_view = true;  // draw the physical banks
  bool light = true;      // light slide theme (false: dark, as the app's default)
  double cell = 22.0;     // cell size in SVG user units (px)
};

// The frame's tile and bank views as a standalone SVG document.
std::string render_svg(const Analysis& a, const Frame& f, const SvgOptions& o = {});

// [SECTION] Before and after as one 16:9 slide (svg_compare.cpp)
//
//   +---------------------------------------------------------------+
//   | A vs B                                                        |
//   | A: title / step, warp / verdict  | B: title / step / verdict  |
//   |   [tile]      [banks]            |   [tile]      [banks]      |
//   | B / A = ratio (the model's; the measured one when given)      |
//   | caption                                                       |
//   +---------------------------------------------------------------+
struct CompareSlideOptions {
  bool light = true;    // light slide theme (false: dark)
  double width = 1600;  // SVG user units; the height is width * 9 / 16
  std::string caption;  // the last line (empty: what the model says in words)
  // Measured figures when a GPU ran both ("12.3 cycles/instr"; empty: none measured).
  std::string measured_a, measured_b, measured_ratio;
};
// B's figures over A's in words: "B / A = 0.0312: 32x fewer" (compare.h's ratio, 0 = no figure).
std::string ratio_words(double ratio);
// Scenario a at frame fa beside scenario b at frame fb, each with its tile and bank views, its
// verdict and its model figures (compare.h), and the ratio B / A.
std::string render_compare_svg(const Analysis& a, const Frame& fa, const Analysis& b,
                               const Frame& fb, const CompareSlideOptions& o = {});

}  // namespace bankviz
