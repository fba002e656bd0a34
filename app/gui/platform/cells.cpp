// cells.cpp: the cell-grid renderer (see cells.h).
#include "platform/cells.h"

#include "platform/gl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "bankviz/io.h"
#include "platform/platform.h"

namespace bankviz::gui {

namespace {

// Shaders come from data_dir(), which $BANKVIZ_DATA_DIR may point anywhere: read them like any
// user file (regular files only, 1 MB at most), so a FIFO or device there cannot hang the app.
bool read_file(const std::string& path, std::string* out, std::string* error) {
  TextRead r = read_text_file(path, int64_t{1} << 20);
  if (!r.text) {
    *error = "cannot read the shader " + r.error;
    return false;
  }
  // One text per shader in shaders/; the platform gives it its version line (GLSL ES in WebGL2).
  *out = shader_source(*r.text);
  return true;
}

GLuint compile(GLenum type, const std::string& src, const std::string& name, std::string* error) {
  GLuint s = glCreateShader(type);
  const char* p = src.c_str();
  glShaderSource(s, 1, &p, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    *error = name + ": " + log;
    glDeleteShader(s);
    return 0;
  }
  return s;
}

}  // namespace

bool CellRenderer::init(const std::string& dir, std::string* error) {
  std::string vs, fs;
  if (!read_file(dir + "/cells.vert", &vs, error) || !read_file(dir + "/cells.frag", &fs, error))
    return false;
  GLuint v = compile(GL_VERTEX_SHADER, vs, dir + "/cells.vert", error);
  if (!v) return false;
  GLuint f = compile(GL_FRAGMENT_SHADER, fs, dir + "/cells.frag", error);
  if (!f) {
    glDeleteShader(v);
    return false;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, v);
  glAttachShader(program_, f);
  glLinkProgram(program_);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    *error = std::string("linking cell shaders: ") + log;
    return false;
  }
  proj_ = glGetUniformLocation(program_, "proj");
  gap_loc_ = glGetUniformLocation(program_, "gap_color");
  rect_loc_ = glGetUniformLocation(program_, "rect");
  cell_loc_ = glGetUniformLocation(program_, "cell_size");
  dims_loc_ = glGetUniformLocation(program_, "dims");
  tex_loc_ = glGetUniformLocation(program_, "cells");

  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
  glGenBuffers(1, &quad_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glBindVertexArray(0);
  return true;
}

void CellRenderer::shutdown() {
  for (CellGrid& g : grids_) {
    if (g.texture) glDeleteTextures(1, &g.texture);
    g = CellGrid{};
  }
  if (quad_) glDeleteBuffers(1, &quad_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
  program_ = vao_ = quad_ = 0;
}

void CellRenderer::new_frame(ImU32 gap_color) {
  gap_color_ = gap_color;
  batches_.clear();
  cells_ = 0;
}

void CellRenderer::draw(ImDrawList* dl, CellGrid& grid) {
  if (grid.cells.empty() || !program_) return;
  cells_ += grid.cells.size();
  batches_.push_back(Batch{this, &grid});
  dl->AddCallback(&CellRenderer::callback, &batches_.back());
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

const CellGrid* CellRenderer::grid_of(const ImDrawCmd& cmd) {
  if (cmd.UserCallback != &CellRenderer::callback) return nullptr;
  return static_cast<const Batch*>(cmd.UserCallbackData)->grid;
}

void CellRenderer::callback(const ImDrawList*, const ImDrawCmd* cmd) {
  const Batch* b = static_cast<const Batch*>(cmd->UserCallbackData);
  b->self->render(*b, cmd);
}

namespace {

// A cell as one RGBA32UI texel: three packed colours, then border and gap widths in 1/16 px (the
// border's top bit: the stripe is a ring).
void upload(CellGrid& g) {
  std::vector<uint32_t> texels(g.cells.size() * 4);
  for (size_t i = 0; i < g.cells.size(); ++i) {
    const CellInstance& c = g.cells[i];
    auto fixed = [](float px) {
      return static_cast<uint32_t>(std::clamp(px * 16.0f, 0.0f, 65535.0f));
    };
    texels[i * 4 + 0] = c.fill;
    texels[i * 4 + 1] = c.edge;
    texels[i * 4 + 2] = c.stripe;
    texels[i * 4 + 3] =
        std::min(fixed(c.edge_px), 32767u) | (c.ring ? 32768u : 0u) | fixed(c.gap_px) << 16;
  }
  if (!g.texture) glGenTextures(1, &g.texture);
  glBindTexture(GL_TEXTURE_2D, g.texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32UI, g.cols, g.rows, 0, GL_RGBA_INTEGER, GL_UNSIGNED_INT,
               texels.data());
  g.dirty = false;
}

}  // namespace

void CellRenderer::render(const Batch& b, const ImDrawCmd* cmd) {
  ImDrawData* dd = ImGui::GetDrawData();
  float L = dd->DisplayPos.x, R = dd->DisplayPos.x + dd->DisplaySize.x;
  float T = dd->DisplayPos.y, B = dd->DisplayPos.y + dd->DisplaySize.y;
  const float proj[16] = {
      2.0f / (R - L),    0, 0, 0, 0, 2.0f / (T - B), 0, 0, 0, 0, -1, 0, (R + L) / (L - R),
      (T + B) / (B - T), 0, 1};
  // Clip like ImGui does: the command's clip rect, in framebuffer pixels, origin bottom-left.
  ImVec2 sc = dd->FramebufferScale;
  float fb_h = dd->DisplaySize.y * sc.y;
  ImVec4 c = cmd->ClipRect;
  float x0 = (c.x - L) * sc.x, y0 = (c.y - T) * sc.y, x1 = (c.z - L) * sc.x, y1 = (c.w - T) * sc.y;
  if (x1 <= x0 || y1 <= y0) return;
  CellGrid& g = *b.grid;
  if (g.rows <= 0 || g.cols <= 0) return;
  glEnable(GL_SCISSOR_TEST);
  glScissor(static_cast<GLint>(x0), static_cast<GLint>(fb_h - y1), static_cast<GLsizei>(x1 - x0),
            static_cast<GLsizei>(y1 - y0));
  // Cells are opaque and paint their own gaps: no blending, no discard. A software rasterizer
  // then writes each pixel once instead of reading it back.
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glUseProgram(program_);
  glUniformMatrix4fv(proj_, 1, GL_FALSE, proj);
  ImVec4 gc = ImGui::ColorConvertU32ToFloat4(gap_color_);
  glUniform4f(gap_loc_, gc.x, gc.y, gc.z, 1.0f);
  glUniform4f(rect_loc_, g.x, g.y, g.cell_w * g.cols, g.cell_h * g.rows);
  glUniform2f(cell_loc_, g.cell_w, g.cell_h);
  glUniform2i(dims_loc_, g.cols, g.rows);
  glUniform1i(tex_loc_, 0);
  glActiveTexture(GL_TEXTURE0);
  if (g.dirty || !g.texture) {
    upload(g);
  } else {
    glBindTexture(GL_TEXTURE_2D, g.texture);
  }
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
}

}  // namespace bankviz::gui
