#include "app/viewer_app.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "app/background_loader.h"
#include "app/frame_stats.h"
#include "app/glfw_window.h"
#include "app/imgui_session.h"
#include "app/logical_data.h"
#include "app/message_flight.h"
#include "app/overlay_style.h"
#include "app/overview_strip.h"
#include "app/charm_views.h"
#include "app/particle_controls.h"
#include "projections/virtual_rank_query.h"
#include "app/particle_view.h"
#include "app/timeline_slider.h"
#include "app/view_history.h"
#include "app/selection.h"
#include "app/view_tour.h"
#include "app/view_filter.h"
#include "app/viewer_toolbar.h"
#include "app/timeline_data.h"
#include "app/timeline_frame.h"
#include "app/ui_scale.h"
#include "app/timeline_panel.h"
#include "charm/task_structure_store.h"
#include "common/error.h"
#include "framebuffer.h"
#include "png_writer.h"
#include "structure/logical_window.h"
#include "structure/time_metrics.h"
#include "summary/start_histogram.h"
#include "timeline_raster.h"
#include "timeline_renderer.h"

namespace weft::app {

namespace {

// A loaded window is replaced once it spans more than this many times the
// visible part along an axis (a fresh one spans 1 + 2 · kPrefetchPad = 2x, a
// level-of-detail one 1.5x):
// every frame draws the whole window, so a window kept from a zoomed-out
// view would make each frame of a zoomed-in one pay for what it no longer
// shows (on llvmpipe, 115,000 logical boxes at 100 ms a frame where 4,000
// were visible). It also bounds the loss of float precision in geometry times.
constexpr double kMaxWindowOverVisible = 4.0;

// Whether a loaded span [lo, hi] still serves the visible [v0, v1] of an
// axis that ends at `end`: it covers it and is not too much wider.
bool span_serves(double lo, double hi, double v0, double v1, double end) {
  // Only the part of either inside [0, end] holds anything.
  const double visible = std::min(v1, end) - std::max(0.0, v0);
  const double loaded = std::min(hi, end) - std::max(0.0, lo);
  return lo <= std::max(0.0, v0) && hi >= std::min(v1, end) &&
         loaded <= kMaxWindowOverVisible * std::max(visible, 1.0);
}

// Whether `loaded` still serves `viewport` (x in ns).
bool window_serves(const db::Window& loaded, const TimelineViewport& viewport, TimeNs trace_end_ns,
                   std::size_t rows) {
  // (A level-of-detail window is also replaced when the zoom changes: zoom_serves.)
  return span_serves(static_cast<double>(loaded.t0), static_cast<double>(loaded.t1), viewport.t0_ns,
                     viewport.t1_ns, static_cast<double>(trace_end_ns)) &&
         span_serves(loaded.p0, loaded.p1 + 1.0, std::floor(viewport.row0), std::ceil(viewport.row1),
                     static_cast<double>(rows));
}

// Whether the zoom of a request still matches `view`: level-of-detail cells
// and painted dense windows are made for a zoom, so zooming by more than 2x
// asks for new ones.
bool zoom_serves(double px_per_x, double px_per_row, const render::ViewTransform& view) {
  auto close = [](double a, double b) { return a > 0 && b > 0 && a <= 2 * b && b <= 2 * a; };
  return close(px_per_x, view.px_per_ns()) && close(px_per_row, view.px_per_row());
}

// Whether `loaded` still serves the logical `viewport` (x in steps).
bool step_window_serves(const db::StepWindow& loaded, const TimelineViewport& viewport,
                        std::int64_t step_count, std::size_t rows) {
  return span_serves(static_cast<double>(loaded.s0), loaded.s1 + 1.0, std::floor(viewport.t0_ns),
                     std::ceil(viewport.t1_ns), static_cast<double>(step_count)) &&
         span_serves(loaded.p0, loaded.p1 + 1.0, std::floor(viewport.row0), std::ceil(viewport.row1),
                     static_cast<double>(rows));
}

struct LogicalRequest {
  db::StepWindow window;  // processes as rows of `filter`
  StepZoom zoom;
  LogicalColor color = LogicalColor::Lateness;
  std::shared_ptr<const ViewFilter> filter;
};

// One streamed view: the loader, the result on screen and the request that
// produced (or will produce) it.
template <class Request, class Result>
struct StreamedView {
  explicit StreamedView(typename BackgroundLoader<Request, Result>::LoadFunction load)
      : loader(std::move(load)) {}
  // Takes a finished result, if any, and uploads it to `renderer`.
  void poll(render::TimelineRenderer& renderer) {
    if (std::string error = loader.error(); !error.empty()) throw Error(error);
    if (auto fresh = loader.take_finished()) {
      renderer.upload(fresh->geometry);
      loader.recycle(std::move(current));
      current = std::move(fresh);
    }
  }
  void ask(const Request& request) {
    requested = request;
    loader.request(request);
  }
  BackgroundLoader<Request, Result> loader;
  std::unique_ptr<Result> current;
  std::optional<Request> requested;
};

// Shows the rows of `next` in `panel`, all of them when they changed.
void show_filter_rows(TimelinePanel& panel, const ViewFilter& previous, const ViewFilter& next) {
  panel.set_rows(&next.process_of_row);
  if (next.process_of_row == previous.process_of_row) return;
  TimelineViewport v = panel.viewport();
  v.row0 = 0;
  v.row1 = static_cast<double>(next.rows());
  panel.set_viewport(v);
}

// Makes new filters from the toolbar's inputs and shows their rows; a bad
// process or chare list keeps the old filters and says why in the toolbar.
// A task run's logical rows are chares, not processes: its logical view
// takes the chare list, and the region and search parts of the filter.
void apply_filter(ToolbarState& state, const TraceInfo& info, const TraceInfo& logical_info,
                  std::shared_ptr<const ViewFilter>& filter, std::shared_ptr<const ViewFilter>& logical_filter,
                  TimelinePanel& physical, TimelinePanel& logical) {
  try {
    auto next = make_view_filter(info, state.processes.data(), state.region_hidden, state.search.data());
    std::shared_ptr<const ViewFilter> next_logical =
        logical_info.task_rows
            ? make_view_filter(logical_info, state.chares.data(), state.region_hidden, state.search.data())
            : next;
    state.error.clear();
    show_filter_rows(physical, *filter, *next);
    show_filter_rows(logical, *logical_filter, *next_logical);
    filter = std::move(next);
    logical_filter = std::move(next_logical);
  } catch (const std::exception& e) {
    state.error = e.what();
  }
}

// A click (press and release without dragging) inside the plot of `view`.
bool clicked(const render::ViewTransform& view) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!ImGui::IsMouseReleased(ImGuiMouseButton_Left)) return false;
  const ImVec2 press = io.MouseClickedPos[0];
  const float dx = io.MousePos.x - press.x, dy = io.MousePos.y - press.y;
  return view.plot.contains(press.x, press.y) && dx * dx + dy * dy < 9.0f;
}

// Records settled view changes; Ctrl+Z goes back, Ctrl+Shift+Z forward.
void apply_history_keys(ViewHistory& history, TimelinePanel& physical, TimelinePanel& logical,
                        double time_s) {
  const ImGuiIO& io = ImGui::GetIO();
  const ViewState now{physical.viewport(), logical.viewport()};
  std::optional<ViewState> target;
  if (io.KeyCtrl && ImGui::IsKeyPressed('Z'))
    target = io.KeyShift ? history.redo() : history.undo(now);
  if (target) {
    physical.set_viewport(target->physical);
    logical.set_viewport(target->logical);
    return;
  }
  const bool input = ImGui::IsMouseDown(ImGuiMouseButton_Left) || io.MouseWheel != 0.0f;
  history.observe(now, input, time_s);
}

// Scrubbing past the edge of a view pans it so the cursor stays in sight.
void follow_cursor(double t_ns, TimelinePanel& physical, TimelinePanel* logical,
                   const db::PartitionSpans& spans) {
  auto keep_in_view = [](TimelinePanel& panel, double x) {
    TimelineViewport v = panel.viewport();
    if (x >= v.t0_ns && x <= v.t1_ns) return;
    const double half = 0.5 * (v.t1_ns - v.t0_ns);
    v.t0_ns = x - half;
    v.t1_ns = x + half;
    panel.set_viewport(v);
  };
  keep_in_view(physical, t_ns);
  if (logical) keep_in_view(*logical, db::step_at_time(spans, t_ns));
}

// A line of WEFT_FRAME_LOG: the frame's time and, per view, whether it drew
// level-of-detail cells or events and how many box and line instances.
void log_frame(std::size_t frame, double ms, const render::TimelineGeometry* physical, bool physical_lod,
               const render::TimelineGeometry* logical, bool logical_lod) {
  auto view = [](const render::TimelineGeometry* g, bool lod) {
    char text[96];
    std::snprintf(text, sizeof text, "%s %zu boxes %zu lines", lod ? "cells" : g && g->boxes_in_image ? "image of" : "events",
                  g ? g->box_count() : 0, g ? g->line_count() : 0);
    return std::string(text);
  };
  std::fprintf(stderr, "frame %zu %.1f ms  physical: %s  logical: %s\n", frame, ms, view(physical, physical_lod).c_str(),
               view(logical, logical_lod).c_str());
}

void write_screenshot(const std::string& path, int width, int height) {
  std::vector<std::uint8_t> pixels;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  render::read_pixels_top_down(width, height, pixels);
  render::write_png(path, width, height, pixels);
  std::printf("%s\n", path.c_str());
}

}  // namespace

void run_viewer(const ViewerOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  LoadTimes load_times;   // whole loads: the store's reads and the geometry built from them
  LoadTimes query_times;  // the store's reads alone
  LoadTimes query_cpu_times;  // the loader thread's CPU time in them
  // A load's wall time and its query's, recorded from the loader thread that ran it.
  auto timed = [&](auto&& load, const QueryTime& query) {
    const auto t0 = std::chrono::steady_clock::now();
    load();
    load_times.add(milliseconds_since(t0));
    query_times.add(query.wall_ms);
    query_cpu_times.add(query.cpu_ms);
  };
  // Reading the tables first reports a bad file before any window appears.
  db::WindowQuery query(options.database);
  const TraceInfo info = read_trace_info(query);
  const bool has_structure = db::has_logical_structure(query.database());
  db::StructureFacts facts;
  db::PartitionSpans partition_spans;
  std::optional<OverviewStrip> overview;       // logical: per step
  std::optional<OverviewStrip> time_overview;  // physical: per time bin
  if (has_structure) {
    facts = db::LogicalWindowQuery(query.database()).facts();
    partition_spans = db::read_partition_spans(query.database());
    overview.emplace(read_step_overview(query.database(), facts.global_steps, db::has_task_structure(query.database())));
    // Runs analyzed before time_metrics existed have no physical strip.
    if (db::has_time_metrics(query.database()))
      time_overview.emplace(
          read_time_overview(query.database(), info.meta.trace_end_ns, db::has_task_structure(query.database())));
  }
  std::optional<db::StartHistogram> histogram;
  if (db::has_start_histogram(query.database())) histogram = db::read_start_histogram(query.database());
  TimelineSlider slider(static_cast<double>(info.meta.trace_end_ns), std::move(histogram));

  GlfwWindow window(options.width, options.height, "weft - " + info.file_name);
  // Measured runs draw as fast as they can; interactive ones follow vsync.
  glfwSwapInterval(options.frames > 0 ? 0 : 1);
  const float ui_scale = window_ui_scale(window.get(), options.ui_scale);
  // Software renderers get dense windows as one image (render/timeline_raster.h).
  const bool raster_dense = render::raster_dense_windows_for_context();
  ImGuiSession imgui(16.0f, ui_scale);
  ImGuiGlfwBackend glfw_backend(window.get());

  // Each view streams through its own connection on its own loader thread.
  render::TimelineRenderer physical_renderer;
  TimelinePanel physical_panel(info, TimelineAxis::Time, static_cast<double>(info.meta.trace_end_ns));
  physical_panel.set_title(physical_title(info));
  db::WindowQuery physical_query(options.database);
  std::optional<db::ActivityLod> lod;
  if (db::has_activity_lod(physical_query.database())) lod.emplace(physical_query.database());
  StreamedView<PhysicalRequest, LoadedWindow> physical([&](const PhysicalRequest& r, LoadedWindow& out) {
    timed([&] { load_window(physical_query, lod ? &*lod : nullptr, info, r, out); }, out.query);
  });
  render::ViewTransform physical_view;

  render::TimelineRenderer logical_renderer;
  const TraceInfo logical_info = has_structure ? logical_trace_info(query.database(), info) : info;
  TimelinePanel logical_panel(logical_info, TimelineAxis::Steps, static_cast<double>(facts.global_steps));
  ToolbarState toolbar_state;
  std::shared_ptr<const ViewFilter> filter = make_view_filter(info, "", {}, "");
  toolbar_state.task_labels = logical_info.task_rows;
  std::shared_ptr<const ViewFilter> logical_filter =
      logical_info.task_rows ? make_view_filter(logical_info, "", {}, "") : filter;
  if (!options.processes.empty()) {
    // A bad list is an error before the window shows, like a bad file.
    options.processes.copy(toolbar_state.processes.data(), toolbar_state.processes.size() - 1);
    filter = make_view_filter(info, options.processes, {}, "");
    physical_panel.set_rows(&filter->process_of_row);
    if (!logical_info.task_rows) {
      logical_filter = filter;
      logical_panel.set_rows(&filter->process_of_row);
    }
  }
  if (!options.chares.empty()) {
    if (!logical_info.task_rows)
      throw Error(options.database + ": --chares needs an analyzed Charm++ run (its logical rows are chares)");
    options.chares.copy(toolbar_state.chares.data(), toolbar_state.chares.size() - 1);
    logical_filter = make_view_filter(logical_info, options.chares, {}, "");
    logical_panel.set_rows(&logical_filter->process_of_row);
  }
  db::WindowQuery logical_connection(options.database);
  std::optional<db::LogicalWindowQuery> logical_query;
  if (has_structure) logical_query.emplace(logical_connection.database());
  std::optional<db::StepLod> step_lod;
  if (has_structure && db::has_step_lod(logical_connection.database()))
    step_lod.emplace(logical_connection.database());
  render::ViewTransform logical_view_transform;
  StreamedView<LogicalRequest, LoadedLogicalWindow> logical(
      [&](const LogicalRequest& r, LoadedLogicalWindow& out) {
        timed([&] {
          load_logical_window(*logical_query, step_lod ? &*step_lod : nullptr, logical_info, facts, r.color,
                              *r.filter, r.window, r.zoom, out);
        }, out.query);
      });

  // The particle panel reads its events on this thread, through its own connection;
  // its renderer is made when first shown (it needs the window's context).
  toolbar_state.particles = options.particles;
  db::WindowQuery particle_query(options.database);
  std::unique_ptr<ParticleView> particles;
  ParticleControls particle_controls;
  particle_controls.playing = options.play;

  // A Charm++ run: busy % in the PE labels, λ in the title, migration
  // ribbons; the usage profile and the virtual-rank lanes as panels below.
  // Both read small summaries or one window of virtual_ranks on this thread.
  const std::optional<PeViewSummary> pe_summary = read_pe_view_summary(query.database(), info);
  std::vector<db::Migration> migrations;
  std::optional<db::UsageProfile> usage_profile;
  std::unique_ptr<VirtualRankLanes> vp_lanes;
  if (pe_summary) {
    physical_panel.set_title(pe_view_title(info, *pe_summary));
    physical_panel.set_row_labels(pe_summary->row_labels);
    migrations = db::read_migrations(query.database(), 0, info.meta.trace_end_ns);
    usage_profile = db::read_usage_profile(query.database());
    toolbar_state.charm_run = true;
    toolbar_state.profile = options.profile;
    if (db::count_virtual_ranks(query.database()) > 0) {
      vp_lanes = std::make_unique<VirtualRankLanes>(query.database(), info);
      toolbar_state.has_vps = true;
      toolbar_state.vps = options.vps;
    }
  }
  if ((options.profile && !pe_summary) || (options.vps && !vp_lanes))
    throw Error(options.database + ": --profile needs a Charm++ Projections run, --vps an AMPI one");

  std::vector<double> frame_ms;
  if (options.frames > 0) frame_ms.reserve(static_cast<std::size_t>(options.frames));
  double first_frame_ms = -1;
  std::optional<Selection> selection;
  ViewHistory history({physical_panel.viewport(), logical_panel.viewport()});
  // WEFT_FRAME_LOG=1: one line per measured frame on stderr (what each view drew).
  const bool log_frames = std::getenv("WEFT_FRAME_LOG") != nullptr;
  std::size_t max_boxes = 0;  // the most boxes and lines one physical window held
  std::size_t max_lines = 0;

  while (!glfwWindowShouldClose(window.get())) {
    auto frame_start = std::chrono::steady_clock::now();
    glfwPollEvents();
    if (options.tour && options.frames > 0) {
      const double progress = static_cast<double>(frame_ms.size()) / options.frames;
      const auto rows = static_cast<double>(info.processes.size());
      physical_panel.set_viewport(tour_viewport(progress, physical_panel.x_end(), rows));
      if (has_structure) logical_panel.set_viewport(tour_viewport(progress, logical_panel.x_end(), rows));
      slider.set_current_ns(0.5 * (physical_panel.viewport().t0_ns + physical_panel.viewport().t1_ns));
    }
    physical.poll(physical_renderer);
    if (physical.current) {
      max_boxes = std::max(max_boxes, physical.current->geometry.box_count());
      max_lines = std::max(max_lines, physical.current->geometry.line_count());
    }
    if (has_structure) logical.poll(logical_renderer);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // Layout units from here on; only the GL viewport and the screenshot are in pixels.
    const LayoutSize layout = apply_ui_scale(window.get(), ui_scale);
    ImGui::NewFrame();
    const int width = layout.width;
    const int height = layout.height;
    int pixel_width = 0;
    int pixel_height = 0;
    glfwGetFramebufferSize(window.get(), &pixel_width, &pixel_height);
    if (width > 0 && height > 0) {
      const float toolbar = ImGui::GetFrameHeightWithSpacing() + 8.0f;
      std::vector<ProcessIndex> selected;
      if (selection) {
        selected.push_back(selection->self.process);
        if (selection->partner && selection->partner->process != selection->self.process)
          selected.push_back(selection->partner->process);
      }
      draw_viewer_toolbar(toolbar_state, info, has_structure,
                          physical.loader.busy() || logical.loader.busy(), toolbar, selected);
      if (toolbar_state.filter_changed) {
        toolbar_state.filter_changed = false;
        apply_filter(toolbar_state, info, logical_info, filter, logical_filter, physical_panel, logical_panel);
      }
      const LogicalColor color = toolbar_state.color;
      logical_panel.set_title(logical_title(logical_info, facts, color));
      begin_timeline_frame(pixel_width, pixel_height);
      const auto w = static_cast<float>(width);
      const float line = ImGui::GetTextLineHeight();
      const float slider_height = 6.5f * line + kMargin;
      const float strip_height = has_structure ? 3.5f * line : 0.0f;
      const float time_strip_height = time_overview ? 3.5f * line : 0.0f;
      const float all_rest = static_cast<float>(height) - toolbar - slider_height - strip_height - time_strip_height;
      // The particle panel takes the lower half; the timelines share the rest.
      const float particle_height = toolbar_state.particles ? std::floor(0.5f * all_rest) : 0.0f;
      const bool charm_panel = toolbar_state.profile || toolbar_state.vps;
      const float charm_height = charm_panel ? std::floor(0.4f * (all_rest - particle_height)) : 0.0f;
      const float rest = all_rest - particle_height - charm_height;
      if (toolbar_state.particles && !particles)
        particles = std::make_unique<ParticleView>(particle_query, info, render::particle_path_for_context());
      if (particles && toolbar_state.particles) {
        const double wall_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (step_particle_animation(particle_controls, *particles, wall_s, info.meta.trace_end_ns))
          slider.set_current_ns(static_cast<double>(particles->now()));
      }
      // Logical above physical, as in Ravel: structure first, then where the time went.
      const float logical_height = has_structure ? std::floor(0.5f * rest) : 0.0f;
      float y = toolbar;
      if (has_structure) {
        DrawnView logical_view = draw_logical_timeline(
            logical_panel, logical_renderer, logical_info, facts, color, logical.current.get(),
            {0, y, w, logical_height}, width, height, true);
        logical_view_transform = logical_view.view;
        draw_cursor(logical_view.view, db::step_at_time(partition_spans, slider.current_ns()));
        if (clicked(logical_view.view) && logical.current)
          selection = select_in_logical(*logical.current, logical_view.hovered);
        if (selection) draw_selection(*selection, logical_view.view, true, partition_spans, *filter);
        if (logical.current)
          draw_logical_flights(logical_view.view, logical.current->messages, logical.current->recv_lateness,
                               *filter, db::step_at_time(partition_spans, slider.current_ns()),
                               static_cast<double>(facts.max_lateness_ns));
        y += logical_height;
        const TimelineViewport& lv = logical_panel.viewport();
        if (auto span = overview->draw({0, y, w, strip_height}, color, lv.t0_ns, lv.t1_ns, true)) {
          TimelineViewport next = lv;
          next.t0_ns = span->first;
          next.t1_ns = span->second;
          logical_panel.set_viewport(next);
        }
        y += strip_height;
      }
      if (time_overview) {
        const TimelineViewport& pv = physical_panel.viewport();
        if (auto span = time_overview->draw({0, y, w, time_strip_height}, color, pv.t0_ns, pv.t1_ns, true)) {
          TimelineViewport next = pv;
          next.t0_ns = span->first;
          next.t1_ns = span->second;
          physical_panel.set_viewport(next);
        }
        y += time_strip_height;
      }
      DrawnView drawn =
          draw_physical_timeline(physical_panel, physical_renderer, info, physical.current.get(),
                                 {0, y, w, rest - logical_height}, width, height, true);
      physical_view = drawn.view;
      draw_cursor(physical_view, slider.current_ns());
      if (clicked(physical_view) && physical.current) {
        selection = select_in_physical(*physical.current, drawn.hovered);
        if (selection) link_to_structure(*selection, logical.current.get());
      }
      if (pe_summary) {
        // Ribbons join PE rows; a process filter reorders rows, so they are drawn unfiltered only.
        if (physical_panel.row_count() == info.processes.size()) draw_migration_ribbons(physical_view, migrations);
        draw_pe_label_tooltip(*pe_summary, physical_view, physical_panel);
      }
      if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) selection.reset();
      if (selection) draw_selection(*selection, physical_view, false, partition_spans, *filter);
      if (physical.current)
        draw_physical_flights(physical_view, physical.current->messages, *filter, slider.current_ns(),
                              logical.current ? &logical.current->recv_lateness_by_message : nullptr,
                              static_cast<double>(facts.max_lateness_ns));
      y += rest - logical_height;
      if (particles && toolbar_state.particles) {
        // The controls get their own column right of the panel, clear of its legend.
        const float controls = std::min(kParticleControlsWidth, std::floor(0.3f * w));
        particles->set_area({0, y, w - controls, particle_height});
        particles->draw(width, height, !particle_controls.playing);
        draw_particle_controls(particle_controls, *particles, info, {w - controls, y, controls, particle_height});
        y += particle_height;
      }
      if (charm_panel) {
        // Side by side when both are shown: the profile left, the lanes right.
        const bool both = toolbar_state.profile && toolbar_state.vps;
        const float profile_w = toolbar_state.profile ? (both ? std::floor(0.4f * w) : w) : 0.0f;
        if (toolbar_state.profile && usage_profile)
          draw_usage_profile({0, y, profile_w, charm_height}, info, *usage_profile, pe_summary->util);
        if (toolbar_state.vps && vp_lanes) vp_lanes->draw({profile_w, y, w - profile_w, charm_height}, width, height, true);
        y += charm_height;
      }
      const TimelineViewport& pv = physical_panel.viewport();
      if (slider.draw({0, y, w, slider_height}, pv.t0_ns, pv.t1_ns, true)) {
        // Dragging the slider moves the animation time (a jump: §3.2.2).
        if (particles) particles->jump_to(static_cast<TimeNs>(slider.current_ns()));
        follow_cursor(slider.current_ns(), physical_panel, has_structure ? &logical_panel : nullptr,
                      partition_spans);
      }
      apply_history_keys(history, physical_panel, logical_panel,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      end_timeline_frame();
    } else {
      ImGui::EndFrame();  // minimized: nothing to draw
    }

    // Asked for only once a frame has laid the view out (its zoom decides the detail).
    if (physical_view.plot.width > 1 &&
        (!physical.requested ||
         physical.requested->filter != filter ||
         !window_serves(physical.requested->window, physical_panel.viewport(), info.meta.trace_end_ns, filter->rows()) ||
         (physical.current && (physical.current->from_lod || physical.current->geometry.boxes_in_image) &&
          !zoom_serves(physical.requested->px_per_ns, physical.requested->px_per_row, physical_view)))) {
      const db::Window w = physical_window_for(physical_panel.viewport(), info, *filter, lod.has_value());
      const auto [x_phase, y_phase] =
          pixel_phase(physical_view, static_cast<double>(w.t0), static_cast<double>(w.p0));
      physical.ask({w, physical_view.px_per_ns(), physical_view.px_per_row(), filter, raster_dense, x_phase, y_phase});
    }
    if (has_structure && logical_view_transform.plot.width > 1 &&
        (!logical.requested || logical.requested->color != toolbar_state.color ||
         logical.requested->filter != logical_filter ||
         !step_window_serves(logical.requested->window, logical_panel.viewport(), facts.global_steps,
                             logical_filter->rows()) ||
         (logical.current && (logical.current->from_lod || logical.current->geometry.boxes_in_image) &&
          !zoom_serves(logical.requested->zoom.px_per_step, logical.requested->zoom.px_per_row,
                       logical_view_transform)))) {
      const db::StepWindow w = step_window_for_viewport(logical_panel.viewport(), kPrefetchPad,
                                                         logical_filter->rows(), facts.global_steps);
      const auto [x_phase, y_phase] =
          pixel_phase(logical_view_transform, static_cast<double>(w.s0), static_cast<double>(w.p0));
      logical.ask({w,
                   {logical_view_transform.px_per_ns(), logical_view_transform.px_per_row(), raster_dense, x_phase,
                    y_phase},
                   toolbar_state.color, logical_filter});
    }

    const bool loaded = physical.current && (!has_structure || logical.current);
    const bool counting = options.frames > 0 && loaded;
    const bool last = counting && static_cast<int>(frame_ms.size()) + 1 == options.frames;
    if (last && !options.screenshot.empty()) write_screenshot(options.screenshot, pixel_width, pixel_height);
    glfwSwapBuffers(window.get());
    if (loaded && first_frame_ms < 0)
      first_frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (counting) {
      std::chrono::duration<double, std::milli> elapsed =
          std::chrono::steady_clock::now() - frame_start;
      frame_ms.push_back(elapsed.count());
      if (log_frames)
        log_frame(frame_ms.size(), elapsed.count(), physical.current.get() ? &physical.current->geometry : nullptr,
                  physical.current && physical.current->from_lod,
                  logical.current ? &logical.current->geometry : nullptr, logical.current && logical.current->from_lod);
    }
    if (last) break;
  }

  if (options.stats)
    std::printf(
        "frames=%zu p50_ms=%.2f p95_ms=%.2f rss_mb=%.1f peak_rss_mb=%.1f first_frame_ms=%.0f "
        "loads=%zu load_p50_ms=%.2f load_p95_ms=%.2f query_p50_ms=%.2f query_p95_ms=%.2f "
        "query_cpu_p50_ms=%.2f query_cpu_p95_ms=%.2f max_boxes=%zu max_lines=%zu\n",
        frame_ms.size(), percentile(frame_ms, 0.50), percentile(frame_ms, 0.95), resident_mb(),
        peak_resident_mb(), first_frame_ms, load_times.snapshot().size(),
        percentile(load_times.snapshot(), 0.50), percentile(load_times.snapshot(), 0.95),
        percentile(query_times.snapshot(), 0.50), percentile(query_times.snapshot(), 0.95),
        percentile(query_cpu_times.snapshot(), 0.50), percentile(query_cpu_times.snapshot(), 0.95), max_boxes,
        max_lines);
}

}  // namespace weft::app
