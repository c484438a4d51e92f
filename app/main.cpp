// weft: the command-line entry point. Owns no algorithm: it parses arguments
// and hands them to core/ and db/. The commands that draw are listed here and
// run by weft-gui (app/gui_commands.h).
#include "app/cli_main.h"
#include "app/commands.h"
#include "app/gui_commands.h"

int main(int argc, char** argv) {
  CLI::App app;
  weft::app::configure_weft_parser(app);
  weft::app::add_synth_command(app);
  weft::app::add_import_command(app);
  weft::app::add_analyze_command(app);
  weft::app::add_check_command(app);
  weft::app::add_export_command(app);
  weft::app::add_info_command(app);
  weft::app::add_gui_command_entries(app, argv);
  return weft::app::run_command_line(app, argc, argv);
}
