#version 330 core
// One instance per live particle (particle-animation.txt §3.2.2), moved here
// on the GPU: its height is the log of its age, ln(age) / ln(d_max) of the
// plot, frozen at its duration once the event has ended, then it fades.
// Same rules and pixel snapping as the CPU path (render/particle_field.cpp).
// Times are whole ns in two 32-bit halves (low, high; render/particle_instances.h)
// and are subtracted as integers, so an age is exact anywhere in the run.
layout(location = 0) in vec2 a_place;   // x share, process segment
layout(location = 1) in uvec2 a_start;  // start ns
layout(location = 2) in float a_duration;  // ns
layout(location = 3) in vec4 a_color;

uniform vec4 u_plot;          // x, y, width, height in px
uniform vec2 u_framebuffer;
uniform uvec2 u_now;          // ns
uniform float u_ln_dmax;
uniform float u_fade_ns;
uniform float u_process_count;
uniform float u_dot;

out vec4 v_color;

// now - start: the 64-bit difference with its borrow, then one rounding.
float since_start() {
  uint low = u_now.x - a_start.x;
  int high = int(u_now.y) - int(a_start.y) - (u_now.x < a_start.x ? 1 : 0);
  return float(high) * 4294967296.0 + float(low);
}

void main() {
  float running = since_start();
  float age = min(running, a_duration);
  float share = age > 1.0 ? min(1.0, log(age) / u_ln_dmax) : 0.0;
  float since_end = running - a_duration;
  float alpha = since_end < 0.0 ? 1.0 : (u_fade_ns > 0.0 ? max(0.0, 1.0 - since_end / u_fade_ns) : 0.0);
  if (running < 0.0) alpha = 0.0;
  float segment = u_plot.z / u_process_count;
  float lo = ceil(a_place.y * segment - 1e-4);
  float hi = max(lo, ceil((a_place.y + 1.0) * segment - 1e-4) - 1.0);
  float half_dot = floor(u_dot * 0.5);
  float x = floor(a_place.x * u_plot.z);
  if (hi - lo + 1.0 >= u_dot) x = clamp(x, lo + half_dot, hi - half_dot);
  float y = floor(u_plot.w - 1.0 - share * (u_plot.w - 1.0) + 0.5);
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 px = u_plot.xy + vec2(x, y) - vec2(half_dot) + corner * u_dot;
  v_color = vec4(a_color.rgb, a_color.a * alpha);
  gl_Position = vec4(px.x / u_framebuffer.x * 2.0 - 1.0, 1.0 - px.y / u_framebuffer.y * 2.0, 0.0, 1.0);
  if (alpha <= 0.0) gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // culled
}
