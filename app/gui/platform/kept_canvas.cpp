// kept_canvas.cpp: frames drawn only where they changed (see kept_canvas.h).
#include "platform/kept_canvas.h"

#include "platform/gl.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>

#include "backends/imgui_impl_opengl3.h"
#include "platform/cells.h"
#include "platform/theme.h"

namespace bankviz::gui {

namespace {

using PxRect = ImVec4;  // x0, y0, x1, y1 in pixels (panels.h has a PxRect of its own)

void add_point(PxRect* r, ImVec2 p) {
  r->x = std::min(r->x, p.x);
  r->y = std::min(r->y, p.y);
  r->z = std::max(r->z, p.x);
  r->w = std::max(r->w, p.y);
}

PxRect empty_rect() {
  return {FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX};
}

PxRect intersect(const PxRect& a, const PxRect& b) {
  return {std::max(a.x, b.x), std::max(a.y, b.y), std::min(a.z, b.z), std::min(a.w, b.w)};
}

bool is_empty(const PxRect& r) {
  return !(r.z > r.x && r.w > r.y);
}

bool same_vertex(const ImDrawVert& a, const ImDrawVert& b) {
  return a.pos.x == b.pos.x && a.pos.y == b.pos.y && a.uv.x == b.uv.x && a.uv.y == b.uv.y &&
         a.col == b.col;
}

uint32_t rgb_of(const Rgba& c) {
  return static_cast<uint32_t>(c.r) << 16 | static_cast<uint32_t>(c.g) << 8 | c.b;
}

bool same_cell(const CellInstance& a, const CellInstance& b) {
  return a.fill == b.fill && a.edge == b.edge && a.stripe == b.stripe && a.edge_px == b.edge_px &&
         a.ring == b.ring && a.gap_px == b.gap_px;
}

}  // namespace

struct ExportCanvas::List {
  std::string owner;  // the window that drew it (lists are matched by it between frames)
  std::vector<ImDrawVert> vtx;
  std::vector<ImDrawIdx> idx;
  std::vector<ImDrawCmd> cmd;
  std::vector<std::optional<CellGrid>> grids;  // per command: the cells it drew, if any
};

ExportCanvas::ExportCanvas() = default;
ExportCanvas::~ExportCanvas() = default;

void ExportCanvas::reset() {
  lists_.clear();
  valid_ = false;
}

std::vector<ImVec4> ExportCanvas::changed(const ImDrawData* dd, const Rgba& bg, int w,
                                          int h) const {
  const PxRect whole = {0, 0, static_cast<float>(w), static_cast<float>(h)};
  if (!valid_ || w != width_ || h != height_ || rgb_of(bg) != bg_ ||
      ImGui::GetIO().Fonts->TexID != font_tex_ || g_fonts.size != font_px_)
    return {whole};
  std::vector<PxRect> dirty;
  auto add = [&](PxRect r, const PxRect& clip) {
    r = intersect(r, clip);
    if (!is_empty(r)) dirty.push_back(r);
  };
  // Each list against the previous frame's list of the same window; a window that came or went
  // is dirty wherever it draws.
  std::vector<bool> matched(lists_.size(), false);
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    const ImDrawList& now = *dd->CmdLists[l];
    const std::string owner = now._OwnerName ? now._OwnerName : "";
    size_t m = lists_.size();
    for (size_t i = 0; i < lists_.size() && m == lists_.size(); ++i)
      if (!matched[i] && lists_[i].owner == owner) m = i;
    if (m == lists_.size()) {
      for (const ImDrawCmd& b : now.CmdBuffer) add(b.ClipRect, whole);
      continue;
    }
    matched[m] = true;
    const List& was = lists_[m];
    const bool same_shape = now.CmdBuffer.Size == static_cast<int>(was.cmd.size());
    for (int k = 0; same_shape && k < now.CmdBuffer.Size; ++k) {
      const ImDrawCmd& a = was.cmd[static_cast<size_t>(k)];
      const ImDrawCmd& b = now.CmdBuffer[k];
      const PxRect clip_a = a.ClipRect, clip_b = b.ClipRect;
      const bool same_clip = clip_a.x == clip_b.x && clip_a.y == clip_b.y && clip_a.z == clip_b.z &&
                             clip_a.w == clip_b.w;
      if (a.UserCallback != b.UserCallback || a.TextureId != b.TextureId || !same_clip ||
          (b.UserCallback && a.ElemCount != b.ElemCount)) {
        // Something else is drawn here: all of both commands' clip rectangles.
        add(clip_a, whole);
        add(clip_b, whole);
        continue;
      }
      if (b.UserCallback) {
        // Our cells (any other callback draws nothing): the box of the cells that changed.
        const CellGrid* g = CellRenderer::grid_of(b);
        const std::optional<CellGrid>& old = was.grids[static_cast<size_t>(k)];
        if (!g) continue;
        if (!old || old->x != g->x || old->y != g->y || old->cell_w != g->cell_w ||
            old->cell_h != g->cell_h || old->rows != g->rows || old->cols != g->cols) {
          add(clip_b, whole);
          continue;
        }
        PxRect box = empty_rect();
        for (int row = 0; row < g->rows; ++row)
          for (int col = 0; col < g->cols; ++col) {
            const size_t i = static_cast<size_t>(row) * g->cols + col;
            if (same_cell(old->cells[i], g->cells[i])) continue;
            add_point(&box, {g->x + col * g->cell_w, g->y + row * g->cell_h});
            add_point(&box, {g->x + (col + 1) * g->cell_w, g->y + (row + 1) * g->cell_h});
          }
        add(box, clip_b);
        continue;
      }
      // Triangles, compared by their corners' values: the ones that differ, old and new, between
      // the common start and the common end (a label with more or fewer glyphs shifts the
      // triangles after it in the buffer, not on screen). Outside their box both frames draw the
      // same triangles in the same order.
      const auto corner = [](const List& list, const ImDrawCmd& cmd, unsigned t,
                             unsigned v) -> const ImDrawVert* {
        const size_t i = cmd.IdxOffset + t * 3 + v;
        if (i >= list.idx.size()) return nullptr;
        const size_t k = cmd.VtxOffset + list.idx[i];
        return k < list.vtx.size() ? &list.vtx[k] : nullptr;
      };
      const auto corner_now = [&](unsigned t, unsigned v) -> const ImDrawVert* {
        const size_t i = b.IdxOffset + t * 3 + v;
        if (i >= static_cast<size_t>(now.IdxBuffer.Size)) return nullptr;
        const size_t k = b.VtxOffset + now.IdxBuffer[static_cast<int>(i)];
        return k < static_cast<size_t>(now.VtxBuffer.Size) ? &now.VtxBuffer[static_cast<int>(k)]
                                                           : nullptr;
      };
      const auto same_tri = [&](unsigned ta, unsigned tb) {
        for (unsigned v = 0; v < 3; ++v) {
          const ImDrawVert* x = corner(was, a, ta, v);
          const ImDrawVert* y = corner_now(tb, v);
          if (!x || !y || !same_vertex(*x, *y)) return false;
        }
        return true;
      };
      const unsigned na = a.ElemCount / 3, nb = b.ElemCount / 3;
      unsigned head = 0, tail = 0;
      while (head < na && head < nb && same_tri(head, head)) ++head;
      while (tail < na - head && tail < nb - head && same_tri(na - 1 - tail, nb - 1 - tail)) ++tail;
      PxRect box = empty_rect();
      for (unsigned t = head; t < na - tail; ++t) {
        bool all_same = na == nb;  // equal counts: only the triangles that differ
        if (all_same) all_same = same_tri(t, t);
        if (all_same) continue;
        for (unsigned v = 0; v < 3; ++v)
          if (const ImDrawVert* x = corner(was, a, t, v)) add_point(&box, x->pos);
        if (na == nb)
          for (unsigned v = 0; v < 3; ++v)
            if (const ImDrawVert* y = corner_now(t, v)) add_point(&box, y->pos);
      }
      if (na != nb)
        for (unsigned t = head; t < nb - tail; ++t)
          for (unsigned v = 0; v < 3; ++v)
            if (const ImDrawVert* y = corner_now(t, v)) add_point(&box, y->pos);
      add(box, clip_b);
    }
    if (!same_shape) {
      // Commands came or went: everything either frame drew in this list.
      for (const ImDrawCmd& a : was.cmd) add(a.ClipRect, whole);
      for (const ImDrawCmd& b : now.CmdBuffer) add(b.ClipRect, whole);
    }
  }
  for (size_t i = 0; i < lists_.size(); ++i)
    if (!matched[i])
      for (const ImDrawCmd& a : lists_[i].cmd) add(a.ClipRect, whole);
  // Whole pixels, a pixel of margin; overlapping rectangles merged; many become one.
  for (PxRect& r : dirty)
    r = intersect(
        {std::floor(r.x) - 1, std::floor(r.y) - 1, std::ceil(r.z) + 1, std::ceil(r.w) + 1}, whole);
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < dirty.size() && !merged; ++i)
      for (size_t j = i + 1; j < dirty.size() && !merged; ++j)
        if (!is_empty(intersect(dirty[i], dirty[j]))) {
          add_point(&dirty[i], {dirty[j].x, dirty[j].y});
          add_point(&dirty[i], {dirty[j].z, dirty[j].w});
          dirty.erase(dirty.begin() + static_cast<long>(j));
          merged = true;
        }
  }
  constexpr size_t kMostRects = 6;
  double area = 0;
  for (const PxRect& r : dirty) area += static_cast<double>(r.z - r.x) * (r.w - r.y);
  if (dirty.size() > kMostRects || area > 0.5 * w * h) return {whole};
  return dirty;
}

void ExportCanvas::draw(ImDrawData* dd, const Rgba& bg, int w, int h) {
  const std::vector<PxRect> rects = changed(dd, bg, w, h);
  glClearColor(bg.r / 255.f, bg.g / 255.f, bg.b / 255.f, 1);
  // Every command runs inside each rectangle, clipped to it: the pixels come out as a whole
  // frame's would (each is computed on its own), and the framebuffer keeps the rest.
  std::vector<ImVec4> clips;
  for (int l = 0; l < dd->CmdListsCount; ++l)
    for (const ImDrawCmd& cmd : dd->CmdLists[l]->CmdBuffer) clips.push_back(cmd.ClipRect);
  for (const PxRect& r : rects) {
    glEnable(GL_SCISSOR_TEST);
    glScissor(static_cast<GLint>(r.x), static_cast<GLint>(h - r.w), static_cast<GLsizei>(r.z - r.x),
              static_cast<GLsizei>(r.w - r.y));
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    size_t i = 0;
    for (int l = 0; l < dd->CmdListsCount; ++l)
      for (ImDrawCmd& cmd : dd->CmdLists[l]->CmdBuffer) cmd.ClipRect = intersect(clips[i++], r);
    ImGui_ImplOpenGL3_RenderDrawData(dd);
  }
  ++frames_;
  rects_ += rects.size();
  if (rects.size() == 1 && rects[0].x == 0 && rects[0].y == 0 && rects[0].z == w && rects[0].w == h)
    ++whole_frames_;
  // What this frame drew, for the next one to compare with.
  size_t i = 0;
  lists_.resize(static_cast<size_t>(dd->CmdListsCount));
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    ImDrawList& now = *dd->CmdLists[l];
    List& keep = lists_[static_cast<size_t>(l)];
    keep.owner = now._OwnerName ? now._OwnerName : "";
    for (ImDrawCmd& cmd : now.CmdBuffer) cmd.ClipRect = clips[i++];
    keep.vtx.assign(now.VtxBuffer.begin(), now.VtxBuffer.end());
    keep.idx.assign(now.IdxBuffer.begin(), now.IdxBuffer.end());
    keep.cmd.assign(now.CmdBuffer.begin(), now.CmdBuffer.end());
    keep.grids.assign(keep.cmd.size(), std::nullopt);
    for (size_t k = 0; k < keep.cmd.size(); ++k)
      if (const CellGrid* g = CellRenderer::grid_of(keep.cmd[k])) {
        CellGrid copy;
        copy.x = g->x;
        copy.y = g->y;
        copy.cell_w = g->cell_w;
        copy.cell_h = g->cell_h;
        copy.rows = g->rows;
        copy.cols = g->cols;
        copy.cells = g->cells;
        keep.grids[k] = std::move(copy);
      }
  }
  width_ = w;
  height_ = h;
  bg_ = rgb_of(bg);
  font_tex_ = ImGui::GetIO().Fonts->TexID;
  font_px_ = g_fonts.size;
  valid_ = true;
}

}  // namespace bankviz::gui
