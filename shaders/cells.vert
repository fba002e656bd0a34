#version 330 core
// One quad covering a whole grid of cells (rows x cols); the fragment shader finds the cell.
layout(location = 0) in vec2 corner;  // 0..1
uniform mat4 proj;
uniform vec4 rect;  // x, y, width, height of the whole grid in window pixels
out vec2 v_pos;     // window pixels relative to the grid's top-left corner
void main() {
  v_pos = corner * rect.zw;
  gl_Position = proj * vec4(rect.xy + v_pos, 0.0, 1.0);
}
