#pragma once
// Tick marks and labels of a time axis: steps of 1, 2 or 5 times a power of
// ten, labelled in the unit (ns, µs, ms, s) that keeps the numbers short.
#include <cstdint>
#include <string>
#include <vector>

namespace weft::render {

struct TimeTicks {
  double step_ns = 1;
  std::vector<double> at_ns;  // tick positions inside the requested span
  // How labels are written: value / unit_ns with `decimals` decimals, then suffix.
  double unit_ns = 1;
  const char* unit_suffix = "ns";
  int decimals = 0;
};

// Ticks in [t0_ns, t1_ns] at least `min_spacing_px` apart on an axis
// `width_px` wide. Reuses out.at_ns's capacity.
void choose_time_ticks(double t0_ns, double t1_ns, double width_px, double min_spacing_px,
                       TimeTicks& out);

// Label of tick `t_ns` of `ticks`: "250 ns", "1.5 µs", "12 ms", "2.25 s". One
// axis uses one unit, the largest that keeps its biggest label >= 1, with just
// enough decimals to tell neighbouring ticks apart.
std::string format_tick_label(const TimeTicks& ticks, double t_ns);

// A time to `resolution_ns` (a power of ten), e.g. "1.234567 ms" for 1 ns at 1 ms.
std::string format_time_at_resolution(double t_ns, double resolution_ns);

// A duration with 3 significant digits in its own unit: "1.23 ms".
std::string format_duration(double d_ns);

}  // namespace weft::render
