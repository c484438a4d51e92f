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

#include "app/commands.h"
#include "app/imgui_session.h"
#include "app/logical_data.h"
#include "app/logical_overlay.h"
#include "app/physical_overlay.h"
#include "app/selection.h"
#include "app/overview_strip.h"
#include "app/timeline_slider.h"
#include "app/view_filter.h"
#include "app/timeline_data.h"
#include "app/timeline_frame.h"
#include "app/timeline_panel.h"
#include "common/error.h"
#include "framebuffer.h"
#include "headless_context.h"
#include "png_writer.h"
#include "store/window_query.h"
#include "structure/logical_window.h"
#include "structure/time_metrics.h"
#include "summary/start_histogram.h"
#include "timeline_renderer.h"

namespace weft::app {

namespace {

struct RenderOptions {
  std::string database;
  std::string view = "physical";
  std::string out;
  std::string size = "1600x900";
  std::string time;   // "A:B" (see parse_time_option); empty: the whole run
  std::string steps;  // "A:B" global steps; empty: all
  std::string procs;  // "A:B", "A-B" or "A"; empty: all
  std::string color = "lateness";
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

struct Size {
  int width;
  int height;
};

Size parse_size(const std::string& text) {
  int width = 0;
  int height = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%dx%d%n", &width, &height, &consumed) != 2 ||
      static_cast<std::size_t>(consumed) != text.size())
    throw Error("--size: expected WIDTHxHEIGHT such as 1600x900, got '" + text + "'");
  if (width < 64 || height < 64 || width > 16384 || height > 16384)
    throw Error("--size: " + text + " is outside 64x64 to 16384x16384");
  return {width, height};
}

// "A:B" -> {A, B}; a single "A" -> {A, A}. `separators` lists what may split them.
std::pair<std::string, std::string> split_range(const char* option, const std::string& text,
                                                const char* separators) {
  std::size_t at = text.find_first_of(separators, 1);
  if (at == std::string::npos) return {text, text};
  if (at == 0 || at + 1 >= text.size())
    throw Error(std::string(option) + ": expected A:B, got '" + text + "'");
  return {text.substr(0, at), text.substr(at + 1)};
}

std::int64_t parse_index(const char* option, const std::string& text) {
  long long value = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%lld%n", &value, &consumed) != 1 ||
      static_cast<std::size_t>(consumed) != text.size())
    throw Error(std::string(option) + ": expected a whole number, got '" + text + "'");
  return value;
}

// An inclusive range of whole numbers within [0, count).
std::pair<std::int64_t, std::int64_t> parse_index_range(const char* option, const std::string& text,
                                                        std::int64_t count) {
  if (count <= 0) throw Error(std::string(option) + ": there is nothing to choose from");
  if (text.empty()) return {0, count - 1};
  auto [a, b] = split_range(option, text, ":-");
  std::int64_t first = parse_index(option, a);
  std::int64_t last = parse_index(option, b);
  if (first < 0 || last < first || last >= count)
    throw Error(std::string(option) + ": " + text + " is not a range within 0:" +
                std::to_string(count - 1));
  return {first, last};
}

TimeNs parse_time_option(const char* option, const std::string& text, TimeNs trace_end_ns) {
  double value = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%lf%n", &value, &consumed) != 1)
    throw Error(std::string(option) + ": expected a time such as 1500000, 250us, 1.5ms or 40%, got '" +
                text + "'");
  std::string unit = text.substr(static_cast<std::size_t>(consumed));
  unit.erase(0, unit.find_first_not_of(' '));
  double scale = 0;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us" || unit == "\xc2\xb5s") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else if (unit == "%") scale = static_cast<double>(trace_end_ns) / 100.0;
  else
    throw Error(std::string(option) + ": unknown time unit '" + unit + "' (ns, us, ms, s or %)");
  double ns = value * scale;
  if (!(ns >= 0) || ns > 9e18) throw Error(std::string(option) + ": " + text + " is out of range");
  return static_cast<TimeNs>(std::llround(ns));
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

// Owns the headless GL context, framebuffer and ImGui frame of one image.
class HeadlessFrame {
 public:
  explicit HeadlessFrame(Size size) : size_(size), framebuffer_(size.width, size.height), imgui_(16.0f) {
    framebuffer_.bind();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(size.width), static_cast<float>(size.height));
    io.DeltaTime = 1.0f / 60.0f;
  }
  void begin() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    framebuffer_.bind();
    begin_timeline_frame(size_.width, size_.height);
  }
  render::PixelRect area() const {
    return {0, 0, static_cast<float>(size_.width), static_cast<float>(size_.height)};
  }
  void finish(const std::string& out) {
    end_timeline_frame();
    std::vector<std::uint8_t> pixels;
    framebuffer_.read_rgba(pixels);
    render::write_png(out, size_.width, size_.height, pixels);
    std::printf("%s\n", out.c_str());
  }
  Size size() const { return size_; }

 private:
  Size size_;
  render::HeadlessContext context_;  // first: everything below needs it current
  render::Framebuffer framebuffer_;
  ImGuiSession imgui_;
};

void render_physical(const RenderOptions& options, db::WindowQuery& query, const TraceInfo& info,
                     Size size) {
  if (!options.steps.empty()) throw Error("--steps: only the logical view has steps; use --time");
  TimelineViewport viewport = time_viewport(options, info);
  set_rows(options, info, viewport);

  HeadlessFrame frame(size);
  render::TimelineRenderer renderer;
  TimelinePanel panel(info, TimelineAxis::Time, static_cast<double>(info.meta.trace_end_ns));
  panel.set_title(physical_title(info));
  panel.set_viewport(viewport);
  auto data = std::make_unique<LoadedWindow>();
  std::optional<db::ActivityLod> lod;
  if (db::has_activity_lod(query.database())) lod.emplace(query.database());
  // The plot's size is known once laid out; layout needs an ImGui frame.
  frame.begin();
  const render::ViewTransform view = panel.layout(frame.area(), size.width, size.height, physical_legend_width(info));
  PhysicalRequest request{window_for_viewport(panel.viewport(), 0.0, info.processes.size()),
                          view.px_per_ns(), view.px_per_row(), make_view_filter(info, "", {}, "")};
  load_window(query, lod ? &*lod : nullptr, info, request, *data);
  renderer.upload(data->geometry);
  DrawnView drawn =
      draw_physical_timeline(panel, renderer, info, data.get(), frame.area(), size.width, size.height, false);
  if (auto s = requested_selection(options, data.get(), nullptr))
    draw_selection(*s, drawn.view, false, db::PartitionSpans{}, *request.filter);
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

  HeadlessFrame frame(size);
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
  load_logical_window(steps, lod ? &*lod : nullptr, info, facts, color, *filter,
                      step_window_for_viewport(panel.viewport(), 0.0, info.processes.size(),
                                               facts.global_steps),
                      {view.px_per_ns(), view.px_per_row()}, *data);
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
  std::optional<db::StartHistogram> histogram;
  if (db::has_start_histogram(db)) histogram = db::read_start_histogram(db);
  TimelineSlider slider(static_cast<double>(info.meta.trace_end_ns), std::move(histogram));
  slider.hide_cursor();

  HeadlessFrame frame(size);
  frame.begin();
  const auto w = static_cast<float>(size.width);
  const auto h = static_cast<float>(size.height);
  const bool time_strip = structure && db::has_time_metrics(db);
  const float strip = structure ? std::floor((time_strip ? 0.35f : 0.5f) * h) : 0.0f;
  float y = 0;
  if (structure) {
    const db::StructureFacts facts = db::LogicalWindowQuery(db).facts();
    read_step_overview(db, facts.global_steps).draw({0, y, w, strip}, color, 0.0, 0.0, false);
    y += strip;
  }
  if (time_strip) {
    read_time_overview(db, info.meta.trace_end_ns).draw({0, y, w, strip}, color, 0.0, 0.0, false);
    y += strip;
  }
  slider.draw({0, y, w, h - y}, 0.0, 0.0, false);
  frame.finish(options.out);
}

void render_view(const RenderOptions& options) {
  const Size size = parse_size(options.size);
  if (options.view != "physical" && options.view != "logical" && options.view != "overview")
    throw Error("--view: unknown view '" + options.view + "' (physical, logical or overview)");
  // The database first: a wrong path should not be reported as an EGL problem.
  db::WindowQuery query(options.database);
  TraceInfo info = read_trace_info(query);
  if (options.view == "logical")
    render_logical(options, query, info, size);
  else if (options.view == "overview")
    render_overview(options, query, info, size);
  else
    render_physical(options, query, info, size);
}

}  // namespace

void add_render_command(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* cmd = app.add_subcommand(
      "render", "Render one frame of a view to a PNG, with no display (EGL surfaceless)");
  cmd->add_option("database", options->database, "a .weft file")->required();
  cmd->add_option("--view", options->view, "which view: physical, logical or overview")->capture_default_str();
  cmd->add_option("--out,-o", options->out, "PNG file to write")->required();
  cmd->add_option("--size", options->size, "image size WIDTHxHEIGHT")->capture_default_str();
  cmd->add_option("--time", options->time,
                  "physical view: time span A:B, each ns from trace start, a time with a unit "
                  "(250us, 1.5ms, 2s) or a share of the run (40%)");
  cmd->add_option("--steps", options->steps, "logical view: global steps A:B (inclusive)");
  cmd->add_option("--procs", options->procs, "processes shown: A:B (inclusive) or A");
  cmd->add_option("--color", options->color,
                  "logical view: lateness, dlateness, glateness, duration or function")
      ->capture_default_str();
  cmd->add_option("--select", options->select,
                  "outline this event id, its message partner and its partition (as a click does)");
  cmd->callback([options] { render_view(*options); });
}

}  // namespace weft::app
