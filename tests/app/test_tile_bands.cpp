// The tile view's bands for wide tiles (views/tile_bands.h): which bands a panel gets, and every
// cell's one place on the display.
#include "views/tile_bands.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

using namespace bankviz;
using namespace bankviz::gui;

// As[8][128] floats in half of a 1280x720 desk's views had
// 3-pixel cells (4 after the floor) and left the panel's height empty.
TEST(TileBands, AWideShortTileFoldsIntoBandsWithLargerCells) {
  const TileGrid g{8, 128};
  const TileBands one = tile_bands(g, 440, 330, 20, 4, 40, 1);
  EXPECT_EQ(one.bands, 1);
  EXPECT_EQ(one.cell, 4);  // 440 / 128 = 3.4, at least the smallest cell
  const TileBands t = tile_bands(g, 440, 330, 20, 4, 40);
  EXPECT_GT(t.bands, 1);
  EXPECT_GE(t.band_cols, 32);
  EXPECT_GE(t.cell, one.cell * 1.5f) << t.bands << " bands of " << t.band_cols;
  // What the panel gave: every band's cells across, every band and the heads between them down.
  EXPECT_LE(t.cell * static_cast<float>(t.band_cols), 440);
  EXPECT_LE(20 + t.cell * static_cast<float>(t.display_rows()), 330);
  EXPECT_GE(t.cell * static_cast<float>(t.gap_rows), 20);  // a band's column numbers fit over it
  EXPECT_EQ(t.bands * t.band_cols, 128);
}

TEST(TileBands, EveryCellHasOnePlaceAndGapsHoldNone) {
  const TileBands t = tile_bands(TileGrid{8, 132}, 300, 400, 20, 4, 40, 4);  // 128 + 4 padding
  ASSERT_EQ(t.bands, 4);
  ASSERT_EQ(t.band_cols, 33);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 132; ++c) {
      int64_t dr = -1, dc = -1, r2 = -1, c2 = -1;
      t.place(r, c, &dr, &dc);
      EXPECT_TRUE(seen.insert({dr, dc}).second) << r << "," << c;
      EXPECT_LT(dc, t.band_cols);
      EXPECT_LT(dr, t.display_rows());
      ASSERT_TRUE(t.grid_at(dr, dc, &r2, &c2)) << r << "," << c;
      EXPECT_EQ(r2, r);
      EXPECT_EQ(c2, c);
    }
  EXPECT_EQ(seen.size(), 8u * 132u);
  int64_t r = 0, c = 0;
  EXPECT_FALSE(t.grid_at(8, 0, &r, &c));                 // the gap under the first band
  EXPECT_FALSE(t.grid_at(t.display_rows(), 0, &r, &c));  // under the last band
  EXPECT_FALSE(t.grid_at(0, 33, &r, &c));                // right of a band
}

TEST(TileBands, SquareTilesAndTallPanelsStayInOneBand) {
  // A 32 x 32 tile, a 1-D tile's 32-wide rows and a tile whose single band already has the
  // largest cell are never folded.
  EXPECT_EQ(tile_bands(TileGrid{32, 32}, 440, 330, 20, 4, 40).bands, 1);
  EXPECT_EQ(tile_bands(TileGrid{8, 32}, 200, 900, 20, 4, 40).bands, 1);
  EXPECT_EQ(tile_bands(TileGrid{16, 64}, 4000, 2000, 20, 4, 40).bands, 1);
  // A fold that gains less than a fifth is not made: 64 columns across 1000 px, 16 rows in 420.
  EXPECT_EQ(tile_bands(TileGrid{16, 64}, 1000, 420, 20, 4, 40).bands, 1);
  // The same tile in a panel as tall as it is wide folds once.
  const TileBands t = tile_bands(TileGrid{16, 64}, 440, 440, 20, 4, 40);
  EXPECT_EQ(t.bands, 2);
  EXPECT_EQ(t.band_cols, 32);
}
