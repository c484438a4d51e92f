#pragma once
// The entry shared by the two executables: `weft`, the commands that read and
// write .weft files (synth, import, analyze, check, export, info), and
// `weft-gui`, the commands that draw (view, render, record, demo), which
// `weft` hands over to (app/gui_commands.h). Parses the arguments, runs the
// chosen command and turns its failure into one line on stderr and an exit
// status.
#include <CLI/CLI.hpp>

namespace weft::app {

// Both executables' parser: named "weft", one subcommand required, --version.
void configure_weft_parser(CLI::App& app);

// Runs `app` on the arguments; returns the exit status: 0, a command's own
// (weft check: 1 when a rule fails), 2 for a usage error or a weft::Error,
// 3 for an internal error.
int run_command_line(CLI::App& app, int argc, char** argv);

}  // namespace weft::app
