#include "structure/partition_graph.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "common/error.h"

namespace weft::structure {

PartitionRuns collect_runs(const CommTrace& t, const Partitioning& parts) {
  // Two passes over the ops (count the runs of each partition, then place
  // them), so the arrays are allocated once at their final size.
  auto starts_run = [&](std::size_t i) {
    return i == 0 || t.process[i] != t.process[i - 1] || parts.of_op[i] != parts.of_op[i - 1];
  };
  const auto n = static_cast<std::size_t>(t.op_count());
  PartitionRuns r;
  r.first.assign(static_cast<std::size_t>(parts.count) + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (starts_run(i)) ++r.first[static_cast<std::size_t>(parts.of_op[i]) + 1];
  for (std::size_t p = 0; p + 1 < r.first.size(); ++p) r.first[p + 1] += r.first[p];
  const auto runs = static_cast<std::size_t>(r.first.back());
  r.process.resize(runs);
  r.first_op.resize(runs);
  r.last_op.resize(runs);
  std::vector<std::int32_t> fill(r.first.begin(), r.first.end() - 1);
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (starts_run(i)) {
      at = static_cast<std::size_t>(fill[static_cast<std::size_t>(parts.of_op[i])]++);
      r.process[at] = t.process[i];
      r.first_op[at] = static_cast<OpIndex>(i);
    }
    r.last_op[at] = static_cast<OpIndex>(i);
  }
  return r;
}

PartitionGraph build_partition_graph(const CommTrace& t, const Partitioning& parts) {
  // One edge per pair of consecutive ops of a process in different partitions.
  std::vector<std::int32_t> from, to;
  for (std::size_t i = 0; i + 1 < parts.of_op.size(); ++i)
    if (t.process[i] == t.process[i + 1] && parts.of_op[i] != parts.of_op[i + 1]) {
      from.push_back(parts.of_op[i]);
      to.push_back(parts.of_op[i + 1]);
    }
  return graph_from_edges(parts.count, from, to);
}

PartitionGraph graph_from_edges(std::int32_t count, std::span<const std::int32_t> from,
                                std::span<const std::int32_t> to) {
  // The edges are grouped by source with a counting sort, then each source's
  // list is deduplicated (a marker per destination) and sorted: linear in the
  // edges, where sorting all edges was not (the leap merges rebuild the graph
  // after every merge).
  const auto n = static_cast<std::size_t>(count);
  auto is_edge = [&](std::size_t i) { return from[i] != to[i]; };
  PartitionGraph g;
  g.succ_first.assign(n + 1, 0);
  for (std::size_t i = 0; i < from.size(); ++i)
    if (is_edge(i)) ++g.succ_first[static_cast<std::size_t>(from[i]) + 1];
  for (std::size_t p = 0; p < n; ++p) g.succ_first[p + 1] += g.succ_first[p];
  g.succ.resize(static_cast<std::size_t>(g.succ_first[n]));
  {
    std::vector<std::int32_t> fill(g.succ_first.begin(), g.succ_first.end() - 1);
    for (std::size_t i = 0; i < from.size(); ++i)
      if (is_edge(i)) g.succ[static_cast<std::size_t>(fill[static_cast<std::size_t>(from[i])]++)] = to[i];
  }
  std::vector<std::int32_t> seen_from(n, -1);
  std::int32_t kept = 0;
  for (std::size_t p = 0; p < n; ++p) {
    const std::int32_t begin = g.succ_first[p], end = g.succ_first[p + 1];
    g.succ_first[p] = kept;
    for (std::int32_t k = begin; k < end; ++k) {
      std::int32_t dest = g.succ[static_cast<std::size_t>(k)];
      if (seen_from[static_cast<std::size_t>(dest)] == static_cast<std::int32_t>(p)) continue;
      seen_from[static_cast<std::size_t>(dest)] = static_cast<std::int32_t>(p);
      g.succ[static_cast<std::size_t>(kept++)] = dest;
    }
    std::sort(g.succ.begin() + g.succ_first[p], g.succ.begin() + kept);
  }
  g.succ_first[n] = kept;
  g.succ.resize(static_cast<std::size_t>(kept));
  // Predecessors: filled in order of the sources, so each list comes out sorted.
  g.pred_first.assign(n + 1, 0);
  for (std::int32_t dest : g.succ) ++g.pred_first[static_cast<std::size_t>(dest) + 1];
  for (std::size_t p = 0; p < n; ++p) g.pred_first[p + 1] += g.pred_first[p];
  g.pred.resize(g.succ.size());
  std::vector<std::int32_t> fill(g.pred_first.begin(), g.pred_first.end() - 1);
  for (std::size_t p = 0; p < n; ++p)
    for (std::int32_t dest : g.successors(static_cast<std::int32_t>(p)))
      g.pred[static_cast<std::size_t>(fill[static_cast<std::size_t>(dest)]++)] = static_cast<std::int32_t>(p);
  return g;
}

void relabel_partitions(Partitioning& parts, const std::vector<std::int32_t>& label,
                        std::int32_t new_count) {
  for (std::int32_t& p : parts.of_op) p = label[static_cast<std::size_t>(p)];
  parts.count = new_count;
}

// Tarjan's algorithm, iterative so that a path of a million partitions does
// not overflow the stack.
std::vector<std::int32_t> strongly_connected_components(const PartitionGraph& g, std::int32_t n,
                                                        std::int32_t* count) {
  const auto un = static_cast<std::size_t>(n);
  std::vector<std::int32_t> index(un, -1), low(un, 0), component(un, -1), edge_pos(un, 0);
  std::vector<std::int32_t> stack, call;
  std::vector<char> on_stack(un, 0);
  std::int32_t next_index = 0, components = 0;
  for (std::int32_t root = 0; root < n; ++root) {
    if (index[static_cast<std::size_t>(root)] >= 0) continue;
    call.push_back(root);
    while (!call.empty()) {
      std::int32_t v = call.back();
      auto uv = static_cast<std::size_t>(v);
      if (index[uv] < 0) {
        index[uv] = low[uv] = next_index++;
        edge_pos[uv] = g.succ_first[uv];
        stack.push_back(v);
        on_stack[uv] = 1;
      }
      if (edge_pos[uv] < g.succ_first[uv + 1]) {
        std::int32_t w = g.succ[static_cast<std::size_t>(edge_pos[uv]++)];
        auto uw = static_cast<std::size_t>(w);
        if (index[uw] < 0)
          call.push_back(w);
        else if (on_stack[uw])
          low[uv] = std::min(low[uv], index[uw]);
        continue;
      }
      call.pop_back();
      if (!call.empty()) {
        auto up = static_cast<std::size_t>(call.back());
        low[up] = std::min(low[up], low[uv]);
      }
      if (low[uv] == index[uv]) {
        std::int32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[static_cast<std::size_t>(w)] = 0;
          component[static_cast<std::size_t>(w)] = components;
        } while (w != v);
        ++components;
      }
    }
  }
  *count = components;
  return component;
}

std::int32_t merge_strongly_connected(const CommTrace& t, Partitioning& parts) {
  PartitionGraph g = build_partition_graph(t, parts);
  return merge_strongly_connected(parts, g);
}

std::vector<std::int32_t> topological_labels(const PartitionGraph& g, std::span<const std::int64_t> key) {
  const auto n = key.size();
  std::vector<std::int32_t> indegree(n);
  for (std::size_t p = 0; p < n; ++p) indegree[p] = g.pred_first[p + 1] - g.pred_first[p];
  using Entry = std::pair<std::int64_t, std::int32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (std::size_t p = 0; p < n; ++p)
    if (indegree[p] == 0) ready.push({key[p], static_cast<std::int32_t>(p)});
  std::vector<std::int32_t> label(n, -1);
  std::int32_t next = 0;
  while (!ready.empty()) {
    std::int32_t p = ready.top().second;
    ready.pop();
    label[static_cast<std::size_t>(p)] = next++;
    for (std::int32_t s : g.successors(p))
      if (--indegree[static_cast<std::size_t>(s)] == 0) ready.push({key[static_cast<std::size_t>(s)], s});
  }
  if (static_cast<std::size_t>(next) != n) throw Error("partition graph: cycle left after the SCC merge");
  return label;
}

PartitionGraph relabeled_graph(const PartitionGraph& g, const std::vector<std::int32_t>& label,
                               std::int32_t new_count) {
  std::vector<std::int32_t> from, to;
  from.reserve(g.succ.size());
  to.reserve(g.succ.size());
  for (std::size_t p = 0; p + 1 < g.succ_first.size(); ++p)
    for (std::int32_t s : g.successors(static_cast<std::int32_t>(p))) {
      from.push_back(label[p]);
      to.push_back(label[static_cast<std::size_t>(s)]);
    }
  return graph_from_edges(new_count, from, to);
}

namespace {

// Merges the cycles of `graph` and/or numbers its nodes topologically, as one
// relabeling of the ops; returns how many partitions disappeared.
std::int32_t renumber_partitions(const CommTrace* t, Partitioning& parts, PartitionGraph& graph, bool merge_cycles,
                                 bool order) {
  std::int32_t count = parts.count;
  std::vector<std::int32_t> label(static_cast<std::size_t>(count));
  for (std::size_t p = 0; p < label.size(); ++p) label[p] = static_cast<std::int32_t>(p);
  if (merge_cycles) {
    label = strongly_connected_components(graph, parts.count, &count);
    graph = relabeled_graph(graph, label, count);
  }
  if (order) {
    // The earliest start of each (relabeled) partition's ops: the tie-break.
    std::vector<TimeNs> first_start(static_cast<std::size_t>(count), std::numeric_limits<TimeNs>::max());
    for (std::size_t i = 0; i < parts.of_op.size(); ++i) {
      auto& s = first_start[static_cast<std::size_t>(label[static_cast<std::size_t>(parts.of_op[i])])];
      s = std::min(s, t->start[i]);
    }
    const std::vector<std::int32_t> position = topological_labels(graph, first_start);
    graph = relabeled_graph(graph, position, count);
    for (std::int32_t& l : label) l = position[static_cast<std::size_t>(l)];
  }
  const std::int32_t merged = parts.count - count;
  bool identity = merged == 0;
  for (std::size_t p = 0; identity && p < label.size(); ++p) identity = label[p] == static_cast<std::int32_t>(p);
  if (!identity) relabel_partitions(parts, label, count);
  return merged;
}

}  // namespace

std::int32_t merge_strongly_connected(Partitioning& parts, PartitionGraph& graph) {
  return renumber_partitions(nullptr, parts, graph, true, false);
}

void order_partitions_topologically(const CommTrace& t, Partitioning& parts, PartitionGraph& graph) {
  renumber_partitions(&t, parts, graph, false, true);
}

std::int32_t merge_cycles_and_order(const CommTrace& t, Partitioning& parts, PartitionGraph& graph) {
  return renumber_partitions(&t, parts, graph, true, true);
}

}  // namespace weft::structure
