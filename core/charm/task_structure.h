#pragma once
// The whole task-based logical structure of charm-logical-structure.txt §3
// over one TaskTrace: initial partitions (§3.1.1), Algorithm 1 + cycle merge
// (§3.1.2), Algorithm 2 (§3.1.3), Algorithm 3, Algorithm 4, the
// application/runtime ordering and Algorithm 5 (§3.1.4), then the steps of
// §3.2 with or without reordering.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "charm/task_partitions.h"
#include "charm/task_steps.h"

namespace weft::charm {

struct TaskAnalysisOptions {
  bool reorder = true;             // §3.2.1; false: physical-time order per chare
  bool infer_dependencies = true;  // Algorithms 3 and 4 (Figure 17 shows the result without)
};

struct TaskAnalysisReport {
  std::int64_t blocks = 0, events = 0, messages = 0;
  std::int32_t initial_partitions = 0;
  std::int32_t dependency_merged = 0;  // Algorithm 1 + its cycle merge
  std::int32_t repair_merged = 0;      // Algorithm 2 + its cycle merge
  std::int32_t inferred_edges = 0;     // Algorithm 3
  std::int32_t leap_merges = 0;        // Algorithm 4
  std::int32_t ordering_edges = 0;     // application/runtime ordering
  std::int32_t chare_path_edges = 0;   // Algorithm 5
  std::int32_t phases = 0;
  std::int32_t runtime_phases = 0;
  std::int64_t global_steps = 0;
  std::int32_t forced_orderings = 0;
};

struct TaskStructure {
  TaskIndex index;
  TaskPartitions phases;  // final partitions, ids in topological order
  TaskEdges edges;
  structure::PartitionGraph graph;
  std::vector<std::int32_t> leap;  // per phase
  TaskSteps steps;
  TaskAnalysisReport report;
  std::int32_t global_step(EventIndex e) const { return steps.global_step(e, phases); }
};

TaskStructure analyze_task_structure(const TaskTrace& trace, const TaskAnalysisOptions& options);

std::vector<std::pair<std::string, std::int64_t>> report_facts(const TaskAnalysisReport& report);

// §6 / Figure 8: the rows of the logical view. Application chares on top by
// chare id, then the runtime chares grouped by the PE they run on (the PE of
// their first block), by id within a PE.
std::vector<ChareIndex> chare_row_order(const TaskTrace& trace);

}  // namespace weft::charm
