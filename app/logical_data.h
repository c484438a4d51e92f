#pragma once
// What the logical timeline holds of an open run: the analysis facts read once
// and the contents of one loaded step × process window, turned into the same
// GPU geometry the physical timeline draws (x in steps instead of ns).
#include <string>
#include <unordered_map>
#include <vector>

#include "app/frame_stats.h"
#include "app/timeline_data.h"
#include "structure/logical_window.h"
#include "structure/step_lod.h"
#include "summary/start_histogram.h"

namespace weft::app {

// What the boxes of the logical timeline are colored by.
enum class LogicalColor { Lateness, DiffLateness, GlobalLateness, Duration, Function };

// "lateness", "dlateness", "glateness", "duration", "function"; throws weft::Error
// listing them for anything else.
LogicalColor parse_logical_color(const std::string& name);
const char* logical_color_name(LogicalColor color);   // as parsed
// For legends: "lateness"; for a task run (TraceInfo::task_rows) what the
// number means there: "idle experienced", "diff. duration", "imbalance", ...
const char* logical_color_title(LogicalColor color, bool task = false);
// The metric of event `i` of `events` in ns (Function: -1).
TimeNs logical_metric(const db::StepEvents& events, std::size_t i, LogicalColor color);
// The top of the color scale: the largest value in the whole run, so colors
// mean the same in every window.
TimeNs logical_metric_max(const db::StructureFacts& facts, LogicalColor color);

// Non-communication work aggregated into an even step gets a box of this
// color, inset (drawn at depth 1) so communication boxes stand out.
constexpr render::Rgba8 kAggregateWorkColor = render::rgba8(78, 80, 90);
// TimelineGeometry::box_event of an aggregate box: the flag plus the index of
// the communication event that follows it.
constexpr std::uint32_t kAggregateBoxFlag = 0x80000000u;

// A step window estimated to hold more communication events than this is
// drawn from the level of detail (structure/step_lod.h).
constexpr double kLogicalDetailLimit = 150'000;

// Where a logical window will be seen: decides between events and cells.
struct StepZoom {
  double px_per_step = 0;
  double px_per_row = 0;
  bool raster_dense = false;  // paint dense windows into an image (render/timeline_raster.h)
  double x_phase = 0, y_phase = 0;  // where the window's corner falls in a screen pixel (pixel_phase)
};

struct LoadedLogicalWindow {
  db::StepWindow window;
  bool from_lod = false;  // the geometry is an image of level-of-detail cells (`lod`)
  db::StepLodCells lod;
  std::int64_t lod_bin_steps = 1;   // a cell's width in steps
  std::int64_t lod_block_rows = 1;  // a cell's height in rows
  LogicalColor color = LogicalColor::Lateness;
  db::StepEvents events;
  db::StepMessages messages;
  render::TimelineGeometry geometry;  // x = global step, rows = process indices
  render::PickIndex picks;
  std::vector<std::uint32_t> order_scratch;  // events by (process, step), reused
  QueryTime query;  // the store's share of the load: reading events and messages, or LOD cells
  // Per message of `messages`: the lateness of its receive, the event at its
  // receive step on its receiver (0 when that event is outside the window);
  // and the same by message id, for the physical view's messages in flight.
  std::vector<TimeNs> recv_lateness;
  std::unordered_map<std::int64_t, TimeNs> recv_lateness_by_message;
};

// The step window to load for `viewport` (x in steps), widened by `pad` times
// its spans, clipped to the run.
db::StepWindow step_window_for_viewport(const TimelineViewport& viewport, double pad,
                                        std::size_t row_count, std::int64_t step_count);

// Queries `window` (processes as rows of `filter`) and builds geometry and
// pick index into `out`, leaving out processes and functions `filter` hides.
// With `lod` and an unfiltered view, a window with too many events is read
// as level-of-detail cells instead.
void load_logical_window(db::LogicalWindowQuery& query, db::StepLod* lod, const TraceInfo& info,
                         const db::StructureFacts& facts, LogicalColor color,
                         const ViewFilter& filter, db::StepWindow window, const StepZoom& zoom,
                         LoadedLogicalWindow& out);

// The class a level-of-detail cell is drawn in for the function color: the
// most communication-like class present (a collective before a wait, ...).
db::StartClass dominant_class(std::uint8_t class_mask);

}  // namespace weft::app
