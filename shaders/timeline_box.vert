#version 330 core
// One instance per event interval; the four vertices of its rectangle come
// from gl_VertexID (a triangle strip), so no per-vertex buffer exists.
layout(location = 0) in vec2 a_span;   // start, end in ns from the geometry origin
layout(location = 1) in vec2 a_row;    // timeline row, call-stack depth
layout(location = 2) in vec4 a_color;  // RGBA8, normalized
layout(location = 3) in float a_height; // rows covered (1; more for a level-of-detail block)

uniform vec2 u_time_map;     // x_px = t * u_time_map.x + u_time_map.y
uniform vec2 u_row_map;      // y_px of a row's top edge = row * u_row_map.x + u_row_map.y
uniform vec2 u_framebuffer;  // framebuffer size in px (y_px grows downwards)
uniform float u_row_gap;     // px left empty under each row
uniform float u_depth_inset; // px each nesting level is inset at top and bottom
uniform int u_highlight;     // instance drawn brighter (-1: none)

out vec4 v_color;
out vec2 v_local_px;
out vec2 v_size_px;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  // Clamp to just outside the framebuffer: far-away edges of long events would
  // otherwise be 1e9 px away and cost float precision in the outline test.
  float x0 = clamp(a_span.x * u_time_map.x + u_time_map.y, -8.0, u_framebuffer.x + 8.0);
  float x1 = clamp(a_span.y * u_time_map.x + u_time_map.y, -8.0, u_framebuffer.x + 8.0);
  x1 = max(x1, x0 + 1.0);  // an event shorter than a pixel still shows as one
  float row_top = a_row.x * u_row_map.x + u_row_map.y;
  float row_height = max(a_height * u_row_map.x - u_row_gap, 1.0);
  float inset = min(a_row.y * u_depth_inset, 0.5 * row_height - 1.0);
  inset = max(inset, 0.0);
  float y0 = row_top + inset;
  float y1 = max(row_top + row_height - inset, y0 + 1.0);

  vec2 px = vec2(mix(x0, x1, corner.x), mix(y0, y1, corner.y));
  v_size_px = vec2(x1 - x0, y1 - y0);
  v_local_px = corner * v_size_px;
  v_color = a_color;
  if (gl_InstanceID == u_highlight) v_color.rgb = mix(v_color.rgb, vec3(1.0), 0.45);
  gl_Position = vec4(px.x / u_framebuffer.x * 2.0 - 1.0, 1.0 - px.y / u_framebuffer.y * 2.0,
                     0.0, 1.0);
}
