#version 330 core
in vec4 v_color;
in vec2 v_local_px;
in vec2 v_size_px;
out vec4 frag_color;

void main() {
  vec4 color = v_color;
  // A darker 1 px edge separates neighbouring boxes of the same color, but only
  // on boxes big enough that the edge reads as an outline and not as noise.
  if (v_size_px.x >= 6.0 && v_size_px.y >= 6.0) {
    vec2 to_edge = min(v_local_px, v_size_px - v_local_px);
    if (min(to_edge.x, to_edge.y) < 1.0) color.rgb *= 0.55;
  }
  frag_color = color;
}
