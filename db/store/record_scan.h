#pragma once
// Whole-table scans of the stored events, messages and collective members, for
// passes that need every row (the structure analysis, exports, checks) rather
// than a window. Rows arrive in batches through a callback so that a scan of
// hundreds of millions of rows never materializes them all; the order of rows
// is unspecified (callers that need an order sort what they keep).
//
// This is the one place that knows how those tables are laid out on disk:
// everything outside db/store reads them through here or WindowQuery.
#include <cstdint>
#include <functional>
#include <span>

#include "common/types.h"
#include "store/sqlite.h"

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

template <class Row>
using RowSink = std::function<void(std::span<const Row>)>;

void scan_events(Database& db, const RowSink<EventRecord>& sink);
void scan_messages(Database& db, const RowSink<MessageRecord>& sink);
void scan_collective_members(Database& db, const RowSink<StoredCollectiveMember>& sink);

}  // namespace weft::db
