#pragma once
// Mandatory partitions (ravel-logical-lateness.txt §3.1, Fig. 2): every op
// starts alone; the ops of one message (its send, its receive) are merged, the
// members of one collective invocation are merged, and the ops tied to one
// MPI_Waitall are merged (we know them from the trace's request records: the
// Irecv that posted a message joins the wait that completed it, an Isend joins
// the wait that completed its request). With user partitions (the
// --partition-function option), all ops of one segment (between two entries
// of the user's function on each process) are merged as well, so that each
// segment -- typically one iteration -- is one partition.
// Cycles are not merged here: see merge_strongly_connected.
#include "structure/comm_trace.h"
#include "structure/partition_graph.h"

namespace weft::structure {

// `threads`: 2 splits the unions between two threads (the result is the same).
Partitioning mandatory_partitions(const CommTrace& trace, int threads = 1);

}  // namespace weft::structure
