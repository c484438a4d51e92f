#version 330 core
// The history background (particle-animation.txt §3.2.2):
// P = C × (O_min + (1 − O_min) · ln D / ln D_max), C the mean deposited
// color, as straight alpha; the same rule as history_tone_factor.
uniform sampler2D u_density;
uniform sampler2D u_color;
uniform sampler2D u_max;     // one texel: D_max
uniform vec2 u_origin;       // the plot's bottom-left corner in layout units, y up
uniform float u_scale;       // framebuffer pixels per layout unit (gl_FragCoord is in pixels)
uniform float u_omin;
out vec4 frag_color;

void main() {
  ivec2 texel = ivec2(gl_FragCoord.xy / u_scale - u_origin);
  float d = texelFetch(u_density, texel, 0).r;
  if (d < 1.0) discard;
  float dmax = texelFetch(u_max, ivec2(0), 0).r;
  float factor = dmax > 1.0 ? u_omin + (1.0 - u_omin) * clamp(log(d) / log(dmax), 0.0, 1.0) : 1.0;
  frag_color = vec4(texelFetch(u_color, texel, 0).rgb / d, factor);
}
