#pragma once
// What the physical timeline draws over its plot besides the panel frame: the
// legend of the regions in view (colors by function) and the tooltip of the
// event under the mouse.
#include <cstdint>
#include <string>

#include "app/timeline_data.h"
#include "view_transform.h"

namespace weft::app {

// Width the legend wants: a swatch and the longest region name.
float physical_legend_width(const TraceInfo& info);

// Regions in view by time when a window is loaded, else all of them, and the
// message line; entries that do not fit end with "+N more".
void draw_region_legend(const TraceInfo& info, const render::PixelRect& rect,
                        const LoadedWindow* data, std::string& scratch);

// Tooltip of the event under the mouse; returns its box index (TimelineGeometry
// order) for highlighting, or -1.
std::int64_t draw_physical_tooltip(const TraceInfo& info, const render::ViewTransform& view,
                                   const LoadedWindow& data);

}  // namespace weft::app
