// cells.cpp: the instanced cell renderer (see cells.h).
#include "cells.h"

#include <glad/gl.h>

#include <cstddef>
#include <fstream>
#include <sstream>

namespace bankviz::gui {

namespace {

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
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
  if (!read_file(dir + "/cells.vert", &vs) || !read_file(dir + "/cells.frag", &fs)) {
    *error = "cannot read shaders cells.vert/cells.frag in " + dir;
    return false;
  }
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

  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  const float quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
  glGenBuffers(1, &quad_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);

  glGenBuffers(1, &instances_);
  glBindBuffer(GL_ARRAY_BUFFER, instances_);
  const GLsizei stride = sizeof(CellInstance);
  auto attr = [&](GLuint loc, GLint n, GLenum type, GLboolean norm, size_t off) {
    glEnableVertexAttribArray(loc);
    glVertexAttribPointer(loc, n, type, norm, stride, reinterpret_cast<const void*>(off));
    glVertexAttribDivisor(loc, 1);
  };
  attr(1, 4, GL_FLOAT, GL_FALSE, offsetof(CellInstance, x));
  attr(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(CellInstance, fill));
  attr(3, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(CellInstance, edge));
  attr(4, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(CellInstance, stripe));
  attr(5, 2, GL_FLOAT, GL_FALSE, offsetof(CellInstance, edge_px));
  glBindVertexArray(0);
  return true;
}

void CellRenderer::shutdown() {
  if (instances_) glDeleteBuffers(1, &instances_);
  if (quad_) glDeleteBuffers(1, &quad_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
  program_ = vao_ = quad_ = instances_ = 0;
}

void CellRenderer::new_frame() {
  batches_.clear();
  cells_ = 0;
}

void CellRenderer::draw(ImDrawList* dl, std::vector<CellInstance> cells) {
  if (cells.empty() || !program_) return;
  cells_ += cells.size();
  batches_.push_back(Batch{this, std::move(cells)});
  dl->AddCallback(&CellRenderer::callback, &batches_.back());
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void CellRenderer::callback(const ImDrawList*, const ImDrawCmd* cmd) {
  const Batch* b = static_cast<const Batch*>(cmd->UserCallbackData);
  b->self->render(*b, cmd);
}

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
  glEnable(GL_SCISSOR_TEST);
  glScissor(static_cast<GLint>(x0), static_cast<GLint>(fb_h - y1), static_cast<GLsizei>(x1 - x0),
            static_cast<GLsizei>(y1 - y0));
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glUseProgram(program_);
  glUniformMatrix4fv(proj_, 1, GL_FALSE, proj);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, instances_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(b.cells.size() * sizeof(CellInstance)),
               b.cells.data(), GL_STREAM_DRAW);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(b.cells.size()));
  glBindVertexArray(0);
}

}  // namespace bankviz::gui
