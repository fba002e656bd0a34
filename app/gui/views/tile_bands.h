// tile_bands.h: a tile much wider than its panel is tall (As[8][128] floats, 16 x 64 halves) drawn
// in bands by the tile view. Band k holds the columns [k * band_cols, (k + 1) * band_cols) of every
// row, under band k - 1, with gap_rows empty rows of cells between them for its own column
// numbers. 128 columns in half of a 1280-pixel window had 4-pixel cells and left the panel's
// height empty; in four bands of 32 they get a 32 x 32 tile's cells. Display (row, col) counts
// cells from the top-left cell of the first band. Pure: no ImGui, tested in tests/app.
#pragma once

#include <cstdint>

#include "bankviz/frame.h"  // TileGrid

namespace bankviz::gui {

struct TileBands {
  int64_t rows = 0, cols = 0;  // the tile's grid (tile_grid)
  int64_t bands = 1, band_cols = 0, gap_rows = 0;
  float cell = 0;                                     // the cell's size in pixels
  int64_t stride() const { return rows + gap_rows; }  // display rows from a band to the next
  int64_t display_rows() const { return bands * rows + (bands - 1) * gap_rows; }
  // The grid's (row, col) on the display, and back: false over a gap or past the last column.
  void place(int64_t row, int64_t col, int64_t* drow, int64_t* dcol) const;
  bool grid_at(int64_t drow, int64_t dcol, int64_t* row, int64_t* col) const;
};

// The bands for grid g with `width` x `height` pixels for its cells, column numbers `head` pixels
// tall over each band, cells floored to whole pixels and kept within [min_cell, max_cell].
// bands > 0 asks for that many (a band at most as wide as the grid); 0 chooses: the fewest bands
// that give the largest cells, of equal widths of at least 32 columns (a 4-byte tile's row of
// banks), and one band unless its cells would be a fifth larger (folded only where it pays).
TileBands tile_bands(TileGrid g, float width, float height, float head, float min_cell,
                     float max_cell, int64_t bands = 0);
// Whether `bands` may split g: equal bands of at least 32 columns (what tile_bands chooses among).
bool bands_fit(TileGrid g, int64_t bands);

}  // namespace bankviz::gui
