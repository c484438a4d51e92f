#version 330 core
in vec2 v_texcoord;
uniform sampler2D u_image;  // straight alpha
out vec4 frag_color;

void main() {
  vec4 c = texture(u_image, v_texcoord);
  if (c.a == 0.0) discard;
  frag_color = c;
}
