#version 330 core
// A level-of-detail cell: its byte is an index into a 256-entry palette
// (render/timeline_geometry.h, CellImage); index 0 is an empty cell.
in vec2 v_texcoord;
uniform sampler2D u_cells;    // R8: one palette index per cell
uniform sampler2D u_palette;  // 256 x 1 RGBA8
out vec4 frag_color;

void main() {
  int index = int(texture(u_cells, v_texcoord).r * 255.0 + 0.5);
  if (index == 0) discard;  // an empty cell shows the row bands
  frag_color = texelFetch(u_palette, ivec2(index, 0), 0);
}
