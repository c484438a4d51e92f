// `weft render` end to end: a small database in, a PNG of the right size out,
// with a known box in its region's color and the background elsewhere.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "region_palette.h"
#include "weft_test_db.h"

#include "png_test_support.h"

using namespace weft;
using weft::testing::TestTrace;

namespace {

struct RunResult {
  int status;
  std::string output;
};

RunResult run_weft(const std::string& args) {
  std::string command = std::string(WEFT_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 512> buffer{};
  while (pipe && fgets(buffer.data(), static_cast<int>(buffer.size()), pipe)) output += buffer.data();
  int status = pipe ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// Process 1 holds the only MPI_Allreduce: [400, 600] µs of a 1 ms trace.
std::string write_two_process_trace() {
  TestTrace trace;
  trace.processes = 2;
  trace.events = {{0, 0, 1'000'000, 1, 0},
                  {1, 0, 400'000, 1, 0},
                  {1, 400'000, 600'000, 5, 0},
                  {1, 600'000, 1'000'000, 1, 0}};
  std::string path = weft::testing::temp_weft_path("render");
  weft::testing::write_test_weft(path, trace);
  return path;
}

}  // namespace

TEST(RenderPng, KnownBoxHasItsRegionColor) {
  std::string database = write_two_process_trace();
  std::string png = database + ".png";
  std::filesystem::remove(png);
  RunResult run = run_weft("render " + database + " --out " + png + " --size 800x400");
  if (run.status != 0 && run.output.find("cannot create EGL context") != std::string::npos)
    GTEST_SKIP() << "no headless OpenGL here: " << run.output;
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output, png + "\n");
  ASSERT_TRUE(std::filesystem::exists(png));

  weft::testing::Png image(png);
  ASSERT_TRUE(image.ok());
  const int width = image.width();
  const int height = image.height();
  EXPECT_EQ(width, 800);
  EXPECT_EQ(height, 400);
  auto pixel = [&](int x, int y) { return image.pixel(x, y); };
  const render::Rgba8 allreduce = render::region_color(RegionKind::Collective, "MPI_Allreduce");

  // The box: the purple pixels left of the legend; their middle must be purple,
  // and they must sit in the middle of the time axis and in the lower row.
  long count = 0;
  long sum_x = 0;
  long sum_y = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width * 7 / 10; ++x)
      if (pixel(x, y) == allreduce) ++count, sum_x += x, sum_y += y;
  ASSERT_GT(count, 1000) << "the MPI_Allreduce box is missing";
  const int cx = static_cast<int>(sum_x / count);
  const int cy = static_cast<int>(sum_y / count);
  EXPECT_EQ(pixel(cx, cy), allreduce);
  EXPECT_GT(cx, width / 4);
  EXPECT_LT(cx, width * 7 / 10);
  EXPECT_GT(cy, height / 2 - 20);
  // Process 0 at the same time is compute, not MPI_Allreduce.
  EXPECT_EQ(pixel(cx, cy - height / 4), render::region_color(RegionKind::Compute, "compute"));
  // The background: the corners of the image.
  const render::Rgba8 background = render::rgba8(22, 22, 26);
  EXPECT_EQ(pixel(1, height - 2), background);
  EXPECT_EQ(pixel(width - 2, height - 2), background);
}

TEST(RenderPng, BadInputsFailWithOneLine) {
  RunResult missing = run_weft("render /nonexistent/x.weft --out /tmp/never.png");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(std::count(missing.output.begin(), missing.output.end(), '\n'), 1) << missing.output;

  std::string database = write_two_process_trace();
  RunResult backwards = run_weft("render " + database + " --out /tmp/never.png --time 500:100");
  EXPECT_EQ(backwards.status, 2) << backwards.output;
  EXPECT_NE(backwards.output.find("--time"), std::string::npos) << backwards.output;
  RunResult rows = run_weft("render " + database + " --out /tmp/never.png --procs 1:5");
  EXPECT_EQ(rows.status, 2) << rows.output;
  EXPECT_NE(rows.output.find("--procs"), std::string::npos) << rows.output;
}
