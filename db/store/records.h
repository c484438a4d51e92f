#pragma once
// The stored records as plain structs: what the block codec encodes, the block
// writers take and record_scan / the SQL views hand out.
#include <cstdint>

#include "common/types.h"

namespace weft::db {

constexpr std::int64_t kNullRef = -1;  // a NULL id or process in the rows below

struct EventRecord {
  EventId id;
  ProcessIndex process;
  TimeNs start_ns;
  TimeNs end_ns;
  std::int64_t region;  // the region reference (regions.region)
  std::int32_t depth;
};

struct MessageRecord {
  std::int64_t id;
  std::int64_t src;  // kNullRef when unknown
  std::int64_t dst;
  std::int64_t comm;
  std::int64_t tag;
  std::int64_t bytes;
  EventId send_event;  // each kNullRef when absent
  EventId send_done_event;
  EventId recv_post_event;
  EventId recv_event;
  TimeNs send_ns;  // meaningful only when send_event or src is known
  TimeNs recv_ns;
  bool has_send_ns;
  bool has_recv_ns;
};

struct StoredCollectiveMember {
  std::int64_t collective;
  ProcessIndex process;
  EventId event;  // kNullRef when the member's records lie outside any region
  TimeNs start_ns;
  TimeNs end_ns;
};

// A collective member as stored in collective_member_blocks: the scanned
// record plus the byte counts of its collective end record.
struct PackedCollectiveMember {
  StoredCollectiveMember member;
  std::int64_t bytes_sent;
  std::int64_t bytes_received;
};

// One communication event with its logical structure and metrics, as stored in
// comm_event_blocks (docs/schema.md, "comm_events"). Optional ids are kNullRef.
struct CommEventRecord {
  EventId event;
  ProcessIndex process;
  std::int64_t region;
  std::int32_t kind;  // structure::OpKind
  TimeNs start_ns;
  TimeNs end_ns;
  std::int64_t partition;
  std::int64_t step;  // global step
  std::int64_t local_step;
  std::int64_t collective;
  std::int64_t message;
  std::int64_t send_step;
  TimeNs lateness_ns;
  TimeNs global_lateness_ns;
  TimeNs diff_lateness_ns;
  TimeNs wait_ns;
};

// One message line of the logical view (message_step_blocks, docs/schema.md):
// the message's store id and the logical rows (processes, or a task run's
// chares) and global steps of its send and its receive.
struct MessageStepRecord {
  std::int64_t message;
  std::int64_t src;
  std::int64_t dst;
  std::int64_t send_step;
  std::int64_t recv_step;
};

// The process whose blocks hold a message: the sender when the message has a
// send record, else the receiver (docs/schema.md, message_blocks).
inline std::int64_t message_owner(const MessageRecord& m) {
  return m.has_send_ns ? m.src : m.dst;
}
// The time that places a message in a block: send time, else receive time.
inline TimeNs message_time(const MessageRecord& m) {
  return m.has_send_ns ? m.send_ns : m.recv_ns;
}

}  // namespace weft::db
