#include "app/commands.h"

namespace weft::app {
void add_info_command(CLI::App& app) { app.add_subcommand("info", "(in progress)"); }
}  // namespace weft::app
