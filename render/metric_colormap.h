#pragma once
// The sequential color scale of metric views (lateness, differential and
// global lateness, duration): dark blue for 0 through purple and orange to a
// bright yellow at the top, so on the dark background the latest events are
// the brightest thing on screen (ravel-logical-lateness.txt colors by lateness
// the same way: the eye goes to the late ones first).
#include <cstdint>

#include "region_palette.h"

namespace weft::render {

// Color of `value` on a scale from 0 to `max_value` (values outside clamp; a
// scale whose max is 0 shows everything at the bottom color).
Rgba8 metric_color(double value, double max_value);

// The colors at the two ends of the scale.
Rgba8 metric_color_bottom();
Rgba8 metric_color_top();

}  // namespace weft::render
