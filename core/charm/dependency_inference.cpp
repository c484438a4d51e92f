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

// Leap by leap (a level-synchronous topological sweep), the partitions of a
// leap are taken in the physical-time order of their initial sources; one
// that shares a chare with a partition already taken on this leap gets an
// edge from it and moves to the next leap. The sweep sees the moved partition
// again there, so chains of overlaps are ordered one leap at a time.
std::int32_t order_overlapping_phases(const TaskTrace& t, TaskPartitions& parts, TaskEdges& edges) {
  const structure::PartitionGraph g = order_partitions(t, parts, edges);
  const PartitionChares pc = partition_chares(t, parts);
  const std::vector<EventIndex> rep = representative_events(parts);
  const auto n = static_cast<std::size_t>(parts.count);
  // Key: earliest source time, or earliest event time when it has no source.
  constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
  std::vector<TimeNs> first_source(n, kNever), first_event(n, kNever);
  for (std::size_t e = 0; e < parts.of_event.size(); ++e) {
    const auto p = static_cast<std::size_t>(parts.of_event[e]);
    first_event[p] = std::min(first_event[p], t.event_time[e]);
    if (t.event_kind[e] == DepKind::Source) first_source[p] = std::min(first_source[p], t.event_time[e]);
  }
  for (std::size_t p = 0; p < n; ++p)
    if (first_source[p] == kNever) first_source[p] = first_event[p];
  std::vector<std::int32_t> indegree(n);
  for (std::size_t p = 0; p < n; ++p) indegree[p] = g.pred_first[p + 1] - g.pred_first[p];
  std::vector<std::int32_t> frontier, next;
  for (std::size_t p = 0; p < n; ++p)
    if (indegree[p] == 0) frontier.push_back(static_cast<std::int32_t>(p));
  std::vector<std::int32_t> taken_by(static_cast<std::size_t>(t.chare_count()), kNone);
  std::vector<std::int32_t> taken_at(static_cast<std::size_t>(t.chare_count()), -1);
  std::int32_t added = 0;
  for (std::int32_t level = 0; !frontier.empty(); ++level) {
    std::sort(frontier.begin(), frontier.end(), [&](std::int32_t a, std::int32_t b) {
      const TimeNs ka = first_source[static_cast<std::size_t>(a)], kb = first_source[static_cast<std::size_t>(b)];
      return ka != kb ? ka < kb : a < b;
    });
    next.clear();
    for (std::int32_t p : frontier) {
      const auto up = static_cast<std::size_t>(p);
      std::int32_t blocker = kNone;
      for (std::int32_t j = pc.first[up]; j < pc.first[up + 1] && blocker == kNone; ++j) {
        const auto c = static_cast<std::size_t>(pc.chare[static_cast<std::size_t>(j)]);
        if (taken_at[c] == level) blocker = taken_by[c];
      }
      if (blocker != kNone) {
        edges.add(rep[static_cast<std::size_t>(blocker)], rep[up]);
        ++added;
        next.push_back(p);
        continue;
      }
      for (std::int32_t j = pc.first[up]; j < pc.first[up + 1]; ++j) {
        const auto c = static_cast<std::size_t>(pc.chare[static_cast<std::size_t>(j)]);
        taken_at[c] = level;
        taken_by[c] = p;
      }
      for (std::int32_t s : g.successors(p))
        if (--indegree[static_cast<std::size_t>(s)] == 0) next.push_back(s);
    }
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
