#pragma once
// Messages in flight on the timelines (issue 6, "messages in flight"): at the
// current time of the slider or the animation, each message between its send
// and its receive is a dot travelling from the sender's row to the receiver's
// row, along its send→receive line in the physical view and between its
// steps in the logical view, glowing with the lateness of its receive (the
// late path stands out).
#include <unordered_map>
#include <vector>

#include "app/view_filter.h"
#include "store/window_query.h"
#include "structure/logical_window.h"
#include "view_transform.h"

namespace weft::app {

// Dots of the messages of `messages` in flight at `t_ns` (send ≤ t ≤ receive),
// placed along their lines; a message's glow grows with its receive's
// lateness (from `recv_lateness`, by message id: the logical window's, when
// the run is analyzed; none: no glow) against the run's largest
// (`max_lateness_ns`). Returns how many were drawn.
std::size_t draw_physical_flights(const render::ViewTransform& view, const db::WindowMessages& messages,
                                  const ViewFilter& filter, double t_ns,
                                  const std::unordered_map<std::int64_t, TimeNs>* recv_lateness,
                                  double max_lateness_ns);

// The same in the logical view at fractional global step `step`, with
// `recv_lateness` per message of `messages`.
std::size_t draw_logical_flights(const render::ViewTransform& view, const db::StepMessages& messages,
                                 const std::vector<TimeNs>& recv_lateness, const ViewFilter& filter, double step,
                                 double max_lateness_ns);

}  // namespace weft::app
