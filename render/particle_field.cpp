#include "particle_field.h"

#include <algorithm>
#include <cmath>

#include "particle_scale.h"

namespace weft::render {

void ParticleField::clear() {
  px.clear();
  stop_py.clear();
  placed = 0;
  mirrored = 0;
  ++version;
  id.clear();
  process.clear();
  x_share.clear();
  start_ns.clear();
  end_ns.clear();
  region.clear();
  color.clear();
}

void ParticleField::recolor(std::int32_t r, Rgba8 c) {
  for (std::size_t i = 0; i < size(); ++i)
    if (region[i] == r) color[i] = c;
  ++version;
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
  std::size_t kept_mirrored = 0;
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
    kept_mirrored += i < mirrored;
    ++kept;
  }
  placed = kept_placed;
  mirrored = kept_mirrored;
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
