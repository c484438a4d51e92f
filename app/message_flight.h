#pragma once
// Messages in flight on the timelines (issue 6, "messages in flight"): at the
// current time of the slider or the animation, each message between its send
// and its receive is a dot travelling from the sender's row to the receiver's
// row, along its send→receive line in the physical view and between its
// steps in the logical view, glowing more the later it arrives.
#include "app/view_filter.h"
#include "store/window_query.h"
#include "structure/logical_window.h"
#include "view_transform.h"

namespace weft::app {

// Dots of the messages of `messages` in flight at `t_ns` (send ≤ t ≤ receive),
// placed along their lines; a message's glow grows with its flight time
// against the run's longest (`max_flight_ns`): the late ones stand out.
// Returns how many were drawn.
std::size_t draw_physical_flights(const render::ViewTransform& view, const db::WindowMessages& messages,
                                  const ViewFilter& filter, double t_ns, double max_flight_ns);

// The same in the logical view at fractional global step `step`: a message
// between its send and receive steps glows with how many steps it spans
// against the run's longest (`max_steps`).
std::size_t draw_logical_flights(const render::ViewTransform& view, const db::StepMessages& messages,
                                 const ViewFilter& filter, double step, double max_steps);

}  // namespace weft::app
