#include "time_ticks.h"

#include <cmath>
#include <cstdio>

namespace weft::render {

namespace {

struct TimeUnit {
  double ns;
  const char* suffix;
};

// µ is U+00B5, which the default font atlas (Latin-1) contains.
constexpr TimeUnit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xc2\xb5s"}, {1, "ns"}};

const TimeUnit& unit_for(double magnitude_ns) {
  for (const TimeUnit& unit : kUnits)
    if (magnitude_ns >= unit.ns) return unit;
  return kUnits[3];
}

int decimals_for_step(double step_in_unit) {
  int decimals = 0;
  while (decimals < 9 && std::fabs(step_in_unit * std::pow(10.0, decimals) -
                                   std::round(step_in_unit * std::pow(10.0, decimals))) > 1e-6)
    ++decimals;
  return decimals;
}

std::string format_in_unit(double t_ns, const TimeUnit& unit, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f %s", decimals, t_ns / unit.ns, unit.suffix);
  return text;
}

}  // namespace

void choose_time_ticks(double t0_ns, double t1_ns, double width_px, double min_spacing_px,
                       TimeTicks& out) {
  out.at_ns.clear();
  double span = t1_ns - t0_ns;
  if (!(span > 0) || !(width_px > 0)) return;
  double min_step = span * min_spacing_px / width_px;
  double power = std::pow(10.0, std::floor(std::log10(std::max(min_step, 1e-9))));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if (step >= min_step) break;
  }
  step = std::max(step, 1.0);  // no ticks finer than the clock
  out.step_ns = step;
  for (double t = std::ceil(t0_ns / step) * step; t <= t1_ns; t += step) out.at_ns.push_back(t);

  const TimeUnit& unit = unit_for(std::max(std::fabs(t0_ns), std::fabs(t1_ns)));
  out.unit_ns = unit.ns;
  out.unit_suffix = unit.suffix;
  out.decimals = decimals_for_step(step / unit.ns);
}

std::string format_tick_label(const TimeTicks& ticks, double t_ns) {
  return format_in_unit(t_ns, TimeUnit{ticks.unit_ns, ticks.unit_suffix}, ticks.decimals);
}

std::string format_time_at_resolution(double t_ns, double resolution_ns) {
  const TimeUnit& unit = unit_for(std::fabs(t_ns));
  return format_in_unit(t_ns, unit, decimals_for_step(resolution_ns / unit.ns));
}

std::string format_duration(double d_ns) {
  const TimeUnit& unit = unit_for(std::fabs(d_ns));
  double value = d_ns / unit.ns;
  int decimals = std::fabs(value) >= 100 ? 0 : std::fabs(value) >= 10 ? 1 : 2;
  if (unit.ns == 1) decimals = 0;
  char text[64];
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, unit.suffix);
  return text;
}

}  // namespace weft::render
