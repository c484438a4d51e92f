#pragma once
// The toolbar along the top of the viewer window: the logical view's color
// metric, the process filter (`0-1023:2`), for task runs the chare-row
// filter of the logical view, the function filter, the function
// search and the loading indicator. It edits a ToolbarState; the viewer turns
// a changed state into a new ViewFilter.
#include <array>
#include <string>
#include <vector>

#include "app/logical_data.h"

namespace weft::app {

struct ToolbarState {
  LogicalColor color = LogicalColor::Lateness;
  bool task_labels = false;  // a task run: the color names say what the numbers are there
  std::array<char, 256> processes{};  // the process list being typed
  std::array<char, 256> chares{};     // task runs: the logical view's chare rows, same syntax
  std::array<char, 128> search{};
  std::vector<char> region_hidden;    // by region position
  std::string error;                  // why the last process list was refused
  bool filter_changed = false;        // set when the filter inputs were applied
  bool particles = false;             // the particle panel is shown
  bool charm_run = false;             // a Projections run: offer its panels
  bool has_vps = false;               // an AMPI run: offer the virtual-rank lanes
  bool profile = false;               // the usage profile panel is shown
  bool vps = false;                   // the virtual-rank lanes panel is shown
};

// Draws the toolbar `height` px tall across the window. `selected` lists the
// processes of the selection (the event and its message partner), offered as
// a process filter.
void draw_viewer_toolbar(ToolbarState& state, const TraceInfo& info, bool has_structure,
                         bool loading, float height, const std::vector<ProcessIndex>& selected);

}  // namespace weft::app
