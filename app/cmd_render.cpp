// `weft render`: one frame of a view, rendered with no display (EGL
// surfaceless + an offscreen framebuffer) and written as a PNG. The frame is
// drawn by the same code as the window (timeline_frame.h).
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/charm_views.h"
#include "app/commands.h"
#include "app/gui_commands.h"
#include "app/headless_frame.h"
#include "app/headless_options.h"
#include "app/logical_data.h"
#include "app/logical_overlay.h"
#include "app/particle_view.h"
#include "app/physical_overlay.h"
#include "app/selection.h"
#include "app/overview_strip.h"
#include "app/timeline_slider.h"
#include "app/view_filter.h"
#include "app/timeline_data.h"
#include "app/timeline_frame.h"
#include "app/timeline_panel.h"
#include "charm/task_structure_store.h"
#include "common/error.h"
#include "framebuffer.h"
#include "headless_context.h"
#include "png_writer.h"
#include "projections/virtual_rank_query.h"
#include "store/window_query.h"
#include "structure/logical_window.h"
#include "structure/time_metrics.h"
#include "timeline_raster.h"
#include "summary/start_histogram.h"
#include "timeline_renderer.h"

namespace weft::app {

namespace {

struct RenderOptions {
  std::string database;
  std::string view = "physical";
  std::string out;
  std::string size = "1600x900";
  float scale = 1.0f;   // image pixels per layout unit: 2 draws the same picture at twice the resolution
  std::string time;   // "A:B" (see parse_time_option); empty: the whole run
  std::string steps;  // "A:B" global steps; empty: all
  std::string procs;  // "A:B", "A-B" or "A"; empty: all
  std::string color = "lateness";
  std::string at;       // particles: the data time shown
  std::string step;     // particles: data time per animation frame; empty: the run in 600 frames
  double fade_s = 2;    // particles: fade time in animation seconds
  double fps = 30;      // particles: animation frames per second
  float omin = 0.3f;   // particles: least opacity of the history
  EventId select = -1;  // outline this event, its message partner and partition
};

// The selection `--select` asks for, linked through the logical window when
// there is one; the event must be in the rendered window.
std::optional<Selection> requested_selection(const RenderOptions& options, const LoadedWindow* physical,
                                             const LoadedLogicalWindow* logical) {
  if (options.select < 0) return std::nullopt;
  std::optional<Selection> s;
  if (physical) s = select_event(*physical, options.select);
  if (!s && logical) {
    s = Selection{};
    s->event = options.select;
  }
  if (s) link_to_structure(*s, logical);
  if (!s || (!physical && s->self.step < 0))
    throw Error("--select: event " + std::to_string(options.select) + " is not in the rendered window");
  return s;
}


TimelineViewport time_viewport(const RenderOptions& options, const TraceInfo& info) {
  const TimeNs end = info.meta.trace_end_ns;
  TimelineViewport viewport;
  viewport.t0_ns = 0;
  viewport.t1_ns = static_cast<double>(std::max<TimeNs>(end, 1));
  if (!options.time.empty()) {
    auto [a, b] = split_range("--time", options.time, ":");
    viewport.t0_ns = static_cast<double>(parse_time_option("--time", a, end));
    viewport.t1_ns = static_cast<double>(parse_time_option("--time", b, end));
    if (viewport.t1_ns <= viewport.t0_ns)
      throw Error("--time: the start (" + a + ") must be before the end (" + b + ")");
  }
  return viewport;
}

void set_rows(const RenderOptions& options, const TraceInfo& info, TimelineViewport& viewport) {
  auto [first, last] = parse_index_range("--procs", options.procs,
                                         static_cast<std::int64_t>(info.processes.size()));
  viewport.row0 = static_cast<double>(first);
  viewport.row1 = static_cast<double>(last) + 1.0;
}

void render_physical(const RenderOptions& options, db::WindowQuery& query, const TraceInfo& info,
                     Size size) {
  if (!options.steps.empty()) throw Error("--steps: only the logical view has steps; use --time");
  TimelineViewport viewport = time_viewport(options, info);
  set_rows(options, info, viewport);

  HeadlessFrame frame(size, 4, options.scale);
  render::TimelineRenderer renderer;
  TimelinePanel panel(info, TimelineAxis::Time, static_cast<double>(info.meta.trace_end_ns));
  panel.set_title(physical_title(info));
  // A Projections run: busy % in the row labels, λ in the title (summary/pe_usage.h).
  const std::optional<PeViewSummary> pe_summary = read_pe_view_summary(query.database(), info);
  if (pe_summary) {
    panel.set_title(pe_view_title(info, *pe_summary));
    panel.set_row_labels(pe_summary->row_labels);
  }
  panel.set_viewport(viewport);
  auto data = std::make_unique<LoadedWindow>();
  std::optional<db::ActivityLod> lod;
  if (db::has_activity_lod(query.database())) lod.emplace(query.database());
  // The plot's size is known once laid out; layout needs an ImGui frame.
  frame.begin();
  const render::ViewTransform view = panel.layout(frame.area(), size.width, size.height, physical_legend_width(info));
  const db::Window window = window_for_viewport(panel.viewport(), 0.0, info.processes.size());
  const auto [x_phase, y_phase] = pixel_phase(view, static_cast<double>(window.t0), static_cast<double>(window.p0));
  PhysicalRequest request{window, view.px_per_ns(), view.px_per_row(), make_view_filter(info, "", {}, ""),
                          render::raster_dense_windows_for_context(), x_phase, y_phase};
  load_window(query, lod ? &*lod : nullptr, info, request, *data);
  renderer.upload(data->geometry);
  DrawnView drawn =
      draw_physical_timeline(panel, renderer, info, data.get(), frame.area(), size.width, size.height, false);
  if (pe_summary)
    draw_migration_ribbons(drawn.view, db::read_migrations(query.database(), static_cast<TimeNs>(viewport.t0_ns),
                                                           static_cast<TimeNs>(std::ceil(viewport.t1_ns))));
  if (auto s = requested_selection(options, data.get(), nullptr))
    draw_selection(*s, drawn.view, false, db::PartitionSpans{}, *request.filter);
  frame.finish(options.out);
}

// AMPI virtual ranks over time, tinted by PE (charm_views.h).
void render_vps(const RenderOptions& options, db::WindowQuery& query, const TraceInfo& info, Size size) {
  if (!options.steps.empty()) throw Error("--steps: the vps view is in time; use --time");
  VirtualRankLanes lanes(query.database(), info);  // throws for a run without virtual ranks
  TimelineViewport viewport = time_viewport(options, info);
  auto [first, last] = parse_index_range("--procs", options.procs, lanes.ranks());
  viewport.row0 = static_cast<double>(first);
  viewport.row1 = static_cast<double>(last) + 1.0;
  HeadlessFrame frame(size, 4, options.scale);
  lanes.panel().set_viewport(viewport);
  frame.begin();
  lanes.draw(frame.area(), size.width, size.height, false);
  frame.finish(options.out);
}

// Per-PE stacked time per entry method, idle and overhead (charm_views.h).
void render_profile(const RenderOptions& options, db::WindowQuery& query, const TraceInfo& info, Size size) {
  if (!options.time.empty() || !options.steps.empty() || !options.procs.empty())
    throw Error("--time/--steps/--procs: the usage profile always covers the whole run");
  db::Database& db = query.database();
  if (!db::is_projections_run(db))
    throw Error(db.path(), "the usage profile needs a Charm++ Projections run (weft import PROG.sts)");
  const db::PeUtilizationTable util = db::read_pe_utilization(db);
  const db::UsageProfile profile = db::read_usage_profile(db);
  HeadlessFrame frame(size, 4, options.scale);
  frame.begin();
  draw_usage_profile(frame.area(), info, profile, util);
  frame.finish(options.out);
}

void render_logical(const RenderOptions& options, db::WindowQuery& query, const TraceInfo& info,
                    Size size) {
  if (!options.time.empty()) throw Error("--time: the logical view is in steps; use --steps");
  const LogicalColor color = parse_logical_color(options.color);
  db::LogicalWindowQuery steps(query.database());
  const db::StructureFacts& facts = steps.facts();
  TimelineViewport viewport;
  auto [first, last] = parse_index_range("--steps", options.steps, facts.global_steps);
  viewport.t0_ns = static_cast<double>(first);
  viewport.t1_ns = static_cast<double>(last) + 1.0;
  set_rows(options, info, viewport);

  HeadlessFrame frame(size, 4, options.scale);
  render::TimelineRenderer renderer;
  TimelinePanel panel(info, TimelineAxis::Steps, static_cast<double>(facts.global_steps));
  panel.set_title(logical_title(info, facts, color));
  panel.set_viewport(viewport);
  auto data = std::make_unique<LoadedLogicalWindow>();
  const std::shared_ptr<const ViewFilter> filter = make_view_filter(info, "", {}, "");
  std::optional<db::StepLod> lod;
  if (db::has_step_lod(query.database())) lod.emplace(query.database());
  frame.begin();
  const render::ViewTransform view =
      panel.layout(frame.area(), size.width, size.height, logical_legend_width(info, color));
  const db::StepWindow window = step_window_for_viewport(panel.viewport(), 0.0, info.processes.size(), facts.global_steps);
  const auto [x_phase, y_phase] = pixel_phase(view, static_cast<double>(window.s0), static_cast<double>(window.p0));
  load_logical_window(steps, lod ? &*lod : nullptr, info, facts, color, *filter, window,
                      {view.px_per_ns(), view.px_per_row(), render::raster_dense_windows_for_context(), x_phase,
                       y_phase},
                      *data);
  renderer.upload(data->geometry);
  DrawnView drawn = draw_logical_timeline(panel, renderer, info, facts, color, data.get(), frame.area(),
                                          size.width, size.height, false);
  if (auto s = requested_selection(options, nullptr, data.get()))
    draw_selection(*s, drawn.view, true, db::read_partition_spans(query.database()), *filter);
  frame.finish(options.out);
}

// The overview strips of the logical metric per step and per time bin (when
// the run is analyzed) above the timeline slider's graph of event starts, all
// over the whole run.
void render_overview(const RenderOptions& options, db::WindowQuery& query, const TraceInfo& info,
                     Size size) {
  if (!options.time.empty() || !options.steps.empty() || !options.procs.empty())
    throw Error("--time/--steps/--procs: the overview always shows the whole run");
  const LogicalColor color = parse_logical_color(options.color);
  db::Database& db = query.database();
  const bool structure = db::has_logical_structure(db);
  const bool task = structure && db::has_task_structure(db);
  std::optional<db::StartHistogram> histogram;
  if (db::has_start_histogram(db)) histogram = db::read_start_histogram(db);
  TimelineSlider slider(static_cast<double>(info.meta.trace_end_ns), std::move(histogram));
  slider.hide_cursor();

  HeadlessFrame frame(size, 4, options.scale);
  frame.begin();
  const auto w = static_cast<float>(size.width);
  const auto h = static_cast<float>(size.height);
  const bool time_strip = structure && db::has_time_metrics(db);
  const float strip = structure ? std::floor((time_strip ? 0.35f : 0.5f) * h) : 0.0f;
  float y = 0;
  if (structure) {
    const db::StructureFacts facts = db::LogicalWindowQuery(db).facts();
    read_step_overview(db, facts.global_steps, task).draw({0, y, w, strip}, color, 0.0, 0.0, false);
    y += strip;
  }
  if (time_strip) {
    read_time_overview(db, info.meta.trace_end_ns, task).draw({0, y, w, strip}, color, 0.0, 0.0, false);
    y += strip;
  }
  slider.draw({0, y, w, h - y}, 0.0, 0.0, false);
  frame.finish(options.out);
}

// The particle scatterplot at --at, its history accumulated from the start of
// the run as if it had been played with the same data time step.
void render_particles(const RenderOptions& options, db::WindowQuery& query, const TraceInfo& info,
                      Size size) {
  if (!options.time.empty() || !options.steps.empty())
    throw Error("--time/--steps: the particle view takes --at TIME");
  const TimeNs end = info.meta.trace_end_ns;
  const TimeNs at = options.at.empty() ? end : parse_time_option("--at", options.at, end);
  if (!(options.fade_s >= 0) || !(options.fps > 0) || !(options.omin >= 0 && options.omin <= 1))
    throw Error("--fade must be >= 0, --fps > 0 and --omin within 0..1");
  HeadlessFrame frame(size, 1, options.scale);
  ParticleView view(query, info, render::particle_path_for_context());
  ParticleSettings& settings = view.settings();
  if (!options.step.empty())
    settings.step_ns = std::max(1.0, static_cast<double>(parse_time_option("--step", options.step, end)));
  settings.fade_s = options.fade_s;
  settings.frames_per_s = options.fps;
  settings.omin = options.omin;
  if (!options.procs.empty()) {
    auto [first, last] = parse_index_range("--procs", options.procs, static_cast<std::int64_t>(info.processes.size()));
    view.set_processes(static_cast<ProcessIndex>(first), static_cast<ProcessIndex>(last));
  }
  view.set_area(frame.area());
  view.replay_to(at);
  frame.begin();
  view.draw(size.width, size.height, false);
  frame.finish(options.out);
}

void render_view(const RenderOptions& options) {
  const Size size = parse_size(options.size);
  if (!(options.scale >= 1.0f && options.scale <= 4.0f)) throw Error("--scale must be within 1..4");
  if (size.width * options.scale > 16384 || size.height * options.scale > 16384)
    throw Error("--size times --scale is over 16384 pixels on a side");
  if (options.view != "physical" && options.view != "logical" && options.view != "overview" &&
      options.view != "particles" && options.view != "vps" && options.view != "profile")
    throw Error("--view: unknown view '" + options.view +
                "' (physical, logical, overview, particles, vps or profile)");
  if (options.view != "particles" && !options.at.empty())
    throw Error("--at: only the particle view has a current time; use --time or --steps");
  // The database first: a wrong path should not be reported as an EGL problem.
  db::WindowQuery query(options.database);
  TraceInfo info = read_trace_info(query);
  if (options.view == "logical")
    render_logical(options, query, logical_trace_info(query.database(), info), size);
  else if (options.view == "overview")
    render_overview(options, query, info, size);
  else if (options.view == "particles")
    render_particles(options, query, info, size);
  else if (options.view == "vps")
    render_vps(options, query, info, size);
  else if (options.view == "profile")
    render_profile(options, query, info, size);
  else
    render_physical(options, query, info, size);
}

}  // namespace

void add_render_command(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* cmd = app.add_subcommand("render", gui_command_description("render"));
  cmd->add_option("database", options->database, "a .weft file")->required();
  cmd->add_option("--view", options->view, "which view: physical, logical, overview, particles, vps (AMPI virtual ranks) or profile (Charm++ usage profile)")->capture_default_str();
  cmd->add_option("--out,-o", options->out, "PNG file to write")->required();
  cmd->add_option("--size", options->size, "image size WIDTHxHEIGHT")->capture_default_str();
  cmd->add_option("--scale", options->scale,
                  "pixels per layout unit (1..4): the same picture, text and lines at SCALE times the "
                  "resolution (a PNG of SIZE x SCALE), for print or HiDPI screens")
      ->capture_default_str();
  cmd->add_option("--time", options->time,
                  "physical view: time span A:B, each ns from trace start, a time with a unit "
                  "(250us, 1.5ms, 2s) or a share of the run (40%)");
  cmd->add_option("--steps", options->steps, "logical view: global steps A:B (inclusive)");
  cmd->add_option("--procs", options->procs, "processes shown (vps: virtual ranks): A:B (inclusive) or A");
  cmd->add_option("--color", options->color,
                  "logical view: lateness, dlateness, glateness, duration or function (Charm++ runs: "
                  "idle experienced, diff. duration, imbalance, sub-block duration, entry method)")
      ->capture_default_str();
  cmd->add_option("--select", options->select,
                  "outline this event id, its message partner and its partition (as a click does)");
  cmd->add_option("--at", options->at, "particles: the data time shown (a time or a share, as --time)");
  cmd->add_option("--step", options->step,
                  "particles: data time per animation frame (default: the run in 600 frames)");
  cmd->add_option("--fade", options->fade_s, "particles: fade time in animation seconds")->capture_default_str();
  cmd->add_option("--fps", options->fps, "particles: animation frames per second")->capture_default_str();
  cmd->add_option("--omin", options->omin, "particles: least opacity of the history background")
      ->capture_default_str();
  cmd->callback([options] { render_view(*options); });
}

}  // namespace weft::app
