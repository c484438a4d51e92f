#include "particle_field.h"

#include <algorithm>
#include <cmath>

#include "particle_scale.h"

namespace weft::render {

void ParticleHistory::resize(int width, int height) {
  width_ = std::max(width, 1);
  height_ = std::max(height, 1);
  const auto n = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  density_.assign(n, 0.0f);
  color_sum_.assign(3 * n, 0.0f);
  max_density_ = 0;
  dirty_ = true;
}

void ParticleHistory::clear() { resize(width_, height_); }

void ParticleHistory::deposit(int x, int y, int dot, int x_lo, int x_hi, Rgba8 color) {
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
  dirty_ = true;
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

void ParticleField::clear() {
  px.clear();
  stop_py.clear();
  placed = 0;
  id.clear();
  process.clear();
  x_share.clear();
  start_ns.clear();
  end_ns.clear();
  region.clear();
  color.clear();
}

void ParticleField::add(EventId event, ProcessIndex proc, TimeNs start, TimeNs end, std::int32_t region_pos,
                        Rgba8 c, const ParticleScale& scale) {
  id.push_back(event);
  process.push_back(proc);
  x_share.push_back(static_cast<float>(particle_x_share(scale.segment_of(proc), event, scale.process_count)));
  start_ns.push_back(start);
  end_ns.push_back(std::max(end, start));  // a negative duration stops at once
  region.push_back(region_pos);
  color.push_back(c);
  px.push_back(0);
  stop_py.push_back(0);
}

void ParticleField::place(int width, int height, const ParticleScale& scale) {
  if (width != placed_width || height != placed_height || scale.dmax_ns != placed_dmax) {
    placed = 0;
    placed_width = width;
    placed_height = height;
    placed_dmax = scale.dmax_ns;
  }
  for (std::size_t i = placed; i < size(); ++i) {
    const ParticlePixel p = particle_pixel(*this, i, end_ns[i], scale, width, height);
    px[i] = p.x;
    stop_py[i] = p.y;
  }
  placed = size();
}

ParticlePixel particle_pixel(const ParticleField& field, std::size_t i, TimeNs now, const ParticleScale& scale,
                             int width, int height) {
  const double age = static_cast<double>(std::min(now, field.end_ns[i]) - field.start_ns[i]);
  const PixelRect plot{0, 0, static_cast<float>(width), static_cast<float>(height)};
  ParticlePixel p;
  const double segment = static_cast<double>(width) / static_cast<double>(std::max<std::size_t>(scale.process_count, 1));
  const double seg_lo = static_cast<double>(scale.segment_of(field.process[i])) * segment;
  p.x_lo = static_cast<int>(std::ceil(seg_lo - 1e-9));
  p.x_hi = std::max(p.x_lo, static_cast<int>(std::ceil(seg_lo + segment - 1e-9)) - 1);
  p.x = static_cast<int>(std::floor(particle_px_x(plot, field.x_share[i])));
  // Keep the whole dot inside the segment when the segment can hold it.
  const int half = kParticleDotPx / 2;
  if (p.x_hi - p.x_lo + 1 >= kParticleDotPx) p.x = std::clamp(p.x, p.x_lo + half, p.x_hi - half);
  p.y = static_cast<int>(std::lround(particle_px_y(plot, log_age_share(age, scale.dmax_ns))));
  return p;
}

std::size_t ParticleField::retire(TimeNs now, const ParticleScale& scale, ParticleHistory* history) {
  std::size_t kept = 0;
  std::size_t kept_placed = 0;
  const std::size_t n = size();
  for (std::size_t i = 0; i < n; ++i) {
    const bool gone = static_cast<double>(now - end_ns[i]) >= scale.fade_ns && now >= end_ns[i];
    if (gone) {
      if (history) {
        const ParticlePixel p = particle_pixel(*this, i, now, scale, history->width(), history->height());
        history->deposit(p.x, p.y, kParticleDotPx, p.x_lo, p.x_hi, color[i]);
      }
      continue;
    }
    if (kept != i) {
      id[kept] = id[i];
      process[kept] = process[i];
      x_share[kept] = x_share[i];
      start_ns[kept] = start_ns[i];
      end_ns[kept] = end_ns[i];
      region[kept] = region[i];
      color[kept] = color[i];
      px[kept] = px[i];
      stop_py[kept] = stop_py[i];
    }
    kept_placed += i < placed;
    ++kept;
  }
  placed = kept_placed;
  px.resize(kept);
  stop_py.resize(kept);
  id.resize(kept);
  process.resize(kept);
  x_share.resize(kept);
  start_ns.resize(kept);
  end_ns.resize(kept);
  region.resize(kept);
  color.resize(kept);
  return n - kept;
}

std::size_t ParticleField::running(TimeNs now) const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < size(); ++i) n += start_ns[i] <= now && now < end_ns[i];
  return n;
}

}  // namespace weft::render
