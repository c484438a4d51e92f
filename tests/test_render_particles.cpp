// `weft render --view particles` end to end, on both particle paths (CPU
// splat and instanced GPU points, forced through WEFT_PARTICLE_PATH). The
// known answers follow from particle-animation.txt §3.2 alone, through the
// fixed layout (render/particle_scale.h): a process's events are drawn inside
// its segment; an ended event's particle stops at y = ln(d) / ln(d_max) of the
// plot; the history at the end of the run covers exactly the segments of the
// processes that have communication events.
#include <gtest/gtest.h>

#include <cmath>

#include "import_test_support.h"
#include "particle_scale.h"
#include "png_test_support.h"
#include "weft_test_db.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;
using namespace weft;

namespace {

const std::string kWeft = WEFT_BINARY;
constexpr int kWidth = 900;
constexpr int kHeight = 500;

// Plot pixels with a clear hue (particles and history are region colors; the
// background, grid lines and text are grey).
bool colored(render::Rgba8 c) {
  const int r = c & 0xff, g = (c >> 8) & 0xff, b = (c >> 16) & 0xff;
  return std::max({r, g, b}) - std::min({r, g, b}) > 14;
}

struct Blob {
  long count = 0;
  double sum_x = 0;
  double sum_y = 0;
  double x() const { return sum_x / static_cast<double>(count); }
  double y() const { return sum_y / static_cast<double>(count); }
};

render::PixelRect plot_rect() {
  return render::particle_layout({0, 0, static_cast<float>(kWidth), static_cast<float>(kHeight)}).plot;
}

// Colored pixels of the plot in process `p`'s segment out of `count`.
Blob segment_blob(const weft::testing::Png& image, int p, int count) {
  const render::PixelRect plot = plot_rect();
  const double seg = plot.width / count;
  Blob blob;
  const int x0 = static_cast<int>(plot.x + std::ceil(p * seg));
  const int x1 = static_cast<int>(plot.x + std::ceil((p + 1) * seg)) - 1;
  for (int y = static_cast<int>(plot.y); y < static_cast<int>(plot.y + plot.height); ++y)
    for (int x = x0; x <= x1; ++x)
      if (colored(image.pixel(x, y))) ++blob.count, blob.sum_x += x, blob.sum_y += y;
  return blob;
}

class RenderParticles : public ::testing::TestWithParam<const char*> {
 protected:
  // Renders `run` to a PNG with `args`; "" (and skipped_) without EGL.
  std::string render(const fs::path& run, const std::string& name, const std::string& args) {
    std::string file = GetParam();
    file.append("_").append(name);
    fs::path png = dir_.path / file;
    auto r = run_command("WEFT_PARTICLE_PATH=" + std::string(GetParam()) + " " + kWeft + " render " +
                         quoted(run) + " --view particles --size " + std::to_string(kWidth) + "x" +
                         std::to_string(kHeight) + " --out " + quoted(png) + " " + args);
    if (r.exit_code != 0 && r.output.find("cannot create EGL context") != std::string::npos) {
      skipped_ = true;
      return "";
    }
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return png.string();
  }

  fs::path synth(const std::string& pattern_args) {
    fs::path trace = dir_.path / "trace";
    fs::path run = dir_.path / "run.weft";
    auto s = run_command(kWeft + " synth " + pattern_args + " -o " + quoted(trace));
    EXPECT_EQ(s.exit_code, 0) << s.output;
    auto i = run_command(kWeft + " import -q " + quoted(trace / "traces.otf2") + " -o " + quoted(run));
    EXPECT_EQ(i.exit_code, 0) << i.output;
    return run;
  }

  weft::test::TempDir dir_{"render-particles"};
  bool skipped_ = false;
};

}  // namespace

// pingpong on 4 ranks: only ranks 0 and 1 call MPI (ranks 2, 3 compute only).
TEST_P(RenderParticles, PingpongParticlesAndHistoryOnlyInTheTalkingSegments) {
  const fs::path run = synth("pingpong -n 4 -i 6");
  // Mid-run with a long fade: live particles of ranks 0 and 1.
  const std::string live = render(run, "live.png", "--at 50% --fade 1000");
  if (skipped_) GTEST_SKIP() << "no headless OpenGL";
  weft::testing::Png a(live);
  ASSERT_TRUE(a.ok());
  EXPECT_GT(segment_blob(a, 0, 4).count, 0);
  EXPECT_GT(segment_blob(a, 1, 4).count, 0);
  EXPECT_EQ(segment_blob(a, 2, 4).count, 0);
  EXPECT_EQ(segment_blob(a, 3, 4).count, 0);
  // The whole run with no fade: every particle has gone into the history.
  const std::string end = render(run, "end.png", "--at 100% --fade 0 --omin 0.5");
  weft::testing::Png b(end);
  ASSERT_TRUE(b.ok());
  EXPECT_GT(segment_blob(b, 0, 4).count, 0);
  EXPECT_GT(segment_blob(b, 1, 4).count, 0);
  EXPECT_EQ(segment_blob(b, 2, 4).count, 0);
  EXPECT_EQ(segment_blob(b, 3, 4).count, 0);
}

// --procs shows a range of processes, one segment each: ranks 2 and 3 of
// pingpong never call MPI, so their two segments stay empty (the talking
// ranks 0 and 1 would fill the left one if the range were ignored), and rank
// 1 alone fills the whole plot width.
TEST_P(RenderParticles, ProcessRangeShowsOnlyItsSegments) {
  const fs::path run = synth("pingpong -n 4 -i 30");
  const std::string quiet = render(run, "quiet.png", "--at 100% --fade 0 --omin 0.5 --procs 2:3");
  if (skipped_) GTEST_SKIP() << "no headless OpenGL";
  const std::string one = render(run, "one.png", "--at 100% --fade 0 --omin 0.5 --procs 1");
  weft::testing::Png a(quiet), b(one);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(segment_blob(a, 0, 2).count, 0);
  EXPECT_EQ(segment_blob(a, 1, 2).count, 0);
  // Rank 1's particles spread over the whole width: some in each half (all
  // four ranks would leave the right half, ranks 2 and 3, empty).
  EXPECT_GT(segment_blob(b, 0, 2).count, 0);
  EXPECT_GT(segment_blob(b, 1, 2).count, 0);
}

// stencil2d on 16 ranks: every rank exchanges halos, so every segment fills.
TEST_P(RenderParticles, Stencil2dFillsEverySegment) {
  const fs::path run = synth("stencil2d -n 16 -i 3");
  const std::string live = render(run, "live.png", "--at 60%");
  if (skipped_) GTEST_SKIP() << "no headless OpenGL";
  const std::string end = render(run, "end.png", "--at 100% --fade 0 --omin 0.5");
  weft::testing::Png a(live), b(end);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.width(), kWidth);
  EXPECT_EQ(a.height(), kHeight);
  for (int p = 0; p < 16; ++p) {
    EXPECT_GT(segment_blob(a, p, 16).count, 0) << "process " << p;
    EXPECT_GT(segment_blob(b, p, 16).count, 0) << "process " << p;
  }
}

// Three processes, one event each: d_max = 1 ms (process 0), a 1 ns event
// (process 1: ln 1 = 0, the baseline) and a 1 µs event (process 2: ln 10^3 /
// ln 10^6 = 1/2, half way up). Live (long fade) and in the history (no fade),
// each particle's center is within a pixel of its rule.
TEST_P(RenderParticles, ParticleStopsAtTheYOfLnDuration) {
  weft::testing::TestTrace trace;
  trace.processes = 3;
  trace.events = {{0, 0, 1'000'000, 5, 0}, {1, 1000, 1001, 2, 0}, {2, 2000, 3000, 4, 0}};
  const fs::path run = dir_.path / "three.weft";
  weft::testing::write_test_weft(run.string(), trace);
  const render::PixelRect plot = plot_rect();
  const double shares[3] = {1.0, 0.0, 0.5};
  for (const char* fade : {"1000", "0"}) {
    std::string name = "three_";
    name.append(fade).append(".png");
    std::string args = "--at 100% --fade ";
    args.append(fade);
    const std::string png = render(run, name, args);
    if (skipped_) GTEST_SKIP() << "no headless OpenGL";
    weft::testing::Png image(png);
    ASSERT_TRUE(image.ok());
    for (int p = 0; p < 3; ++p) {
      const Blob blob = segment_blob(image, p, 3);
      ASSERT_GT(blob.count, 0) << "process " << p << " fade " << fade;
      // The dot is cut by the plot's edge at the top and bottom: its visible
      // rows' center moves by at most half a row.
      const double expected = plot.y + (plot.height - 1) - shares[p] * (plot.height - 1);
      EXPECT_NEAR(blob.y(), expected, 1.0) << "process " << p << " fade " << fade;
      const double seg = plot.width / 3;
      EXPECT_GE(blob.x(), plot.x + p * seg);
      EXPECT_LT(blob.x(), plot.x + (p + 1) * seg);
    }
  }
}

// One process, one event type, a zero-length event: a picture, no crash.
TEST_P(RenderParticles, OneProcessOneZeroLengthEvent) {
  weft::testing::TestTrace trace;
  trace.processes = 1;
  trace.events = {{0, 500, 500, 2, 0}};
  const fs::path run = dir_.path / "one.weft";
  weft::testing::write_test_weft(run.string(), trace);
  const std::string png = render(run, "one.png", "--at 100% --fade 0");
  if (skipped_) GTEST_SKIP() << "no headless OpenGL";
  weft::testing::Png image(png);
  ASSERT_TRUE(image.ok());
  const Blob blob = segment_blob(image, 0, 1);
  ASSERT_GT(blob.count, 0);
  EXPECT_NEAR(blob.y(), plot_rect().y + plot_rect().height - 1, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Paths, RenderParticles, ::testing::Values("cpu", "gpu"));
