#pragma once
// Streams the events of the particle view out of the database (particle-
// animation.txt §3.1: a database so that events can be streamed into the
// animation): each step of the animation reads only the window of events that
// start since the last one, one range scan per bucket level (db/store/
// window_query.h), never the whole run.
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "particle_field.h"
#include "region_palette.h"
#include "store/window_query.h"

namespace weft::render {

// Which regions become particles: the MPI calls and other runtime calls (the
// paper animates MPI function calls), not user code. A trace with no such
// region at all animates every region instead of showing nothing.
std::vector<std::uint8_t> particle_region_mask(const db::RegionTable& regions);

class ParticleFeed {
 public:
  // `colors` by region position (region_colors). Reads through `query`, which
  // must outlive the feed and belong to the calling thread.
  ParticleFeed(db::WindowQuery& query, std::vector<Rgba8> colors);

  // The longest duration of a particle event in the run, d_max of the log
  // scale; one streaming pass over the run the first time it is asked.
  TimeNs longest_duration();
  // How many particle events the run has (counted by the same pass).
  std::int64_t particle_events();

  // Data time the field holds (-1: nothing yet, before the first event).
  TimeNs now() const { return now_; }

  // Starts over at `t` without playing up to it (a jump of the slider): the
  // field holds the particles alive at `t` (start ≤ t < end + fade) and the
  // history is left alone; events skipped by the jump are not added to it
  // (§3.2.2: history "only tracks the history of what is animated").
  void seek(TimeNs t, const ParticleScale& scale, ParticleField& field);
  // Plays forward from now() to `t`: adds every particle event starting in
  // (now(), t] and retires the faded ones into `history`. Exactly what frames
  // of any data time step up to `t` would have done, read in bounded chunks.
  void advance(TimeNs t, const ParticleScale& scale, ParticleField& field, ParticleHistory* history);
  // Colors particles of region position `region` added from now on.
  void set_color(std::int32_t region, Rgba8 color);
  // Empties the field and rewinds to before the first event.
  void rewind(ParticleField& field);

 private:
  void add_window(TimeNs after, TimeNs upto, TimeNs min_end, const ParticleScale& scale, ParticleField& field);
  // Reads the particle events of the processes `scale` shows starting in
  // (fetched_, upto] into pending_, by start.
  void fetch(TimeNs upto, const ParticleScale& scale);
  void scan_run();
  TimeNs chunk_ns() const;

  db::WindowQuery& query_;
  std::vector<Rgba8> colors_;
  std::vector<std::uint8_t> mask_;
  db::WindowEvents events_;  // reused for every window
  // Events read ahead of now_ (a chunk holds many frames), by start time;
  // pending_next_ is the first not yet handed to the field. They cover
  // starts in (now_, fetched_].
  db::WindowEvents pending_;
  std::vector<std::uint32_t> order_;  // scratch: pending_ sorted by start
  std::size_t pending_next_ = 0;
  TimeNs fetched_ = -1;
  TimeNs now_ = -1;
  TimeNs longest_ = -1;
  std::int64_t particle_events_ = 0;
};

}  // namespace weft::render
