#include "app/commands.h"

namespace weft::app {
void add_render_command(CLI::App& app) { app.add_subcommand("render", "(in progress)"); }
}  // namespace weft::app
