#pragma once
// Isend coalescing (ravel-logical-lateness.txt §3.3): an uninterrupted run of
// MPI_Isend operations on one process becomes a single operation spanning
// from the first one's entry to the last one's exit, carrying all their
// messages. "Uninterrupted" here means no other communication operation lies
// between them on the process.
//
// Two steps, so that the caller can keep what it needs of the input ops
// (input_ops.h) before they are overwritten: the map from input ops to
// coalesced ops, then the trace coalesced in place (no second copy of its
// columns at any time).
#include <cstdint>
#include <vector>

#include "structure/comm_trace.h"

namespace weft::structure {

// For each op of `trace`, the op of the coalesced trace it becomes
// (non-decreasing: a run is consecutive ops).
std::vector<OpIndex> isend_coalescing_map(const CommTrace& trace);

// Coalesces `trace` in place through `map` (from isend_coalescing_map); its
// event ids are dropped. Returns the number of ops folded into an earlier one.
std::int32_t coalesce_isends(CommTrace& trace, const std::vector<OpIndex>& map);

}  // namespace weft::structure
