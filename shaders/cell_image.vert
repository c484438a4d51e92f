#version 330 core
// One quad covering a level-of-detail grid: its texels are the cells, so a
// zoomed-out view costs one textured quad instead of an instance per cell.
uniform vec2 u_time_map;     // x_px = x * u_time_map.x + u_time_map.y (x from the geometry origin)
uniform vec2 u_row_map;      // y_px of a row's top edge = row * u_row_map.x + u_row_map.y
uniform vec2 u_framebuffer;
uniform vec4 u_extent;       // x0, x1 (from the origin), row0, row1 of the grid

out vec2 v_texcoord;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 lo = vec2(u_extent.x * u_time_map.x + u_time_map.y, u_extent.z * u_row_map.x + u_row_map.y);
  vec2 hi = vec2(u_extent.y * u_time_map.x + u_time_map.y, u_extent.w * u_row_map.x + u_row_map.y);
  // Far-away edges are clamped just outside the framebuffer (float precision);
  // the texture coordinates follow the clamped corner so cells stay in place.
  vec2 px = clamp(mix(lo, hi, corner), vec2(-8.0), u_framebuffer + vec2(8.0));
  v_texcoord = (px - lo) / max(hi - lo, vec2(1e-6));
  float x = px.x;
  float y = px.y;
  gl_Position = vec4(x / u_framebuffer.x * 2.0 - 1.0, 1.0 - y / u_framebuffer.y * 2.0, 0.0, 1.0);
}
