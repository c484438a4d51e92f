#include "app/commands.h"

namespace weft::app {
void add_import_command(CLI::App& app) { app.add_subcommand("import", "(in progress)"); }
}  // namespace weft::app
