#include "app/glfw_window.h"

#include <imgui_impl_glfw.h>

#include <cstdlib>

#include "common/error.h"

namespace weft::app {

GlfwWindow::GlfwWindow(int width, int height, const std::string& title, bool fullscreen) {
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland))
    throw Error("no display (DISPLAY and WAYLAND_DISPLAY are unset); use `weft render` for images");
  if (!glfwInit()) throw Error("no display: cannot initialize GLFW; use `weft render` for images");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  // No multisampling: on llvmpipe it costs 2x frame time; lines smooth their own edges.
  glfwWindowHint(GLFW_SAMPLES, 0);
  // On a HiDPI X11 or Windows screen the requested size grows with the
  // content scale, so the UI scale (ui_scale.h) leaves the layout as large
  // as on a 1x screen (macOS and Wayland sizes are in points already).
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  GLFWmonitor* monitor = fullscreen ? glfwGetPrimaryMonitor() : nullptr;
  if (monitor) {
    const GLFWvidmode* mode = glfwGetVideoMode(monitor);
    width = mode->width;
    height = mode->height;
  }
  window_ = glfwCreateWindow(width, height, title.c_str(), monitor, nullptr);
  if (!window_) {
    glfwTerminate();
    throw Error("cannot open an OpenGL 3.3 core window");
  }
  glfwMakeContextCurrent(window_);
}

GlfwWindow::~GlfwWindow() {
  glfwDestroyWindow(window_);
  glfwTerminate();
}

ImGuiGlfwBackend::ImGuiGlfwBackend(GLFWwindow* window) { ImGui_ImplGlfw_InitForOpenGL(window, true); }

ImGuiGlfwBackend::~ImGuiGlfwBackend() { ImGui_ImplGlfw_Shutdown(); }

}  // namespace weft::app
