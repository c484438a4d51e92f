#include "app/timeline_frame.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include "app/logical_overlay.h"
#include "app/overlay_style.h"
#include "app/physical_overlay.h"
#include "gl_api.h"

namespace weft::app {

namespace {

// Layout and input of one view: input only when the mouse is over its area,
// so two stacked views do not both zoom on one wheel turn.
render::ViewTransform place_view(TimelinePanel& panel, const render::PixelRect& area, int width,
                                 int height, float legend_px, bool interactive) {
  render::ViewTransform view = panel.layout(area, width, height, legend_px);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const ImVec2 press = ImGui::GetIO().MouseClickedPos[0];
  const bool owns_mouse = area.contains(mouse.x, mouse.y) ||
                          (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f) && area.contains(press.x, press.y));
  if (interactive && owns_mouse && panel.handle_input(view))
    view = panel.layout(area, width, height, legend_px);
  panel.draw_frame(view);
  return view;
}

bool hovering(const render::ViewTransform& view, bool interactive) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  return interactive && view.plot.contains(mouse.x, mouse.y);
}

}  // namespace

void begin_timeline_frame(int framebuffer_width, int framebuffer_height) {
  glViewport(0, 0, framebuffer_width, framebuffer_height);
  glClearColor(22 / 255.0f, 22 / 255.0f, 26 / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

void end_timeline_frame() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

DrawnView draw_physical_timeline(TimelinePanel& panel, render::TimelineRenderer& renderer,
                            const TraceInfo& info, const LoadedWindow* data,
                            const render::PixelRect& area, int framebuffer_width,
                            int framebuffer_height, bool interactive) {
  render::ViewTransform view = place_view(panel, area, framebuffer_width, framebuffer_height,
                                          physical_legend_width(info), interactive);
  std::string scratch;
  draw_region_legend(info, panel.legend_rect(), data, scratch);
  render::TimelineStyle style;
  if (data && hovering(view, interactive)) style.highlight_box = draw_physical_tooltip(info, view, *data);
  renderer.draw(view, static_cast<double>(panel.row_count()), style);
  return {view, style.highlight_box};
}

DrawnView draw_logical_timeline(TimelinePanel& panel, render::TimelineRenderer& renderer,
                           const TraceInfo& info, const db::StructureFacts& facts,
                           LogicalColor color, const LoadedLogicalWindow* data,
                           const render::PixelRect& area, int framebuffer_width,
                           int framebuffer_height, bool interactive) {
  render::ViewTransform view = place_view(panel, area, framebuffer_width, framebuffer_height,
                                          logical_legend_width(info, color), interactive);
  std::string scratch;
  draw_metric_legend(info, facts, color, panel.legend_rect(), scratch);
  render::TimelineStyle style;
  if (info.task_rows)  // runtime chares sit at the bottom (chare_row_order): grey from the first one shown
    for (std::size_t r = 0; r < panel.row_count(); ++r)
      if (info.runtime_row[static_cast<std::size_t>(panel.process_of_row(static_cast<std::int64_t>(r)))]) {
        style.runtime_row0 = static_cast<double>(r);
        break;
      }
  if (data && hovering(view, interactive)) style.highlight_box = draw_logical_tooltip(info, facts, view, *data);
  renderer.draw(view, static_cast<double>(panel.row_count()), style);
  return {view, style.highlight_box};
}

void draw_cursor(const render::ViewTransform& view, double x) {
  const auto px = static_cast<float>(view.x_of(x));
  if (px < view.plot.x || px > view.plot.x + view.plot.width) return;
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->AddLine(ImVec2(px, view.plot.y), ImVec2(px, view.plot.y + view.plot.height), kCursorColor, 2.0f);
}

std::string physical_title(const TraceInfo& info) {
  return info.file_name + "  \xc2\xb7  physical timeline  \xc2\xb7  " +
         thousands(static_cast<std::int64_t>(info.processes.size())) + " processes, " +
         thousands(info.meta.count_events) + " events, " + thousands(info.meta.count_messages) +
         " messages";
}

std::string logical_title(const TraceInfo& info, const db::StructureFacts& facts,
                          LogicalColor color) {
  return info.file_name + "  \xc2\xb7  logical timeline  \xc2\xb7  " +
         thousands(static_cast<std::int64_t>(info.processes.size())) + (info.task_rows ? " chares, " : " processes, ") +
         thousands(facts.global_steps) + " steps, " + thousands(facts.partitions) +
         (info.task_rows ? " phases" : " partitions") + "  \xc2\xb7  color: " + logical_color_title(color, info.task_rows);
}

}  // namespace weft::app
