#pragma once
// What the logical timeline draws over its plot besides the panel frame: the
// color scale of the chosen metric with its range (or the function legend)
// and the tooltip of the communication event under the mouse.
#include <cstdint>
#include <string>

#include "app/logical_data.h"
#include "view_transform.h"

namespace weft::app {

float logical_legend_width(const TraceInfo& info, LogicalColor color);

// A vertical color bar from 0 to the run's largest value of the metric, with
// labelled ticks, then swatches for aggregated work and message lines.
void draw_metric_legend(const TraceInfo& info, const db::StructureFacts& facts,
                        LogicalColor color, const render::PixelRect& rect, std::string& scratch);

// Tooltip of the box under the mouse: function, process, steps, partition,
// times, the metrics and the message partner. Returns its box index or -1.
std::int64_t draw_logical_tooltip(const TraceInfo& info, const db::StructureFacts& facts,
                                  const render::ViewTransform& view, const LoadedLogicalWindow& data);

}  // namespace weft::app
