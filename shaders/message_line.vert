#version 330 core
// One instance per message: a quad of width 2 * u_half_width px from the send
// point (send time, middle of the sender's row) to the receive point.
layout(location = 0) in vec2 a_time;  // send, receive in ns from the geometry origin
layout(location = 1) in vec2 a_rows;  // sender row, receiver row

uniform vec2 u_time_map;
uniform vec2 u_row_map;
uniform vec2 u_framebuffer;
uniform float u_half_width;

out float v_along;  // 0 at the send end, 1 at the receive end
out float v_across; // px from the line's center

void main() {
  vec2 p0 = vec2(a_time.x * u_time_map.x + u_time_map.y, (a_rows.x + 0.5) * u_row_map.x + u_row_map.y);
  vec2 p1 = vec2(a_time.y * u_time_map.x + u_time_map.y, (a_rows.y + 0.5) * u_row_map.x + u_row_map.y);
  vec2 dir = p1 - p0;
  float len = length(dir);
  dir = len > 1e-3 ? dir / len : vec2(1.0, 0.0);
  vec2 normal = vec2(-dir.y, dir.x);
  int end = gl_VertexID >> 1;
  float side = (gl_VertexID & 1) == 0 ? -1.0 : 1.0;
  // One extra px each side holds the edge fade that anti-aliases the line.
  float reach = u_half_width + 1.0;
  vec2 px = (end == 0 ? p0 : p1) + normal * side * reach;
  v_along = float(end);
  v_across = side * reach;
  gl_Position = vec4(px.x / u_framebuffer.x * 2.0 - 1.0, 1.0 - px.y / u_framebuffer.y * 2.0,
                     0.0, 1.0);
}
