#include "app/logical_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "app/frame_stats.h"
#include "app/class_colors.h"
#include "app/view_filter.h"
#include "common/error.h"
#include "metric_colormap.h"

namespace weft::app {

namespace {

struct ColorName {
  LogicalColor color;
  const char* name;
  const char* title;
  const char* task_title;  // what the stored number is in a task run (docs/schema.md, "Task runs")
};

constexpr ColorName kColorNames[] = {
    {LogicalColor::Lateness, "lateness", "lateness", "idle experienced"},
    {LogicalColor::DiffLateness, "dlateness", "differential lateness", "diff. duration"},
    {LogicalColor::GlobalLateness, "glateness", "global lateness", "imbalance"},
    {LogicalColor::Duration, "duration", "duration", "duration"},
    {LogicalColor::Function, "function", "function", "entry method"},
};

const ColorName& entry(LogicalColor color) {
  for (const ColorName& c : kColorNames)
    if (c.color == color) return c;
  return kColorNames[0];
}

// Boxes leave this much of their step empty on each side so neighbouring
// steps read as separate columns.
constexpr float kStepGap = 0.06f;

void add_box(render::TimelineGeometry& g, double x0, double x1, ProcessIndex row, float depth,
             render::Rgba8 color, std::uint32_t event) {
  g.box_span.push_back(static_cast<float>(x0));
  g.box_span.push_back(static_cast<float>(x1));
  g.box_row.push_back(static_cast<float>(row));
  g.box_row.push_back(depth);
  g.box_color.push_back(color);
  g.box_event.push_back(event);
  g.box_height.push_back(1.0f);
}

// The work a process does between two communication events sits in the even
// step before the second (§3.2: it is aggregated between them). Drawn first so
// the communication boxes lie on top.
void add_aggregate_work(const db::StepEvents& events, const ViewFilter& filter,
                        LoadedLogicalWindow& out) {
  std::vector<std::uint32_t>& order = out.order_scratch;
  order.resize(events.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&events](std::uint32_t a, std::uint32_t b) {
    if (events.process[a] != events.process[b]) return events.process[a] < events.process[b];
    return events.step[a] < events.step[b];
  });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const std::uint32_t prev = order[k - 1];
    const std::uint32_t cur = order[k];
    if (events.process[prev] != events.process[cur]) continue;
    const std::int32_t first = events.send_step[cur] >= 0 ? events.send_step[cur] : events.step[cur];
    if (first - 1 <= events.step[prev]) continue;  // no work slot between them
    if (events.start_ns[cur] <= events.end_ns[prev]) continue;  // no time spent
    const std::int32_t row = filter.row(events.process[cur]);
    if (row < 0) continue;
    add_box(out.geometry, first - 1 + kStepGap, first - kStepGap, row, 1.0f, kAggregateWorkColor,
            kAggregateBoxFlag | cur);
  }
}

// The cells as one image (a byte per 2^s steps × 2^p rows), each in the
// color of its largest metric value (or its most communication-like class).
void build_step_lod_geometry(const db::StepLodLayout& layout, LogicalColor color, LoadedLogicalWindow& out) {
  render::TimelineGeometry& g = out.geometry;
  const db::CellGrid& grid = out.lod.grid;
  out.lod_bin_steps = std::int64_t{1} << out.lod.slevel;
  out.lod_block_rows = layout.block_size(out.lod.plevel);
  const db::StepLodField field = color == LogicalColor::Function       ? db::kLodClasses
                                 : color == LogicalColor::DiffLateness   ? db::kLodDiffLateness
                                 : color == LogicalColor::GlobalLateness ? db::kLodGlobalLateness
                                 : color == LogicalColor::Duration       ? db::kLodDuration
                                                                         : db::kLodLateness;
  render::CellImage& image = g.image;
  image.width = static_cast<int>(grid.columns);
  image.height = static_cast<int>(grid.rows);
  image.x0 = static_cast<double>(grid.i0 * out.lod_bin_steps);
  image.dx = static_cast<double>(out.lod_bin_steps);
  image.row0 = static_cast<double>(grid.b0 * out.lod_block_rows);
  image.drow = static_cast<double>(out.lod_block_rows);
  // Palette indices: a class set (1..63) is its own index; a metric (0..255
  // of the run's largest) takes 1 + value / 2, 128 steps of the color map
  // whose ends are exact (0: bottom, 255: top). Index 0: no event.
  std::array<std::uint8_t, 256> index_of{};
  image.palette.fill(0);
  for (int v = 0; v < 256; ++v) {
    if (field == db::kLodClasses) {
      index_of[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(v);
      if (v > 0) image.palette[static_cast<std::size_t>(v)] = class_color(dominant_class(static_cast<std::uint8_t>(v)));
    } else {
      index_of[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(1 + v / 2);
      if (v < 128) image.palette[static_cast<std::size_t>(1 + v)] = render::metric_color(v * 255.0 / 127.0, 255.0);
    }
  }
  const auto cells = static_cast<std::size_t>(grid.rows * grid.columns);
  image.cells.resize(cells);
  const std::uint8_t* cell = grid.bytes.data();
  for (std::size_t i = 0; i < cells; ++i, cell += db::kStepLodCellBytes)
    image.cells[i] = cell[db::kLodClasses] == 0 ? 0 : index_of[cell[field]];
}

}  // namespace

db::StartClass dominant_class(std::uint8_t mask) {
  for (db::StartClass c : {db::StartClass::Collective, db::StartClass::Wait, db::StartClass::Receive,
                           db::StartClass::Send, db::StartClass::OtherMpi, db::StartClass::Compute})
    if (mask & (1u << static_cast<int>(c))) return c;
  return db::StartClass::Compute;
}

LogicalColor parse_logical_color(const std::string& name) {
  for (const ColorName& c : kColorNames)
    if (name == c.name) return c.color;
  throw Error("--color: unknown metric '" + name +
              "' (lateness, dlateness, glateness, duration or function)");
}

const char* logical_color_name(LogicalColor color) { return entry(color).name; }
const char* logical_color_title(LogicalColor color, bool task) {
  return task ? entry(color).task_title : entry(color).title;
}

TimeNs logical_metric(const db::StepEvents& e, std::size_t i, LogicalColor color) {
  switch (color) {
    case LogicalColor::Lateness: return e.lateness_ns[i];
    case LogicalColor::DiffLateness: return e.diff_lateness_ns[i];
    case LogicalColor::GlobalLateness: return e.global_lateness_ns[i];
    case LogicalColor::Duration: return e.end_ns[i] - e.start_ns[i];
    case LogicalColor::Function: return -1;
  }
  return -1;
}

TimeNs logical_metric_max(const db::StructureFacts& facts, LogicalColor color) {
  switch (color) {
    case LogicalColor::Lateness: return facts.max_lateness_ns;
    case LogicalColor::DiffLateness: return facts.max_diff_lateness_ns;
    case LogicalColor::GlobalLateness: return facts.max_global_lateness_ns;
    case LogicalColor::Duration: return facts.max_duration_ns;
    case LogicalColor::Function: return 0;
  }
  return 0;
}

db::StepWindow step_window_for_viewport(const TimelineViewport& viewport, double pad,
                                        std::size_t row_count, std::int64_t step_count) {
  const double span = viewport.t1_ns - viewport.t0_ns;
  const double rows = viewport.row1 - viewport.row0;
  db::StepWindow w;
  w.s0 = static_cast<std::int64_t>(std::floor(std::max(0.0, viewport.t0_ns - pad * span)));
  w.s1 = static_cast<std::int64_t>(std::min(static_cast<double>(std::max<std::int64_t>(step_count, 1) - 1),
                                            std::ceil(viewport.t1_ns + pad * span)));
  w.p0 = static_cast<ProcessIndex>(std::max(0.0, std::floor(viewport.row0 - pad * rows)));
  w.p1 = static_cast<ProcessIndex>(
      std::min(static_cast<double>(row_count), std::ceil(viewport.row1 + pad * rows)) - 1);
  return w;
}

namespace {

// The late path of issue 6's messages in flight glows by the lateness of each
// message's receive: look the receive up by (receiver, receive step) among
// the window's events.
void find_receive_lateness(LoadedLogicalWindow& out) {
  const db::StepEvents& e = out.events;
  const db::StepMessages& m = out.messages;
  auto key = [](ProcessIndex p, std::int64_t step) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(p)) << 32) | static_cast<std::uint32_t>(step);
  };
  std::unordered_map<std::uint64_t, TimeNs> lateness_at;
  lateness_at.reserve(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) lateness_at[key(e.process[i], e.step[i])] = e.lateness_ns[i];
  out.recv_lateness.assign(m.size(), 0);
  out.recv_lateness_by_message.clear();
  out.recv_lateness_by_message.reserve(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    auto it = lateness_at.find(key(m.dst[i], m.recv_step[i]));
    if (it == lateness_at.end()) continue;
    out.recv_lateness[i] = it->second;
    out.recv_lateness_by_message[m.message[i]] = it->second;
  }
}

}  // namespace

void load_logical_window(db::LogicalWindowQuery& query, db::StepLod* lod, const TraceInfo& info,
                         const db::StructureFacts& facts, LogicalColor color,
                         const ViewFilter& filter, db::StepWindow window, const StepZoom& zoom,
                         LoadedLogicalWindow& out) {
  // Communication events sit on odd steps: about one per process per two steps.
  const double estimated = 0.5 * static_cast<double>(window.s1 - window.s0 + 1) *
                           static_cast<double>(window.p1 - window.p0 + 1);
  out.from_lod = lod && filter.all_processes && estimated > kLogicalDetailLimit;
  if (out.from_lod) {
    out.window = window;
    out.color = color;
    out.events.clear();
    out.messages.clear();
    out.recv_lateness.clear();
    out.recv_lateness_by_message.clear();
    out.geometry.clear();
    out.geometry.origin_ns = 0;
    auto [p, s] = lod->choose_levels(zoom.px_per_step, zoom.px_per_row, kLodCellPx);
    const QueryClock clock;
    lod->read(p, s, window.s0, window.s1, window.p0, window.p1, out.lod);
    out.query = clock.elapsed();
    build_step_lod_geometry(lod->layout(), color, out);
    out.picks = {};
    return;
  }
  const std::pair<double, double> rows{window.p0, window.p1 + 1.0};  // as rows of `filter`
  if (!filter.process_of_row.empty()) {
    auto row = [&](ProcessIndex r) {
      return filter.process_of_row[static_cast<std::size_t>(
          std::clamp<ProcessIndex>(r, 0, static_cast<ProcessIndex>(filter.rows()) - 1))];
    };
    window.p0 = row(window.p0);
    window.p1 = row(window.p1);
  }
  out.window = window;
  out.color = color;
  const QueryClock clock;
  query.read_events(window, out.events);
  query.read_messages(window, out.messages);
  out.query = clock.elapsed();
  const db::StepEvents& e = out.events;
  render::TimelineGeometry& g = out.geometry;
  g.clear();
  g.origin_ns = 0;  // steps are small integers: float holds them exactly
  add_aggregate_work(e, filter, out);

  const double max_value = static_cast<double>(logical_metric_max(facts, color));
  auto color_of = [&](std::size_t i) {
    if (color != LogicalColor::Function)
      return render::metric_color(static_cast<double>(logical_metric(e, i, color)), max_value);
    std::int32_t region = info.regions.index_of(e.region[i]);
    return region >= 0 ? filter.region_colors[static_cast<std::size_t>(region)] : kUnknownRegionColor;
  };
  for (std::size_t i = 0; i < e.size(); ++i) {
    const std::int32_t row = filter.row(e.process[i]);
    if (row < 0 || filter.hidden_reference(info, e.region[i])) continue;
    const render::Rgba8 c = color_of(i);
    const auto index = static_cast<std::uint32_t>(i);
    // A send-and-receive call occupies its send step and its receive step.
    if (e.send_step[i] >= 0)
      add_box(g, e.send_step[i] + kStepGap, e.send_step[i] + 1 - kStepGap, row, 0.0f, c, index);
    add_box(g, e.step[i] + kStepGap, e.step[i] + 1 - kStepGap, row, 0.0f, c, index);
  }
  const db::StepMessages& m = out.messages;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const std::int32_t src = filter.row(m.src[i]), dst = filter.row(m.dst[i]);
    if (src < 0 || dst < 0) continue;
    // From the middle of the send's step to the middle of the receive's.
    g.line_time.push_back(static_cast<float>(m.send_step[i]) + 0.5f);
    g.line_time.push_back(static_cast<float>(m.recv_step[i]) + 0.5f);
    g.line_row.push_back(static_cast<float>(src));
    g.line_row.push_back(static_cast<float>(dst));
  }
  render::build_pick_index(g, static_cast<std::int32_t>(filter.rows()), out.picks);
  find_receive_lateness(out);
  paint_dense_window(g, zoom.raster_dense,
                     {zoom.px_per_step, zoom.px_per_row, static_cast<double>(window.s0),
                      static_cast<double>(window.s1 + 1), rows.first, rows.second, zoom.x_phase, zoom.y_phase});
}

}  // namespace weft::app
