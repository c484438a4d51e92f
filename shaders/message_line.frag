#version 330 core
in float v_along;
in float v_across;
uniform vec4 u_color;
uniform float u_half_width;
out vec4 frag_color;

void main() {
  // Fainter at the send end: the direction of a message reads without arrowheads.
  // Coverage of this pixel by the line, so edges are smooth without multisampling.
  float coverage = clamp(u_half_width + 0.5 - abs(v_across), 0.0, 1.0);
  frag_color = vec4(u_color.rgb, u_color.a * coverage * mix(0.35, 1.0, v_along));
}
