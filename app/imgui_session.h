#pragma once
// One ImGui context with weft's look (dark theme, DejaVu Sans) and the
// OpenGL3 renderer backend bound to the current GL context. The window viewer
// adds the GLFW platform backend on top; headless rendering needs none.
namespace weft::app {

class ImGuiSession {
 public:
  // Requires a current OpenGL 3.3 core context. Throws weft::Error when the
  // font cannot be loaded or the backend cannot start. `font_px` is in
  // layout units; the glyphs are rasterized at `ui_scale` times that so that
  // text stays sharp on a scaled framebuffer (app/ui_scale.h).
  explicit ImGuiSession(float font_px, float ui_scale = 1.0f);
  ~ImGuiSession();
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;
};

}  // namespace weft::app
