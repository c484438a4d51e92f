// `weft view`: the interactive viewer.
#include <memory>

#include "app/commands.h"
#include "app/gui_commands.h"
#include "app/viewer_app.h"

namespace weft::app {

void add_view_command(CLI::App& app) {
  auto options = std::make_shared<ViewerOptions>();
  CLI::App* cmd = app.add_subcommand("view", gui_command_description("view"));
  cmd->add_option("database", options->database, "a .weft file")->required();
  cmd->add_option("--width", options->width, "window width")->capture_default_str();
  cmd->add_option("--height", options->height, "window height")->capture_default_str();
  cmd->add_option("--ui-scale", options->ui_scale,
                  "size of text and controls, in pixels per layout unit (1..4; default: the screen's "
                  "scale, e.g. 2 on a HiDPI display)")
      ->check(CLI::Range(1.0f, 4.0f));
  cmd->add_option("--frames", options->frames,
                  "draw this many frames once data has loaded, then exit");
  cmd->add_flag("--stats", options->stats,
                "print frame time percentiles, first-frame time, window load times and memory at exit");
  cmd->add_option("--procs", options->processes,
                  "show only these processes: A, A-B or A-B:STRIDE, comma-separated (also in the toolbar)");
  cmd->add_option("--chares", options->chares,
                  "Charm++ runs: show only these chare rows in the logical view (same syntax; also in the toolbar)");
  cmd->add_flag("--tour", options->tour,
                "with --frames: zoom and pan along a fixed path (for benchmarks)");
  cmd->add_flag("--particles", options->particles,
                "show the particle panel (the animated scatterplot; also a toolbar checkbox)");
  cmd->add_flag("--play", options->play, "with --particles: start playing at once");
  cmd->add_flag("--profile", options->profile, "Charm++ runs: open with the usage profile panel shown");
  cmd->add_flag("--vps", options->vps, "AMPI runs: open with the virtual-rank lanes panel shown");
  // Hidden: a check under xvfb that the window draws what `weft render` draws.
  cmd->add_option("--screenshot", options->screenshot, "write the last frame to a PNG")
      ->group("");
  cmd->callback([options] { run_viewer(*options); });
}

}  // namespace weft::app
