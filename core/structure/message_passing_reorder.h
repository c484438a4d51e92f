#pragma once
// Reordering for message-passing models (charm-logical-structure.txt §3.2.1,
// Figures 9 and 10), the alternative to the stride-based local steps of
// step_assignment.h that `--reorder` selects.
//
// Each op is its own serial block. Within a partition:
//  - a receive (a Recv or a Wait that completes messages) gets the clock
//    w = 1 + max w of the sends of its messages (0 without any);
//  - every other op (sends, Irecv posts, collectives) keeps its position:
//    w = 1 + max w of the receives before it on its process (0 without any).
// On each process the non-receives stay in recorded order and every receive
// is placed before the first of them whose w exceeds its own (never later
// than recorded: a receive before an op has a smaller w than it); receives
// between two of them are sorted by (w, sending process).
// Steps then follow §3.2: an op is one step after its predecessor in that
// order and after the sends of the messages it receives; collective members
// share the latest of their steps.
#include <cstdint>
#include <vector>

#include "structure/comm_trace.h"
#include "structure/partition_graph.h"
#include "structure/step_assignment.h"

namespace weft::structure {

// w of each op (§3.2.1, message-passing variant).
std::vector<std::int32_t> message_passing_clocks(const CommTrace& trace, const Partitioning& parts,
                                                 const ReceivedMessages& received);

// The ops of each (partition, process) run in reordered order, laid out like
// `runs` (the ops of run r are order[runs.first_op[r] .. runs.last_op[r]]
// permuted in place): order[i] is the op at position i.
std::vector<OpIndex> reorder_process_runs(const CommTrace& trace, const PartitionRuns& runs,
                                          const ReceivedMessages& received, const std::vector<std::int32_t>& w);

// Local steps over the reordered runs; `forced` counts dependency cycles
// broken (only inconsistent input has them).
LocalSteps assign_reordered_local_steps(const CommTrace& trace, const Partitioning& parts, const PartitionRuns& runs,
                                        const ReceivedMessages& received,
                                        const CollectiveOfOps& collective_of_op, std::int32_t* forced);

}  // namespace weft::structure
