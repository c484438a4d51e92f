#version 330 core
// One max-reduction step: each texel of the smaller level is the largest
// density of the 4 × 4 block it covers in the level below.
uniform sampler2D u_source;
uniform ivec2 u_source_size;
out float max_density;

void main() {
  ivec2 base = ivec2(gl_FragCoord.xy) * 4;
  float m = 0.0;
  for (int dy = 0; dy < 4; ++dy)
    for (int dx = 0; dx < 4; ++dx) {
      ivec2 p = base + ivec2(dx, dy);
      if (p.x < u_source_size.x && p.y < u_source_size.y) m = max(m, texelFetch(u_source, p, 0).r);
    }
  max_density = m;
}
