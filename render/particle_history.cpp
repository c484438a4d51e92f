#include "particle_history.h"

#include <algorithm>

#include "particle_scale.h"

namespace weft::render {

void ParticleHistory::resize(int width, int height) {
  width_ = std::max(width, 1);
  height_ = std::max(height, 1);
  if (store_ == Store::Cpu) {
    const auto n = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
    density_.assign(n, 0.0f);
    color_sum_.assign(3 * n, 0.0f);
  }
  pending_.clear();
  max_density_ = 0;
  deposits_ = 0;
  ++generation_;
  dirty_ = true;
}

void ParticleHistory::clear() { resize(width_, height_); }

void ParticleHistory::deposit(int x, int y, int dot, int x_lo, int x_hi, Rgba8 color) {
  ++deposits_;
  dirty_ = true;
  if (store_ == Store::Gpu) {
    dot_ = dot;
    pending_.push_back({x, y, x_lo, x_hi, color});
    return;
  }
  const int half = dot / 2;
  const int x0 = std::max({x - half, x_lo, 0});
  const int x1 = std::min({x - half + dot - 1, x_hi, width_ - 1});
  const int y0 = std::max(y - half, 0);
  const int y1 = std::min(y - half + dot - 1, height_ - 1);
  const auto r = static_cast<float>(color & 0xff);
  const auto g = static_cast<float>((color >> 8) & 0xff);
  const auto b = static_cast<float>((color >> 16) & 0xff);
  for (int py = y0; py <= y1; ++py)
    for (int px = x0; px <= x1; ++px) {
      const std::size_t i = index(px, py);
      const float d = density_[i] += 1.0f;
      max_density_ = std::max(max_density_, d);
      color_sum_[3 * i] += r;
      color_sum_[3 * i + 1] += g;
      color_sum_[3 * i + 2] += b;
    }
}

void ParticleHistory::tone_map(float omin, std::vector<Rgba8>& out) {
  out.resize(density_.size());
  // ln D takes few values (densities are whole counts): a table of factors
  // keeps the per-pixel cost to a lookup for the usual small densities.
  constexpr int kTable = 256;
  float factor_of[kTable];
  for (int d = 0; d < kTable; ++d) factor_of[d] = history_tone_factor(static_cast<float>(d), max_density_, omin);
  for (std::size_t i = 0; i < density_.size(); ++i) {
    const float d = density_[i];
    if (d <= 0) {
      out[i] = 0;
      continue;
    }
    const float f = d < kTable ? factor_of[static_cast<int>(d)] : history_tone_factor(d, max_density_, omin);
    const float inv = 1.0f / d;
    out[i] = rgba8(static_cast<std::uint8_t>(color_sum_[3 * i] * inv + 0.5f),
                   static_cast<std::uint8_t>(color_sum_[3 * i + 1] * inv + 0.5f),
                   static_cast<std::uint8_t>(color_sum_[3 * i + 2] * inv + 0.5f),
                   static_cast<std::uint8_t>(f * 255.0f + 0.5f));
  }
  dirty_ = false;
}

}  // namespace weft::render
