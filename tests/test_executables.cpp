// The two executables (app/gui_commands.h): `weft` links no graphics library
// and hands the commands that draw (view, render, record, demo) to weft-gui
// beside it, with the same arguments; without weft-gui it says so in one line.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "import_test_support.h"
#include "subprocess_runner.h"

namespace {

namespace fs = weft::test::fs;
using weft::test::run_process;
using weft::test::TempDir;

const fs::path kWeft = WEFT_BINARY;
const fs::path kWeftGui = kWeft.parent_path() / "weft-gui";

// The shared libraries an ELF executable names (DT_NEEDED), read from its
// dynamic section; an empty list when the file is not a 64-bit ELF file.
std::vector<std::string> needed_libraries(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto at = [&](std::size_t offset, std::size_t size) -> const char* {
    return offset <= bytes.size() && size <= bytes.size() - offset ? bytes.data() + offset : nullptr;
  };
  Elf64_Ehdr eh;
  const char* h = at(0, sizeof eh);
  if (!h || std::memcmp(h, ELFMAG, SELFMAG) != 0 || h[EI_CLASS] != ELFCLASS64) return {};
  std::memcpy(&eh, h, sizeof eh);
  std::vector<std::string> needed;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr dynamic, strings;
    const char* s = at(eh.e_shoff + i * eh.e_shentsize, sizeof dynamic);
    if (!s) return {};
    std::memcpy(&dynamic, s, sizeof dynamic);
    if (dynamic.sh_type != SHT_DYNAMIC) continue;
    const char* l = at(eh.e_shoff + dynamic.sh_link * eh.e_shentsize, sizeof strings);
    if (!l) return {};
    std::memcpy(&strings, l, sizeof strings);
    for (std::size_t k = 0; k + sizeof(Elf64_Dyn) <= dynamic.sh_size; k += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      const char* e = at(dynamic.sh_offset + k, sizeof d);
      if (!e) return {};
      std::memcpy(&d, e, sizeof d);
      if (d.d_tag != DT_NEEDED) continue;
      const char* name = at(strings.sh_offset + d.d_un.d_val, 1);
      if (name) needed.emplace_back(name, strnlen(name, bytes.data() + bytes.size() - name));
    }
  }
  return needed;
}

bool needs_graphics(const std::vector<std::string>& libraries) {
  for (const std::string& lib : libraries)
    for (const char* graphics : {"libEGL", "libGL", "libOpenGL", "libglfw", "libX11", "libxcb"})
      if (lib.rfind(graphics, 0) == 0) return true;
  return false;
}

TEST(WeftExecutables, WeftLinksNoGraphicsLibraryWeftGuiDoes) {
  const std::vector<std::string> weft = needed_libraries(kWeft), gui = needed_libraries(kWeftGui);
  ASSERT_FALSE(weft.empty()) << kWeft;
  ASSERT_FALSE(gui.empty()) << kWeftGui;
  EXPECT_FALSE(needs_graphics(weft)) << ::testing::PrintToString(weft);
  EXPECT_TRUE(needs_graphics(gui)) << ::testing::PrintToString(gui);
  bool sqlite = false;
  for (const std::string& lib : weft) sqlite = sqlite || lib.rfind("libsqlite3", 0) == 0;
  EXPECT_TRUE(sqlite) << ::testing::PrintToString(weft);
}

TEST(WeftExecutables, HelpListsEveryCommandWithItsDescription) {
  const auto r = run_process({kWeft.string(), "--help"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  for (const char* line : {"import ", "analyze ", "export ", "check ", "info ", "synth ",
                           "view                        Open a .weft file in the interactive viewer",
                           "render                      Render one frame of a view to a PNG",
                           "record                      Record a view animated", "demo                        Play a tour"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  EXPECT_NE(r.out.find("view, render, record and demo run in weft-gui, beside weft"), std::string::npos) << r.out;
}

TEST(WeftExecutables, TheCommandsThatDrawAreWeftGuisWithTheSameArguments) {
  // Help of a command that draws: weft-gui's, with its options.
  const auto help = run_process({kWeft.string(), "render", "--help"});
  ASSERT_TRUE(help.exited && help.exit_code == 0) << help.describe();
  EXPECT_NE(help.out.find("Usage: weft render [OPTIONS] database"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--size"), std::string::npos) << help.out;
  // Its usage errors: weft-gui's parser, weft's one-line contract.
  const auto missing = run_process({kWeft.string(), "view"});
  EXPECT_TRUE(missing.exited && missing.exit_code == 2) << missing.describe();
  EXPECT_EQ(missing.err, "weft: database is required (see weft --help)\n");
  const auto unknown = run_process({kWeft.string(), "record", "x.weft", "--no-such-option"});
  EXPECT_TRUE(unknown.exited && unknown.exit_code == 2) << unknown.describe();
  EXPECT_NE(unknown.err.find("--no-such-option"), std::string::npos) << unknown.err;
  // And a command that does not draw stays weft's: weft-gui does not know it.
  const auto info = run_process({kWeftGui.string(), "info", "x.weft"});
  EXPECT_TRUE(info.exited && info.exit_code == 2) << info.describe();
}

TEST(WeftExecutables, ASymbolicLinkToWeftFindsWeftGuiBesideTheRealFile) {
  TempDir dir("exe-link");
  fs::create_symlink(fs::absolute(kWeft), dir.path / "weft");
  const auto r = run_process({(dir.path / "weft").string(), "demo", "--help"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("Usage: weft demo"), std::string::npos) << r.out;
}

TEST(WeftExecutables, WithoutWeftGuiBesideItACommandThatDrawsFailsInOneLine) {
  TempDir dir("exe-alone");
  fs::copy_file(kWeft, dir.path / "weft");
  const std::string weft = (dir.path / "weft").string();
  const auto r = run_process({weft, "render", "run.weft", "-o", (dir.path / "out.png").string()});
  EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
  EXPECT_EQ(r.err, "weft: " + (dir.path / "weft-gui").string() +
                       ": No such file or directory (view, render, record and demo run in weft-gui, beside weft)\n");
  EXPECT_FALSE(fs::exists(dir.path / "out.png"));
  // The other commands do not need it.
  const auto synth = run_process({weft, "synth", "ring", "-n", "4", "-i", "1", "-o", (dir.path / "ring").string()});
  EXPECT_TRUE(synth.exited && synth.exit_code == 0) << synth.describe();
  EXPECT_TRUE(fs::exists(dir.path / "ring" / "traces.otf2"));
}

}  // namespace
