#include "app/commands.h"

namespace weft::app {
void add_synth_command(CLI::App& app) { app.add_subcommand("synth", "(in progress)"); }
}  // namespace weft::app
