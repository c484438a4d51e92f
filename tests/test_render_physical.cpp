// `weft render --view physical` on a real synthesized run: `pingpong` between
// two processes keeps both rows busy from start to end, and its messages are
// drawn as lines crossing the gap between the rows.
#include <gtest/gtest.h>

#include "import_test_support.h"
#include "png_test_support.h"
#include "region_palette.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;

TEST(RenderPhysical, PingpongShowsTwoBusyRowsAndMessageLines) {
  weft::test::TempDir dir("render-physical");
  const std::string weft = WEFT_BINARY;
  auto s = run_command(weft + " synth pingpong -n 2 -i 20 -o " + quoted(dir.path / "trace"));
  ASSERT_EQ(s.exit_code, 0) << s.output;
  auto i = run_command(weft + " import -q " + quoted(dir.path / "trace" / "traces.otf2") + " -o " +
                       quoted(dir.path / "run.weft"));
  ASSERT_EQ(i.exit_code, 0) << i.output;
  fs::path png = dir.path / "pingpong.png";
  auto r = run_command(weft + " render " + quoted(dir.path / "run.weft") + " --size 1000x400 --out " + quoted(png));
  if (r.exit_code != 0 && r.output.find("cannot create EGL context") != std::string::npos)
    GTEST_SKIP() << "no headless OpenGL here";
  ASSERT_EQ(r.exit_code, 0) << r.output;
  weft::testing::Png image(png.string());
  ASSERT_TRUE(image.ok());
  ASSERT_EQ(image.width(), 1000);

  // Find the two row bands by scanning the middle column for non-background
  // runs: each row is busy (not background) over most of the plot's width.
  const weft::render::Rgba8 background = weft::render::rgba8(22, 22, 26);
  auto busy_share = [&](int y) {
    int busy = 0, total = 0;
    for (int x = 150; x < 750; ++x, ++total) busy += image.pixel(x, y) != background;
    return static_cast<double>(busy) / total;
  };
  // Rows split the plot between the title line and the axis: sample a quarter
  // and three quarters down.
  EXPECT_GT(busy_share(image.height() * 3 / 10), 0.95);
  EXPECT_GT(busy_share(image.height() * 6 / 10), 0.95);

  // The gap between the rows: the least busy line between the two samples.
  // Nothing but message lines crosses it, and they are light grey.
  int gap = image.height() * 3 / 10;
  for (int y = gap; y <= image.height() * 6 / 10; ++y)
    if (busy_share(y) < busy_share(gap)) gap = y;
  int crossings = 0;
  bool inside = false;
  for (int x = 70; x < 860; ++x) {
    weft::render::Rgba8 c = image.pixel(x, gap);
    // Brighter than the dark gap by a clear margin (lines are anti-aliased).
    const bool light = (c & 0xff) > 90 && ((c >> 8) & 0xff) > 90 && ((c >> 16) & 0xff) > 90;
    crossings += light && !inside;
    inside = light;
  }
  // 40 messages, each crossing the gap once; neighbours may merge at this width.
  EXPECT_GE(crossings, 30);
  EXPECT_LE(crossings, 40);
}
