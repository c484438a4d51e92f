// The UI scale (app/ui_scale.h): `weft render --scale 2` draws the same
// picture as scale 1 at twice the resolution (layout in the same units,
// text rasterized twice as large), and `weft view --ui-scale 2` scales the
// window's text and controls the same way (HiDPI screens, projectors).
#include <gtest/gtest.h>

#include <cstdlib>

#include "import_test_support.h"
#include "png_test_support.h"
#include "region_palette.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;

namespace {

const weft::render::Rgba8 kBackground = weft::render::rgba8(22, 22, 26);

int channel_distance(weft::render::Rgba8 a, weft::render::Rgba8 b) {
  int d = 0;
  for (int shift = 0; shift < 24; shift += 8)
    d = std::max(d, std::abs(static_cast<int>((a >> shift) & 0xff) - static_cast<int>((b >> shift) & 0xff)));
  return d;
}

// Rows [first, last] of the image holding any pixel other than the
// background in columns [x0, x1) between rows y0 and y1 (-1, -1: none).
std::pair<int, int> ink_rows(const weft::testing::Png& image, int x0, int x1, int y0, int y1) {
  int first = -1, last = -1;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x)
      if (channel_distance(image.pixel(x, y), kBackground) > 40) {
        if (first < 0) first = y;
        last = y;
        break;
      }
  return {first, last};
}

class RenderScale : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string weft = WEFT_BINARY;
    auto s = run_command(weft + " synth pingpong -n 2 -i 20 -o " + quoted(dir_.path / "trace"));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    auto i = run_command(weft + " import -q " + quoted(dir_.path / "trace" / "traces.otf2") + " -o " +
                         quoted(run_));
    ASSERT_EQ(i.exit_code, 0) << i.output;
  }
  // Renders two iterations of the physical view (boxes tens of pixels
  // wide) at 500x200 layout units and `scale`.
  weft::test::CommandResult render(const std::string& scale, const fs::path& png) {
    return run_command(std::string(WEFT_BINARY) + " render " + quoted(run_) +
                       " --time 40%:50% --size 500x200 --scale " + scale + " --out " + quoted(png));
  }
  weft::test::TempDir dir_{"render-scale"};
  fs::path run_ = dir_.path / "run.weft";
};

}  // namespace

TEST_F(RenderScale, TwiceTheScaleIsTheSamePictureAtTwiceTheResolution) {
  const fs::path one = dir_.path / "scale1.png", two = dir_.path / "scale2.png";
  auto r1 = render("1", one);
  if (r1.exit_code != 0 && r1.output.find("cannot create EGL context") != std::string::npos)
    GTEST_SKIP() << "no headless OpenGL here";
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  auto r2 = render("2", two);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  weft::testing::Png a(one.string()), b(two.string());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a.width(), 500);
  ASSERT_EQ(a.height(), 200);
  ASSERT_EQ(b.width(), 1000);
  ASSERT_EQ(b.height(), 400);

  // Inside the plot (rows and message lines, no text) the two show the same
  // colors in the same shares: a histogram of colors (4 levels a channel)
  // over the same region, pixel for pixel at scale 1 and 2 x 2 pixels at
  // scale 2. (Pixel by pixel they differ along every box and line edge:
  // anti-aliasing and sub-pixel positions fall differently at twice the
  // pixels.)
  auto histogram = [](const weft::testing::Png& image) {
    std::vector<double> bins(64, 0.0);
    const int x0 = image.width() / 5, x1 = image.width() * 7 / 10;
    const int y0 = image.height() / 4, y1 = image.height() * 3 / 4;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) {
        const weft::render::Rgba8 c = image.pixel(x, y);
        const auto bin = ((c & 0xff) >> 6) * 16 + (((c >> 8) & 0xff) >> 6) * 4 + (((c >> 16) & 0xff) >> 6);
        bins[bin] += 1.0 / ((x1 - x0) * (y1 - y0));
      }
    return bins;
  };
  const std::vector<double> ha = histogram(a), hb = histogram(b);
  double l1 = 0;
  int main_colors = 0;
  for (std::size_t k = 0; k < ha.size(); ++k) {
    l1 += std::abs(ha[k] - hb[k]);
    // The colors that make up the picture (boxes, bands, background) cover
    // the same share; blends along edges account for the rest.
    if (ha[k] > 0.05) {
      ++main_colors;
      EXPECT_NEAR(ha[k], hb[k], 0.025) << "color bin " << k;
    }
  }
  EXPECT_GE(main_colors, 3);
  EXPECT_LT(l1, 0.1);
  // The busy rows are there at both scales: mostly not background.
  EXPECT_LT(ha[0], 0.5);

  // The title line: text twice as tall, at twice the distance from the top.
  auto [top1, bottom1] = ink_rows(a, 0, a.width() / 2, 0, 30);
  auto [top2, bottom2] = ink_rows(b, 0, b.width() / 2, 0, 60);
  ASSERT_GE(top1, 0);
  ASSERT_GE(top2, 0);
  EXPECT_NEAR(top2, 2 * top1, 2);
  EXPECT_NEAR(bottom2 - top2 + 1, 2 * (bottom1 - top1 + 1), 3);
}

TEST_F(RenderScale, ScalesOutsideTheRangeAreRefusedWithOneLine) {
  for (const char* bad : {"0.5", "5", "x"}) {
    auto r = render(bad, dir_.path / "never.png");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--scale"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_.path / "never.png"));
  }
  auto huge = run_command(std::string(WEFT_BINARY) + " render " + quoted(run_) +
                          " --size 9000x900 --scale 2 --out " + quoted(dir_.path / "never.png"));
  EXPECT_EQ(huge.exit_code, 2) << huge.output;
  EXPECT_FALSE(fs::exists(dir_.path / "never.png"));
}

// The window: under Xvfb (skipped without xvfb-run), the toolbar's text is
// twice as tall at --ui-scale 2, and the screenshot keeps the window's pixels.
TEST_F(RenderScale, ViewerWindowScalesItsTextAndControls) {
  if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run is not installed";
  auto shot = [&](const std::string& scale, const fs::path& png) {
    return run_command("xvfb-run -a -s '-screen 0 1000x700x24' " + std::string(WEFT_BINARY) + " view " + quoted(run_) +
                       " --width 900 --height 600 --frames 3 --ui-scale " + scale + " --screenshot " + quoted(png));
  };
  const fs::path one = dir_.path / "view1.png", two = dir_.path / "view2.png";
  auto r1 = shot("1", one);
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  auto r2 = shot("2", two);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  weft::testing::Png a(one.string()), b(two.string());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.width(), 900);
  EXPECT_EQ(b.width(), 900);
  EXPECT_EQ(b.height(), a.height());
  // The toolbar (an ImGui window across the top) is twice as tall: the
  // first row of the app's background under it, a little right of the
  // window's rounded corner.
  auto toolbar_height = [](const weft::testing::Png& image) {
    int y = 0;
    while (y < image.height() && channel_distance(image.pixel(12, y), kBackground) > 0) ++y;
    return y;
  };
  const int h1 = toolbar_height(a), h2 = toolbar_height(b);
  ASSERT_GT(h1, 10);
  ASSERT_LT(h2, b.height());
  EXPECT_NEAR(h2, 2 * h1, 3) << h1 << " " << h2;
}
