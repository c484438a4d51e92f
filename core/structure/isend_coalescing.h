#pragma once
// Isend coalescing (ravel-logical-lateness.txt §3.3): an uninterrupted run of
// MPI_Isend operations on one process becomes a single operation spanning
// from the first one's entry to the last one's exit, carrying all their
// messages. "Uninterrupted" here means no other communication operation lies
// between them on the process.
//
// Two steps, so that the caller can keep what it needs of the input ops
// (input_ops.h) before they are overwritten: which input ops start a
// coalesced op, then the trace coalesced in place (no second copy of its
// columns at any time). Input op i becomes coalesced op starts.rank(i + 1) - 1.
#include <cstdint>

#include "structure/comm_trace.h"
#include "structure/rank_bits.h"

namespace weft::structure {

// The ops of `trace` that start an op of the coalesced trace: every op but
// those that continue a run of Isends (all of them when `coalesce` is false).
// Members are counted (rank works).
RankBits isend_run_starts(const CommTrace& trace, bool coalesce);

// Coalesces `trace` in place by `starts` (from isend_run_starts); its event
// ids are dropped. Returns the number of ops folded into an earlier one.
// `threads` > 1: the message and collective columns are renumbered on a
// second thread while this one moves the op columns.
std::int32_t coalesce_isends(CommTrace& trace, const RankBits& starts, int threads = 1);

}  // namespace weft::structure
