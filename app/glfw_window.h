#pragma once
// The GLFW window (OpenGL 3.3 core) and ImGui's GLFW backend, for `weft view`
// and `weft demo`: every exit path, exceptions included, closes the display
// connection.
#include <GLFW/glfw3.h>

#include <string>

namespace weft::app {

// Owns glfwInit/glfwTerminate and the window. Throws weft::Error when there is
// no display or no window can be opened.
class GlfwWindow {
 public:
  // `fullscreen`: on the primary monitor at its own resolution (width and
  // height are then ignored).
  GlfwWindow(int width, int height, const std::string& title, bool fullscreen = false);
  ~GlfwWindow();
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;
  GLFWwindow* get() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
};

// The GLFW platform backend on top of an ImGuiSession.
class ImGuiGlfwBackend {
 public:
  explicit ImGuiGlfwBackend(GLFWwindow* window);
  ~ImGuiGlfwBackend();
  ImGuiGlfwBackend(const ImGuiGlfwBackend&) = delete;
  ImGuiGlfwBackend& operator=(const ImGuiGlfwBackend&) = delete;
};

}  // namespace weft::app
