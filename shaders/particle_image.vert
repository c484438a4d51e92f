#version 330 core
// One quad covering a pixel rectangle of the framebuffer, textured with an
// image of the same size (the particle splat or the history background).
uniform vec4 u_rect;         // x, y, width, height in px, y down
uniform vec2 u_framebuffer;
out vec2 v_texcoord;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 px = u_rect.xy + corner * u_rect.zw;
  v_texcoord = corner;  // texture row 0 is the top row of the image
  gl_Position = vec4(px.x / u_framebuffer.x * 2.0 - 1.0, 1.0 - px.y / u_framebuffer.y * 2.0, 0.0, 1.0);
}
