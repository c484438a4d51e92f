#pragma once
// The whole logical-structure pipeline of ravel-logical-lateness.txt §3–4 over
// one CommTrace: Isend coalescing (§3.3), mandatory partitions and the SCC
// merge (§3.1), the leap merge (Algorithm 1), strides and local steps (§3.2),
// global steps, lateness metrics (§4) and phases.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/progress.h"
#include "structure/comm_trace.h"
#include "structure/input_ops.h"
#include "structure/lateness.h"
#include "structure/leap_merge.h"
#include "structure/partition_graph.h"
#include "structure/phases.h"
#include "structure/step_assignment.h"

namespace weft::structure {

struct AnalysisOptions {
  bool isend_coalescing = true;
  bool leap_merge = true;   // skipped for user partitions
  bool leap_force = false;  // --leap-force
  // --reorder: local steps by the message-passing reordering of
  // charm-logical-structure.txt §3.2.1 (message_passing_reorder.h) instead of
  // strides.
  bool reorder = false;
  // 2: the local steps of two halves of the partitions on two threads.
  int threads = 1;
  // Told of each pass as it starts, on the calling thread; none: nothing.
  Progress* progress = nullptr;
};

// What the analysis did, including every repair it made to bad input.
struct AnalysisReport {
  std::int64_t ops = 0;             // communication events analyzed
  std::int64_t analyzed_ops = 0;    // after Isend coalescing
  std::int64_t coalesced_isends = 0;
  std::int64_t messages = 0;
  std::int64_t collectives = 0;
  std::int32_t mandatory_partitions = 0;
  std::int32_t cycle_merged_partitions = 0;
  LeapMergeStats leaps;
  std::int32_t partitions = 0;
  std::int32_t phases = 0;
  std::int32_t phase_period = 0;
  std::int64_t global_steps = 0;    // slots on the global step axis (odd: ops, even: work)
  std::int32_t forced_orderings = 0;
  std::int32_t split_collectives = 0;
  std::int64_t messages_back_in_time = 0;  // receive completed before its send started (clock skew)
  std::int32_t silent_processes = 0;       // processes with no communication op
};

struct StructureResult {
  // The analyzed ops (Isends coalesced when asked), without msg_post_op and
  // msg_send_done_op: only mandatory partitions need them (released after).
  CommTrace trace;
  // The ops of the input trace, and the analyzed op each became.
  InputOps input;
  Partitioning parts;
  PartitionGraph graph;
  // Per analyzed op, its raw slot on the global axis (its partition's offset
  // plus its raw slot in the partition): the views read global steps far more
  // often than partition steps, so those take one load and these two.
  std::vector<std::int32_t> global_raw_step;
  std::vector<std::int32_t> partition_width;   // per partition, in raw slots
  std::vector<std::int32_t> partition_offset;  // per partition, raw slot of its start
  std::vector<std::int32_t> partition_processes;  // per partition, processes taking part
  Phases phases;
  ReceivedMessages received;
  LatenessMetrics metrics;
  AnalysisReport report;

  // Its step in its partition.
  std::int32_t step(OpIndex op) const {
    auto i = static_cast<std::size_t>(op);
    return comm_step(global_raw_step[i] - partition_offset[static_cast<std::size_t>(parts.of_op[i])]);
  }
  std::int32_t global_step(OpIndex op) const { return comm_step(global_raw_step[static_cast<std::size_t>(op)]); }
};

// Runs the pipeline. The result owns its data and is not copyable (the
// metrics point into it). The input is consumed: once the analyzed trace is
// made from it, only what `StructureResult::input` keeps of it stays in memory.
std::unique_ptr<StructureResult> analyze_structure(CommTrace input, const AnalysisOptions& options);

// One line per fact, for `weft analyze` and `weft info`.
std::vector<std::pair<std::string, std::int64_t>> report_facts(const AnalysisReport& report);

}  // namespace weft::structure
