#pragma once
// Phase finding for task-based traces (charm-logical-structure.txt §3.1):
// the partitions of the dependency events, the happened-before edges between
// them, and each merge of the paper as its own function. Every function that
// may create a cycle ends with cycle_merge, so each starts and ends with a DAG
// over partitions (§3.1).
//
// Edges are kept at event level (from_event -> to_event); the partition graph
// is their image under the current partitioning (structure::graph_from_edges),
// so merges never have to rewrite edge lists.
#include <cstdint>
#include <vector>

#include "charm/task_trace.h"
#include "structure/partition_graph.h"

namespace weft::charm {

struct TaskPartitions {
  std::int32_t count = 0;
  std::vector<std::int32_t> of_event;  // partition of each dependency event
  std::vector<std::uint8_t> runtime;   // per partition: 1 = runtime partition (§3.1)
  // Per block: the serial block it belongs to for partitioning, after an
  // execution directly followed on its PE by an SDAG serial of the same chare
  // is absorbed into that serial (§2.1); usually the block itself.
  std::vector<BlockIndex> unit_of_block;
  // Per event: 1 when its dependency involves a runtime chare at either end.
  std::vector<std::uint8_t> event_runtime;
};

struct TaskEdges {
  std::vector<EventIndex> from, to;
  void add(EventIndex a, EventIndex b) {
    from.push_back(a);
    to.push_back(b);
  }
};

// Derived indices the passes share.
struct TaskIndex {
  std::vector<EventIndex> block_first;      // CSR over blocks (index_block_events)
  std::vector<std::int32_t> sink_first;     // CSR over events: sinks whose partner is the event
  std::vector<EventIndex> sinks;
};
TaskIndex index_task_trace(const TaskTrace& trace);

// §3.1.1 Initial partitions: the dependency events of each serial block,
// split where consecutive events change between application and runtime
// dependencies (Figure 2). Edges: (1) remote invocations source -> sink,
// (2) happened-before between the split parts of a block, (3) SDAG serial n
// -> serial n + 1 on the same chare in physical-time order (§2.1).
TaskPartitions initial_partitions(const TaskTrace& trace, const TaskIndex& index, TaskEdges& edges);

// The partition graph: the image of `edges` under `parts`.
structure::PartitionGraph task_partition_graph(const TaskPartitions& parts, const TaskEdges& edges);

// Merges the partitions of each strongly connected component (§3.1, "cycle
// merge"); the only merge that may join application and runtime partitions
// (the result is a runtime partition). Returns how many partitions vanished.
std::int32_t cycle_merge(TaskPartitions& parts, const TaskEdges& edges);

// §3.1.2 Algorithm 1: the partitions of a message's source and sink merge
// (when both are application or both runtime), then cycle_merge.
std::int32_t dependency_merge(const TaskTrace& trace, TaskPartitions& parts, const TaskEdges& edges);

// §3.1.3 Algorithm 2: each event's partition merges with the partition of the
// nearest earlier event of its serial block that has the same runtime flag,
// restoring the merges the application/runtime split prevented (Figure 4),
// then cycle_merge.
std::int32_t repair_merge(const TaskTrace& trace, TaskPartitions& parts, const TaskEdges& edges);

// §3.1.4 Algorithm 3: per chare, each source gets an edge to the next source
// of that chare in physical time when that one is in another partition
// (Figure 5), then cycle_merge. Returns the edges added.
std::int32_t infer_dependencies(const TaskTrace& trace, TaskPartitions& parts, TaskEdges& edges);

// Renumbers the partitions in a topological order of their graph (ties by
// earliest event time) and returns the graph of the renumbered partitions.
structure::PartitionGraph order_partitions(const TaskTrace& trace, TaskPartitions& parts, const TaskEdges& edges);

// Chares of each partition, CSR, sorted and distinct.
struct PartitionChares {
  std::vector<std::int32_t> first;
  std::vector<ChareIndex> chare;
};
PartitionChares partition_chares(const TaskTrace& trace, const TaskPartitions& parts);
// The same for the PEs of each partition (chare holds PE ids).
PartitionChares partition_pes(const TaskTrace& trace, const TaskPartitions& parts);

// Partitions grouped by leap (CSR): members of leap k are
// members[first[k] .. first[k + 1]).
struct LeapGroups {
  std::vector<std::int32_t> first, members;
  std::int32_t count() const { return static_cast<std::int32_t>(first.size()) - 1; }
};
LeapGroups group_by_leap(const std::vector<std::int32_t>& leap);

// §3.1.4 Algorithm 4: partitions on the same leap that share a chare merge
// (application with application, runtime with runtime). Same-leap partitions
// have no path between them, so no cycle appears. Returns the merges.
std::int32_t merge_by_leap(const TaskTrace& trace, TaskPartitions& parts, const TaskEdges& edges);

// §3.1.4 "Enforcing DAG properties", first part: partitions still sharing a
// chare on one leap (an application and a runtime phase) are ordered by the
// physical time of their initial sources, leap by leap, so that property (1)
// holds: by their earliest sources on the chares both have sources on, else
// ("no chare overlap between initial source events") on the PEs both have
// sources on, else by their earliest sources anywhere. Returns the edges added.
std::int32_t order_overlapping_phases(const TaskTrace& trace, TaskPartitions& parts, TaskEdges& edges);

// §3.1.4 Algorithm 5: each phase gets an edge to the phase of the nearest
// later leap holding each of its chares that none of its successors holds
// (Figure 6), so property (2) holds. Returns the edges added.
std::int32_t enforce_chare_paths(const TaskTrace& trace, TaskPartitions& parts, TaskEdges& edges);

}  // namespace weft::charm
