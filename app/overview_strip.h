#pragma once
// The overview strips (ravel-logical-lateness.txt: the metric overview above
// the timelines): a metric over the whole run, maxed (or summed) per bin of
// the timeline's x axis, one bar per pixel column, with the span the timeline
// shows marked. Dragging on a strip selects the span the timeline shows.
// The logical strip's bins are global steps (from step_metrics); the
// physical strip's are time bins (from time_metrics).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/logical_data.h"
#include "store/sqlite.h"
#include "view_transform.h"

namespace weft::app {

// One metric of a strip: its value per bin and the top of its scale.
struct OverviewSeries {
  std::vector<TimeNs> values;
  TimeNs top = 0;
  std::string label;  // e.g. "max lateness per step"
};

class OverviewStrip {
 public:
  enum Metric : int { kLateness, kDiffLateness, kGlobalLateness, kMetrics };

  // Bin b covers [b * bin_width, (b + 1) * bin_width) of an axis that ends at
  // `axis_end`; a click (no drag) selects `click_half_width` around it.
  // `extent_text` says what the strip spans ("all 40 steps").
  OverviewStrip(double axis_end, double bin_width, double click_half_width, bool whole_units,
                std::string extent_text, std::array<OverviewSeries, kMetrics> series);

  // Draws into `area` the metric `color` asks for (differential lateness for
  // dlateness, global lateness for glateness, else lateness) and marks
  // [view0, view1] (when not empty). With `interactive`, returns the span
  // dragged out on it when a drag ends.
  std::optional<std::pair<double, double>> draw(const render::PixelRect& area, LogicalColor color,
                                                double view0, double view1, bool interactive);

 private:
  const OverviewSeries& series_for(LogicalColor color) const;

  double axis_end_;
  double bin_width_;
  double click_half_width_;
  bool whole_units_;  // a dragged span snaps outwards to whole units (steps)
  std::string extent_text_;
  std::array<OverviewSeries, kMetrics> series_;
  std::optional<double> drag_from_;  // axis position where the current drag started
};

// The logical strip: per global step, from step_metrics (global lateness is
// not kept per step; that series shows lateness). `task`: a task run, whose
// series are named for what its numbers are (idle experienced, ...).
OverviewStrip read_step_overview(db::Database& db, std::int64_t step_count, bool task);
// The physical strip: per time bin of the whole run, from time_metrics.
OverviewStrip read_time_overview(db::Database& db, TimeNs trace_end_ns, bool task);

}  // namespace weft::app
