// cells.h: grids of cells drawn by our GLSL shaders (shaders/cells.*), one instanced draw per grid.
//
// A panel fills a vector of CellInstance and hands it to draw(); the renderer inserts a callback
// into the panel's ImDrawList, so the cells land between the panel's background and the labels
// ImGui draws afterwards, clipped like the rest of the panel.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "imgui.h"

namespace bankviz::gui {

struct CellInstance {
  float x = 0, y = 0, w = 0, h = 0;  // window pixels
  ImU32 fill = 0;                    // IM_COL32 (bytes r, g, b, a in memory)
  ImU32 edge = 0;                    // border; alpha 0 = none
  ImU32 stripe = 0;                  // hatch; alpha 0 = solid
  float edge_px = 0;                 // border width
  float gap_px = 0;                  // background gap around the cell
};

class CellRenderer {
 public:
  // Loads shaders/cells.vert and .frag from shader_dir; false with the compiler's message.
  bool init(const std::string& shader_dir, std::string* error);
  void shutdown();
  // Forget the previous frame's batches (call once per frame before the panels).
  void new_frame();
  // Draws these cells at this point of dl's command stream.
  void draw(ImDrawList* dl, std::vector<CellInstance> cells);
  size_t cells_last_frame() const { return cells_; }

 private:
  struct Batch {
    CellRenderer* self;
    std::vector<CellInstance> cells;
  };
  static void callback(const ImDrawList* dl, const ImDrawCmd* cmd);
  void render(const Batch& b, const ImDrawCmd* cmd);
  std::deque<Batch> batches_;  // stable addresses until new_frame()
  unsigned program_ = 0, vao_ = 0, quad_ = 0, instances_ = 0;
  int proj_ = -1;
  size_t cells_ = 0;
};

}  // namespace bankviz::gui
