// Dense windows on software renderers (render/timeline_raster.h): a window of
// thousands of boxes is painted into one image instead of drawn a box each. `weft render` of such a window shows the same
// picture either way (WEFT_TIMELINE_PATH=raster or boxes), in both timelines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "app/timeline_data.h"
#include "app/view_filter.h"
#include "import_test_support.h"
#include "png_test_support.h"
#include "region_palette.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;

namespace {

bool close(weft::render::Rgba8 a, weft::render::Rgba8 b) {
  for (int shift = 0; shift < 24; shift += 8)
    if (std::abs(static_cast<int>((a >> shift) & 0xff) - static_cast<int>((b >> shift) & 0xff)) > 12) return false;
  return true;
}

class RenderDense : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new weft::test::TempDir("render-dense");
    const std::string weft = WEFT_BINARY;
    // 256 processes on a 200-pixel plot: rows under a pixel; ~20,000 events.
    auto s = run_command(weft + " synth stencil2d -n 256 -i 6 -o " + quoted(dir_->path / "trace"));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    auto i = run_command(weft + " import -q " + quoted(dir_->path / "trace" / "traces.otf2") + " -o " +
                         quoted(dir_->path / "run.weft"));
    ASSERT_EQ(i.exit_code, 0) << i.output;
    // 16 processes, 80 iterations: ~15,000 events on rows ~14 px tall.
    auto ts = run_command(weft + " synth stencil2d -n 16 -i 80 -o " + quoted(dir_->path / "tall"));
    ASSERT_EQ(ts.exit_code, 0) << ts.output;
    auto ti = run_command(weft + " import -q " + quoted(dir_->path / "tall" / "traces.otf2") + " -o " +
                          quoted(dir_->path / "tall.weft"));
    ASSERT_EQ(ti.exit_code, 0) << ti.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // Share of pixels of the raster render of `view_args` found within a pixel
  // of the same place in the boxes render, each channel within 12 levels
  // (the image is painted at the load's zoom and placed at the view's
  // sub-pixel offset, so box edges may fall a pixel apart, and the painted
  // lines blend by a formula close to, not equal to, drawing them one by
  // one); -1 when there is no headless OpenGL.
  double same_share(const std::string& view_args, const std::string& run = "run.weft") {
    const fs::path raster = dir_->path / "raster.png", boxes = dir_->path / "boxes.png";
    const std::string render = std::string(WEFT_BINARY) + " render " + quoted(dir_->path / run) + " " +
                               view_args + " --size 900x300 --out ";
    auto r = run_command("WEFT_TIMELINE_PATH=raster " + render + quoted(raster));
    if (r.exit_code != 0 && r.output.find("cannot create EGL context") != std::string::npos) return -1;
    EXPECT_EQ(r.exit_code, 0) << r.output;
    auto b = run_command("WEFT_TIMELINE_PATH=boxes " + render + quoted(boxes));
    EXPECT_EQ(b.exit_code, 0) << b.output;
    weft::testing::Png a(raster.string()), c(boxes.string());
    EXPECT_TRUE(a.ok() && c.ok());
    if (!a.ok() || !c.ok() || a.width() != c.width() || a.height() != c.height()) return 0;
    long same = 0, total = 0, busy = 0;
    for (int y = 0; y < a.height(); ++y)
      for (int x = 0; x < a.width(); ++x, ++total) {
        bool found = false;
        for (int dy = -1; dy <= 1 && !found; ++dy)
          for (int dx = -1; dx <= 1 && !found; ++dx) {
            const int nx = std::clamp(x + dx, 0, a.width() - 1), ny = std::clamp(y + dy, 0, a.height() - 1);
            found = close(a.pixel(x, y), c.pixel(nx, ny));
          }
        same += found;
        busy += a.pixel(x, y) != weft::render::rgba8(22, 22, 26);
      }
    EXPECT_GT(busy, total / 3);  // the plot is full of boxes, not empty
    return static_cast<double>(same) / static_cast<double>(total);
  }

  static weft::test::TempDir* dir_;
};

weft::test::TempDir* RenderDense::dir_ = nullptr;

}  // namespace

TEST_F(RenderDense, PhysicalWindowPaintedOrDrawnLooksTheSame) {
  const double share = same_share("--view physical");
  if (share < 0) GTEST_SKIP() << "no headless OpenGL here";
  EXPECT_GT(share, 0.97);
}

TEST_F(RenderDense, TallRowsPaintedOrDrawnLookTheSame) {
  // Rows ~14 px tall: gaps under rows, nested calls inset, outlined boxes.
  // Columns of calls narrower than a pixel, crossed by dozens of faint lines,
  // differ most: which call shows in a pixel they share, and the blend of the
  // lines over it.
  const double share = same_share("--view physical", "tall.weft");
  if (share < 0) GTEST_SKIP() << "no headless OpenGL here";
  EXPECT_GT(share, 0.9);
}

TEST_F(RenderDense, LogicalWindowPaintedOrDrawnLooksTheSame) {
  const double share = same_share("--view logical");
  if (share < 0) GTEST_SKIP() << "no headless OpenGL here";
  EXPECT_GT(share, 0.97);
}

// The paths above differ only if the window was painted: load_window paints
// a window of kRasterMinBoxes boxes or more when asked to, whatever its rows.
TEST_F(RenderDense, DenseWindowsArePaintedWhenAsked) {
  weft::db::WindowQuery query((dir_->path / "run.weft").string());
  const weft::app::TraceInfo info = weft::app::read_trace_info(query);
  auto load = [&](bool raster, double px_per_row, weft::ProcessIndex last_process) {
    weft::app::PhysicalRequest request{{0, info.meta.trace_end_ns, 0, last_process},
                                       700.0 / static_cast<double>(info.meta.trace_end_ns), px_per_row,
                                       weft::app::make_view_filter(info, "", {}, ""), raster};
    weft::app::LoadedWindow out;
    weft::app::load_window(query, nullptr, info, request, out);
    EXPECT_EQ(out.geometry.box_count() >= weft::app::kRasterMinBoxes, last_process == 255);
    return out.geometry.boxes_in_image;
  };
  EXPECT_TRUE(load(true, 0.9, 255));
  EXPECT_TRUE(load(true, 12.0, 255));
  EXPECT_FALSE(load(false, 0.9, 255));
  EXPECT_FALSE(load(true, 12.0, 15));  // 16 processes: too few boxes
}
