// `weft demo` tours: the JSON reader's checks (each bad tour is refused with
// the file and keyframe named), keyframe specs from their fields, and a tour
// rendered headless with --png (3 frames per keyframe, of the asked size).
#include <gtest/gtest.h>

#include <fstream>

#include "app/demo_tour.h"
#include "common/error.h"
#include "import_test_support.h"
#include "png_test_support.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;
using namespace weft;

namespace {

std::string write_tour(const fs::path& dir, const std::string& name, const std::string& json) {
  const fs::path path = dir / name;
  std::ofstream(path) << json;
  return path.string();
}

std::string error_of(const std::string& path) {
  try {
    app::read_demo_tour(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(DemoTour, ReadsKeyframesAndResolvesTheRun) {
  weft::test::TempDir dir("tour");
  const std::string path = write_tour(dir.path, "t.json", R"({"run": "r.weft", "keyframes": [
      {"view": "particles", "from": "10%", "to": "20%", "seconds": 4, "caption": "a"},
      {"view": "logical", "steps": "3:9", "color": "dlateness"}]})");
  const app::DemoTour tour = app::read_demo_tour(path);
  EXPECT_EQ(tour.run, (dir.path / "r.weft").string());
  ASSERT_EQ(tour.keyframes.size(), 2u);
  EXPECT_EQ(tour.keyframes[0].caption, "a");
  EXPECT_EQ(tour.keyframes[1].seconds, 5);  // the default
  EXPECT_DOUBLE_EQ(tour.total_seconds(), 9);
  // 10%..20% of a 1,000 ns run over 4 s at 10 frames/s: 40 frames, 39 steps.
  const app::AnimatedViewSpec a = app::keyframe_spec(tour.keyframes[0], 1000, 8, 10);
  EXPECT_EQ(a.from_ns, 100);
  EXPECT_EQ(a.to_ns, 200);
  EXPECT_DOUBLE_EQ(a.step_ns, 100.0 / 39.0);
  EXPECT_EQ(a.row1, 8);
  const app::AnimatedViewSpec b = app::keyframe_spec(tour.keyframes[1], 1000, 8, 10);
  EXPECT_EQ(b.step0, 3);
  EXPECT_EQ(b.step1, 9);
}

TEST(DemoTour, BadToursNameTheFileAndKeyframe) {
  weft::test::TempDir dir("tour");
  EXPECT_NE(error_of((dir.path / "missing.json").string()).find("cannot read"), std::string::npos);
  EXPECT_NE(error_of(write_tour(dir.path, "a.json", "{nope")).find("not a JSON tour"), std::string::npos);
  EXPECT_NE(error_of(write_tour(dir.path, "b.json", R"({"keyframes": []})")).find("non-empty"), std::string::npos);
  const std::string view = error_of(write_tour(dir.path, "c.json", R"({"keyframes": [{}, {"view": "3d"}]})"));
  EXPECT_NE(view.find("c.json: keyframe 2: unknown view '3d'"), std::string::npos) << view;
  EXPECT_NE(error_of(write_tour(dir.path, "d.json", R"({"keyframes": [{"seconds": -1}]})")).find("seconds"),
            std::string::npos);
  EXPECT_NE(error_of(write_tour(dir.path, "e.json", R"({"keyframes": [{"caption": 5}]})")).find("string"),
            std::string::npos);
  EXPECT_NE(error_of(write_tour(dir.path, "f.json", R"({"keyframes": [{"view": "physical", "steps": "1:2"}]})"))
                .find("logical"),
            std::string::npos);
}

TEST(DemoTour, PngFramesOfTheShippedTour) {
  weft::test::TempDir dir("demo");
  const std::string weft_bin = WEFT_BINARY;
  const fs::path trace = dir.path / "trace";
  const fs::path run = dir.path / "run.weft";
  ASSERT_EQ(run_command(weft_bin + " synth stencil2d -n 16 -i 20 --delay 5:10:4 -o " + quoted(trace)).exit_code, 0);
  ASSERT_EQ(run_command(weft_bin + " import -q " + quoted(trace / "traces.otf2") + " -o " + quoted(run)).exit_code, 0);
  const fs::path out = dir.path / "tour";
  auto r = run_command(weft_bin + " demo " + quoted(run) + " --tour " +
                       quoted(fs::path(WEFT_SOURCE_DIR) / "scripts" / "demo_tour.json") + " --png " + quoted(out) +
                       " --fps 4 --size 480x270");
  if (r.exit_code != 0 && r.output.find("cannot create EGL context") != std::string::npos)
    GTEST_SKIP() << "no headless OpenGL";
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    weft::testing::Png png(entry.path().string());
    ASSERT_TRUE(png.ok());
    EXPECT_EQ(png.width(), 480);
    EXPECT_EQ(png.height(), 270);
    ++count;
  }
  EXPECT_EQ(count, 15);  // 5 keyframes, 3 frames each
  auto none = run_command(weft_bin + " demo --png " + quoted(out));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no run to show"), std::string::npos) << none.output;
}
