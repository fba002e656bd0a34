#version 330 core
// A cell: a gap of background around it, an optional border inside, an optional diagonal hatch
// (padding elements are never part of the data, so they are striped, not coloured by bank).
in vec2 v_local;
flat in vec2 v_size;
flat in vec4 v_fill;
flat in vec4 v_edge;
flat in vec4 v_stripe;
flat in vec2 v_params;
out vec4 out_color;
void main() {
  vec2 d2 = min(v_local, v_size - v_local);
  float d = min(d2.x, d2.y);
  float gap = v_params.y;
  if (d < gap) discard;
  vec4 c = v_fill;
  if (v_stripe.a > 0.0 && mod(gl_FragCoord.x + gl_FragCoord.y, 7.0) < 2.5) c = v_stripe;
  if (v_edge.a > 0.0 && d < gap + v_params.x) c = v_edge;
  out_color = c;
}
