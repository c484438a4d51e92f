#pragma once
// Each CLI subcommand lives in its own cmd_<name>.cpp and adds itself to the
// parser here. A command's callback throws weft::Error for a user-facing
// failure; main() prints it as one line and exits with status 2.
#include <CLI/CLI.hpp>

namespace weft::app {

void add_synth_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_view_command(CLI::App& app);
void add_render_command(CLI::App& app);
void add_record_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_export_command(CLI::App& app);

}  // namespace weft::app
