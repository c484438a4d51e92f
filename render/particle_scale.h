#pragma once
// The pure rules of the particle scatterplot (particle-animation.txt, §3.2.1
// "animation window", §3.2.2 "animation", history tone mapping): where a
// particle is, how opaque it is, and how the history background is tone
// mapped. No OpenGL here, so every rule is unit-tested on its own.
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "view_transform.h"

namespace weft::render {

// Stable random position in [0, 1) of an event inside its process's segment
// (§3.2.1: "particles are generated with randomized x-positions within the
// space allotted to their process ID"): a hash of the event id, so the same
// event lands at the same x in every frame, run and recording.
float particle_jitter(EventId id);

// x of an event as a share [0, 1) of the plot width: one equal segment per
// process shown, in process order, the event at its jitter inside segment
// `segment` (its process's place among the `process_count` shown).
double particle_x_share(ProcessIndex segment, EventId id, std::size_t process_count);

// The log duration scale (§3.2.1): y_p = y_max · ln(age) / ln(d_max), as a
// share [0, 1] of the plot height, ages in ns. Ages below 1 ns (zero or
// negative durations) sit on the baseline; d_max below 2 ns is taken as 2 ns
// so that ln(d_max) is never 0.
double log_age_share(double age_ns, double dmax_ns);

// Opacity of a particle `since_end_ns` after its event ended, fading linearly
// to 0 over `fade_ns` (§3.2.2: particles "fade for a constant time"). 1 while
// the event runs (since_end_ns < 0).
float particle_fade_alpha(double since_end_ns, double fade_ns);

// History tone mapping (§3.2.2): P = C × (O_min + (1 − O_min) · ln D / ln D_max).
// Returns the factor that multiplies the color C of a pixel of density D when
// the densest pixel has D_max: 0 for an empty pixel (D < 1, nothing deposited),
// 1 when D_max ≤ 1 (every deposited pixel is as dense as the densest, and
// ln 1 / ln 1 would be 0/0).
float history_tone_factor(float density, float max_density, float omin);

// Durations of the horizontal grid lines: every power of ten from 1 ns up to
// d_max (1 µs, 10 µs, ... 1 s), as §3.2.1's lines on the log scale.
std::vector<double> duration_grid_ns(double dmax_ns);

// Where the parts of the particle view go inside a `width` × `height` area,
// fixed sizes so that tests can compute pixel positions from the rules alone.
struct ParticleLayout {
  PixelRect plot;       // the scatterplot: baseline at its bottom edge, d_max at its top
  PixelRect segments;   // the strip of alternating process segments under the plot
  PixelRect legend;     // the color map legend, right of the plot
};
constexpr float kParticleLeftAxisPx = 72.0f;
constexpr float kParticleTitlePx = 30.0f;
constexpr float kParticleBottomPx = 52.0f;  // segment strip, its labels, the axis title
constexpr float kParticleLegendPx = 190.0f;
constexpr float kParticleSegmentStripPx = 10.0f;
ParticleLayout particle_layout(const PixelRect& area);

// Pixel position of a particle in `plot`: x from its x share, y from its log
// age share (baseline at the bottom row of pixels, d_max at the top one).
inline float particle_px_x(const PixelRect& plot, double x_share) {
  return plot.x + static_cast<float>(x_share) * plot.width;
}
inline float particle_px_y(const PixelRect& plot, double y_share) {
  return plot.y + plot.height - 1.0f - static_cast<float>(y_share) * (plot.height - 1.0f);
}

}  // namespace weft::render
