#include "app/view_tour.h"

#include <algorithm>
#include <cmath>

namespace weft::app {

namespace {

// Geometric interpolation: zooming at a constant rate looks smooth.
double zoom_between(double from, double to, double u) { return from * std::pow(to / from, u); }

TimelineViewport centered(double x_center, double x_span, double row_center, double row_span) {
  return {x_center - 0.5 * x_span, x_center + 0.5 * x_span, row_center - 0.5 * row_span,
          row_center + 0.5 * row_span};
}

}  // namespace

TimelineViewport tour_viewport(double progress, double x_end, double rows) {
  const double u = std::clamp(progress, 0.0, 1.0);
  const double deep = x_end / 64.0;
  const double few_rows = std::max(1.0, rows / 16.0);
  if (u < 0.25) {  // zoom in at 40%
    double k = u / 0.25;
    return centered(0.5 * x_end + (0.4 - 0.5) * x_end * k, zoom_between(x_end, deep, k), 0.5 * rows, rows);
  }
  if (u < 0.5) {  // pan to 60%
    double k = (u - 0.25) / 0.25;
    return centered((0.4 + 0.2 * k) * x_end, deep, 0.5 * rows, rows);
  }
  if (u < 0.75) {  // zoom into the middle rows
    double k = (u - 0.5) / 0.25;
    return centered(0.6 * x_end, deep, 0.5 * rows, zoom_between(rows, few_rows, k));
  }
  double k = (u - 0.75) / 0.25;  // back out to everything
  return centered((0.6 - 0.1 * k) * x_end, zoom_between(deep, x_end, k), 0.5 * rows,
                  zoom_between(few_rows, rows, k));
}

}  // namespace weft::app
