#pragma once
// Finds the box under the mouse. Boxes are bucketed by row once per loaded
// window, so a hover test scans one row's boxes, not the whole window.
#include <cstdint>
#include <vector>

#include "timeline_geometry.h"
#include "view_transform.h"

namespace weft::render {

struct PickIndex {
  std::int32_t row_count = 0;
  std::vector<std::uint32_t> row_start;  // row_count + 1 offsets into `boxes`
  std::vector<std::uint32_t> boxes;      // box indices grouped by row, in drawing order
};

// Rows are the geometry's rows 0..row_count-1; boxes outside are not indexed.
void build_pick_index(const TimelineGeometry& geometry, std::int32_t row_count, PickIndex& out);

// Index of the topmost (deepest) box under pixel (x, y) in `view`, or -1. A box
// narrower than `slop_px` is hit within that many pixels, matching how
// sub-pixel events are drawn one pixel wide.
std::int64_t pick_box(const TimelineGeometry& geometry, const PickIndex& index,
                      const ViewTransform& view, double x, double y, double slop_px = 1.0);

}  // namespace weft::render
