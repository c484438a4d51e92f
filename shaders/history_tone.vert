#version 330 core
// The plot's rectangle of the framebuffer; the fragment shader reads the
// history texel under each pixel.
uniform vec4 u_rect;  // x, y, width, height in px, y down
uniform vec2 u_framebuffer;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 px = u_rect.xy + corner * u_rect.zw;
  gl_Position = vec4(px.x / u_framebuffer.x * 2.0 - 1.0, 1.0 - px.y / u_framebuffer.y * 2.0, 0.0, 1.0);
}
