#include "app/viewer_app.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

#include "app/imgui_session.h"
#include "app/timeline_data.h"
#include "app/timeline_frame.h"
#include "app/timeline_panel.h"
#include "app/window_loader.h"
#include "common/error.h"
#include "framebuffer.h"
#include "png_writer.h"
#include "timeline_renderer.h"

namespace weft::app {

namespace {

// Owns glfwInit/glfwTerminate and the window, so that every exit path,
// including exceptions, closes the display connection.
class GlfwWindow {
 public:
  GlfwWindow(int width, int height, const std::string& title) {
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
    window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
    if (!window_) {
      glfwTerminate();
      throw Error("cannot open an OpenGL 3.3 core window");
    }
    glfwMakeContextCurrent(window_);
  }
  ~GlfwWindow() {
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;
  GLFWwindow* get() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
};

// The GLFW platform backend on top of an ImGuiSession.
class ImGuiGlfwBackend {
 public:
  explicit ImGuiGlfwBackend(GLFWwindow* window) { ImGui_ImplGlfw_InitForOpenGL(window, true); }
  ~ImGuiGlfwBackend() { ImGui_ImplGlfw_Shutdown(); }
  ImGuiGlfwBackend(const ImGuiGlfwBackend&) = delete;
  ImGuiGlfwBackend& operator=(const ImGuiGlfwBackend&) = delete;
};

// Whether `loaded` still serves `viewport`: it covers the visible part and is
// not so much wider that float geometry times lose precision on screen.
bool window_serves(const db::Window& loaded, const TimelineViewport& viewport,
                   TimeNs trace_end_ns) {
  const double visible = viewport.t1_ns - viewport.t0_ns;
  return static_cast<double>(loaded.t0) <= std::max(0.0, viewport.t0_ns) &&
         static_cast<double>(loaded.t1) >= std::min(viewport.t1_ns, static_cast<double>(trace_end_ns)) &&
         loaded.p0 <= static_cast<ProcessIndex>(std::floor(viewport.row0)) &&
         loaded.p1 >= static_cast<ProcessIndex>(std::ceil(viewport.row1)) - 1 &&
         static_cast<double>(loaded.t1 - loaded.t0) <= 8.0 * visible;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size()))) - 1;
  return values[std::min(rank, values.size() - 1)];
}

double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  long long pages_total = 0;
  long long pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

void write_screenshot(const std::string& path, int width, int height) {
  std::vector<std::uint8_t> pixels;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  render::read_pixels_top_down(width, height, pixels);
  render::write_png(path, width, height, pixels);
  std::printf("%s\n", path.c_str());
}

}  // namespace

void run_viewer(const ViewerOptions& options) {
  // Reading the tables first reports a bad file before any window appears.
  db::WindowQuery query(options.database);
  const TraceInfo info = read_trace_info(query);

  GlfwWindow window(options.width, options.height, "weft - " + info.file_name);
  // Measured runs draw as fast as they can; interactive ones follow vsync.
  glfwSwapInterval(options.frames > 0 ? 0 : 1);
  ImGuiSession imgui(16.0f);
  ImGuiGlfwBackend glfw_backend(window.get());
  render::TimelineRenderer renderer;
  TimelinePanel panel(info);
  WindowLoader loader(options.database, info);

  std::unique_ptr<LoadedWindow> current;
  std::optional<db::Window> requested;
  std::vector<double> frame_ms;
  if (options.frames > 0) frame_ms.reserve(static_cast<std::size_t>(options.frames));

  while (!glfwWindowShouldClose(window.get())) {
    auto frame_start = std::chrono::steady_clock::now();
    glfwPollEvents();
    if (std::string error = loader.error(); !error.empty()) throw Error(error);
    if (auto fresh = loader.take_finished()) {
      renderer.upload(fresh->geometry);
      loader.recycle(std::move(current));
      current = std::move(fresh);
    }

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(window.get(), &width, &height);
    if (width > 0 && height > 0)
      compose_timeline_frame(panel, renderer, current.get(), width, height, true);
    else
      ImGui::EndFrame();  // minimized: nothing to draw

    if (!requested || !window_serves(*requested, panel.viewport(), info.meta.trace_end_ns)) {
      requested = window_for_viewport(panel.viewport(), 1.0, info.processes.size());
      loader.request(*requested);
    }

    const bool counting = options.frames > 0 && current != nullptr;
    const bool last = counting && static_cast<int>(frame_ms.size()) + 1 == options.frames;
    if (last && !options.screenshot.empty()) write_screenshot(options.screenshot, width, height);
    glfwSwapBuffers(window.get());
    if (counting) {
      std::chrono::duration<double, std::milli> elapsed =
          std::chrono::steady_clock::now() - frame_start;
      frame_ms.push_back(elapsed.count());
    }
    if (last) break;
  }

  if (options.stats)
    std::printf("frames=%zu p50_ms=%.2f p95_ms=%.2f rss_mb=%.1f\n", frame_ms.size(),
                percentile(frame_ms, 0.50), percentile(frame_ms, 0.95), resident_mb());
}

}  // namespace weft::app
