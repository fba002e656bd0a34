// cells.h: grids of cells drawn by our GLSL shaders (shaders/cells.*), one draw per grid.
//
// A panel fills a CellGrid -- a rows x cols block of equal cells at a window position -- and hands
// it to draw(); the renderer inserts a callback into the panel's ImDrawList, so the cells land
// between the panel's background and the labels ImGui draws afterwards, clipped like the rest of
// the panel.
//
// One quad per grid, the cells in a texture: the fragment shader finds its cell from its pixel
// position, (x, y) -> (col, row) = floor((x, y) - origin) / cell size) -> texel. One instance per
// cell was the first design; Mesa's llvmpipe (our CI and classroom-laptop renderer) pays about a
// microsecond per instance (23,000 cells of the largest tile: 21 ms a frame), while one quad costs
// only its pixels. A grid also lives across frames: the panel rebuilds its cells only when their
// key (analysis, lit beat, scroll, cell size, theme) changes, and only then is the texture
// uploaded again. Between two beats of the animation nothing changes.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "imgui.h"

namespace bankviz::gui {

struct CellInstance {
  ImU32 fill = 0;     // IM_COL32 (bytes r, g, b, a in memory); 0 = no cell (panel colour)
  ImU32 edge = 0;     // border; alpha 0 = none
  ImU32 stripe = 0;   // hatch; alpha 0 = solid
  float edge_px = 0;  // border width (under 2048 px)
  // The stripe colour is a ring inside the border (half its width, 1 px at least), not a hatch: a
  // conflict's
  // outline stands apart from the cell's fill by its ring whatever the fill's hue, for every
  // viewer (svg.h).
  bool ring = false;
  float gap_px = 0;  // background gap around the cell
};

// A grid's cells, kept between frames (see above).
struct CellGrid {
  uint64_t key = ~uint64_t{0};      // what the cells were built from; panels compare it
  float x = 0, y = 0;               // window position of cell (0, 0)'s top-left corner
  float cell_w = 0, cell_h = 0;     // cell size in pixels
  int rows = 0, cols = 0;           // cells: rows * cols, row-major
  std::vector<CellInstance> cells;  // the cells
  bool dirty = true;                // cells changed since the last upload
  unsigned texture = 0;             // GL texture holding them (the renderer's)

  // True when `key` differs from the one the cells were built for; then the grid is reset to
  // rows x cols empty cells at (x, y) for the panel to fill.
  bool stale(uint64_t new_key, float x0, float y0, float w, float h, int nrows, int ncols) {
    if (new_key == key) return false;
    key = new_key;
    x = x0;
    y = y0;
    cell_w = w;
    cell_h = h;
    rows = nrows > 0 ? nrows : 0;
    cols = ncols > 0 ? ncols : 0;
    cells.assign(static_cast<size_t>(rows) * cols, CellInstance{});
    dirty = true;
    return true;
  }
  CellInstance& at(int row, int col) { return cells[static_cast<size_t>(row) * cols + col]; }
};

// Hashes the values a grid is built from into a CellGrid key (FNV-1a over their bytes).
class GridKey {
 public:
  template <typename T>
  GridKey& add(const T& v) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(&v);
    for (size_t i = 0; i < sizeof(T); ++i) h_ = (h_ ^ p[i]) * 1099511628211ull;
    return *this;
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 14695981039346656037ull;
};

// CompareTile/CompareBanks: a comparison's B side (panel_compare.cpp).
enum class GridId { Tile, Banks, Timeline, CompareTile, CompareBanks, Count };

class CellRenderer {
 public:
  // Loads shaders/cells.vert and .frag from shader_dir; false with the compiler's message.
  bool init(const std::string& shader_dir, std::string* error);
  void shutdown();
  // Forget the previous frame's batches (call once per frame before the panels). gap_color: what
  // shows between cells (the panel colour): cells are opaque and drawn without blending.
  void new_frame(ImU32 gap_color);
  // The persistent grid of one view.
  CellGrid& grid(GridId id) { return grids_[static_cast<int>(id)]; }
  // Draws the grid at this point of dl's command stream (uploading its cells if dirty).
  void draw(ImDrawList* dl, CellGrid& grid);
  size_t cells_last_frame() const { return cells_; }
  // The grid a draw command of this frame draws, or nullptr when it is not one of ours (exports
  // compare grids between frames to redraw only what changed: session.cpp ExportCanvas).
  static const CellGrid* grid_of(const ImDrawCmd& cmd);

 private:
  struct Batch {
    CellRenderer* self;
    CellGrid* grid;
  };
  static void callback(const ImDrawList* dl, const ImDrawCmd* cmd);
  void render(const Batch& b, const ImDrawCmd* cmd);
  std::deque<Batch> batches_;  // stable addresses until new_frame()
  CellGrid grids_[static_cast<int>(GridId::Count)];
  unsigned program_ = 0, vao_ = 0, quad_ = 0;
  int proj_ = -1, gap_loc_ = -1, rect_loc_ = -1, cell_loc_ = -1, dims_loc_ = -1, tex_loc_ = -1;
  ImU32 gap_color_ = 0;
  size_t cells_ = 0;
};

}  // namespace bankviz::gui
