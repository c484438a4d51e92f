#pragma once
// The scripted path of `weft view --tour`, for benchmarks: the same camera
// moves every run, so frame and load times compare between builds. Progress
// 0..1 goes through: zoom into 1/64 of the x axis around 40% (all rows), pan
// to 60%, zoom the rows into 1/16 around the middle, then back out to the
// whole run, the moves a user makes when hunting for a late process.
#include "app/timeline_data.h"

namespace weft::app {

TimelineViewport tour_viewport(double progress, double x_end, double rows);

}  // namespace weft::app
