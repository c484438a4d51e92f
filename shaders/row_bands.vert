#version 330 core
// A rectangle covering the plot area; the fragment shader picks each pixel's row.
uniform vec4 u_rect;         // x, y, width, height in px (y grows downwards)
uniform vec2 u_framebuffer;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 px = u_rect.xy + corner * u_rect.zw;
  gl_Position = vec4(px.x / u_framebuffer.x * 2.0 - 1.0, 1.0 - px.y / u_framebuffer.y * 2.0,
                     0.0, 1.0);
}
