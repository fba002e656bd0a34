// tile_bands.cpp: the tile view's bands (tile_bands.h).
#include "views/tile_bands.h"

#include <algorithm>
#include <cmath>

namespace bankviz::gui {

void TileBands::place(int64_t row, int64_t col, int64_t* drow, int64_t* dcol) const {
  const int64_t w = std::max<int64_t>(band_cols, 1);
  *drow = col / w * stride() + row;
  *dcol = col % w;
}

bool TileBands::grid_at(int64_t drow, int64_t dcol, int64_t* row, int64_t* col) const {
  const int64_t w = std::max<int64_t>(band_cols, 1);
  if (drow < 0 || dcol < 0 || dcol >= w || drow >= display_rows()) return false;
  const int64_t band = drow / stride();
  *row = drow % stride();
  *col = band * w + dcol;
  return *row < rows && *col < cols;
}

namespace {

// The largest whole cell at which `b` bands of g fit width x height (head over each band, and as
// many empty rows of cells between bands as cover a head), before the limits.
TileBands bands_of(TileGrid g, float width, float height, float head, int64_t b) {
  TileBands t;
  t.rows = std::max<int64_t>(g.rows, 1);
  t.cols = std::max<int64_t>(g.cols, 1);
  t.bands = std::clamp<int64_t>(b, 1, t.cols);
  t.band_cols = (t.cols + t.bands - 1) / t.bands;
  const float across = std::floor(width / static_cast<float>(t.band_cols));
  // Down: the heads' room taken first (a gap of whole cells is at least a head), then one cell
  // less until the gaps' whole cells fit too (a gap exceeds its head by less than a cell, so
  // this ends within bands steps).
  const float rows_total = static_cast<float>(t.bands * t.rows);
  float down = std::floor((height - head * static_cast<float>(t.bands)) / rows_total);
  for (; down > 1; down -= 1) {
    const float gap = std::ceil(head / down);
    if (head + (rows_total + gap * static_cast<float>(t.bands - 1)) * down <= height) break;
  }
  t.cell = std::min(across, down);
  return t;
}

}  // namespace

bool bands_fit(TileGrid g, int64_t bands) {
  return bands > 1 && g.cols % bands == 0 && g.cols / bands >= 32;
}

TileBands tile_bands(TileGrid g, float width, float height, float head, float min_cell,
                     float max_cell, int64_t bands) {
  auto limited = [&](TileBands t) {
    t.cell = std::clamp(t.cell, min_cell, std::max(min_cell, max_cell));
    t.gap_rows = t.bands > 1 ? static_cast<int64_t>(std::ceil(head / t.cell)) : 0;
    return t;
  };
  if (bands > 0) return limited(bands_of(g, width, height, head, bands));
  const TileBands one = limited(bands_of(g, width, height, head, 1));
  TileBands best = one;
  for (int64_t b = 2; b <= 8; ++b) {
    if (!bands_fit(g, b)) continue;
    const TileBands t = limited(bands_of(g, width, height, head, b));
    if (t.cell > best.cell && t.cell >= one.cell * 1.2f) best = t;
  }
  return best;
}

}  // namespace bankviz::gui
