#include "app/timeline_frame.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include "gl_api.h"

namespace weft::app {

void compose_timeline_frame(TimelinePanel& panel, render::TimelineRenderer& renderer,
                            const LoadedWindow* data, int framebuffer_width,
                            int framebuffer_height, bool interactive) {
  render::ViewTransform view = panel.layout(framebuffer_width, framebuffer_height);
  if (interactive) {
    panel.handle_input(view);
    view = panel.layout(framebuffer_width, framebuffer_height);
  }
  std::int64_t hovered = panel.draw_overlay(view, data, interactive);

  glViewport(0, 0, framebuffer_width, framebuffer_height);
  glClearColor(22 / 255.0f, 22 / 255.0f, 26 / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  render::TimelineStyle style;
  style.highlight_box = hovered;
  const auto rows = static_cast<double>(panel.row_count());
  renderer.draw(view, rows, style);

  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace weft::app
