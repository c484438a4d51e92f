#include "app/gui_commands.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "common/text.h"

namespace weft::app {
namespace {

struct GuiCommand {
  const char* name;
  const char* description;
};

constexpr std::array<GuiCommand, 4> kGuiCommands{{
    {"view", "Open a .weft file in the interactive viewer"},
    {"render", "Render one frame of a view to a PNG, with no display (EGL surfaceless)"},
    {"record", "Record a view animated over a span of the run as a video (ffmpeg) or numbered PNGs"},
    {"demo", "Play a tour of views with captions full screen, or record it (--record) or sample it (--png)"},
}};

const GuiCommand* find_gui_command(const char* name) {
  for (const GuiCommand& c : kGuiCommands)
    if (name != nullptr && std::string_view(name) == c.name) return &c;
  return nullptr;
}

// The directory of the running executable (symbolic links resolved), with a
// trailing slash; empty when it cannot be read.
std::string executable_directory() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= path.size()) return {};
  path.resize(static_cast<std::size_t>(n));
  return path.substr(0, path.rfind('/') + 1);
}

}  // namespace

const char* gui_command_description(const char* name) {
  const GuiCommand* c = find_gui_command(name);
  return c ? c->description : "";
}

void add_gui_command_entries(CLI::App& app, char** argv) {
  app.footer(std::string("view, render, record and demo run in ") + kGuiExecutable +
             ", beside weft, which starts it with the same arguments.");
  for (const GuiCommand& c : kGuiCommands) {
    CLI::App* cmd = app.add_subcommand(c.name, c.description);
    // Its options are weft-gui's: everything after the name is passed on.
    cmd->prefix_command();
    cmd->set_help_flag();  // `weft view --help` is weft-gui's help of view
    cmd->callback([argv] {
      const int status = hand_over_to_gui(argv);
      throw CLI::RuntimeError(status);
    });
  }
}

int hand_over_to_gui(char** argv) {
  const std::string directory = executable_directory();
  const std::string gui = directory + kGuiExecutable;
  if (!directory.empty()) execv(gui.c_str(), argv);
  const char* problem = directory.empty() ? "cannot find weft's own directory" : std::strerror(errno);
  std::fprintf(stderr, "weft: %s: %s (view, render, record and demo run in %s, beside weft)\n",
               escape_control_chars(directory.empty() ? std::string(kGuiExecutable) : gui).c_str(), problem,
               kGuiExecutable);
  return 2;
}

}  // namespace weft::app
