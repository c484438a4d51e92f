#pragma once
// Composes the timeline views into the bound framebuffer: each view draws its
// instanced boxes and lines (render/) into its own rectangle and queues its
// text through ImGui; end_timeline_frame then draws all the text on top.
#include <cstdint>
#include <string>

#include "app/logical_data.h"
#include "app/timeline_data.h"
#include "app/timeline_panel.h"
#include "timeline_renderer.h"

namespace weft::app {

// Clears the framebuffer to the window background. Call after ImGui::NewFrame().
void begin_timeline_frame(int framebuffer_width, int framebuffer_height);
// Renders the ImGui text of every view and ends the ImGui frame.
void end_timeline_frame();

// What a view drew: its transform and the box under the mouse (-1: none).
struct DrawnView {
  render::ViewTransform view;
  std::int64_t hovered = -1;
};

// The physical timeline in `area`. With `interactive`, applies mouse and
// keyboard input (when the mouse is over this view) and shows the hover
// tooltip. `data` may be null (nothing loaded yet).
DrawnView draw_physical_timeline(TimelinePanel& panel, render::TimelineRenderer& renderer,
                            const TraceInfo& info, const LoadedWindow* data,
                            const render::PixelRect& area, int framebuffer_width,
                            int framebuffer_height, bool interactive);

// The logical timeline in `area`, colored by `color`.
DrawnView draw_logical_timeline(TimelinePanel& panel, render::TimelineRenderer& renderer,
                           const TraceInfo& info, const db::StructureFacts& facts,
                           LogicalColor color, const LoadedLogicalWindow* data,
                           const render::PixelRect& area, int framebuffer_width,
                           int framebuffer_height, bool interactive);

// A vertical cursor line at `x` (ns or steps, as the view's axis) inside the plot.
void draw_cursor(const render::ViewTransform& view, double x);

// Titles of the two views: file, view name, sizes.
std::string physical_title(const TraceInfo& info);
std::string logical_title(const TraceInfo& info, const db::StructureFacts& facts,
                          LogicalColor color);

}  // namespace weft::app
