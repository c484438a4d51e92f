#pragma once
// The particles of the animated scatterplot (particle-animation.txt §3.2.2),
// kept on the CPU as plain arrays: both the CPU splatting and the instanced
// GPU drawing read them. Retired particles go into a ParticleHistory.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/huge_page_allocator.h"
#include "common/types.h"
#include "particle_history.h"
#include "region_palette.h"

namespace weft::render {

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
// out, one entry per column. The arrays are BigVectors (2 MiB pages): when
// the live particles outgrow them in a burst (every rank's halo exchange
// starting within one frame), the new arrays are faulted in 2 MiB at a time.
// Page by page, the frame of that growth took 75-131 ms at 1.3M particles on
// two shared cores, 33-71 ms so. (Growing them by mremap instead, so that
// nothing is copied, gained no more: the faults were the cost.)
struct ParticleField {
  BigVector<EventId> id;
  BigVector<ProcessIndex> process;
  BigVector<float> x_share;  // particle_x_share
  BigVector<TimeNs> start_ns;
  BigVector<TimeNs> end_ns;
  BigVector<std::int32_t> region;  // RegionTable position
  BigVector<Rgba8> color;
  // Cached pixel column and stopping row of each particle for a plot of
  // placed_width × placed_height (place()); valid for the first `placed` ones.
  BigVector<std::int32_t> px;
  BigVector<std::int32_t> stop_py;
  std::size_t placed = 0;
  int placed_width = 0;
  int placed_height = 0;
  double placed_dmax = 0;
  // The first `mirrored` particles are in the GPU's instance buffer
  // (ParticleInstances), which then appends only the rest. retire() keeps
  // both counts to the particles it keeps, which stay in order.
  std::size_t mirrored = 0;
  // Changes when particles change other than by add() and retire() (clear,
  // recolor): the instance buffer is then rebuilt.
  std::uint64_t version = 0;
  std::size_t size() const { return id.size(); }
  // Fills px and stop_py for a plot of `width` × `height` (all of them again
  // when the size or d_max changed, else only the particles added since).
  void place(int width, int height, const ParticleScale& scale);
  void clear();
  // Gives the particles of `region` the color `c`.
  void recolor(std::int32_t region, Rgba8 c);
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
