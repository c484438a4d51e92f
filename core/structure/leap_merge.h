#pragma once
// Leap merge (ravel-logical-lateness.txt §3.1, Algorithm 1). A leap is the set
// of partitions at the same longest-path distance from the sources of the
// partition DAG. In bulk-synchronous codes every phase should involve every
// process, so partitions on a leap are merged until the leap covers all
// processes that communicate at all:
//  - a partition much closer in time to the previous leap than to the next one
//    (incoming leap distance x 10 < outgoing) merges backward into its
//    previous-leap predecessors;
//  - otherwise it absorbs each child partition that adds processes to the leap.
// The leap is recomputed until it stabilizes. A leap that stays incomplete is
// accepted, or with `force` all its partitions absorb their successors and the
// leap is tried again.
#include <cstdint>

#include "structure/comm_trace.h"
#include "structure/partition_graph.h"

namespace weft::structure {

struct LeapMergeStats {
  std::int32_t backward_merges = 0;
  std::int32_t forward_absorbs = 0;
  std::int32_t forced_merges = 0;
  std::int32_t incomplete_leaps = 0;  // accepted without covering every process
  std::int32_t passes = 0;
};

// The factor by which the incoming leap distance must be smaller than the
// outgoing one before a partition merges backward ("an order of magnitude").
constexpr std::int64_t kBackwardMergeFactor = 10;

// `parts` must be a DAG (after merge_strongly_connected) and `graph` its
// graph. They come out merged and in topological order, numbered as
// order_partitions_topologically numbers them (the merge recomputes that order
// after each change), so ordering them again changes nothing. `runs`, when
// given, receives collect_runs(trace, parts) of the partitions it leaves,
// which the merge has computed anyway. `threads` as in partition_graph.h.
LeapMergeStats merge_by_leap(const CommTrace& trace, Partitioning& parts, PartitionGraph& graph, bool force,
                             int threads = 1, PartitionRuns* runs = nullptr);

// Longest-path distance from the sources for each partition of a DAG whose
// ids are in topological order.
std::vector<std::int32_t> compute_leaps(const PartitionGraph& graph, std::int32_t partitions);

}  // namespace weft::structure
