// Dense timeline windows painted into one image (render/timeline_raster.h):
// the painting follows the box shader's rules for rows thinner than a pixel
// (a box covers the pixels whose centers it spans, at least one each way) and
// the boxes' order (a later box covers an earlier one), on hand-built boxes
// whose pixels are known.
#include <gtest/gtest.h>

#include "timeline_raster.h"

using namespace weft::render;

namespace {

void add(TimelineGeometry& g, float start, float end, float row, Rgba8 color) {
  g.box_span.push_back(start);
  g.box_span.push_back(end);
  g.box_row.push_back(row);
  g.box_row.push_back(0.0f);
  g.box_height.push_back(1.0f);
  g.box_color.push_back(color);
  g.box_event.push_back(static_cast<std::uint32_t>(g.box_event.size()));
}

// The color painted at pixel (x, y), 0 for none.
Rgba8 at(const TimelineGeometry& g, int x, int y) {
  const std::uint8_t index = g.image.cells[static_cast<std::size_t>(y * g.image.width + x)];
  return index ? g.image.palette[index] : 0;
}

const Rgba8 kRed = rgba8(200, 0, 0), kBlue = rgba8(0, 0, 200), kGreen = rgba8(0, 200, 0);

}  // namespace

TEST(TimelineRaster, LaterBoxesCoverEarlierOnesPixelByPixel) {
  // 1 px per 10 ns, 4 rows at half a pixel each: rows 0-1 share pixel row 0, rows 2-3 pixel row 1.
  TimelineGeometry g;
  add(g, 0, 100, 0, kRed);    // pixels 0..9 of pixel row 0
  add(g, 50, 80, 1, kBlue);   // pixels 5..7, drawn later: covers red there
  add(g, 33, 34, 2, kGreen);  // 0.1 px wide: still one pixel, the one nearest its start (3)
  add(g, 96, 130, 3, kRed);   // pixels 10..12 of pixel row 1, clipped to the image's 12 columns
  ASSERT_TRUE(rasterize_boxes(g, {0.1, 0.5, 0.0, 120.0, 0.0, 4.0}));
  EXPECT_TRUE(g.boxes_in_image);
  ASSERT_EQ(g.image.width, 12);
  ASSERT_EQ(g.image.height, 2);
  EXPECT_DOUBLE_EQ(g.image.dx, 10.0);
  EXPECT_DOUBLE_EQ(g.image.drow, 2.0);
  for (int x = 0; x < 12; ++x) {
    const Rgba8 top = x < 5 || (x >= 8 && x < 10) ? kRed : x < 8 ? kBlue : 0;
    EXPECT_EQ(at(g, x, 0), top) << x;
    const Rgba8 bottom = x == 3 ? kGreen : x >= 10 ? kRed : 0;
    EXPECT_EQ(at(g, x, 1), bottom) << x;
  }
  // The boxes stay for picking.
  EXPECT_EQ(g.box_count(), 4u);
}

TEST(TimelineRaster, TallRowsHaveGapsInsetsAndOutlinesAsTheShaderDraws) {
  // 20 px rows: a 2.4 px gap under each row, 2 px of inset per nesting level,
  // a darker edge on boxes of 6 x 6 px or more.
  TimelineGeometry g;
  add(g, 0, 20, 0, kRed);   // depth 0: rows 0..17 (17.6 px tall), columns 0..19
  add(g, 5, 10, 0, kBlue);  // depth 1 inside it: rows 2..15, 5 px wide (no edge)
  g.box_row[3] = 1.0f;
  ASSERT_TRUE(rasterize_boxes(g, {1.0, 20.0, 0.0, 20.0, 0.0, 1.0}));
  ASSERT_EQ(g.image.height, 20);
  const Rgba8 dark_red = rgba8(110, 0, 0);
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 20; ++x) {
      Rgba8 want = 0;
      if (y <= 17) want = y == 0 || y == 17 || x == 0 || x == 19 ? dark_red : kRed;
      if (y >= 2 && y <= 15 && x >= 5 && x <= 9) want = kBlue;
      EXPECT_EQ(at(g, x, y), want) << x << "," << y;
    }
}

TEST(TimelineRaster, ThousandsOfShadesShareTheNearestPaletteColors) {
  TimelineGeometry g;
  // 300 shades of red along one row, then one exact repeat of the first.
  for (int i = 0; i < 300; ++i) add(g, static_cast<float>(i), static_cast<float>(i + 1), 0, rgba8(static_cast<std::uint8_t>(i % 256), 0, static_cast<std::uint8_t>(i / 256)));
  ASSERT_TRUE(rasterize_boxes(g, {1.0, 0.5, 0.0, 300.0, 0.0, 2.0}));
  for (int x = 0; x < 255; ++x) EXPECT_EQ(at(g, x, 0), g.box_color[static_cast<std::size_t>(x)]) << x;
  // Past the palette's 255 colors: the nearest one, a few levels off at most.
  for (int x = 255; x < 300; ++x) {
    const Rgba8 want = g.box_color[static_cast<std::size_t>(x)], got = at(g, x, 0);
    int d = 0;
    for (int shift = 0; shift < 24; shift += 8)
      d += std::abs(static_cast<int>((want >> shift) & 0xff) - static_cast<int>((got >> shift) & 0xff));
    EXPECT_LE(d, 2) << x;
  }
}

TEST(TimelineRaster, AnImageTooLargeLeavesTheBoxesToBeDrawn) {
  TimelineGeometry g;
  add(g, 0, 1, 0, kRed);
  EXPECT_FALSE(rasterize_boxes(g, {1.0, 0.5, 0.0, 1e9, 0.0, 1e3}));
  EXPECT_FALSE(g.boxes_in_image);
  EXPECT_TRUE(g.image.empty());
  EXPECT_FALSE(rasterize_boxes(g, {0.0, 0.5, 0.0, 10.0, 0.0, 2.0}));  // no zoom
}

TEST(TimelineRaster, SoftwareRenderersPaintDenseWindowsUnlessToldOtherwise) {
  EXPECT_TRUE(choose_raster_dense("llvmpipe (LLVM 15.0.6, 256 bits)", nullptr));
  EXPECT_TRUE(choose_raster_dense("softpipe", nullptr));
  EXPECT_FALSE(choose_raster_dense("NVIDIA H100/PCIe/SSE2", nullptr));
  EXPECT_FALSE(choose_raster_dense("llvmpipe (LLVM 15.0.6, 256 bits)", "boxes"));
  EXPECT_TRUE(choose_raster_dense("NVIDIA H100/PCIe/SSE2", "raster"));
  EXPECT_TRUE(choose_raster_dense("llvmpipe", "anything else"));
}

TEST(TimelineRaster, LinesCoverWhatTheLineShaderDraws) {
  // A line of half width 0.75 px: pixels whose centers lie within 1.25 px of
  // it get coverage 1.25 - distance (at most 1), times 0.35 + 0.65 * along
  // (fainter at the send end), in units of 256.
  TimelineGeometry g;
  add(g, 0, 12, 0, kRed);  // a box under it, so that the image exists
  g.line_time = {1.0f, 9.0f, 5.0f, 5.0f};  // a horizontal line in row 0, a vertical one from row 0 to row 2
  g.line_row = {0.0f, 0.0f, 0.0f, 2.0f};
  const RasterExtent extent{1.0, 4.0, 0.0, 12.0, 0.0, 3.0};
  ASSERT_TRUE(rasterize_boxes(g, extent));
  rasterize_lines(g, extent, 0.75f);
  ASSERT_TRUE(g.lines_in_image());
  auto cover = [&](int x, int y) { return g.image.line_cover[static_cast<std::size_t>(y * g.image.width + x)]; };
  auto expected = [](double coverage, double along) {
    return static_cast<int>(256.0 * coverage * (0.35 + 0.65 * along) + 0.5);
  };
  // Horizontal: from (1, 2) to (9, 2); rows 1 and 2 (centers 0.5 px off) are covered 0.75.
  EXPECT_EQ(cover(3, 1), expected(0.75, (3.5 - 1.0) / 8.0));
  EXPECT_EQ(cover(8, 2), expected(0.75, (8.5 - 1.0) / 8.0));
  EXPECT_EQ(cover(3, 0), 0);  // 1.5 px away
  EXPECT_EQ(cover(0, 1), 0);  // before the send end: no end caps
  // Vertical: from (5, 2) to (5, 10); columns 4 and 5 covered 0.75. Where it
  // crosses the horizontal one the covers add up.
  EXPECT_EQ(cover(4, 6), expected(0.75, (6.5 - 2.0) / 8.0));
  EXPECT_EQ(cover(5, 9), expected(0.75, (9.5 - 2.0) / 8.0));
  EXPECT_EQ(cover(5, 2), expected(0.75, (5.5 - 1.0) / 8.0) + expected(0.75, 0.5 / 8.0));
  EXPECT_EQ(cover(6, 6), 0);
}
