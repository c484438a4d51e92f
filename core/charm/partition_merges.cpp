// The merges of §3.1: cycle merge, Algorithm 1 (dependency_merge), Algorithm 2
// (repair_merge) and Algorithm 4 (merge_by_leap), with the partition graph,
// topological order and per-partition chares they need.
#include <algorithm>
#include <limits>

#include "charm/counting_sort.h"
#include "charm/task_partitions.h"
#include "structure/leap_merge.h"
#include "structure/union_find.h"

namespace weft::charm {
namespace {

// Relabels `parts` through a union of its partitions; a merged partition is a
// runtime partition when any of its members was one.
std::int32_t apply_merges(TaskPartitions& parts, const std::vector<std::int32_t>& label, std::int32_t count) {
  std::vector<std::uint8_t> runtime(static_cast<std::size_t>(count), 0);
  for (std::size_t p = 0; p < parts.runtime.size(); ++p)
    runtime[static_cast<std::size_t>(label[p])] |= parts.runtime[p];
  for (std::int32_t& p : parts.of_event) p = label[static_cast<std::size_t>(p)];
  const std::int32_t merged = parts.count - count;
  parts.count = count;
  parts.runtime = std::move(runtime);
  return merged;
}

std::int32_t apply_union(TaskPartitions& parts, structure::UnionFind& uf) {
  std::int32_t count = 0;
  std::vector<std::int32_t> label = std::move(uf).labels(&count);
  return apply_merges(parts, label, count);
}

}  // namespace

structure::PartitionGraph task_partition_graph(const TaskPartitions& parts, const TaskEdges& edges) {
  std::vector<std::int32_t> from(edges.from.size()), to(edges.to.size());
  for (std::size_t i = 0; i < from.size(); ++i) {
    from[i] = parts.of_event[static_cast<std::size_t>(edges.from[i])];
    to[i] = parts.of_event[static_cast<std::size_t>(edges.to[i])];
  }
  return structure::graph_from_edges(parts.count, from, to);
}

std::int32_t cycle_merge(TaskPartitions& parts, const TaskEdges& edges) {
  const structure::PartitionGraph g = task_partition_graph(parts, edges);
  std::int32_t count = 0;
  std::vector<std::int32_t> component = structure::strongly_connected_components(g, parts.count, &count);
  return apply_merges(parts, component, count);
}

// Algorithm 1.
std::int32_t dependency_merge(const TaskTrace& t, TaskPartitions& parts, const TaskEdges& edges) {
  structure::UnionFind uf(parts.count);
  for (EventIndex sink = 0; sink < t.event_count(); ++sink) {
    const EventIndex source = t.event_partner[static_cast<std::size_t>(sink)];
    if (!t.is_sink(sink) || source == kNone) continue;
    const std::int32_t p = parts.of_event[static_cast<std::size_t>(source)];
    const std::int32_t q = parts.of_event[static_cast<std::size_t>(sink)];
    // Application and runtime partitions only join in cycle merges (§3.1).
    if (p != q && parts.runtime[static_cast<std::size_t>(p)] == parts.runtime[static_cast<std::size_t>(q)])
      uf.unite(p, q);
  }
  std::int32_t merged = apply_union(parts, uf);
  return merged + cycle_merge(parts, edges);
}

// Algorithm 2. get_serial_happened-before(event) is read as the nearest
// earlier event of the same serial block whose partition has the event's
// partition type: the parts an application/runtime split separated.
std::int32_t repair_merge(const TaskTrace& t, TaskPartitions& parts, const TaskEdges& edges) {
  structure::UnionFind uf(parts.count);
  EventIndex last_of_type[2] = {kNone, kNone};
  for (EventIndex e = 0; e < t.event_count(); ++e) {
    const auto ue = static_cast<std::size_t>(e);
    if (e == 0 || parts.unit_of_block[static_cast<std::size_t>(t.event_block[ue])] !=
                      parts.unit_of_block[static_cast<std::size_t>(t.event_block[ue - 1])])
      last_of_type[0] = last_of_type[1] = kNone;
    const std::int32_t p = parts.of_event[ue];
    const int type = parts.runtime[static_cast<std::size_t>(p)];
    const EventIndex prev = last_of_type[type];
    if (prev != kNone) {
      const std::int32_t q = parts.of_event[static_cast<std::size_t>(prev)];
      if (q != p) uf.unite(p, q);
    }
    last_of_type[type] = e;
  }
  std::int32_t merged = apply_union(parts, uf);
  return merged + cycle_merge(parts, edges);
}

structure::PartitionGraph order_partitions(const TaskTrace& t, TaskPartitions& parts, const TaskEdges& edges) {
  std::vector<std::int64_t> first(static_cast<std::size_t>(parts.count), std::numeric_limits<std::int64_t>::max());
  for (std::size_t e = 0; e < parts.of_event.size(); ++e) {
    auto& f = first[static_cast<std::size_t>(parts.of_event[e])];
    f = std::min(f, t.event_time[e]);
  }
  const std::vector<std::int32_t> label = structure::topological_labels(task_partition_graph(parts, edges), first);
  std::vector<std::uint8_t> runtime(parts.runtime.size());
  for (std::size_t p = 0; p < label.size(); ++p) runtime[static_cast<std::size_t>(label[p])] = parts.runtime[p];
  for (std::int32_t& p : parts.of_event) p = label[static_cast<std::size_t>(p)];
  parts.runtime = std::move(runtime);
  return task_partition_graph(parts, edges);
}

namespace {

// The distinct keys (chares or PEs) of each partition's events, CSR, sorted.
template <class KeyOfEvent>
PartitionChares partition_keys(const TaskPartitions& parts, std::int32_t keys, KeyOfEvent key_of) {
  // Events grouped by partition (counting sort), then one marker per key
  // keeps each key once per partition.
  const auto n = static_cast<std::size_t>(parts.count);
  const std::vector<EventIndex> by_part =
      counting_sort(parts.of_event.size(), parts.count, [&](EventIndex e) { return parts.of_event[static_cast<std::size_t>(e)]; });
  PartitionChares pc;
  pc.first.assign(n + 1, 0);
  std::vector<std::int32_t> mark(static_cast<std::size_t>(keys), -1);
  std::size_t k = 0;
  for (std::size_t p = 0; p < n; ++p) {
    const auto begin = pc.chare.size();
    for (; k < by_part.size() && parts.of_event[static_cast<std::size_t>(by_part[k])] == static_cast<std::int32_t>(p); ++k) {
      const std::int32_t key = key_of(by_part[k]);
      if (mark[static_cast<std::size_t>(key)] == static_cast<std::int32_t>(p)) continue;
      mark[static_cast<std::size_t>(key)] = static_cast<std::int32_t>(p);
      pc.chare.push_back(key);
    }
    std::sort(pc.chare.begin() + static_cast<std::ptrdiff_t>(begin), pc.chare.end());
    pc.first[p + 1] = static_cast<std::int32_t>(pc.chare.size());
  }
  return pc;
}

}  // namespace

PartitionChares partition_chares(const TaskTrace& t, const TaskPartitions& parts) {
  return partition_keys(parts, t.chare_count(), [&](EventIndex e) { return t.chare_of_event(e); });
}

PartitionChares partition_pes(const TaskTrace& t, const TaskPartitions& parts) {
  return partition_keys(parts, t.pe_count, [&](EventIndex e) { return t.pe_of_event(e); });
}

LeapGroups group_by_leap(const std::vector<std::int32_t>& leap) {
  const std::int32_t leaps = leap.empty() ? 0 : *std::max_element(leap.begin(), leap.end()) + 1;
  LeapGroups g;
  g.first.assign(static_cast<std::size_t>(leaps) + 1, 0);
  g.members.resize(leap.size());
  for (std::int32_t k : leap) ++g.first[static_cast<std::size_t>(k) + 1];
  for (std::size_t k = 0; k < static_cast<std::size_t>(leaps); ++k) g.first[k + 1] += g.first[k];
  std::vector<std::int32_t> fill(g.first.begin(), g.first.end() - 1);
  for (std::size_t p = 0; p < leap.size(); ++p)
    g.members[static_cast<std::size_t>(fill[static_cast<std::size_t>(leap[p])]++)] = static_cast<std::int32_t>(p);
  return g;
}

// Algorithm 4. Merging partitions of one leap keeps every longest-path
// distance, so the leaps are computed once, as in the paper.
std::int32_t merge_by_leap(const TaskTrace& t, TaskPartitions& parts, const TaskEdges& edges) {
  const structure::PartitionGraph g = order_partitions(t, parts, edges);
  const std::vector<std::int32_t> leap = structure::compute_leaps(g, parts.count);
  const PartitionChares pc = partition_chares(t, parts);
  const LeapGroups by_leap = group_by_leap(leap);
  structure::UnionFind uf(parts.count);
  // owner[type][chare]: a partition of the current leap holding the chare,
  // valid when stamp[type][chare] is the leap.
  const auto chares = static_cast<std::size_t>(t.chare_count());
  std::vector<std::int32_t> owner[2] = {std::vector<std::int32_t>(chares), std::vector<std::int32_t>(chares)};
  std::vector<std::int32_t> stamp[2] = {std::vector<std::int32_t>(chares, -1), std::vector<std::int32_t>(chares, -1)};
  std::int32_t merges = 0;
  for (std::int32_t k = 0; k < by_leap.count(); ++k) {
    for (std::int32_t i = by_leap.first[static_cast<std::size_t>(k)]; i < by_leap.first[static_cast<std::size_t>(k) + 1]; ++i) {
      const std::int32_t p = by_leap.members[static_cast<std::size_t>(i)];
      const int type = parts.runtime[static_cast<std::size_t>(p)];
      for (std::int32_t j = pc.first[static_cast<std::size_t>(p)]; j < pc.first[static_cast<std::size_t>(p) + 1]; ++j) {
        const auto c = static_cast<std::size_t>(pc.chare[static_cast<std::size_t>(j)]);
        if (stamp[type][c] == k) {
          merges += uf.unite(owner[type][c], p) ? 1 : 0;
        } else {
          stamp[type][c] = k;
          owner[type][c] = p;
        }
      }
    }
  }
  apply_union(parts, uf);
  return merges;
}

}  // namespace weft::charm
