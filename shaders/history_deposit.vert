#version 330 core
// One retired particle laid into the history textures (history_textures.h):
// its dot, clipped to its process segment and the plot, as a quad of whole
// pixels. Pixel rows count down from the top of the plot.
layout(location = 0) in vec4 a_place;  // x, y (dot centre), x_lo, x_hi (segment columns)
layout(location = 1) in vec4 a_color;
uniform vec2 u_size;                   // the textures' width and height
uniform float u_dot;
out vec3 v_color;

void main() {
  float half_dot = floor(u_dot * 0.5);
  float x0 = max(max(a_place.x - half_dot, a_place.z), 0.0);
  float x1 = min(min(a_place.x - half_dot + u_dot - 1.0, a_place.w), u_size.x - 1.0);
  float y0 = max(a_place.y - half_dot, 0.0);
  float y1 = min(a_place.y - half_dot + u_dot - 1.0, u_size.y - 1.0);
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  // Pixel edges: the quad covers columns x0..x1 and rows y0..y1 exactly.
  vec2 px = vec2(mix(x0, x1 + 1.0, corner.x), mix(y0, y1 + 1.0, corner.y));
  if (x1 < x0) px = vec2(-1.0);  // clipped away: a degenerate quad
  v_color = a_color.rgb;
  gl_Position = vec4(px.x / u_size.x * 2.0 - 1.0, 1.0 - px.y / u_size.y * 2.0, 0.0, 1.0);
}
