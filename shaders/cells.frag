#version 330 core
// A grid of cells, one texel per cell (RGBA32UI: fill, edge, stripe colours as packed RGBA8, and
// the border and gap widths in 1/16 px). Per pixel: (x, y) -> (col, row) -> that cell's texel.
// A cell: a gap of panel colour around it, an optional border inside, an optional diagonal hatch
// (padding elements are never part of the data, so they are striped, not coloured by bank), or
// the stripe colour as a ring inside the border (the border width's top bit: a conflict's outline
// set apart from the fill whatever its hue).
in vec2 v_pos;
uniform usampler2D cells;
uniform vec2 cell_size;   // pixels
uniform ivec2 dims;       // cols, rows
uniform vec4 gap_color;   // the panel behind the grid: gaps are painted, not blended
out vec4 out_color;

vec4 unpack(uint c) {
  return vec4(float(c & 255u), float((c >> 8) & 255u), float((c >> 16) & 255u),
              float(c >> 24)) / 255.0;
}

void main() {
  ivec2 cr = clamp(ivec2(floor(v_pos / cell_size)), ivec2(0), dims - 1);
  uvec4 t = texelFetch(cells, cr, 0);
  vec4 fill = unpack(t.x);
  float edge_px = float(t.w & 32767u) / 16.0;
  bool ring = (t.w & 32768u) != 0u;
  float gap = float(t.w >> 16) / 16.0;
  vec2 local = v_pos - vec2(cr) * cell_size;
  vec2 d2 = min(local, cell_size - local);
  float d = min(d2.x, d2.y);
  if (t.x == 0u || d < gap) {
    out_color = gap_color;
    return;
  }
  vec4 c = fill;
  vec4 stripe = unpack(t.z);
  if (stripe.a > 0.0 && !ring && mod(gl_FragCoord.x + gl_FragCoord.y, 7.0) < 2.5) c = stripe;
  if (stripe.a > 0.0 && ring && d < gap + edge_px + max(1.0, edge_px * 0.5)) c = stripe;
  vec4 edge = unpack(t.y);
  if (edge.a > 0.0 && d < gap + edge_px) c = edge;
  out_color = c;
}
