#version 330 core
// Alternating shades behind the rows, so a row stays traceable across a wide
// view even where it is mostly empty.
uniform vec2 u_row_map;
uniform vec2 u_framebuffer;  // in layout units
uniform float u_scale;       // framebuffer pixels per layout unit (gl_FragCoord is in pixels)
uniform float u_row_count;
uniform vec4 u_even_color;
uniform vec4 u_odd_color;
// Rows from u_runtime_row on (the Charm++ runtime chares at the bottom of a
// task run's logical view) get a grey shade of their own.
uniform float u_runtime_row;
uniform vec4 u_runtime_even_color;
uniform vec4 u_runtime_odd_color;
out vec4 frag_color;

void main() {
  float y_px = u_framebuffer.y - gl_FragCoord.y / u_scale;
  float row = floor((y_px - u_row_map.y) / u_row_map.x);
  if (row < 0.0 || row >= u_row_count) discard;
  bool even = mod(row, 2.0) < 0.5;
  if (row >= u_runtime_row)
    frag_color = even ? u_runtime_even_color : u_runtime_odd_color;
  else
    frag_color = even ? u_even_color : u_odd_color;
}
