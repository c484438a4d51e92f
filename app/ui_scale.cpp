#include "app/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace weft::app {

float window_ui_scale(GLFWwindow* window, float requested) {
  float scale = requested;
  if (!(scale > 0)) {
    float x = 1, y = 1;
    glfwGetWindowContentScale(window, &x, &y);
    scale = std::max(x, y);
  }
  // Quarter steps: text rasterized at a fractional size looks blurry.
  return std::clamp(std::round(scale * 4.0f) / 4.0f, 1.0f, 4.0f);
}

LayoutSize apply_ui_scale(GLFWwindow* window, float scale) {
  int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
  glfwGetFramebufferSize(window, &fb_w, &fb_h);
  glfwGetWindowSize(window, &win_w, &win_h);
  const LayoutSize layout{static_cast<int>(fb_w / scale), static_cast<int>(fb_h / scale)};
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(layout.width), static_cast<float>(layout.height));
  io.DisplayFramebufferScale = ImVec2(scale, scale);
  // The GLFW backend reports the mouse in window coordinates: framebuffer
  // pixels on X11 and Windows, points on macOS and Wayland.
  if (win_w > 0 && win_h > 0 && ImGui::IsMousePosValid(&io.MousePos)) {
    io.MousePos.x *= static_cast<float>(fb_w) / static_cast<float>(win_w) / scale;
    io.MousePos.y *= static_cast<float>(fb_h) / static_cast<float>(win_h) / scale;
  }
  return layout;
}

}  // namespace weft::app
