// §3.1.4 Enforcing orderability and inferring missing dependencies:
// Algorithm 3 (infer_dependencies), the application/runtime ordering by
// initial sources, and Algorithm 5 (enforce_chare_paths).
#include <algorithm>
#include <limits>

#include "charm/counting_sort.h"
#include "charm/task_partitions.h"
#include "structure/leap_merge.h"

namespace weft::charm {
namespace {

// One event of each partition, to stand for it in an added edge.
std::vector<EventIndex> representative_events(const TaskPartitions& parts) {
  std::vector<EventIndex> rep(static_cast<std::size_t>(parts.count), kNone);
  for (std::size_t e = parts.of_event.size(); e-- > 0;) rep[static_cast<std::size_t>(parts.of_event[e])] = static_cast<EventIndex>(e);
  return rep;
}

}  // namespace

// Algorithm 3: find_next_source(event) is the next source of the event's
// chare in physical time.
std::int32_t infer_dependencies(const TaskTrace& t, TaskPartitions& parts, TaskEdges& edges) {
  std::vector<EventIndex> sources;
  for (EventIndex e = 0; e < t.event_count(); ++e)
    if (t.is_source(e)) sources.push_back(e);
  // Grouped by chare (linear), then each chare's sources by time.
  sources = counting_sort_of(sources, t.chare_count(), [&](EventIndex e) { return t.chare_of_event(e); });
  auto by_time = [&](EventIndex a, EventIndex b) {
    const TimeNs ta = t.event_time[static_cast<std::size_t>(a)], tb = t.event_time[static_cast<std::size_t>(b)];
    return ta != tb ? ta < tb : a < b;
  };
  for (std::size_t i = 0; i < sources.size();) {
    std::size_t j = i + 1;
    while (j < sources.size() && t.chare_of_event(sources[j]) == t.chare_of_event(sources[i])) ++j;
    std::sort(sources.begin() + static_cast<std::ptrdiff_t>(i), sources.begin() + static_cast<std::ptrdiff_t>(j), by_time);
    i = j;
  }
  std::int32_t added = 0;
  for (std::size_t i = 0; i + 1 < sources.size(); ++i) {
    const EventIndex a = sources[i], b = sources[i + 1];
    if (t.chare_of_event(a) != t.chare_of_event(b)) continue;
    if (parts.of_event[static_cast<std::size_t>(a)] == parts.of_event[static_cast<std::size_t>(b)]) continue;
    edges.add(a, b);
    ++added;
  }
  cycle_merge(parts, edges);
  return added;
}

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

// A partition's keys (chares or PEs) with the time of its earliest source on
// each (kNever: no source there), aligned with the PartitionChares CSR.
struct KeyedSources {
  PartitionChares keys;
  std::vector<TimeNs> first_source;

  template <class KeyOfEvent>
  KeyedSources(const TaskTrace& t, const TaskPartitions& parts, PartitionChares k, KeyOfEvent key_of)
      : keys(std::move(k)), first_source(keys.chare.size(), kNever) {
    for (EventIndex e = 0; e < t.event_count(); ++e) {
      if (!t.is_source(e)) continue;
      const auto p = static_cast<std::size_t>(parts.of_event[static_cast<std::size_t>(e)]);
      const auto begin = keys.chare.begin() + keys.first[p], end = keys.chare.begin() + keys.first[p + 1];
      const auto at = static_cast<std::size_t>(std::lower_bound(begin, end, key_of(e)) - keys.chare.begin());
      first_source[at] = std::min(first_source[at], t.event_time[static_cast<std::size_t>(e)]);
    }
  }

  // The earliest sources of p and q over the keys where both have one;
  // false when there is no such key.
  bool shared_first_sources(std::int32_t p, std::int32_t q, TimeNs* tp, TimeNs* tq) const {
    std::int32_t i = keys.first[static_cast<std::size_t>(p)], j = keys.first[static_cast<std::size_t>(q)];
    const std::int32_t ie = keys.first[static_cast<std::size_t>(p) + 1], je = keys.first[static_cast<std::size_t>(q) + 1];
    *tp = *tq = kNever;
    bool found = false;
    while (i < ie && j < je) {
      const auto ui = static_cast<std::size_t>(i), uj = static_cast<std::size_t>(j);
      if (keys.chare[ui] < keys.chare[uj]) {
        ++i;
      } else if (keys.chare[uj] < keys.chare[ui]) {
        ++j;
      } else {
        if (first_source[ui] != kNever && first_source[uj] != kNever) {
          found = true;
          *tp = std::min(*tp, first_source[ui]);
          *tq = std::min(*tq, first_source[uj]);
        }
        ++i, ++j;
      }
    }
    return found;
  }
};

}  // namespace

// Leap by leap (a level-synchronous topological sweep), the partitions of a
// leap are taken in the physical-time order of their earliest sources. One
// that shares a chare with partitions already taken on this leap is compared
// with them by the paper's rule (shared chares, else shared PEs, else
// anywhere): it moves to the next leap behind the first that precedes it, or,
// when it precedes all of them, takes their place and they move behind it.
// The sweep meets moved partitions again on the next leap, so chains of
// overlaps are ordered one leap at a time.
std::int32_t order_overlapping_phases(const TaskTrace& t, TaskPartitions& parts, TaskEdges& edges) {
  const structure::PartitionGraph g = order_partitions(t, parts, edges);
  const KeyedSources by_chare(t, parts, partition_chares(t, parts), [&](EventIndex e) { return t.chare_of_event(e); });
  const KeyedSources by_pe(t, parts, partition_pes(t, parts), [&](EventIndex e) { return t.pe_of_event(e); });
  const PartitionChares& pc = by_chare.keys;
  const std::vector<EventIndex> rep = representative_events(parts);
  const auto n = static_cast<std::size_t>(parts.count);
  std::vector<TimeNs> first_source(n, kNever), first_event(n, kNever);
  for (std::size_t e = 0; e < parts.of_event.size(); ++e) {
    const auto p = static_cast<std::size_t>(parts.of_event[e]);
    first_event[p] = std::min(first_event[p], t.event_time[e]);
    if (t.event_kind[e] == DepKind::Source) first_source[p] = std::min(first_source[p], t.event_time[e]);
  }
  for (std::size_t p = 0; p < n; ++p)
    if (first_source[p] == kNever) first_source[p] = first_event[p];
  auto precedes = [&](std::int32_t p, std::int32_t q) {
    TimeNs tp, tq;
    if (!by_chare.shared_first_sources(p, q, &tp, &tq) && !by_pe.shared_first_sources(p, q, &tp, &tq)) {
      tp = first_source[static_cast<std::size_t>(p)];
      tq = first_source[static_cast<std::size_t>(q)];
    }
    return tp != tq ? tp < tq : p < q;
  };
  std::vector<std::int32_t> indegree(n);
  for (std::size_t p = 0; p < n; ++p) indegree[p] = g.pred_first[p + 1] - g.pred_first[p];
  std::vector<std::int32_t> frontier, next, blockers;
  for (std::size_t p = 0; p < n; ++p)
    if (indegree[p] == 0) frontier.push_back(static_cast<std::int32_t>(p));
  std::vector<std::int32_t> taken_by(static_cast<std::size_t>(t.chare_count()), kNone);
  std::vector<std::int32_t> taken_at(static_cast<std::size_t>(t.chare_count()), -1);
  std::vector<std::int32_t> accepted_at(n, -1);
  auto chares_of = [&](std::int32_t p) {
    return std::span<const ChareIndex>(pc.chare.data() + pc.first[static_cast<std::size_t>(p)],
                                       pc.chare.data() + pc.first[static_cast<std::size_t>(p) + 1]);
  };
  auto take = [&](std::int32_t p, std::int32_t level) {
    accepted_at[static_cast<std::size_t>(p)] = level;
    for (ChareIndex c : chares_of(p)) taken_at[static_cast<std::size_t>(c)] = level, taken_by[static_cast<std::size_t>(c)] = p;
  };
  auto defer = [&](std::int32_t before, std::int32_t p) {
    edges.add(rep[static_cast<std::size_t>(before)], rep[static_cast<std::size_t>(p)]);
    next.push_back(p);
  };
  std::int32_t added = 0;
  for (std::int32_t level = 0; !frontier.empty(); ++level) {
    std::sort(frontier.begin(), frontier.end(), [&](std::int32_t a, std::int32_t b) {
      const TimeNs ka = first_source[static_cast<std::size_t>(a)], kb = first_source[static_cast<std::size_t>(b)];
      return ka != kb ? ka < kb : a < b;
    });
    next.clear();
    for (std::int32_t p : frontier) {
      blockers.clear();
      for (ChareIndex c : chares_of(p))
        if (taken_at[static_cast<std::size_t>(c)] == level) blockers.push_back(taken_by[static_cast<std::size_t>(c)]);
      std::sort(blockers.begin(), blockers.end());
      blockers.erase(std::unique(blockers.begin(), blockers.end()), blockers.end());
      const auto first_before = std::find_if(blockers.begin(), blockers.end(), [&](std::int32_t q) { return precedes(q, p); });
      if (first_before != blockers.end()) {
        defer(*first_before, p);
        ++added;
        continue;
      }
      for (std::int32_t q : blockers) {  // p precedes every partition it overlaps: they yield
        accepted_at[static_cast<std::size_t>(q)] = -1;
        for (ChareIndex c : chares_of(q))
          if (taken_by[static_cast<std::size_t>(c)] == q) taken_at[static_cast<std::size_t>(c)] = -1;
        defer(p, q);
        ++added;
      }
      take(p, level);
    }
    for (std::int32_t p : frontier)
      if (accepted_at[static_cast<std::size_t>(p)] == level)
        for (std::int32_t s : g.successors(p))
          if (--indegree[static_cast<std::size_t>(s)] == 0) next.push_back(s);
    frontier.swap(next);
  }
  return added;
}

// Algorithm 5. Walking the leaps backwards, next_phase[c] is the phase of the
// nearest later leap that holds chare c (the paper's last_map and found
// leaps: with property (1) that leap has one phase holding c).
std::int32_t enforce_chare_paths(const TaskTrace& t, TaskPartitions& parts, TaskEdges& edges) {
  const structure::PartitionGraph g = order_partitions(t, parts, edges);
  const std::vector<std::int32_t> leap = structure::compute_leaps(g, parts.count);
  const PartitionChares pc = partition_chares(t, parts);
  const std::vector<EventIndex> rep = representative_events(parts);
  const auto n = static_cast<std::size_t>(parts.count);
  const LeapGroups by_leap = group_by_leap(leap);
  auto chares_of = [&](std::int32_t p) {
    return std::span<const ChareIndex>(pc.chare.data() + pc.first[static_cast<std::size_t>(p)],
                                       pc.chare.data() + pc.first[static_cast<std::size_t>(p) + 1]);
  };
  std::vector<std::int32_t> next_phase(static_cast<std::size_t>(t.chare_count()), kNone);
  std::vector<std::int32_t> child_mark(static_cast<std::size_t>(t.chare_count()), -1);
  std::vector<std::int32_t> linked(n, -1);  // linked[q] == p: edge p -> q already added
  std::int32_t added = 0;
  for (std::int32_t k = by_leap.count() - 1; k >= 0; --k) {
    const auto begin = by_leap.first[static_cast<std::size_t>(k)], end = by_leap.first[static_cast<std::size_t>(k) + 1];
    for (std::int32_t i = begin; i < end; ++i) {
      const std::int32_t p = by_leap.members[static_cast<std::size_t>(i)];
      for (std::int32_t s : g.successors(p))
        for (ChareIndex c : chares_of(s)) child_mark[static_cast<std::size_t>(c)] = p;
      for (std::int32_t s : g.successors(p)) linked[static_cast<std::size_t>(s)] = p;
      for (ChareIndex c : chares_of(p)) {
        const std::int32_t q = next_phase[static_cast<std::size_t>(c)];
        if (child_mark[static_cast<std::size_t>(c)] == p || q == kNone || linked[static_cast<std::size_t>(q)] == p) continue;
        linked[static_cast<std::size_t>(q)] = p;
        edges.add(rep[static_cast<std::size_t>(p)], rep[static_cast<std::size_t>(q)]);
        ++added;
      }
    }
    for (std::int32_t i = begin; i < end; ++i) {
      const std::int32_t p = by_leap.members[static_cast<std::size_t>(i)];
      for (ChareIndex c : chares_of(p)) next_phase[static_cast<std::size_t>(c)] = p;
    }
  }
  return added;
}

}  // namespace weft::charm
