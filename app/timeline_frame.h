#pragma once
// Composes one frame of the physical timeline into the bound framebuffer:
// instanced boxes and lines from render/, then the ImGui overlay on top.
#include <cstdint>

#include "app/timeline_data.h"
#include "app/timeline_panel.h"
#include "timeline_renderer.h"

namespace weft::app {

// Call after ImGui::NewFrame(); ends the ImGui frame and renders it. With
// `interactive`, applies mouse and keyboard input and shows the hover tooltip.
// `data` may be null (nothing loaded yet): rows, axis and legend still draw.
void compose_timeline_frame(TimelinePanel& panel, render::TimelineRenderer& renderer,
                            const LoadedWindow* data, int framebuffer_width,
                            int framebuffer_height, bool interactive);

}  // namespace weft::app
