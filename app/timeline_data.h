#pragma once
// What the timeline views hold of an open trace: the small tables read once
// (TraceInfo) and the contents of one loaded time × process window
// (LoadedWindow), which the background loader fills and the UI thread draws.
#include <memory>
#include <string>
#include <vector>

#include "app/frame_stats.h"
#include "region_palette.h"
#include "store/window_query.h"
#include "summary/activity_lod.h"
#include "timeline_geometry.h"
#include "timeline_raster.h"
#include "timeline_picking.h"
#include "view_transform.h"

namespace weft::app {

struct ViewFilter;  // view_filter.h

struct TraceInfo {
  std::string file_name;  // shown in the title line
  db::TraceMeta meta;
  db::ProcessTable processes;
  db::RegionTable regions;
  std::vector<render::Rgba8> region_colors;  // by region position
  std::vector<std::int32_t> legend_order;    // region positions, by kind then name
  std::vector<char> region_thin;             // by region position: a Charm++ run's Idle, drawn thin
  // A task run's logical view (logical_trace_info): the rows are chares,
  // `processes` holds their names and this flags the runtime ones.
  bool task_rows = false;
  std::vector<std::uint8_t> runtime_row;
};

constexpr render::Rgba8 kUnknownRegionColor = render::rgba8(255, 0, 255);

// Reads the tables of `query` and picks colors and legend order.
TraceInfo read_trace_info(db::WindowQuery& query);
// The info of the logical view: `info` itself for an MPI run; for a task run
// (docs/schema.md, logical_rows) the same with its rows = the chares.
TraceInfo logical_trace_info(db::Database& db, const TraceInfo& info);

// The visible part of the trace: times in ns, rows as process indices
// (row r covers [r, r + 1)).
struct TimelineViewport {
  double t0_ns = 0;
  double t1_ns = 1;
  double row0 = 0;
  double row1 = 1;
};

// The window to load for `viewport`, widened on each side by `pad` times its
// time span and row span (0: exactly the visible part), clipped to the rows.
db::Window window_for_viewport(const TimelineViewport& viewport, double pad,
                               std::size_t row_count);

// What the physical view asks the loader for: a window and the zoom it will be
// seen at, which decides between the events themselves and the level of detail.
struct PhysicalRequest {
  db::Window window;  // processes as rows of `filter`
  double px_per_ns = 0;
  double px_per_row = 0;
  std::shared_ptr<const ViewFilter> filter;
  bool raster_dense = false;  // paint dense windows into an image (render/timeline_raster.h)
  double x_phase = 0, y_phase = 0;  // where the window's corner falls in a screen pixel (pixel_phase)
};

// Where (x0, row0) falls inside a screen pixel in `view`, each 0..1: a window
// painted at that phase has its cells on the screen's pixels.
std::pair<double, double> pixel_phase(const render::ViewTransform& view, double x0, double row0);

// A window estimated to hold more events than this is drawn from the level of
// detail: one box per cell of about a pixel instead of one per event.
constexpr double kDetailEventLimit = 200'000;
// Level-of-detail cells are at most this many pixels on a side.
constexpr double kLodCellPx = 2.5;
// A window drawn from its events is painted into one image instead of a box
// each (on software renderers: render/timeline_raster.h) once it has this
// many boxes: llvmpipe draws about a million instances a second.
constexpr std::size_t kRasterMinBoxes = 10'000;
bool paint_dense_window(render::TimelineGeometry& geometry, bool raster_dense, const render::RasterExtent& extent);

// Windows are loaded this many visible spans beyond each edge, so that panning
// shows data at once; the window is (1 + 2 pad)^2 times the visible area.
constexpr double kPrefetchPad = 0.5;
// Level-of-detail windows cost what their area costs and re-read in a few
// ms: they are loaded a quarter span beyond each edge (2.25x the visible
// area instead of 4x).
constexpr double kLodPrefetchPad = 0.25;

// Whether a window of processes (rows of `filter`) is drawn from the level of
// detail rather than its events, when the run has one.
bool draws_level_of_detail(const TraceInfo& info, const ViewFilter& filter, const db::Window& window);
// The physical window to load for `viewport`: kPrefetchPad beyond each edge,
// kLodPrefetchPad when it would be drawn from the level of detail.
db::Window physical_window_for(const TimelineViewport& viewport, const TraceInfo& info, const ViewFilter& filter,
                               bool has_lod);

struct LoadedWindow {
  db::Window window;
  bool from_lod = false;  // the geometry is an image of level-of-detail cells (`lod`)
  db::LodCells lod;
  TimeNs lod_bin_ns = 1;          // a cell's width in ns
  std::int64_t lod_block_rows = 1;  // a cell's height in rows
  db::WindowEvents events;
  db::WindowMessages messages;
  render::TimelineGeometry geometry;  // rows are process indices
  render::PickIndex picks;
  // Regions with time in this window, most time first (what the legend lists).
  std::vector<std::int32_t> legend_regions;
  std::vector<double> region_time_scratch;  // per region position, reused
  QueryTime query;  // the store's share of the load: reading events and messages, or LOD cells
};

// Queries the request's window and builds the GPU-ready geometry and the pick
// index into `out`, reusing its buffers: from the events, or from `lod` (when
// given) when the window holds too many events to draw one by one. Runs on
// whichever thread owns `query` and `lod`.
void load_window(db::WindowQuery& query, db::ActivityLod* lod, const TraceInfo& info,
                 const PhysicalRequest& request, LoadedWindow& out);

}  // namespace weft::app
