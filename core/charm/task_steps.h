#pragma once
// Step assignment for task-based traces (charm-logical-structure.txt §3.2).
//
// Within each phase the events of a chare are put in one order, block part by
// block part (a *block part* is the run of a serial block's events that lies
// in one phase, the serial block including an entry method absorbed into it,
// §2.1; events inside it keep their recorded order):
//  - physical order: by block start time;
//  - reordered (§3.2.1): by the clock w of the part's first event, then by the
//    chare of the source that invoked the block, then by the same two keys of
//    that source's block part ("we go back a step, comparing the source
//    blocks"), then physical order.
// Local steps then replay the phase: an event with no predecessor is at step
// 0, every other one step after the latest of its chare predecessor and, for a
// sink, its source. Global steps offset each phase by the longest path of its
// phase-DAG predecessors (structure::assign_global_steps).
#include <cstdint>
#include <vector>

#include "charm/task_partitions.h"

namespace weft::charm {

// §3.2.1 The clock w of each event: the first event of a block part is at 0,
// or at w(source) + 1 when it is a sink whose source is in the same phase;
// each later event of the part counts up by one.
struct Clocks {
  std::vector<std::int32_t> w;
  std::int32_t forced = 0;  // parts in a message cycle (bad input), started at 0
};
Clocks assign_clocks(const TaskTrace& trace, const TaskIndex& index, const TaskPartitions& phases);

struct TaskSteps {
  std::vector<EventIndex> chare_prev;          // per event: its predecessor along its chare, or kNone
  std::vector<std::int32_t> local_step;        // per event, within its phase
  std::vector<std::int32_t> phase_width;       // per phase: max local step + 1
  std::vector<std::int32_t> phase_offset;      // per phase: global step of its local step 0
  std::vector<std::int32_t> w;                 // per event when reordered, else empty
  std::int32_t forced_orderings = 0;           // dependency cycles broken (bad input)

  std::int32_t global_step(EventIndex e, const TaskPartitions& phases) const {
    const auto i = static_cast<std::size_t>(e);
    return phase_offset[static_cast<std::size_t>(phases.of_event[i])] + local_step[i];
  }
};

// `graph` is order_partitions' graph of the final phases (topological ids).
TaskSteps assign_task_steps(const TaskTrace& trace, const TaskIndex& index, const TaskPartitions& phases,
                            const structure::PartitionGraph& graph, bool reorder);

}  // namespace weft::charm
