// kept_canvas.h: frames drawn only where they changed, into a framebuffer that keeps the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/svg.h"
#include "imgui.h"

namespace bankviz::gui {

// An export's framebuffer between its frames. Consecutive beats differ in a few cells, lane
// digits and words, and a software rasterizer spent most of a GIF's time drawing the unchanged
// rest of every frame again (BENCHMARKS.md). So after a job's first frame, a frame is drawn only
// inside the rectangles where its draw data differs from the previous frame's: ImGui's triangles
// that changed (their old and new corners) and each cell grid's changed cells. Every command
// still runs, clipped to each rectangle, and each pixel is computed on its own, so the pixels
// are those a whole frame would have drawn; the framebuffer keeps the rest. Draw lists are matched
// by their window; a label that gains or loses glyphs is dirty between the triangles both frames
// share at its start and end. Anything that could change more (size, clear colour, fonts) draws
// the whole frame, and so do more than a few rectangles or half the frame. The browser's window
// frames are drawn through one too (platform.h keeps_frame): a frame equal to the last one draws
// nothing, so a paused page, or one playing between two beats, costs the rasterizer nothing.
class ExportCanvas {
 public:
  ExportCanvas();
  ~ExportCanvas();
  ExportCanvas(const ExportCanvas&) = delete;
  ExportCanvas& operator=(const ExportCanvas&) = delete;
  // Draws the frame ImGui::Render() built into the bound framebuffer (w x h, holding the previous
  // frame this canvas drew), cleared to bg where drawn.
  void draw(ImDrawData* dd, const Rgba& bg, int w, int h);
  // The next frame is drawn whole (a new job, or a framebuffer that lost its pixels).
  void reset();
  // Frames drawn, of them whole, and rectangles drawn (for --frame-times and tests).
  int frames() const { return frames_; }
  int whole_frames() const { return whole_frames_; }
  int rects() const { return static_cast<int>(rects_); }

 private:
  struct List;
  std::vector<ImVec4> changed(const ImDrawData* dd, const Rgba& bg, int w, int h) const;
  std::vector<List> lists_;
  bool valid_ = false;
  int width_ = 0, height_ = 0;
  uint32_t bg_ = 0;
  ImTextureID font_tex_{};
  float font_px_ = 0;
  int frames_ = 0, whole_frames_ = 0;
  size_t rects_ = 0;
};

}  // namespace bankviz::gui
