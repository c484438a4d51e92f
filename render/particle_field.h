#pragma once
// The particles of the animated scatterplot and the history background they
// leave behind (particle-animation.txt §3.2.2), kept on the CPU as plain
// arrays. Both the CPU splatting and the instanced GPU drawing read them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "region_palette.h"

namespace weft::render {

// The accumulated background (§3.2.2, "history"): a density and a color sum
// per pixel of the plot, row 0 at the top. A particle whose fade has run out
// is deposited once at its stopping point; the background shows
// P = C × (O_min + (1 − O_min) · ln D / ln D_max) (history_tone_factor).
class ParticleHistory {
 public:
  // Empties it and sets its size; a plot of another size starts a new history.
  void resize(int width, int height);
  int width() const { return width_; }
  int height() const { return height_; }
  // Adds one particle of `color` centred at pixel (x, y), a dot of `dot` × `dot`
  // pixels clipped to columns [x_lo, x_hi] (its process segment) and the plot.
  void deposit(int x, int y, int dot, int x_lo, int x_hi, Rgba8 color);
  void clear();
  bool empty() const { return max_density_ <= 0; }
  float max_density() const { return max_density_; }
  float density(int x, int y) const { return density_[index(x, y)]; }
  // Changes since the last tone_map, so an unchanged background is not redone.
  bool dirty() const { return dirty_; }
  // The tone mapped background as straight-alpha RGBA8: the mean deposited
  // color, opacity history_tone_factor(D, D_max, omin).
  void tone_map(float omin, std::vector<Rgba8>& out);

 private:
  std::size_t index(int x, int y) const {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x);
  }
  int width_ = 0;
  int height_ = 0;
  std::vector<float> density_;
  std::vector<float> color_sum_;  // r, g, b per pixel, 0..255 each deposit
  float max_density_ = 0;
  bool dirty_ = true;
};

// How particles move: the log scale's top (d_max), the fade time in data ns
// (the fade's animation seconds × frames per second × data time step), and
// the processes shown: `process_count` segments from `first_process` on (a
// range of the run's processes, or all of them).
struct ParticleScale {
  double dmax_ns = 2;
  double fade_ns = 0;
  ProcessIndex first_process = 0;
  std::size_t process_count = 1;
  // The segment of `process` (0 for the first shown).
  ProcessIndex segment_of(ProcessIndex process) const { return process - first_process; }
  ProcessIndex last_process() const {
    return first_process + static_cast<ProcessIndex>(std::max<std::size_t>(process_count, 1) - 1);
  }
};

// The live particles: events that have started and whose fade has not run
// out, one entry per column.
struct ParticleField {
  std::vector<EventId> id;
  std::vector<ProcessIndex> process;
  std::vector<float> x_share;  // particle_x_share
  std::vector<TimeNs> start_ns;
  std::vector<TimeNs> end_ns;
  std::vector<std::int32_t> region;  // RegionTable position
  std::vector<Rgba8> color;
  // Cached pixel column and stopping row of each particle for a plot of
  // placed_width × placed_height (place()); valid for the first `placed` ones.
  std::vector<std::int32_t> px;
  std::vector<std::int32_t> stop_py;
  std::size_t placed = 0;
  int placed_width = 0;
  int placed_height = 0;
  double placed_dmax = 0;
  std::size_t size() const { return id.size(); }
  // Fills px and stop_py for a plot of `width` × `height` (all of them again
  // when the size or d_max changed, else only the particles added since).
  void place(int width, int height, const ParticleScale& scale);
  void clear();
  // Adds the event of `proc`, which must be one of the processes `scale` shows.
  void add(EventId event, ProcessIndex proc, TimeNs start, TimeNs end, std::int32_t region_pos, Rgba8 c,
           const ParticleScale& scale);
  // Drops the particles whose fade has run out by `now` (end + fade ≤ now),
  // depositing each into `history` (when given) at its stopping point.
  // Returns how many were retired.
  std::size_t retire(TimeNs now, const ParticleScale& scale, ParticleHistory* history);
  // How many have started and not yet ended at `now`.
  std::size_t running(TimeNs now) const;
};

// Pixel of a particle in a plot of `width` × `height` (row 0 at the top) at
// data time `now`: x from its x share, y from its age on the log scale (its
// duration once it has ended). The dot's columns stay inside its segment.
struct ParticlePixel {
  int x;
  int y;
  int x_lo;  // its process segment's columns
  int x_hi;
};
ParticlePixel particle_pixel(const ParticleField& field, std::size_t i, TimeNs now, const ParticleScale& scale,
                             int width, int height);

// Side of a particle's square dot in pixels.
constexpr int kParticleDotPx = 3;

}  // namespace weft::render
