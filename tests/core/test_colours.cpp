// Colours for everyone (svg.h conflict levels): neighbouring levels stay apart under simulated
// protanopia, deuteranopia and tritanopia, and every level's number is legible on its box.
//
// The simulation is Machado, Oliveira and Fernandes 2009 (severity 1.0) applied to linear sRGB;
// distances are CIE Delta E 1976 and CIEDE2000 in CIELAB (D65), the latter checked against
// Sharma, Wu and Dalal's published test pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <numbers>
#include <string>

#include "bankviz/svg.h"

using namespace bankviz;

namespace {

using Vec = std::array<double, 3>;
using Mat = std::array<Vec, 3>;

double to_linear(double c) {
  c /= 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double to_srgb(double c) {
  c = std::clamp(c, 0.0, 1.0);
  return 255.0 * (c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055);
}

// Machado 2009, severity 1.0.
const Mat kProtan = {{{0.152286, 1.052583, -0.204868},
                      {0.114503, 0.786281, 0.099216},
                      {-0.003882, -0.048116, 1.051998}}};
const Mat kDeutan = {{{0.367322, 0.860646, -0.227968},
                      {0.280085, 0.672501, 0.047413},
                      {-0.011820, 0.042940, 0.968881}}};
const Mat kTritan = {{{1.255528, -0.076749, -0.178779},
                      {-0.078411, 0.930809, 0.147602},
                      {0.004733, 0.691367, 0.303900}}};
const Mat kNormal = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};

// sRGB (0..255) as seen through m, still sRGB.
Vec simulate(Rgba c, const Mat& m) {
  const Vec lin = {to_linear(c.r), to_linear(c.g), to_linear(c.b)};
  Vec out{};
  for (size_t i = 0; i < 3; ++i)
    out[i] = to_srgb(m[i][0] * lin[0] + m[i][1] * lin[1] + m[i][2] * lin[2]);
  return out;
}

Vec lab(const Vec& srgb) {
  const double r = to_linear(srgb[0]), g = to_linear(srgb[1]), b = to_linear(srgb[2]);
  const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  auto f = [](double t) {
    return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116;
  };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double delta_e76(const Vec& p, const Vec& q) {
  return std::sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                   (p[2] - q[2]) * (p[2] - q[2]));
}

double deg(double r) {
  return r * 180 / std::numbers::pi;
}
double rad(double d) {
  return d * std::numbers::pi / 180;
}

// CIEDE2000 (Sharma, Wu, Dalal 2005) of two CIELAB colours.
double delta_e2000(const Vec& p, const Vec& q) {
  const double c1 = std::hypot(p[1], p[2]), c2 = std::hypot(q[1], q[2]);
  const double cb7 = std::pow((c1 + c2) / 2, 7);
  const double g = 0.5 * (1 - std::sqrt(cb7 / (cb7 + std::pow(25.0, 7))));
  const double a1 = (1 + g) * p[1], a2 = (1 + g) * q[1];
  const double c1p = std::hypot(a1, p[2]), c2p = std::hypot(a2, q[2]);
  auto hue = [](double b, double a) {
    if (a == 0 && b == 0) return 0.0;
    const double h = deg(std::atan2(b, a));
    return h < 0 ? h + 360 : h;
  };
  const double h1 = hue(p[2], a1), h2 = hue(q[2], a2);
  const double dl = q[0] - p[0], dc = c2p - c1p;
  double dh = 0;
  if (c1p * c2p != 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    if (dh < -180) dh += 360;
  }
  const double dhh = 2 * std::sqrt(c1p * c2p) * std::sin(rad(dh / 2));
  const double lb = (p[0] + q[0]) / 2, cbp = (c1p + c2p) / 2;
  double hb = h1 + h2;
  if (c1p * c2p != 0) {
    if (std::fabs(h1 - h2) <= 180)
      hb = (h1 + h2) / 2;
    else
      hb = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
  }
  const double t = 1 - 0.17 * std::cos(rad(hb - 30)) + 0.24 * std::cos(rad(2 * hb)) +
                   0.32 * std::cos(rad(3 * hb + 6)) - 0.20 * std::cos(rad(4 * hb - 63));
  const double dtheta = 30 * std::exp(-((hb - 275) / 25) * ((hb - 275) / 25));
  const double cbp7 = std::pow(cbp, 7);
  const double rc = 2 * std::sqrt(cbp7 / (cbp7 + std::pow(25.0, 7)));
  const double sl = 1 + 0.015 * (lb - 50) * (lb - 50) / std::sqrt(20 + (lb - 50) * (lb - 50));
  const double sc = 1 + 0.045 * cbp, sh = 1 + 0.015 * cbp * t;
  const double rt = -std::sin(rad(2 * dtheta)) * rc;
  return std::sqrt((dl / sl) * (dl / sl) + (dc / sc) * (dc / sc) + (dhh / sh) * (dhh / sh) +
                   rt * (dc / sc) * (dhh / sh));
}

}  // namespace

TEST(Colours, TheDistanceIsCiede2000AsPublished) {
  // Sharma, Wu and Dalal's test data, pairs 1, 7, 17 and 25.
  EXPECT_NEAR(delta_e2000({50, 2.6772, -79.7751}, {50, 0, -82.7485}), 2.0425, 1e-4);
  EXPECT_NEAR(delta_e2000({50, 0, 0}, {50, -1, 2}), 2.3669, 1e-4);
  EXPECT_NEAR(delta_e2000({50, 2.5, 0}, {73, 25, -18}), 27.1492, 1e-4);
  EXPECT_NEAR(delta_e2000({60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}), 1.2644,
              1e-4);
  // The simulation keeps grey grey and takes red and green to the same place for a deutan.
  const Vec grey = simulate({128, 128, 128, 255}, kDeutan);
  EXPECT_NEAR(grey[0], 128, 1.0);
  EXPECT_NEAR(grey[1], 128, 1.0);
  EXPECT_NEAR(grey[2], 128, 1.0);
  EXPECT_LT(delta_e76(lab(simulate({200, 60, 40, 255}, kDeutan)),
                      lab(simulate({90, 150, 40, 255}, kDeutan))),
            delta_e76(lab(simulate({200, 60, 40, 255}, kNormal)),
                      lab(simulate({90, 150, 40, 255}, kNormal))) /
                2);
}

TEST(Colours, NeighbouringConflictLevelsStayApartForEveryViewer) {
  struct Viewer {
    const char* name;
    const Mat& m;
  };
  const Viewer viewers[] = {{"trichromat", kNormal},
                            {"protanopia", kProtan},
                            {"deuteranopia", kDeutan},
                            {"tritanopia", kTritan}};
  for (const Viewer& v : viewers)
    for (int level = 0; level + 1 < kConflictLevels; ++level) {
      const Vec p = lab(simulate(conflict_level_color(level), v.m));
      const Vec q = lab(simulate(conflict_level_color(level + 1), v.m));
      EXPECT_GE(delta_e76(p, q), 20.0) << v.name << ": " << conflict_level_name(level)
                                       << " against " << conflict_level_name(level + 1);
      EXPECT_GE(delta_e2000(p, q), 20.0) << v.name << ": " << conflict_level_name(level)
                                         << " against " << conflict_level_name(level + 1);
    }
}

TEST(Colours, EveryLevelStandsOutFromBothThemesAndCarriesALegibleNumber) {
  for (int level = 0; level < kConflictLevels; ++level) {
    const Rgba c = conflict_level_color(level);
    EXPECT_GE(contrast_ratio(ink_on(c), c), 4.5) << conflict_level_name(level);
    for (const Palette& p : {dark_palette(), light_palette(), high_contrast(dark_palette()),
                             high_contrast(light_palette())})
      for (Rgba bg : {p.background, p.panel})
        EXPECT_GE(delta_e2000(lab(simulate(c, kNormal)), lab(simulate(bg, kNormal))), 15.0)
            << conflict_level_name(level) << " on " << bg.hex();
  }
  EXPECT_NEAR(contrast_ratio({0, 0, 0, 255}, {255, 255, 255, 255}), 21.0, 1e-9);
  EXPECT_NEAR(contrast_ratio({119, 119, 119, 255}, {255, 255, 255, 255}), 4.48, 0.01);
}

// A conflicting bank word's outline (Palette::conflict) lies on a bank's colour, one of 32 hues:
// no red stays apart from all of them for every viewer (under protanopia the dark theme's red and
// bank 4 were Delta E 6.8 apart), so the screen and the SVG draw a ring of the background inside
// the outline of a word not yet served (a lit word's bright fill is its lane digit's chip), and
// the outline stands apart from that ring for every viewer in every theme.
TEST(Colours, TheConflictOutlineStandsApartFromItsRingForEveryViewer) {
  const Mat* viewers[] = {&kNormal, &kProtan, &kDeutan, &kTritan};
  double nearest_bank = 1e9;
  for (const Palette& p : {dark_palette(), light_palette(), high_contrast(dark_palette()),
                           high_contrast(light_palette())})
    for (const Mat* m : viewers) {
      const Vec outline = lab(simulate(p.conflict, *m));
      EXPECT_GE(delta_e76(outline, lab(simulate(p.background, *m))), 20.0) << p.background.hex();
      EXPECT_GE(delta_e2000(outline, lab(simulate(p.background, *m))), 20.0) << p.background.hex();
      for (int b = 0; b < 32; ++b)
        nearest_bank =
            std::min(nearest_bank, delta_e76(outline, lab(simulate(p.bank(b, 32, false), *m))));
    }
  // Why the ring: without it some bank's colour is as close as that to the outline's.
  EXPECT_LT(nearest_bank, 20.0);
}

// A conflicting word lit in the current wavefront is a bright chip carrying its lane digit; the
// ring inside its outline is black or white, whichever the digit is not (svg.h lit_ring_on): the
// outline stands apart from the ring for every viewer in every theme, and the digit from the ring
// as from its chip.
TEST(Colours, ALitConflictsOutlineStandsApartFromItsRingForEveryViewer) {
  const Mat* viewers[] = {&kNormal, &kProtan, &kDeutan, &kTritan};
  double nearest_chip = 1e9, nearest_ring = 1e9;
  for (const Palette& p : {dark_palette(), light_palette(), high_contrast(dark_palette()),
                           high_contrast(light_palette())})
    for (int b = 0; b < 32; ++b) {
      const Rgba chip = p.bank(b, 32, true), ring = lit_ring_on(chip);
      EXPECT_GE(contrast_ratio(ink_on(chip), ring), 4.5) << chip.hex();
      EXPECT_GE(contrast_ratio(ink_on(chip), chip), 4.5) << chip.hex();
      for (const Mat* m : viewers) {
        const Vec outline = lab(simulate(p.conflict, *m));
        EXPECT_GE(delta_e76(outline, lab(simulate(ring, *m))), 20.0) << chip.hex();
        EXPECT_GE(delta_e2000(outline, lab(simulate(ring, *m))), 20.0) << chip.hex();
        nearest_chip = std::min(nearest_chip, delta_e76(outline, lab(simulate(chip, *m))));
        nearest_ring = std::min(nearest_ring, delta_e2000(outline, lab(simulate(ring, *m))));
      }
    }
  // Why the ring: without it some lit chip is as close as that to the outline's red.
  EXPECT_LT(nearest_chip, 20.0) << nearest_chip;
  std::cout << "the outline's red against the nearest lit chip: Delta E 1976 " << nearest_chip
            << "; against the nearest ring: Delta E 2000 " << nearest_ring << "\n";
  // A pale chip's digit is black and its ring white; a dark chip's digit white, its ring black.
  EXPECT_EQ(lit_ring_on({250, 240, 120, 255}).hex(), "#ffffff");
  EXPECT_EQ(lit_ring_on({20, 30, 90, 255}).hex(), "#000000");
}

TEST(Colours, LevelsFollowTheRatioToTheIdeal) {
  EXPECT_EQ(conflict_level(1, 1), 0);
  EXPECT_EQ(conflict_level(4, 4), 0);  // a float4 row: width, not a conflict
  EXPECT_EQ(conflict_level(2, 1), 1);
  EXPECT_EQ(conflict_level(8, 4), 1);
  EXPECT_EQ(conflict_level(3, 1), 2);
  EXPECT_EQ(conflict_level(4, 1), 2);
  EXPECT_EQ(conflict_level(5, 1), 3);
  EXPECT_EQ(conflict_level(32, 1), 3);
  EXPECT_EQ(conflict_level(32, 4), 3);
  EXPECT_EQ(conflict_level(1, 0), 3);
  EXPECT_EQ(std::string(conflict_level_name(3)), "5x+");
}
