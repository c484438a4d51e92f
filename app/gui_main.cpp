// weft-gui: the commands that draw (view, render, record, demo), which `weft`
// hands over to with the same arguments (app/gui_commands.h). Owns no
// algorithm: it parses arguments and hands them to core/, db/ and render/.
#include "app/cli_main.h"
#include "app/commands.h"

int main(int argc, char** argv) {
  CLI::App app;
  weft::app::configure_weft_parser(app);
  weft::app::add_view_command(app);
  weft::app::add_render_command(app);
  weft::app::add_record_command(app);
  weft::app::add_demo_command(app);
  return weft::app::run_command_line(app, argc, argv);
}
