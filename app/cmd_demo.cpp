// `weft demo`: a tour of keyframes (demo_tour.h) shown full screen with
// captions, for live demos of large runs; or, with --record, the same tour
// rendered headless to a video; or, with --png, a few of its frames as PNGs.
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/gui_commands.h"
#include "app/demo_tour.h"
#include "app/glfw_window.h"
#include "app/headless_frame.h"
#include "app/imgui_session.h"
#include "app/timeline_frame.h"
#include "app/ui_scale.h"
#include "app/tour_player.h"
#include "app/video_sink.h"
#include "common/error.h"
#include "png_writer.h"
#include "structure/logical_window.h"

namespace weft::app {

namespace {

struct DemoOptions {
  std::string database;
  std::string tour;
  std::string record;  // video file
  std::string png;     // folder for a few PNG frames
  std::string size = "1280x720";
  double fps = 30;
  bool windowed = false;
  int width = 1600;
  int height = 900;
};

// Headless: every frame of the tour at `fps` (particles must be played, not
// jumped to); each goes to the video, or to a PNG at each keyframe's start,
// middle and end.
void render_tour(const DemoOptions& options, TourPlayer& player, const DemoTour& tour) {
  const Size size = parse_size(options.size);
  const int frames = std::max(1, static_cast<int>(std::lround(player.total_seconds() * options.fps)));
  std::vector<int> keep;
  double start = 0;
  for (const TourKeyframe& k : tour.keyframes) {
    for (double share : {0.1, 0.5, 1.0})
      keep.push_back(std::min(frames - 1, static_cast<int>(std::lround((start + share * k.seconds) * options.fps))));
    start += k.seconds;
  }
  std::unique_ptr<VideoSink> sink;
  if (!options.record.empty()) {
    const std::string ffmpeg = find_ffmpeg();
    if (!ffmpeg.empty() && (size.width % 2 || size.height % 2))
      throw Error("--size: video needs an even width and height, got " + options.size);
    sink = std::make_unique<VideoSink>(ffmpeg, options.record, size.width, size.height, options.fps);
  }
  if (!options.png.empty()) std::filesystem::create_directories(options.png);
  HeadlessFrame frame(size);
  std::vector<std::uint8_t> pixels;
  int written = 0;
  for (int f = 0; f < frames; ++f) {
    frame.begin();
    player.draw(f / options.fps, frame.area(), size.width, size.height);
    frame.finish(pixels);
    if (sink) sink->write(pixels);
    if (!options.png.empty() && std::find(keep.begin(), keep.end(), f) != keep.end()) {
      char name[32];
      std::snprintf(name, sizeof name, "/tour_%05d.png", f);
      render::write_png(options.png + name, size.width, size.height, pixels);
      ++written;
    }
  }
  if (sink) std::printf("%s\n", sink->finish().c_str());
  if (!options.png.empty()) std::printf("%s: %d PNG frames of the tour\n", options.png.c_str(), written);
}

// Full screen (or a window): the tour plays in real time, then holds its
// last frame; Escape or closing the window ends it.
void show_tour(const DemoOptions& options, TourPlayer& player, const std::string& title) {
  GlfwWindow window(options.width, options.height, title, !options.windowed);
  glfwSwapInterval(1);
  const float ui_scale = window_ui_scale(window.get(), 0);
  ImGuiSession imgui(20.0f, ui_scale);
  ImGuiGlfwBackend backend(window.get());
  const auto started = std::chrono::steady_clock::now();
  while (!glfwWindowShouldClose(window.get())) {
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    const LayoutSize layout = apply_ui_scale(window.get(), ui_scale);
    ImGui::NewFrame();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) break;
    const int width = layout.width, height = layout.height;
    int pixel_width = 0, pixel_height = 0;
    glfwGetFramebufferSize(window.get(), &pixel_width, &pixel_height);
    if (width > 0 && height > 0) {
      begin_timeline_frame(pixel_width, pixel_height);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      player.draw(t, {0, 0, static_cast<float>(width), static_cast<float>(height)}, width, height);
      end_timeline_frame();
    } else {
      ImGui::EndFrame();
    }
    glfwSwapBuffers(window.get());
  }
}

void run_demo(const DemoOptions& options) {
  if (!(options.fps > 0 && options.fps <= 240)) throw Error("--fps must be within 0..240");
  DemoTour tour;
  if (!options.tour.empty()) tour = read_demo_tour(options.tour);
  const std::string database = !options.database.empty() ? options.database : tour.run;
  if (database.empty()) throw Error("no run to show: give RUN.weft or a tour file with \"run\"");
  db::WindowQuery query(database);
  const TraceInfo info = read_trace_info(query);
  if (options.tour.empty()) tour = default_demo_tour(db::has_logical_structure(query.database()));
  // Every keyframe is checked before the first frame, so a typo fails at once.
  for (const TourKeyframe& k : tour.keyframes) keyframe_spec(k, info.meta.trace_end_ns, info.processes.size(), options.fps);
  const DemoTour played = tour;
  TourPlayer player(std::move(tour), query, info, options.fps);
  if (!options.record.empty() || !options.png.empty())
    render_tour(options, player, played);
  else
    show_tour(options, player, "weft demo - " + info.file_name);
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand("demo", gui_command_description("demo"));
  cmd->add_option("database", options->database, "a .weft file (default: the tour's \"run\")");
  cmd->add_option("--tour", options->tour, "tour JSON (keyframes: view, from/to or steps, procs, color, seconds, "
                                           "caption); default: a built-in tour of the run");
  cmd->add_option("--record", options->record, "render the tour headless to this video (ffmpeg; else PNGs)");
  cmd->add_option("--png", options->png, "render the tour headless, writing 3 frames per keyframe to this folder");
  cmd->add_option("--size", options->size, "headless frame size WIDTHxHEIGHT")->capture_default_str();
  cmd->add_option("--fps", options->fps, "frames per second")->capture_default_str();
  cmd->add_flag("--windowed", options->windowed, "a window instead of full screen");
  cmd->callback([options] { run_demo(*options); });
}

}  // namespace weft::app
