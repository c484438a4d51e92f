// `weft record`: a view animated over a span of data time, rendered with no
// display (EGL surfaceless) frame by frame and piped to ffmpeg as a video, or
// written as numbered PNGs when there is no ffmpeg.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/animated_view.h"
#include "app/commands.h"
#include "app/gui_commands.h"
#include "app/frame_stats.h"
#include "app/headless_frame.h"
#include "app/headless_options.h"
#include "app/timeline_data.h"
#include "app/video_sink.h"
#include "common/error.h"
#include "particle_renderer.h"
#include "store/window_query.h"

namespace weft::app {

namespace {

struct RecordOptions {
  std::string database;
  std::string view = "particles";
  std::string from;  // data time of the first frame; empty: the start
  std::string to;    // data time of the last frame; empty: the end
  double seconds = 10;
  double fps = 30;
  std::string out;
  std::string size = "1280x720";
  std::string procs;
  std::string color = "lateness";
  double fade_s = 2;
  float omin = 0.3f;
  bool dry_run = false;  // render every frame, write none (benchmarks)
};

void run_record(const RecordOptions& options) {
  const Size size = parse_size(options.size);
  if (!(options.seconds > 0) || !(options.fps > 0) || options.seconds * options.fps > 1e6)
    throw Error("--seconds and --fps must be positive, and at most a million frames in all");
  db::WindowQuery query(options.database);
  const TraceInfo info = read_trace_info(query);
  const TimeNs end = info.meta.trace_end_ns;
  AnimatedViewSpec spec;
  spec.view = options.view;
  spec.from_ns = options.from.empty() ? 0 : parse_time_option("--from", options.from, end);
  spec.to_ns = options.to.empty() ? end : parse_time_option("--to", options.to, end);
  if (spec.to_ns <= spec.from_ns) throw Error("--from must be before --to");
  auto [p0, p1] = parse_index_range("--procs", options.procs, static_cast<std::int64_t>(info.processes.size()));
  spec.row0 = static_cast<double>(p0);
  spec.row1 = static_cast<double>(p1) + 1;
  spec.color = options.color;
  spec.frames_per_s = options.fps;
  spec.fade_s = options.fade_s;
  spec.omin = options.omin;
  const int frames = std::max(1, static_cast<int>(std::lround(options.seconds * options.fps)));
  const double span = static_cast<double>(spec.to_ns - spec.from_ns);
  spec.step_ns = span / std::max(frames - 1, 1);

  const std::string ffmpeg = options.dry_run ? "" : find_ffmpeg();
  if (!ffmpeg.empty() && (size.width % 2 || size.height % 2))
    throw Error("--size: video needs an even width and height, got " + options.size);
  HeadlessFrame frame(size, spec.view == "particles" ? 1 : 4);
  std::unique_ptr<AnimatedView> view = make_animated_view(spec, query, info);
  std::unique_ptr<VideoSink> sink;
  if (!options.dry_run) sink = std::make_unique<VideoSink>(ffmpeg, options.out, size.width, size.height, options.fps);

  std::vector<std::uint8_t> pixels;
  std::size_t max_live = 0;
  double first_ms = 0;
  const auto started = std::chrono::steady_clock::now();
  auto since_start_ms = [&started] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  };
  // Each frame's two halves, the first frame left out: the view's update
  // (reading ahead, retiring, uploading, the draw calls) and the frame's end
  // (ImGui, the GPU finishing, the pixels read back).
  std::vector<double> update_ms, readback_ms;
  for (int k = 0; k < frames; ++k) {
    const auto begun = std::chrono::steady_clock::now();
    frame.begin();
    view->draw_at(static_cast<double>(k) / std::max(frames - 1, 1), frame.area(), size.width, size.height);
    const auto drawn = std::chrono::steady_clock::now();
    frame.finish(pixels);
    if (k > 0) {
      update_ms.push_back(std::chrono::duration<double, std::milli>(drawn - begun).count());
      readback_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - drawn).count());
    }
    if (sink) sink->write(pixels);
    max_live = std::max(max_live, view->live_particles());
    if (k == 0) first_ms = since_start_ms();
  }
  const double rest_ms = since_start_ms() - first_ms;
  if (sink) std::printf("%s\n", sink->finish().c_str());
  // The first frame also plays the run up to --from; the rate is of the others.
  // The renderer and the particle path say which machine the figures are of.
  std::printf("frames=%d size=%dx%d first_frame_ms=%.0f frames_per_s=%.1f max_live_particles=%zu peak_rss_mb=%.1f",
              frames, size.width, size.height, first_ms, frames > 1 ? (frames - 1) * 1000.0 / rest_ms : 0.0,
              max_live, peak_resident_mb());
  if (frames > 1)
    std::printf(" update_p50_ms=%.2f update_p95_ms=%.2f update_max_ms=%.2f readback_p50_ms=%.2f",
                percentile(update_ms, 0.5), percentile(update_ms, 0.95), percentile(update_ms, 1.0),
                percentile(readback_ms, 0.5));
  std::printf(" renderer=\"%s\"", frame.renderer().c_str());
  if (spec.view == "particles")
    std::printf(" particle_path=\"%s\"", render::particle_path_name(render::particle_path_for_context()));
  std::printf("\n");
}

}  // namespace

void add_record_command(CLI::App& app) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand("record", gui_command_description("record"));
  cmd->add_option("database", options->database, "a .weft file")->required();
  cmd->add_option("--view", options->view, "particles, logical or physical")->capture_default_str();
  cmd->add_option("--from", options->from, "data time of the first frame (as render --time; default: start)");
  cmd->add_option("--to", options->to, "data time of the last frame (default: end)");
  cmd->add_option("--seconds", options->seconds, "length of the clip")->capture_default_str();
  cmd->add_option("--fps", options->fps, "frames per second of the clip")->capture_default_str();
  cmd->add_option("--out,-o", options->out, "video file (e.g. clip.mp4); without ffmpeg, PNGs go to OUT.frames/");
  cmd->add_option("--size", options->size, "frame size WIDTHxHEIGHT")->capture_default_str();
  cmd->add_option("--procs", options->procs, "processes shown (timeline rows, particle segments), A:B (inclusive)");
  cmd->add_option("--color", options->color, "logical view: color metric")->capture_default_str();
  cmd->add_option("--fade", options->fade_s, "particles: fade time in seconds of the clip")->capture_default_str();
  cmd->add_option("--omin", options->omin, "particles: least opacity of the history")->capture_default_str();
  cmd->add_flag("--dry-run", options->dry_run, "render every frame but write none (to measure frames/s)");
  cmd->callback([options] {
    if (options->out.empty() && !options->dry_run) throw Error("--out: a video file to write is required");
    run_record(*options);
  });
}

}  // namespace weft::app
