#version 330 core
// Additive blending sums these: one more particle here, and its color.
in vec3 v_color;
layout(location = 0) out float density;
layout(location = 1) out vec4 color_sum;

void main() {
  density = 1.0;
  color_sum = vec4(v_color, 0.0);
}
