// The instanced timeline renderer, headless through EGL, checked pixel by pixel.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "common/error.h"
#include "framebuffer.h"
#include "gl_test_support.h"
#include "headless_context.h"
#include "region_palette.h"
#include "store/window_query.h"
#include "time_ticks.h"
#include "timeline_geometry.h"
#include "timeline_picking.h"
#include "timeline_renderer.h"

using namespace weft;
using namespace weft::render;
using weft::testing::make_context_or_null;

namespace {

Rgba8 pixel_at(const std::vector<std::uint8_t>& rgba, int width, int x, int y) {
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                         static_cast<std::size_t>(x)) * 4;
  return rgba8(rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]);
}

// Two rows; row 0 has a red box over [100, 500] ns and a nested blue one over
// [200, 300]; row 1 has a green box over [600, 900].
void make_events(db::WindowEvents& events) {
  auto add = [&events](ProcessIndex p, TimeNs s, TimeNs e, std::int32_t region, std::int32_t depth) {
    events.id.push_back(static_cast<EventId>(events.size()));
    events.process.push_back(p);
    events.start_ns.push_back(s);
    events.end_ns.push_back(e);
    events.region.push_back(region);
    events.depth.push_back(depth);
  };
  add(0, 200, 300, 1, 1);  // listed before its caller: the renderer must still draw it on top
  add(0, 100, 500, 0, 0);
  add(1, 600, 900, 2, 0);
}

}  // namespace

TEST(RenderTimeline, BoxesLandWhereTheViewPutsThem) {
  std::string why;
  auto context = make_context_or_null(why);
  if (!context) GTEST_SKIP() << "no headless OpenGL here: " << why;

  const int width = 400;
  const int height = 200;
  Framebuffer framebuffer(width, height, 1);
  TimelineRenderer renderer;

  db::WindowEvents events;
  db::WindowMessages messages;
  make_events(events);
  const std::vector<Rgba8> colors = {rgba8(220, 40, 40), rgba8(40, 40, 220), rgba8(40, 200, 40)};
  TimelineGeometry geometry;
  build_timeline_geometry(events, messages, colors, rgba8(255, 0, 255), 50, {}, geometry);
  ASSERT_EQ(geometry.box_count(), 3u);
  renderer.upload(geometry);

  ViewTransform view;
  view.t0_ns = 0;
  view.t1_ns = 1000;  // 0.4 px per ns
  view.row0 = 0;
  view.row1 = 2;      // 100 px per row
  view.plot = {0, 0, static_cast<float>(width), static_cast<float>(height)};
  view.framebuffer_width = width;
  view.framebuffer_height = height;

  framebuffer.bind();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  TimelineStyle style;
  renderer.draw(view, 2, style);
  std::vector<std::uint8_t> pixels;
  framebuffer.read_rgba(pixels);
  ASSERT_EQ(pixels.size(), static_cast<std::size_t>(width * height * 4));

  EXPECT_EQ(pixel_at(pixels, width, 120, 40), colors[0]);  // t = 300..., red caller
  EXPECT_EQ(pixel_at(pixels, width, 100, 50), colors[1]);  // t = 250: nested blue on top
  EXPECT_EQ(pixel_at(pixels, width, 300, 150), colors[2]); // t = 750, row 1: green
  EXPECT_EQ(pixel_at(pixels, width, 20, 50), style.band_even);  // t = 50, row 0: empty band
  EXPECT_EQ(pixel_at(pixels, width, 380, 150), style.band_odd); // t = 950, row 1: empty band

  // Picking finds the topmost box under a pixel.
  PickIndex picks;
  build_pick_index(geometry, 2, picks);
  std::int64_t hit = pick_box(geometry, picks, view, 100, 50);
  ASSERT_GE(hit, 0);
  EXPECT_EQ(events.region[geometry.box_event[static_cast<std::size_t>(hit)]], 1);
  EXPECT_EQ(pick_box(geometry, picks, view, 20, 50), -1);
}

TEST(RenderTimeline, MessageLinesAreDrawn) {
  std::string why;
  auto context = make_context_or_null(why);
  if (!context) GTEST_SKIP() << "no headless OpenGL here: " << why;
  const int size = 100;
  Framebuffer framebuffer(size, size, 1);
  TimelineRenderer renderer;
  db::WindowEvents events;
  db::WindowMessages messages;
  messages.id = {0};
  messages.src = {0};
  messages.dst = {1};
  messages.send_ns = {0};
  messages.recv_ns = {1000};
  TimelineGeometry geometry;
  build_timeline_geometry(events, messages, {}, 0, 0, {}, geometry);
  renderer.upload(geometry);
  ViewTransform view{0, 1000, 0, 2, {0, 0, 100, 100}, size, size};
  framebuffer.bind();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  TimelineStyle style;
  style.message = rgba8(255, 255, 255, 255);
  renderer.draw(view, 2, style);
  std::vector<std::uint8_t> pixels;
  framebuffer.read_rgba(pixels);
  // The line runs from (0, 25) to (100, 75); its receive end is the brightest.
  Rgba8 on_line = pixel_at(pixels, size, 90, 70);
  EXPECT_GT(on_line & 0xff, 150u);
  Rgba8 off_line = pixel_at(pixels, size, 90, 20);
  EXPECT_EQ(off_line & 0xff, style.band_even & 0xff);
}

TEST(TimeTicks, StepsAndUnits) {
  TimeTicks ticks;
  choose_time_ticks(0, 2'800'000, 1000, 100, ticks);  // 2.8 ms over 1000 px
  EXPECT_DOUBLE_EQ(ticks.step_ns, 500'000);
  ASSERT_EQ(ticks.at_ns.size(), 6u);
  EXPECT_EQ(format_tick_label(ticks, 500'000), "0.5 ms");
  choose_time_ticks(1000, 1200, 1000, 100, ticks);
  EXPECT_EQ(format_tick_label(ticks, 1100), "1.10 \xc2\xb5s");
  choose_time_ticks(0, 3e9, 1000, 100, ticks);
  EXPECT_EQ(format_tick_label(ticks, 1e9), "1.0 s");
  EXPECT_EQ(format_duration(1234567), "1.23 ms");
  EXPECT_EQ(format_duration(12), "12 ns");
}
