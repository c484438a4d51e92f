#pragma once
// The UI scale: how many framebuffer pixels one layout unit takes. ImGui's
// coordinates, every panel's layout and the views' plot rectangles are in
// layout units; the GL renderers draw into the whole framebuffer, so at a
// scale of 2 the same layout is drawn with twice the pixels, text rasterized
// at twice the size (HiDPI screens; `weft view --ui-scale` for projectors;
// `weft render --scale` for print-quality images).
//
// The renderers take sizes in layout units and learn the scale from the GL
// viewport (render::device_scale), so nothing else needs to know it.
#include <GLFW/glfw3.h>

namespace weft::app {

// A size in layout units.
struct LayoutSize {
  int width = 0;
  int height = 0;
};

// The scale for a window: `requested` when positive (--ui-scale), else the
// window's content scale (the monitor's DPI over 96 on X11, the pixel ratio
// on macOS and Wayland), clamped to [1, 4].
float window_ui_scale(GLFWwindow* window, float requested);

// Call after ImGui_ImplGlfw_NewFrame and before ImGui::NewFrame: puts ImGui's
// display size, framebuffer scale and mouse position in layout units, and
// returns the layout size (the framebuffer's size over `scale`).
LayoutSize apply_ui_scale(GLFWwindow* window, float scale);

// The framebuffer pixels of a layout length (at least 1).
inline int device_pixels(float layout_units, float scale) {
  const int px = static_cast<int>(layout_units * scale + 0.5f);
  return px > 1 ? px : 1;
}

}  // namespace weft::app
