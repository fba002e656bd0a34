#version 330 core
// Instanced cells: one unit quad, one instance per cell (tile element, bank word, timeline box).
layout(location = 0) in vec2 corner;   // 0..1
layout(location = 1) in vec4 rect;     // x, y, width, height in window pixels
layout(location = 2) in vec4 fill;     // cell colour
layout(location = 3) in vec4 edge;     // border colour (alpha 0: none)
layout(location = 4) in vec4 stripe;   // hatch colour for padding (alpha 0: solid)
layout(location = 5) in vec2 params;   // border width px, gap px
uniform mat4 proj;
out vec2 v_local;
flat out vec2 v_size;
flat out vec4 v_fill;
flat out vec4 v_edge;
flat out vec4 v_stripe;
flat out vec2 v_params;
void main() {
  v_local = corner * rect.zw;
  v_size = rect.zw;
  v_fill = fill;
  v_edge = edge;
  v_stripe = stripe;
  v_params = params;
  gl_Position = proj * vec4(rect.xy + v_local, 0.0, 1.0);
}
