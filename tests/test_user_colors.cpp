// Function colors the user picked: written and read back, applied by name,
// and a malformed file refused with its name (never a crash).
#include <gtest/gtest.h>

#include <fstream>

#include "app/user_colors.h"
#include "common/error.h"
#include "import_test_support.h"
#include "store/window_query.h"

using namespace weft;
namespace fs = std::filesystem;

TEST(UserColors, RoundTripAndApplyByName) {
  weft::test::TempDir dir("colors");
  const std::string path = (dir.path / "sub" / "colors.json").string();
  EXPECT_TRUE(app::read_user_colors(path).empty());  // no file yet
  app::UserColors colors{{"MPI_Send", render::rgba8(1, 2, 3)}, {"MPI_Waitall", render::rgba8(250, 128, 0)}};
  app::write_user_colors(path, colors);
  EXPECT_EQ(app::read_user_colors(path), colors);

  db::RegionTable regions;
  regions.name = {"main", "MPI_Send", "MPI_Recv"};
  std::vector<render::Rgba8> region_colors = {10, 20, 30};
  app::apply_user_colors(colors, regions, region_colors);
  EXPECT_EQ(region_colors, (std::vector<render::Rgba8>{10, render::rgba8(1, 2, 3), 30}));
}

TEST(UserColors, MalformedFilesNameTheFile) {
  weft::test::TempDir dir("colors");
  for (const char* text : {"{", "[1, 2]", R"({"MPI_Send": "blue"})", R"({"MPI_Send": 5})", R"({"MPI_Send": "#12345"})"}) {
    const std::string path = (dir.path / "bad.json").string();
    std::ofstream(path) << text;
    try {
      app::read_user_colors(path);
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST(UserColors, PathFollowsTheEnvironment) {
  setenv("WEFT_COLORS", "/tmp/x.json", 1);
  EXPECT_EQ(app::user_colors_path(), "/tmp/x.json");
  unsetenv("WEFT_COLORS");
  setenv("XDG_CONFIG_HOME", "/cfg", 1);
  EXPECT_EQ(app::user_colors_path(), "/cfg/weft/colors.json");
  unsetenv("XDG_CONFIG_HOME");
}
