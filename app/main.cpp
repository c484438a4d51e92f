// weft: the command-line entry point. Owns no algorithm: it parses arguments
// and hands them to core/, db/ and render/.
#include <cstdio>
#include <exception>

#include "app/commands.h"
#include "common/text.h"
#include "common/error.h"

int main(int argc, char** argv) {
  CLI::App app{"weft: explore parallel execution traces (OTF2, Charm++ Projections)", "weft"};
  app.require_subcommand(1);
  app.set_version_flag("--version", WEFT_VERSION);

  weft::app::add_synth_command(app);
  weft::app::add_import_command(app);
  weft::app::add_analyze_command(app);
  weft::app::add_check_command(app);
  weft::app::add_export_command(app);
  weft::app::add_info_command(app);
  weft::app::add_view_command(app);
  weft::app::add_render_command(app);
  weft::app::add_record_command(app);
  weft::app::add_demo_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "weft: %s\n", weft::escape_control_chars(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "weft: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft: internal error: %s\n", weft::escape_control_chars(e.what()).c_str());
    return 3;
  }
  return 0;
}
