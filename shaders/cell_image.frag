#version 330 core
in vec2 v_texcoord;
uniform sampler2D u_cells;
out vec4 frag_color;

void main() {
  vec4 c = texture(u_cells, v_texcoord);
  if (c.a == 0.0) discard;  // an empty cell shows the row bands
  frag_color = c;
}
