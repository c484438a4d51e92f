#pragma once
// The commands that draw (view, render, record, demo) live in a second
// executable, `weft-gui`, beside `weft`; `weft` lists them in its help and
// hands them over by exec, with the same arguments.
//
// Why: EGL, OpenGL, GLFW and X11 took ~4.5 ms of every start of the one
// executable there was (`weft --version` 13.4 ms, now 8.8), also of the
// commands that never draw, which scripts run by the thousand; and `weft`
// now runs where those libraries are not installed (a cluster's login or
// compute nodes, to import and analyze there).
#include <CLI/CLI.hpp>

namespace weft::app {

// The name of the executable that runs the commands that draw.
inline constexpr const char* kGuiExecutable = "weft-gui";

// The one-line description of a command that draws, as both help texts show it.
const char* gui_command_description(const char* name);

// Adds the commands that draw to `weft`'s parser, so that `weft --help`
// lists them; one that is chosen hands the whole command line (`argv`, as
// main received it) over to weft-gui (hand_over_to_gui).
void add_gui_command_entries(CLI::App& app, char** argv);

// Replaces this process by weft-gui, from the directory of this executable,
// with the same arguments. Returns only when that fails, with the status to
// exit with, having printed one line naming the executable and the problem.
int hand_over_to_gui(char** argv);

}  // namespace weft::app
