#include "timeline_picking.h"

#include <algorithm>
#include <cmath>

namespace weft::render {

void build_pick_index(const TimelineGeometry& geometry, std::int32_t row_count, PickIndex& out) {
  out.row_count = row_count;
  out.row_start.assign(static_cast<std::size_t>(row_count) + 1, 0);
  const std::size_t n = geometry.box_count();
  auto row_of = [&](std::size_t box) { return static_cast<std::int64_t>(geometry.box_row[2 * box]); };
  for (std::size_t b = 0; b < n; ++b) {
    std::int64_t row = row_of(b);
    if (row >= 0 && row < row_count) ++out.row_start[static_cast<std::size_t>(row) + 1];
  }
  for (std::size_t r = 1; r < out.row_start.size(); ++r) out.row_start[r] += out.row_start[r - 1];
  out.boxes.resize(out.row_start.back());
  std::vector<std::uint32_t> fill(out.row_start.begin(), out.row_start.end() - 1);
  for (std::size_t b = 0; b < n; ++b) {
    std::int64_t row = row_of(b);
    if (row >= 0 && row < row_count)
      out.boxes[fill[static_cast<std::size_t>(row)]++] = static_cast<std::uint32_t>(b);
  }
}

std::int64_t pick_box(const TimelineGeometry& geometry, const PickIndex& index,
                      const ViewTransform& view, double x, double y, double slop_px) {
  if (!view.plot.contains(static_cast<float>(x), static_cast<float>(y))) return -1;
  double row = std::floor(view.row_at(y));
  if (row < 0 || row >= index.row_count) return -1;
  double t = view.time_at(x) - static_cast<double>(geometry.origin_ns);
  double slop_ns = slop_px / view.px_per_ns();
  const auto r = static_cast<std::size_t>(row);
  // Boxes are in drawing order (shallow to deep), so the last hit is the one on top.
  std::int64_t hit = -1;
  for (std::uint32_t i = index.row_start[r]; i < index.row_start[r + 1]; ++i) {
    std::uint32_t b = index.boxes[i];
    double start = geometry.box_span[2 * b];
    double end = std::max<double>(geometry.box_span[2 * b + 1], start + slop_ns);
    if (t >= start && t <= end) hit = b;
  }
  return hit;
}

}  // namespace weft::render
