#pragma once
// Loads the input of the structure analysis from a .weft run: the
// communication events (core/structure/comm_trace.h), their messages and
// collectives, through the whole-table scans of store/record_scan.h: the
// message and collective scans mark the events they refer to and keep those
// references, while a first event scan marks the communication calls; the ops
// are numbered from both (structure/event_op_index.h); a second event scan
// writes each op's columns into its slot while the kept references become
// ops. With two threads, the message and collective scans run on a second
// connection beside the first event scan, and the second event scan is
// shared between the two. At most 2^31 - 1 events.
//
// Which events are operations: every MPI send, Isend, receive, Irecv and
// collective call, plus every event a message or collective refers to (the
// waits that complete requests). Waits and tests that complete nothing are
// non-communication work, like computation.
#include <cstdint>
#include <string>
#include <vector>

#include "common/narrow_column.h"
#include "common/progress.h"
#include "store/sqlite.h"
#include "structure/comm_trace.h"

namespace weft::db {

struct CommTraceLoadOptions {
  // --partition-function: break partitions at each entry of this region.
  std::string partition_function;
  // Read the messages on a second connection and thread while the events are
  // read, and share the second event scan, when the file can be shared.
  bool two_threads = true;
  // Check the loaded trace's invariants (structure::validate_comm_trace).
  // Off when structure::analyze_structure, which checks them first, takes
  // it next: one pass over the ops fewer.
  bool validate = true;
  // Told of the two scans of the events as they go (this thread's share).
  Progress* progress = nullptr;
};

// A message's store id. Ids are dense from 0 and a run has at most 2^31 - 1
// messages (load_comm_trace refuses a file whose ids do not fit): 4 bytes
// per message, not 8, held from the load to the end of the write.
using StoredMessageId = std::int32_t;

struct LoadedCommTrace {
  structure::CommTrace trace;
  // Region reference of each op (< 2^24), in 1 or 2 bytes where the regions
  // table allows (common/narrow_column.h).
  NarrowColumn region;
  std::vector<StoredMessageId> message_id;  // store id of each message of `trace`
  std::vector<std::int64_t> collective_id;  // store id of each collective of `trace`
  std::int64_t unmatched_messages = 0;      // messages with only one side (kept, one-sided)
};

LoadedCommTrace load_comm_trace(Database& db, const CommTraceLoadOptions& options);

// The op of `trace` whose event is `event`, or kNoOp (trace.event_id is sorted).
// A send-and-receive call (MPI_Sendrecv) is split into two ops, its send half
// then its receive half, sharing the event id: op_of_event gives the send
// half, receive_op_of_event the receive half.
structure::OpIndex op_of_event(const structure::CommTrace& trace, EventId event);
structure::OpIndex receive_op_of_event(const structure::CommTrace& trace, EventId event);
bool is_split_send_half(const structure::CommTrace& trace, structure::OpIndex op);

}  // namespace weft::db
