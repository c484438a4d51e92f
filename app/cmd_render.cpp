// `weft render`: one frame of a view, rendered with no display (EGL
// surfaceless + an offscreen framebuffer) and written as a PNG.
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
#include "app/timeline_data.h"
#include "app/timeline_frame.h"
#include "app/timeline_panel.h"
#include "common/error.h"
#include "framebuffer.h"
#include "headless_context.h"
#include "png_writer.h"
#include "store/window_query.h"
#include "timeline_renderer.h"

namespace weft::app {

namespace {

struct RenderOptions {
  std::string database;
  std::string view = "physical";
  std::string out;
  int width = 1600;
  int height = 900;
  std::string from;  // a time (see parse_time_option); empty: trace start
  std::string to;    // empty: trace end
  std::string processes;  // "A-B" or "A"; empty: all
};

struct ProcessRange {
  ProcessIndex first;
  ProcessIndex last;
};

ProcessRange parse_process_range(const std::string& text, std::size_t count) {
  if (count == 0) throw Error("--processes: the trace has no processes");
  if (text.empty()) return {0, static_cast<ProcessIndex>(count - 1)};
  long long first = 0;
  long long last = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%lld-%lld%n", &first, &last, &consumed) == 2 &&
      static_cast<std::size_t>(consumed) == text.size()) {
  } else if (std::sscanf(text.c_str(), "%lld%n", &first, &consumed) == 1 &&
             static_cast<std::size_t>(consumed) == text.size()) {
    last = first;
  } else {
    throw Error("--processes: expected A-B or A, got '" + text + "'");
  }
  if (first < 0 || last < first || last >= static_cast<long long>(count))
    throw Error("--processes: " + text + " is not a range within 0-" +
                std::to_string(count - 1));
  return {static_cast<ProcessIndex>(first), static_cast<ProcessIndex>(last)};
}

// "1500000" (ns), "250us", "1.5 ms", "2s" or "40%" (of the trace span).
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

TimelineViewport requested_viewport(const RenderOptions& options, const TraceInfo& info,
                                    const ProcessRange& rows) {
  const TimeNs end = info.meta.trace_end_ns;
  TimelineViewport viewport;
  viewport.t0_ns = options.from.empty() ? 0.0 : static_cast<double>(parse_time_option("--from", options.from, end));
  viewport.t1_ns = options.to.empty() ? static_cast<double>(end) : static_cast<double>(parse_time_option("--to", options.to, end));
  if (viewport.t1_ns <= viewport.t0_ns)
    throw Error("--from (" + std::to_string(static_cast<std::int64_t>(viewport.t0_ns)) +
                " ns) must be before --to (" +
                std::to_string(static_cast<std::int64_t>(viewport.t1_ns)) + " ns)");
  viewport.row0 = rows.first;
  viewport.row1 = static_cast<double>(rows.last) + 1.0;
  return viewport;
}

void render_physical_timeline(const RenderOptions& options) {
  if (options.view != "physical")
    throw Error("--view: unknown view '" + options.view + "' (available: physical)");
  if (options.width < 64 || options.height < 64)
    throw Error("--width/--height: at least 64 pixels each");

  // The database first: a wrong path should not be reported as an EGL problem.
  db::WindowQuery query(options.database);
  TraceInfo info = read_trace_info(query);
  ProcessRange rows = parse_process_range(options.processes, info.processes.size());
  TimelineViewport viewport = requested_viewport(options, info, rows);

  render::HeadlessContext context;
  render::Framebuffer framebuffer(options.width, options.height);
  ImGuiSession imgui(16.0f);
  render::TimelineRenderer renderer;

  TimelinePanel panel(info);
  panel.set_viewport(viewport);
  const TimelineViewport& shown = panel.viewport();
  db::Window window = window_for_viewport(shown, 0.0, info.processes.size());
  auto data = std::make_unique<LoadedWindow>();
  load_window(query, info, window, *data);
  renderer.upload(data->geometry);

  framebuffer.bind();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(options.width), static_cast<float>(options.height));
  io.DeltaTime = 1.0f / 60.0f;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  framebuffer.bind();
  compose_timeline_frame(panel, renderer, data.get(), options.width, options.height, false);

  std::vector<std::uint8_t> pixels;
  framebuffer.read_rgba(pixels);
  render::write_png(options.out, options.width, options.height, pixels);
  std::printf("%s\n", options.out.c_str());
}

}  // namespace

void add_render_command(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* cmd = app.add_subcommand(
      "render", "Render one frame of a view to a PNG, with no display (EGL surfaceless)");
  cmd->add_option("database", options->database, "a .weft file")->required();
  cmd->add_option("--view", options->view, "which view: physical")->capture_default_str();
  cmd->add_option("--out,-o", options->out, "PNG file to write")->required();
  cmd->add_option("--width", options->width, "image width in pixels")->capture_default_str();
  cmd->add_option("--height", options->height, "image height in pixels")->capture_default_str();
  cmd->add_option("--from", options->from,
                  "first time shown: ns from trace start, or with a unit (250us, 1.5ms, 2s), or 40%");
  cmd->add_option("--to", options->to, "last time shown, same forms as --from");
  cmd->add_option("--processes", options->processes, "rows shown: A-B (inclusive) or A");
  cmd->callback([options] { render_physical_timeline(*options); });
}

}  // namespace weft::app
