#include "metric_colormap.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace weft::render {

namespace {

struct Stop {
  float r, g, b;
};

// Close to matplotlib's "plasma" sampled at five points, lifted at the bottom
// so that a zero-lateness box still stands out from the row bands.
constexpr std::array<Stop, 5> kStops{{{40, 52, 140}, {110, 40, 160}, {190, 60, 120},
                                      {240, 130, 60}, {250, 235, 40}}};

}  // namespace

Rgba8 metric_color(double value, double max_value) {
  double u = max_value > 0 ? std::clamp(value / max_value, 0.0, 1.0) : 0.0;
  if (!std::isfinite(u)) u = 0.0;
  const double scaled = u * static_cast<double>(kStops.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(scaled), kStops.size() - 2);
  const auto f = static_cast<float>(scaled - static_cast<double>(i));
  const Stop& a = kStops[i];
  const Stop& b = kStops[i + 1];
  auto mix = [f](float x, float y) { return static_cast<std::uint8_t>(std::lround(x + (y - x) * f)); };
  return rgba8(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

Rgba8 metric_color_bottom() { return metric_color(0.0, 1.0); }
Rgba8 metric_color_top() { return metric_color(1.0, 1.0); }

}  // namespace weft::render
