#pragma once
// The overview strip of the logical timeline (ravel-logical-lateness.txt: the
// metric overview above the timeline): the largest lateness (or differential
// lateness) of each global step over the whole run, one bar per pixel column,
// with the span the logical timeline shows marked. Dragging on it selects the
// steps the timeline shows.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "app/logical_data.h"
#include "store/sqlite.h"
#include "view_transform.h"

namespace weft::app {

class StepOverview {
 public:
  // Reads step_metrics: a few numbers per step, small next to the events.
  StepOverview(db::Database& db, std::int64_t step_count);

  // Draws into `area` for `color` (differential lateness for dlateness, else
  // lateness) and marks [view_s0, view_s1] (when not empty). With `interactive`, returns the
  // step span dragged out on it when a drag ends (a click selects one step).
  std::optional<std::pair<double, double>> draw(const render::PixelRect& area, LogicalColor color,
                                                double view_s0, double view_s1, bool interactive);

 private:
  std::int64_t step_count_;
  std::vector<TimeNs> max_lateness_;  // by step
  std::vector<TimeNs> max_diff_;
  TimeNs top_lateness_ = 0;
  TimeNs top_diff_ = 0;
  std::optional<double> drag_from_;  // step where the current drag started
};

}  // namespace weft::app
