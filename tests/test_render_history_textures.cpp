// The GPU history textures (render/history_textures.h) against the CPU
// history, the reference implementation of particle-animation.txt §3.2.2:
// the same deposits, tone mapped on the GPU and drawn over black, give the
// CPU's tone mapped colors within rounding; D_max is found at a far corner of
// a plot whose size is no multiple of the reduction's 4 × 4 blocks; "clear
// history" empties the textures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/error.h"
#include "framebuffer.h"
#include "gl_test_support.h"
#include "headless_context.h"
#include "history_textures.h"
#include "particle_history.h"

using namespace weft;
using namespace weft::render;
using weft::testing::make_context_or_null;

namespace {

constexpr int kFbWidth = 64, kFbHeight = 32;
constexpr int kWidth = 41, kHeight = 19;  // the plot: no multiple of 4 either way
constexpr float kPlotX = 9, kPlotY = 6;
constexpr int kDot = 3;

// Overlapping dots of three colors (densities up to 6, at the bottom-right
// corner), some clipped by their segment [x_lo, x_hi] and by the plot edges.
void deposit_pattern(ParticleHistory& h) {
  const Rgba8 red = rgba8(230, 40, 40), blue = rgba8(40, 60, 220), green = rgba8(40, 200, 60);
  h.deposit(5, 5, kDot, 0, 20, red);
  h.deposit(6, 5, kDot, 0, 20, blue);
  h.deposit(20, 10, kDot, 19, 20, green);  // clipped to its two-column segment
  h.deposit(0, 0, kDot, 0, 40, red);       // clipped by the top-left corner
  for (int k = 0; k < 6; ++k) h.deposit(40, 18, kDot, 30, 40, k % 2 ? red : green);
}

// Draws `textures` over black in a fresh framebuffer; RGBA top row first.
std::vector<std::uint8_t> draw_over_black(HistoryTextures& textures, Framebuffer& fb, float omin) {
  fb.bind();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  textures.draw({kPlotX, kPlotY, static_cast<float>(kWidth), static_cast<float>(kHeight)}, kFbWidth, kFbHeight,
                omin);
  std::vector<std::uint8_t> pixels;
  fb.read_rgba(pixels);
  return pixels;
}

int channel(const std::vector<std::uint8_t>& rgba, int x, int y, int c) {
  return rgba[(static_cast<std::size_t>(y) * kFbWidth + static_cast<std::size_t>(x)) * 4 + static_cast<std::size_t>(c)];
}

}  // namespace

TEST(RenderHistoryTextures, MatchTheCpuHistoryAndClear) {
  std::string why;
  auto context = make_context_or_null(why);
  if (!context) GTEST_SKIP() << "no headless OpenGL here: " << why;
  Framebuffer fb(kFbWidth, kFbHeight, 1);
  HistoryTextures textures;

  ParticleHistory cpu(ParticleHistory::Store::Cpu), gpu(ParticleHistory::Store::Gpu);
  cpu.resize(kWidth, kHeight);
  gpu.resize(kWidth, kHeight);
  deposit_pattern(cpu);
  deposit_pattern(gpu);
  ASSERT_EQ(cpu.max_density(), 6.0f);  // the corner dot, six times
  EXPECT_EQ(gpu.pending().size(), 10u);
  textures.update(gpu);
  EXPECT_TRUE(gpu.pending().empty());
  EXPECT_EQ(gpu.deposits(), 10);

  for (float omin : {0.3f, 0.0f, 1.0f}) {
    std::vector<Rgba8> toned;
    cpu.tone_map(omin, toned);
    const std::vector<std::uint8_t> pixels = draw_over_black(textures, fb, omin);
    int colored = 0;
    for (int y = 0; y < kFbHeight; ++y)
      for (int x = 0; x < kFbWidth; ++x) {
        const int hx = x - static_cast<int>(kPlotX), hy = y - static_cast<int>(kPlotY);
        const bool inside = hx >= 0 && hy >= 0 && hx < kWidth && hy < kHeight;
        const Rgba8 t = inside ? toned[static_cast<std::size_t>(hy) * kWidth + static_cast<std::size_t>(hx)] : 0;
        const double alpha = static_cast<double>(t >> 24) / 255.0;
        for (int c = 0; c < 3; ++c) {
          const double expected = static_cast<double>((t >> (8 * c)) & 0xff) * alpha;
          ASSERT_NEAR(channel(pixels, x, y, c), expected, 2.0) << "omin " << omin << " at " << x << "," << y;
        }
        colored += alpha > 0;
      }
    if (omin > 0) {
      EXPECT_GT(colored, 20);  // with O_min = 0 density-1 pixels vanish
    }
  }

  // The densest pixel is the corner's: with O_min = 0 it is fully opaque,
  // a pixel of density 1 gets ln 1 / ln 6 = 0, nothing.
  const std::vector<std::uint8_t> pixels = draw_over_black(textures, fb, 0.0f);
  const int cx = static_cast<int>(kPlotX) + 40, cy = static_cast<int>(kPlotY) + 18;
  EXPECT_GT(channel(pixels, cx, cy, 0) + channel(pixels, cx, cy, 1) + channel(pixels, cx, cy, 2), 200);

  // "clear history": nothing drawn any more.
  gpu.clear();
  textures.update(gpu);
  const std::vector<std::uint8_t> cleared = draw_over_black(textures, fb, 0.3f);
  for (std::size_t i = 0; i < cleared.size(); i += 4)
    ASSERT_EQ(cleared[i] + cleared[i + 1] + cleared[i + 2], 0) << "pixel " << i / 4;
  // And it fills again from empty: one red dot, alone, fully opaque (D_max = 1).
  gpu.deposit(10, 10, kDot, 0, 40, rgba8(230, 40, 40));
  textures.update(gpu);
  const std::vector<std::uint8_t> again = draw_over_black(textures, fb, 0.3f);
  EXPECT_NEAR(channel(again, static_cast<int>(kPlotX) + 10, static_cast<int>(kPlotY) + 10, 0), 230, 1);
  EXPECT_EQ(channel(again, static_cast<int>(kPlotX) + 5, static_cast<int>(kPlotY) + 5, 0), 0);
}
