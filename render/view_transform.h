#pragma once
// Maps trace coordinates (ns, timeline rows) to framebuffer pixels and back.
// Pixels have their origin at the framebuffer's top-left corner and grow
// right and down, like ImGui's, so overlays and instanced draws line up.
#include <cstdint>

namespace weft::render {

struct PixelRect {
  float x = 0;
  float y = 0;
  float width = 0;
  float height = 0;
  bool contains(float px, float py) const {
    return px >= x && px < x + width && py >= y && py < y + height;
  }
};

struct ViewTransform {
  double t0_ns = 0;    // time at the plot's left edge
  double t1_ns = 1;    // time at the plot's right edge
  double row0 = 0;     // row at the plot's top edge (row r covers [r, r + 1))
  double row1 = 1;     // row at the plot's bottom edge
  PixelRect plot;      // where the timeline is drawn
  int framebuffer_width = 1;
  int framebuffer_height = 1;

  double px_per_ns() const { return plot.width / (t1_ns - t0_ns); }
  double px_per_row() const { return plot.height / (row1 - row0); }
  double x_of(double t_ns) const { return plot.x + (t_ns - t0_ns) * px_per_ns(); }
  double time_at(double x) const { return t0_ns + (x - plot.x) / px_per_ns(); }
  double y_of(double row) const { return plot.y + (row - row0) * px_per_row(); }
  double row_at(double y) const { return row0 + (y - plot.y) / px_per_row(); }
};

}  // namespace weft::render
