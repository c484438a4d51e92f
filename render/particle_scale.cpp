#include "particle_scale.h"

#include <algorithm>
#include <cmath>

namespace weft::render {

float particle_jitter(EventId id) {
  // splitmix64's finalizer: consecutive ids spread over the whole segment.
  auto z = static_cast<std::uint64_t>(id) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  // 24 bits: exactly representable in a float, strictly below 1.
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

double particle_x_share(ProcessIndex segment, EventId id, std::size_t process_count) {
  const double count = static_cast<double>(std::max<std::size_t>(process_count, 1));
  return (static_cast<double>(segment) + particle_jitter(id)) / count;
}

double log_age_share(double age_ns, double dmax_ns) {
  if (!(age_ns > 1.0)) return 0.0;
  const double ln_dmax = std::log(std::max(dmax_ns, 2.0));
  return std::min(1.0, std::log(age_ns) / ln_dmax);
}

float particle_fade_alpha(double since_end_ns, double fade_ns) {
  if (since_end_ns < 0) return 1.0f;
  if (!(fade_ns > 0) || since_end_ns >= fade_ns) return 0.0f;
  return static_cast<float>(1.0 - since_end_ns / fade_ns);
}

float history_tone_factor(float density, float max_density, float omin) {
  if (!(density >= 1.0f)) return 0.0f;
  if (!(max_density > 1.0f)) return 1.0f;
  const float ratio = std::log(density) / std::log(max_density);
  return omin + (1.0f - omin) * std::clamp(ratio, 0.0f, 1.0f);
}

std::vector<double> duration_grid_ns(double dmax_ns) {
  std::vector<double> lines;
  for (double d = 1.0; d <= dmax_ns * (1 + 1e-9); d *= 10.0) lines.push_back(d);
  return lines;
}

ParticleLayout particle_layout(const PixelRect& area) {
  ParticleLayout out;
  const float legend = std::min(kParticleLegendPx, std::floor(area.width * 0.3f));
  out.plot.x = area.x + kParticleLeftAxisPx;
  out.plot.y = area.y + kParticleTitlePx;
  out.plot.width = std::max(8.0f, std::floor(area.width - kParticleLeftAxisPx - legend - 12.0f));
  out.plot.height = std::max(8.0f, std::floor(area.height - kParticleTitlePx - kParticleBottomPx));
  out.segments = {out.plot.x, out.plot.y + out.plot.height + 2.0f, out.plot.width, kParticleSegmentStripPx};
  out.legend = {out.plot.x + out.plot.width + 14.0f, out.plot.y, legend - 14.0f, out.plot.height};
  return out;
}

}  // namespace weft::render
