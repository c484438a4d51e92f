#version 330 core
// Message lines painted into a cell image (render/timeline_raster.h): per
// cell the sum S of the lines' anti-aliased coverage (1.0 = a whole line,
// stored as 256 of 65535), drawn in the lines' color. Lines drawn one by one
// (message_line.frag) over each other leave 1 - (1 - a)^n of their color for
// n whole lines of alpha a; 1 - (1 - a)^S is that, and close to it for
// partly covered pixels while a is small (many lines: their alpha is faded).
in vec2 v_texcoord;
uniform sampler2D u_cover;  // R16
uniform vec4 u_color;
out vec4 frag_color;

void main() {
  float cover = texture(u_cover, v_texcoord).r * (65535.0 / 256.0);
  if (cover <= 0.0) discard;
  frag_color = vec4(u_color.rgb, 1.0 - pow(1.0 - min(u_color.a, 0.999), cover));
}
