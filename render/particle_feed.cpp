#include "particle_feed.h"

#include <algorithm>
#include <cmath>

namespace weft::render {

std::vector<std::uint8_t> particle_region_mask(const db::RegionTable& regions) {
  std::vector<std::uint8_t> mask(regions.size(), 0);
  bool any = false;
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (regions.kind[i] != RegionKind::Compute) mask[i] = 1, any = true;
  if (!any) std::fill(mask.begin(), mask.end(), std::uint8_t{1});
  return mask;
}

ParticleFeed::ParticleFeed(db::WindowQuery& query, std::vector<Rgba8> colors, std::int64_t chunk_events)
    : query_(query),
      chunk_events_(std::max<std::int64_t>(chunk_events, 1)),
      colors_(std::move(colors)),
      mask_(particle_region_mask(query.regions())) {}

ParticleFeed::~ParticleFeed() { drop_read_ahead(); }

void ParticleFeed::drop_read_ahead() {
  if (!reading_ahead_.valid()) return;
  try {
    reading_ahead_.get();
  } catch (...) {
    // Dropped unread; reading the same chunk again reports the error.
  }
  ahead_.forget();
}

void ParticleFeed::Chunk::forget() {
  events.clear();
  after = upto = kNone;
}

TimeNs ParticleFeed::chunk_ns() const {
  // About chunk_events_ events per read when events are spread evenly over the run.
  const auto& meta = query_.meta();
  const double events = static_cast<double>(std::max<std::int64_t>(meta.count_events, 1));
  const double span = static_cast<double>(std::max<TimeNs>(meta.trace_end_ns, 1));
  return std::max<TimeNs>(1, static_cast<TimeNs>(std::ceil(span * static_cast<double>(chunk_events_) / events)));
}

void ParticleFeed::scan_run() {
  drop_read_ahead();
  db::WindowEvents& window = events_;
  longest_ = 0;
  particle_events_ = 0;
  const TimeNs end = query_.meta().trace_end_ns;
  const TimeNs chunk = chunk_ns();
  const auto last = static_cast<ProcessIndex>(std::max<std::size_t>(query_.processes().size(), 1) - 1);
  for (TimeNs t0 = 0; t0 <= end; t0 += chunk) {
    const TimeNs t1 = std::min(end, t0 + chunk - 1);
    query_.read_events({t0, t1, 0, last}, window);
    for (std::size_t i = 0; i < window.size(); ++i) {
      // Counted in the chunk it starts in (windows overlap long events).
      const TimeNs start = std::max<TimeNs>(window.start_ns[i], 0);
      if (start < t0 || start > t1) continue;
      const auto r = window.region[i];
      if (r < 0 || !mask_[static_cast<std::size_t>(r)]) continue;
      ++particle_events_;
      longest_ = std::max(longest_, window.end_ns[i] - window.start_ns[i]);
    }
  }
}

TimeNs ParticleFeed::longest_duration() {
  if (longest_ < 0) scan_run();
  return longest_;
}

std::int64_t ParticleFeed::particle_events() {
  if (longest_ < 0) scan_run();
  return particle_events_;
}

void ParticleFeed::add_window(TimeNs after, TimeNs upto, TimeNs min_end, const ParticleScale& scale,
                              ParticleField& field) {
  if (upto <= after || query_.processes().size() == 0) return;
  drop_read_ahead();
  db::WindowEvents& window = events_;
  // Events of the shown processes overlapping [max(after + 1, min_end), upto];
  // only those starting in (after, upto] are new (the window also returns
  // earlier, longer ones).
  query_.read_events({std::max(after + 1, min_end), upto, scale.first_process, scale.last_process()}, window);
  for (std::size_t i = 0; i < window.size(); ++i) {
    const TimeNs start = window.start_ns[i];
    if (start > upto || (start <= after && min_end > after)) continue;
    const auto r = window.region[i];
    if (r < 0 || !mask_[static_cast<std::size_t>(r)]) continue;
    const auto pos = static_cast<std::size_t>(r);
    field.add(window.id[i], window.process[i], start, window.end_ns[i], r,
              pos < colors_.size() ? colors_[pos] : rgba8(255, 0, 255), scale);
  }
}

void ParticleFeed::set_color(std::int32_t region, Rgba8 color) {
  if (region >= 0 && static_cast<std::size_t>(region) < colors_.size()) colors_[static_cast<std::size_t>(region)] = color;
}

void ParticleFeed::rewind(ParticleField& field) {
  drop_read_ahead();
  field.clear();
  now_ = -1;
  fetched_ = -1;
  pending_.forget();
  pending_next_ = 0;
}

void ParticleFeed::seek(TimeNs t, const ParticleScale& scale, ParticleField& field) {
  field.clear();
  const auto fade = static_cast<TimeNs>(std::ceil(std::max(scale.fade_ns, 0.0)));
  // Everything overlapping [t - fade, t] that started by t: alive or fading at t.
  TimeNs lo = std::max<TimeNs>(0, t - fade);
  add_window(-1, t, lo, scale, field);
  field.retire(t, scale, nullptr);
  now_ = t;
  fetched_ = t;
  pending_.forget();
  pending_next_ = 0;
}

void ParticleFeed::read_chunk(Chunk& chunk) {
  chunk.events.clear();
  if (chunk.upto <= chunk.after || chunk.last < chunk.first) return;
  query_.read_events({chunk.after + 1, chunk.upto, chunk.first, chunk.last}, events_);
  const db::WindowEvents& w = events_;
  // Only the particle events that start in (after, upto], in start order.
  order_.clear();
  for (std::size_t i = 0; i < w.size(); ++i) {
    const TimeNs start = w.start_ns[i];
    const auto r = w.region[i];
    if (start <= chunk.after || start > chunk.upto || r < 0 || !mask_[static_cast<std::size_t>(r)]) continue;
    order_.push_back(static_cast<std::uint32_t>(i));
  }
  std::stable_sort(order_.begin(), order_.end(),
                   [&w](std::uint32_t a, std::uint32_t b) { return w.start_ns[a] < w.start_ns[b]; });
  for (std::uint32_t i : order_) {
    chunk.events.id.push_back(w.id[i]);
    chunk.events.process.push_back(w.process[i]);
    chunk.events.start_ns.push_back(w.start_ns[i]);
    chunk.events.end_ns.push_back(w.end_ns[i]);
    chunk.events.region.push_back(w.region[i]);
  }
}

void ParticleFeed::fetch(TimeNs upto, const ParticleScale& scale) {
  pending_next_ = 0;
  if (upto <= fetched_ || query_.processes().size() == 0) {
    pending_.forget();
    fetched_ = std::max(fetched_, upto);
    return;
  }
  const ProcessIndex first = scale.first_process, last = scale.last_process();
  if (reading_ahead_.valid()) {
    reading_ahead_.get();  // rethrows the helper's error
    if (ahead_.after == fetched_ && ahead_.upto == upto && ahead_.first == first && ahead_.last == last)
      std::swap(pending_, ahead_);
    else
      ahead_.forget();
  }
  if (pending_.after != fetched_ || pending_.upto != upto || pending_.first != first || pending_.last != last) {
    pending_.after = fetched_;
    pending_.upto = upto;
    pending_.first = first;
    pending_.last = last;
    read_chunk(pending_);
  }
  fetched_ = upto;
  // The next chunk, as advance() will ask for it, while this one is played.
  if (fetched_ < query_.meta().trace_end_ns) {
    ahead_.after = fetched_;
    ahead_.upto = fetched_ + chunk_ns();
    ahead_.first = first;
    ahead_.last = last;
    reading_ahead_ = std::async(std::launch::async, [this] { read_chunk(ahead_); });
  }
}

void ParticleFeed::advance(TimeNs t, const ParticleScale& scale, ParticleField& field, ParticleHistory* history) {
  if (t <= now_) return;
  const TimeNs chunk = chunk_ns();
  while (now_ < t) {
    // Read ahead a chunk at a time (many frames' worth), retiring at most a
    // chunk at once so that a long jump never holds the whole run.
    if (pending_next_ >= pending_.events.size() && fetched_ <= now_) fetch(now_ + chunk, scale);
    const TimeNs next = std::min({t, fetched_, now_ + chunk});
    const db::WindowEvents& p = pending_.events;
    while (pending_next_ < p.size() && p.start_ns[pending_next_] <= next) {
      const std::size_t i = pending_next_++;
      const auto pos = static_cast<std::size_t>(p.region[i]);
      field.add(p.id[i], p.process[i], p.start_ns[i], p.end_ns[i], p.region[i],
                pos < colors_.size() ? colors_[pos] : rgba8(255, 0, 255), scale);
    }
    field.retire(next, scale, history);
    now_ = next;
  }
}

}  // namespace weft::render
