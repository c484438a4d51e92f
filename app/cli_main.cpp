#include "app/cli_main.h"

#include <cstdio>
#include <exception>
#include <new>

#include "common/error.h"
#include "common/text.h"

namespace weft::app {

void configure_weft_parser(CLI::App& app) {
  app.name("weft");
  app.description("weft: explore parallel execution traces (OTF2, Charm++ Projections)");
  app.require_subcommand(1);
  app.set_version_flag("--version", WEFT_VERSION);
}

int run_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own status (weft check: 1 when a rule fails)
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; a usage error is bad input like
    // any other: one line and status 2 (CLI11's own codes are 100 and up).
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::fprintf(stderr, "weft: %s (see weft --help)\n", escape_control_chars(e.what()).c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "weft: %s\n", escape_control_chars(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "weft: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft: internal error: %s\n", escape_control_chars(e.what()).c_str());
    return 3;
  }
  return 0;
}

}  // namespace weft::app
