#pragma once
// Streams the events of the particle view out of the database (particle-
// animation.txt §3.1: a database so that events can be streamed into the
// animation): each step of the animation reads only the window of events that
// start since the last one, one range scan per bucket level (db/store/
// window_query.h), never the whole run.
#include <cstdint>
#include <future>
#include <limits>
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
  // must outlive the feed; nothing else may use it while the feed lives (the
  // feed reads the next chunk on a helper thread while frames are played).
  // `chunk_events`: about how many events one read ahead holds (tests make
  // it small to play across many chunks).
  ParticleFeed(db::WindowQuery& query, std::vector<Rgba8> colors, std::int64_t chunk_events = kChunkEvents);
  ~ParticleFeed();
  static constexpr std::int64_t kChunkEvents = std::int64_t{1} << 18;
  ParticleFeed(const ParticleFeed&) = delete;
  ParticleFeed& operator=(const ParticleFeed&) = delete;

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
  // The particle events of processes [first, last] starting in (after,
  // upto], by start time.
  struct Chunk {
    static constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();
    TimeNs after = kNone;
    TimeNs upto = kNone;
    ProcessIndex first = 0;
    ProcessIndex last = -1;
    db::WindowEvents events;
    // Empty, and matching no range asked for.
    void forget();
  };

  void add_window(TimeNs after, TimeNs upto, TimeNs min_end, const ParticleScale& scale, ParticleField& field);
  // Makes pending_ the chunk of the processes `scale` shows starting in
  // (fetched_, upto]: the one read ahead when it is that one, else read now.
  // Then starts reading the chunk after it on the helper thread.
  void fetch(TimeNs upto, const ParticleScale& scale);
  // Fills `chunk.events` for its range, through events_ and order_: on
  // either thread, one read at a time (the query's and the scratch's rule).
  void read_chunk(Chunk& chunk);
  // Waits for the chunk being read ahead, if any, and forgets it: before the
  // query is used here, and when the play jumps.
  void drop_read_ahead();
  void scan_run();
  TimeNs chunk_ns() const;

  db::WindowQuery& query_;
  std::int64_t chunk_events_;
  std::vector<Rgba8> colors_;
  std::vector<std::uint8_t> mask_;
  // Scratch of every read: the window, and its particle events by start.
  db::WindowEvents events_;
  std::vector<std::uint32_t> order_;
  // Events read ahead of now_ (a chunk holds many frames), by start time;
  // pending_next_ is the first not yet handed to the field. They cover
  // starts in (now_, fetched_].
  Chunk pending_;
  std::size_t pending_next_ = 0;
  TimeNs fetched_ = -1;
  TimeNs now_ = -1;
  TimeNs longest_ = -1;
  std::int64_t particle_events_ = 0;
  // The chunk after pending_, read meanwhile on a helper thread: a chunk
  // (2^18 events) took 40-130 ms to read, one frame in eight at 1% of a
  // 3.2M-event run per frame, which stalled that frame.
  Chunk ahead_;
  std::future<void> reading_ahead_;  // last: waited for before the chunks go
};

}  // namespace weft::render
