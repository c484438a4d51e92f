#pragma once
// Local and global step assignment (ravel-logical-lateness.txt §3.2, Fig. 4).
//
// 1. assign_strides: sends and collectives are grouped into strides, their
//    graph distance from the start of their partition counting only send and
//    collective ops (receives pass their predecessors' stride through).
//    Collective members share the largest stride of any member.
// 2. assign_local_steps: all stride-s ops of a partition share one step, after
//    every step of stride s-1; each other op (receive, Irecv, wait) goes to the
//    earliest step after its process predecessor and its matching sends.
// 3. assign_global_steps: each partition is shifted behind all steps of its
//    predecessors in the partition DAG (longest path), giving one step axis.
//
// Step numbering: steps count "slots"; communication ops sit at odd steps
// 2r+1 (r = 0, 1, ...), and the aggregated non-communication work that
// precedes an op on its process sits at the even step 2r before it, so that
// work between two communication ops has a step of its own (Fig. 4f).
#include <cstdint>
#include <vector>

#include "structure/comm_trace.h"
#include "structure/partition_graph.h"

namespace weft::structure {

inline std::int32_t comm_step(std::int32_t raw) { return 2 * raw + 1; }

struct StrideResult {
  std::vector<std::int32_t> stride;  // per op: 1.. for sends/collectives, 0 for others
  std::int32_t forced_orderings = 0;  // happened-before cycles broken (bad input)
  std::int32_t split_collectives = 0;  // collective members stepped apart to break a cycle
};

// `runs` are collect_runs(trace, parts) of partitions that every message and
// collective stays inside (mandatory_partitions and later merges keep that).
// With `threads` > 1 two threads sweep the partitions, each about half of the
// ops (the same result).
StrideResult assign_strides(const CommTrace& trace, const PartitionRuns& runs, const ReceivedMessages& received,
                            const CollectiveOfOps& collective_of_op, int threads = 1);

struct LocalSteps {
  std::vector<std::int32_t> raw;              // per op: 0-based slot within its partition
  std::vector<std::int32_t> partition_width;  // per partition: max raw + 1
};

// `runs` are collect_runs(trace, parts). With `threads` > 1 two threads step
// the partitions, each about half of the ops (the same result).
LocalSteps assign_local_steps(const CommTrace& trace, const Partitioning& parts,
                              const PartitionRuns& runs, const ReceivedMessages& received,
                              const StrideResult& strides, int threads = 1);

// Per partition: the raw offset of its first slot on the global axis.
std::vector<std::int32_t> assign_global_steps(const PartitionGraph& graph,
                                              const std::vector<std::int32_t>& partition_width);

}  // namespace weft::structure
