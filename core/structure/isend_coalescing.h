#pragma once
// Isend coalescing (ravel-logical-lateness.txt §3.3): an uninterrupted run of
// MPI_Isend operations on one process becomes a single operation spanning
// from the first one's entry to the last one's exit, carrying all their
// messages. "Uninterrupted" here means no other communication operation lies
// between them on the process.
#include <vector>

#include "structure/comm_trace.h"

namespace weft::structure {

struct CoalescedTrace {
  CommTrace trace;  // without event_id (the input has them)
  // For each op of the input trace, the op of `trace` it became.
  std::vector<OpIndex> op_of_original;
  std::int32_t coalesced_ops = 0;  // input ops folded into an earlier one
};

CoalescedTrace coalesce_isends(const CommTrace& input);

}  // namespace weft::structure
