#pragma once
// The selected event and what it is linked to: its message partner and its
// partition. A click in either timeline selects; both timelines outline the
// event and its partner and shade the partition's span (linked selection, as
// Ravel links its views), so the same moment is found in steps and in time.
#include <cstdint>
#include <optional>

#include "app/logical_data.h"
#include "app/timeline_data.h"
#include "structure/logical_window.h"
#include "view_transform.h"

namespace weft::app {

struct SelectedEnd {
  ProcessIndex process = -1;
  TimeNs start_ns = 0, end_ns = 0;
  std::int32_t step = -1;  // -1: not a communication event, or not known
};

struct Selection {
  EventId event = -1;
  SelectedEnd self;
  std::int32_t partition = -1;
  std::optional<SelectedEnd> partner;  // the other end of its message
};

// The event of box `box` (TimelineGeometry order) of a loaded window, or none
// (an aggregate or level-of-detail box).
std::optional<Selection> select_in_physical(const LoadedWindow& data, std::int64_t box);
std::optional<Selection> select_in_logical(const LoadedLogicalWindow& data, std::int64_t box);

// The event with id `event` when it is in the window (for `weft render --select`).
std::optional<Selection> select_event(const LoadedWindow& data, EventId event);

// Fills the step, partition and message partner from the logical window when
// the selected event is in it (a physical click on a communication event).
void link_to_structure(Selection& selection, const LoadedLogicalWindow* logical);

// Outlines and shading over a view: `axis` Time draws times, Steps draws steps.
void draw_selection(const Selection& selection, const render::ViewTransform& view, bool steps_axis,
                    const db::PartitionSpans& spans, const ViewFilter& filter);

}  // namespace weft::app
