#include "structure/partition_graph.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "common/error.h"
#include "common/two_parts.h"

namespace weft::structure {

PartitionRuns collect_runs(const CommTrace& t, const Partitioning& parts, int threads) {
  // Two passes over the ops (count the runs of each partition, then place
  // them), so the arrays are allocated once at their final size; each pass in
  // two parts of the ops, split at a process. A partition's runs from the
  // first part (the lower processes) go before those from the second.
  auto starts_run = [&](std::size_t i) {
    return i == 0 || t.process[i] != t.process[i - 1] || parts.of_op[i] != parts.of_op[i - 1];
  };
  const OpIndex split = split_ops_at_a_process(t, threads);
  const auto count = static_cast<std::size_t>(parts.count);
  std::vector<std::int32_t> runs_of_half[2] = {std::vector<std::int32_t>(count, 0), std::vector<std::int32_t>(count, 0)};
  run_in_two_parts(split, t.op_count(), [&](int half, OpIndex first, OpIndex end) {
    std::vector<std::int32_t>& runs = runs_of_half[half];
    for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(end); ++i)
      if (starts_run(i)) ++runs[static_cast<std::size_t>(parts.of_op[i])];
  });
  PartitionRuns r;
  r.first.assign(count + 1, 0);
  for (std::size_t p = 0; p < count; ++p) r.first[p + 1] = r.first[p] + runs_of_half[0][p] + runs_of_half[1][p];
  const auto runs = static_cast<std::size_t>(r.first.back());
  r.process.resize(runs);
  r.first_op.resize(runs);
  r.last_op.resize(runs);
  run_in_two_parts(split, t.op_count(), [&](int half, OpIndex first, OpIndex end) {
    std::vector<std::int32_t> fill(r.first.begin(), r.first.end() - 1);
    if (half == 1)
      for (std::size_t p = 0; p < count; ++p) fill[p] += runs_of_half[0][p];
    std::size_t at = 0;
    for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(end); ++i) {
      if (starts_run(i)) {  // so is the part's first op: the split is at a process
        at = static_cast<std::size_t>(fill[static_cast<std::size_t>(parts.of_op[i])]++);
        r.process[at] = t.process[i];
        r.first_op[at] = static_cast<OpIndex>(i);
      }
      r.last_op[at] = static_cast<OpIndex>(i);
    }
  });
  return r;
}

PartitionGraph build_partition_graph(const CommTrace& t, const Partitioning& parts, int threads) {
  // One edge per pair of consecutive ops of a process in different
  // partitions, found in two parts of the ops split at a process. Most
  // processes repeat the edges of the one before (every rank of a
  // bulk-synchronous code goes through the same partitions), so an edge
  // equal to the last one kept from its source is not kept again:
  // graph_from_edges removes duplicates anyway, and at 16,384 processes it
  // had ~640,000 edges to sort for 39 distinct ones.
  struct Edges {
    std::vector<std::int32_t> from, to;
  } edges[2];
  run_in_two_parts(split_ops_at_a_process(t, threads), t.op_count(), [&](int half, OpIndex first, OpIndex end) {
    Edges& e = edges[half];
    std::vector<std::int32_t> last_to(static_cast<std::size_t>(parts.count), -1);
    for (auto i = static_cast<std::size_t>(first); i + 1 < static_cast<std::size_t>(end); ++i) {
      const std::int32_t a = parts.of_op[i], b = parts.of_op[i + 1];
      if (t.process[i] != t.process[i + 1] || a == b || last_to[static_cast<std::size_t>(a)] == b) continue;
      last_to[static_cast<std::size_t>(a)] = b;
      e.from.push_back(a);
      e.to.push_back(b);
    }
  });
  edges[0].from.insert(edges[0].from.end(), edges[1].from.begin(), edges[1].from.end());
  edges[0].to.insert(edges[0].to.end(), edges[1].to.begin(), edges[1].to.end());
  return graph_from_edges(parts.count, edges[0].from, edges[0].to);
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
                                 bool order, int threads) {
  std::int32_t count = parts.count;
  std::vector<std::int32_t> label(static_cast<std::size_t>(count));
  for (std::size_t p = 0; p < label.size(); ++p) label[p] = static_cast<std::int32_t>(p);
  if (merge_cycles) {
    label = strongly_connected_components(graph, parts.count, &count);
    graph = relabeled_graph(graph, label, count);
  }
  if (order) {
    // The earliest start of each (relabeled) partition's ops: the tie-break.
    // Each part of the ops finds its own, the smaller kept (when partitions
    // are few beside the ops, so that the second part's copy costs little).
    std::vector<TimeNs> first_start[2];
    const bool two_parts = two_copies_are_cheap(count, t->op_count(), threads);
    run_in_two_parts(two_part_split(t->op_count(), two_parts ? 2 : 1), t->op_count(), [&](int half, OpIndex first, OpIndex end) {
      std::vector<TimeNs>& starts = first_start[half];
      starts.assign(static_cast<std::size_t>(count), std::numeric_limits<TimeNs>::max());
      for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(end); ++i) {
        auto& s = starts[static_cast<std::size_t>(label[static_cast<std::size_t>(parts.of_op[i])])];
        s = std::min(s, t->start[i]);
      }
    });
    for (std::size_t p = 0; p < first_start[1].size(); ++p) first_start[0][p] = std::min(first_start[0][p], first_start[1][p]);
    const std::vector<std::int32_t> position = topological_labels(graph, first_start[0]);
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
  return renumber_partitions(nullptr, parts, graph, true, false, 1);
}

void order_partitions_topologically(const CommTrace& t, Partitioning& parts, PartitionGraph& graph, int threads) {
  renumber_partitions(&t, parts, graph, false, true, threads);
}

std::int32_t merge_cycles_and_order(const CommTrace& t, Partitioning& parts, PartitionGraph& graph, int threads) {
  return renumber_partitions(&t, parts, graph, true, true, threads);
}

}  // namespace weft::structure
