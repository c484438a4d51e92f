#include "app/timeline_data.h"

#include "charm/task_structure_store.h"

#include "app/user_colors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "app/frame_stats.h"
#include "app/class_colors.h"
#include "app/view_filter.h"
#include "timeline_renderer.h"

namespace weft::app {

TraceInfo logical_trace_info(db::Database& db, const TraceInfo& info) {
  db::LogicalRows rows = db::read_logical_rows(db);
  if (rows.name.empty()) return info;
  TraceInfo logical = info;
  logical.task_rows = true;
  logical.processes.kind.assign(rows.name.size(), "chare");
  logical.processes.name = std::move(rows.name);
  logical.runtime_row = std::move(rows.runtime);
  return logical;
}

TraceInfo read_trace_info(db::WindowQuery& query) {
  TraceInfo info;
  info.file_name = std::filesystem::path(query.path()).filename().string();
  info.meta = query.meta();
  info.processes = query.processes();
  info.regions = query.regions();
  info.region_colors = render::region_colors(info.regions);
  info.region_thin.assign(info.regions.size(), 0);
  for (std::size_t i = 0; i < info.regions.size(); ++i)
    info.region_thin[i] = info.regions.paradigm[i] == "charm" && info.regions.name[i] == "Idle" &&
                          info.regions.kind[i] == RegionKind::OtherParadigm;
  apply_user_colors(read_user_colors(user_colors_path()), info.regions, info.region_colors);
  info.legend_order.resize(info.regions.size());
  std::iota(info.legend_order.begin(), info.legend_order.end(), 0);
  const db::RegionTable& regions = info.regions;
  // Grouped by kind so that related hues sit together in the legend.
  std::stable_sort(info.legend_order.begin(), info.legend_order.end(),
                   [&regions](std::int32_t a, std::int32_t b) {
                     auto ka = static_cast<int>(regions.kind[static_cast<std::size_t>(a)]);
                     auto kb = static_cast<int>(regions.kind[static_cast<std::size_t>(b)]);
                     if (ka != kb) return ka < kb;
                     return regions.name[static_cast<std::size_t>(a)] <
                            regions.name[static_cast<std::size_t>(b)];
                   });
  return info;
}

db::Window window_for_viewport(const TimelineViewport& viewport, double pad,
                               std::size_t row_count) {
  const double span = viewport.t1_ns - viewport.t0_ns;
  const double rows = viewport.row1 - viewport.row0;
  db::Window window;
  window.t0 = static_cast<TimeNs>(std::floor(std::max(0.0, viewport.t0_ns - pad * span)));
  window.t1 = static_cast<TimeNs>(std::ceil(viewport.t1_ns + pad * span));
  window.p0 = static_cast<ProcessIndex>(std::max(0.0, std::floor(viewport.row0 - pad * rows)));
  window.p1 = static_cast<ProcessIndex>(std::min(static_cast<double>(row_count),
                                                 std::ceil(viewport.row1 + pad * rows)) -
                                        1);
  return window;
}

namespace {

// A legend of every region of a real trace runs to hundreds of names; the ones
// that take the time in view are what a reader needs to decode the colors.
void rank_regions_by_time(const db::WindowEvents& events, const db::Window& window,
                          std::size_t region_count, LoadedWindow& out) {
  std::vector<double>& time = out.region_time_scratch;
  time.assign(region_count, 0.0);
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.region[i] < 0) continue;
    TimeNs start = std::max(events.start_ns[i], window.t0);
    TimeNs end = std::min(events.end_ns[i], window.t1);
    // +1 so that zero-length events still count as present.
    time[static_cast<std::size_t>(events.region[i])] += static_cast<double>(end - start) + 1.0;
  }
  out.legend_regions.clear();
  for (std::size_t r = 0; r < region_count; ++r)
    if (time[r] > 0) out.legend_regions.push_back(static_cast<std::int32_t>(r));
  std::stable_sort(out.legend_regions.begin(), out.legend_regions.end(),
                   [&time](std::int32_t a, std::int32_t b) {
                     return time[static_cast<std::size_t>(a)] > time[static_cast<std::size_t>(b)];
                   });
}

// How many events `window` holds if they were spread evenly over processes and time.
double estimated_events(const TraceInfo& info, const db::Window& window) {
  const double processes = static_cast<double>(std::max<std::size_t>(info.processes.size(), 1));
  const double span = static_cast<double>(std::max<TimeNs>(info.meta.trace_end_ns, 1));
  const double rows = static_cast<double>(window.p1 - window.p0 + 1);
  const double ns = static_cast<double>(std::max<TimeNs>(window.t1 - window.t0, 0));
  return static_cast<double>(info.meta.count_events) * (rows / processes) * std::min(1.0, ns / span);
}

// Level-of-detail cells as palette indices: 1 + class · 32 + busy / 8, so a
// cell shows its class's color, opaque, mixed toward the background by how
// little of it was busy (idle cells fade, busy ones glow; 32 shades).
constexpr int kBusyShades = 32;

class LodPalette {
 public:
  LodPalette() {
    for (int k = 0; k < db::kStartClasses; ++k) {
      const render::Rgba8 base = class_color(static_cast<db::StartClass>(k));
      for (int shade = 0; shade < kBusyShades; ++shade) {
        const double keep = 0.35 + 0.65 * (shade + 0.5) / kBusyShades;
        auto channel = [&](int shift, int background) {
          return static_cast<std::uint8_t>(background +
                                           (static_cast<double>((base >> shift) & 0xff) - background) * keep);
        };
        colors[static_cast<std::size_t>(1 + k * kBusyShades + shade)] =
            render::rgba8(channel(0, 22), channel(8, 22), channel(16, 26));
      }
      for (int busy = 0; busy < 256; ++busy)
        index_of[static_cast<std::size_t>((k + 1) * 256 + busy)] =
            static_cast<std::uint8_t>(1 + k * kBusyShades + busy * kBusyShades / 256);
    }
  }
  // By (class + 1) · 256 + busy; class 0 (no event) and unknown classes: 0.
  std::array<std::uint8_t, 256 * 256> index_of{};
  std::array<render::Rgba8, 256> colors{};
};
static_assert(1 + db::kStartClasses * kBusyShades <= 256, "LOD palette overflows a byte");

// The cells as one image (a byte per cell, drawn as one textured quad).
void build_lod_geometry(const db::LodLayout& layout, LoadedWindow& out) {
  static const LodPalette palette;
  render::TimelineGeometry& g = out.geometry;
  g.clear();
  g.origin_ns = out.window.t0;
  const db::CellGrid& grid = out.lod.grid;
  out.lod_bin_ns = layout.bin_width(out.lod.tlevel);
  out.lod_block_rows = layout.block_size(out.lod.plevel);
  render::CellImage& image = g.image;
  image.width = static_cast<int>(grid.columns);
  image.height = static_cast<int>(grid.rows);
  image.x0 = static_cast<double>(grid.i0 * out.lod_bin_ns - g.origin_ns);
  image.dx = static_cast<double>(out.lod_bin_ns);
  image.row0 = static_cast<double>(grid.b0 * out.lod_block_rows);
  image.drow = static_cast<double>(out.lod_block_rows);
  image.palette = palette.colors;
  const auto cells = static_cast<std::size_t>(grid.rows * grid.columns);
  image.cells.resize(cells);
  const std::uint8_t* cell = grid.bytes.data();
  for (std::size_t i = 0; i < cells; ++i, cell += db::LodCells::kCellBytes)
    image.cells[i] = palette.index_of[static_cast<std::size_t>(cell[0]) * 256 + cell[1]];
}

}  // namespace

bool draws_level_of_detail(const TraceInfo& info, const ViewFilter& filter, const db::Window& window) {
  // Cells aggregate every process of a block: only an unfiltered view can use them.
  return filter.all_processes && estimated_events(info, window) > kDetailEventLimit;
}

db::Window physical_window_for(const TimelineViewport& viewport, const TraceInfo& info, const ViewFilter& filter,
                               bool has_lod) {
  const db::Window window = window_for_viewport(viewport, kPrefetchPad, filter.rows());
  if (!has_lod || !draws_level_of_detail(info, filter, window)) return window;
  return window_for_viewport(viewport, kLodPrefetchPad, filter.rows());
}

void load_window(db::WindowQuery& query, db::ActivityLod* lod, const TraceInfo& info,
                 const PhysicalRequest& request, LoadedWindow& out) {
  const ViewFilter& filter = *request.filter;
  const db::Window window = process_window(filter, request.window);
  out.window = window;
  out.from_lod = lod && draws_level_of_detail(info, filter, request.window);
  if (out.from_lod) {
    auto [p, t] = lod->choose_levels(request.px_per_ns, request.px_per_row, kLodCellPx);
    const QueryClock clock;
    lod->read(p, t, window.t0, window.t1, window.p0, window.p1, out.lod);
    out.query = clock.elapsed();
    out.events.clear();
    out.messages.clear();
    build_lod_geometry(lod->layout(), out);
    out.picks = {};  // hovering a cell is answered from `lod` directly
    out.legend_regions.clear();
    return;
  }
  const QueryClock clock;
  query.read_events(window, out.events);
  query.read_messages(window, out.messages);
  out.query = clock.elapsed();
  // Geometry times are relative to the window start, where float precision is
  // spent on what the user looks at.
  render::GeometryFilter geometry_filter{&filter.row_of_process, &filter.region_hidden, &info.region_thin};
  render::build_timeline_geometry(out.events, out.messages, filter.region_colors,
                                  kUnknownRegionColor, window.t0, geometry_filter, out.geometry);
  render::build_pick_index(out.geometry, static_cast<std::int32_t>(filter.rows()), out.picks);
  rank_regions_by_time(out.events, window, info.regions.size(), out);
  paint_dense_window(out.geometry, request.raster_dense,
                     {request.px_per_ns, request.px_per_row, 0.0, static_cast<double>(window.t1 - window.t0),
                      static_cast<double>(request.window.p0), request.window.p1 + 1.0, request.x_phase,
                      request.y_phase});
}

std::pair<double, double> pixel_phase(const render::ViewTransform& view, double x0, double row0) {
  const double x = view.x_of(x0), y = view.y_of(row0);
  return {x - std::floor(x), y - std::floor(y)};
}

bool paint_dense_window(render::TimelineGeometry& geometry, bool raster_dense, const render::RasterExtent& extent) {
  if (!raster_dense || geometry.box_count() < kRasterMinBoxes) return false;
  if (!render::rasterize_boxes(geometry, extent)) return false;
  render::rasterize_lines(geometry, extent, render::TimelineStyle{}.message_half_width);
  return true;
}

}  // namespace weft::app
