#include "app/commands.h"

namespace weft::app {
void add_view_command(CLI::App& app) { app.add_subcommand("view", "(in progress)"); }
}  // namespace weft::app
