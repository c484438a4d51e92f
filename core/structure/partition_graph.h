#pragma once
// Partitions of the communication operations and the graph between them
// (ravel-logical-lateness.txt §3.1). A partition's outgoing edges come from
// process order: op a directly followed by op b on one process with
// part(a) != part(b) gives part(a) -> part(b). Messages and collectives never
// cross partitions (their ops are merged first), so these are all the edges.
#include <cstdint>
#include <span>
#include <vector>

#include "structure/comm_trace.h"

namespace weft::structure {

struct Partitioning {
  std::int32_t count = 0;
  std::vector<std::int32_t> of_op;  // partition of each op, 0..count-1
};

// Adjacency in both directions as CSR arrays, edges deduplicated.
struct PartitionGraph {
  std::vector<std::int32_t> succ_first, succ;
  std::vector<std::int32_t> pred_first, pred;
  std::span<const std::int32_t> successors(std::int32_t p) const {
    return {succ.data() + succ_first[static_cast<std::size_t>(p)],
            succ.data() + succ_first[static_cast<std::size_t>(p) + 1]};
  }
  std::span<const std::int32_t> predecessors(std::int32_t p) const {
    return {pred.data() + pred_first[static_cast<std::size_t>(p)],
            pred.data() + pred_first[static_cast<std::size_t>(p) + 1]};
  }
};

// The passes below that take `threads` go over the ops in two parts at once
// when it is 2 or more; the results are the same.
PartitionGraph build_partition_graph(const CommTrace& trace, const Partitioning& parts, int threads = 1);

// The graph over `n` nodes of the edges from[i] -> to[i]; self-loops are
// dropped and duplicates kept once. Shared by the MPI partition graph and the
// task-based one (core/charm/), whose edges come from messages instead.
PartitionGraph graph_from_edges(std::int32_t n, std::span<const std::int32_t> from,
                                std::span<const std::int32_t> to);

// Strongly connected components (Tarjan, iterative): the component of each
// node, numbered 0..*count-1 (sinks first).
std::vector<std::int32_t> strongly_connected_components(const PartitionGraph& graph, std::int32_t n,
                                                        std::int32_t* count);

// A topological numbering of a DAG's nodes (node -> position), ties broken by
// the smallest key; throws weft::Error when the graph has a cycle.
std::vector<std::int32_t> topological_labels(const PartitionGraph& graph, std::span<const std::int64_t> key);

// The (partition, process) pairs of a partitioning. In a DAG a partition's ops
// on one process are contiguous (anything between them would form a cycle,
// merged away), so each pair is one run [first_op, last_op] of that process.
struct PartitionRuns {
  std::vector<std::int32_t> first;  // CSR by partition: runs of p are [first[p], first[p+1])
  std::vector<ProcessIndex> process;
  std::vector<OpIndex> first_op;
  std::vector<OpIndex> last_op;
};
PartitionRuns collect_runs(const CommTrace& trace, const Partitioning& parts, int threads = 1);

// Relabels partitions through `label` (old id -> new id, new ids dense in
// 0..new_count-1).
void relabel_partitions(Partitioning& parts, const std::vector<std::int32_t>& label,
                        std::int32_t new_count);

// The graph of the partitions relabeled through `label` (as relabel_partitions
// does), from `graph`'s edges: an edge whose ends get one label is dropped.
// The same graph build_partition_graph gives for the relabeled partitions, in
// time linear in the edges instead of the ops.
PartitionGraph relabeled_graph(const PartitionGraph& graph, const std::vector<std::int32_t>& label,
                               std::int32_t new_count);

// Merges every strongly connected component of the partition graph into one
// partition so the graph becomes a DAG (§3.1, Fig. 2c). Returns how many
// partitions disappeared.
std::int32_t merge_strongly_connected(const CommTrace& trace, Partitioning& parts);

// The passes that merge and renumber partitions carry the partition graph
// along: `graph` is the graph of `parts` before and after each of these, which
// relabel it (relabeled_graph) instead of building it again from the ops, and
// relabel the ops once, or not at all when the numbering does not change.
//
// merge_strongly_connected above, for `parts` with its graph.
std::int32_t merge_strongly_connected(Partitioning& parts, PartitionGraph& graph);
// Renumbers the partitions of a DAG in a topological order (ties broken by
// the earliest entry time of their ops, then by id), so that later passes
// can sweep ids in increasing order.
void order_partitions_topologically(const CommTrace& trace, Partitioning& parts, PartitionGraph& graph,
                                    int threads = 1);
// Both, one after the other. Returns how many partitions disappeared.
std::int32_t merge_cycles_and_order(const CommTrace& trace, Partitioning& parts, PartitionGraph& graph,
                                    int threads = 1);

}  // namespace weft::structure
