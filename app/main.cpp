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
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own status (weft check: 1 when a rule fails)
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; a usage error is bad input like
    // any other: one line and status 2 (CLI11's own codes are 100 and up).
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::fprintf(stderr, "weft: %s (see weft --help)\n", weft::escape_control_chars(e.what()).c_str());
    return 2;
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
