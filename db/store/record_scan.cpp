#include "store/record_scan.h"

#include <vector>

namespace weft::db {
namespace {

constexpr std::size_t kScanBatch = 4096;

std::int64_t ref_or_null(const Statement& s, int col) {
  return s.column_is_null(col) ? kNullRef : s.column_int(col);
}

// Steps `stmt` to the end, converting each row with `convert` and handing the
// rows to `sink` in batches of kScanBatch.
template <class Row, class Convert>
void scan_rows(Statement& stmt, const RowSink<Row>& sink, Convert convert) {
  std::vector<Row> batch;
  batch.reserve(kScanBatch);
  while (stmt.step()) {
    batch.push_back(convert(stmt));
    if (batch.size() == kScanBatch) {
      sink(batch);
      batch.clear();
    }
  }
  if (!batch.empty()) sink(batch);
}

}  // namespace

void scan_events(Database& db, const RowSink<EventRecord>& sink) {
  Statement stmt = db.prepare("SELECT id, process, start_ns, end_ns, region, depth FROM events");
  scan_rows<EventRecord>(stmt, sink, [](const Statement& s) {
    return EventRecord{s.column_int(0), static_cast<ProcessIndex>(s.column_int(1)),
                       s.column_int(2), s.column_int(3), s.column_int(4),
                       static_cast<std::int32_t>(s.column_int(5))};
  });
}

void scan_messages(Database& db, const RowSink<MessageRecord>& sink) {
  Statement stmt = db.prepare(
      "SELECT id, src, dst, comm, tag, bytes, send_event, send_done_event, recv_post_event,"
      " recv_event, send_ns, recv_ns FROM messages");
  scan_rows<MessageRecord>(stmt, sink, [](const Statement& s) {
    return MessageRecord{s.column_int(0),      ref_or_null(s, 1),   ref_or_null(s, 2),
                         s.column_int(3),      s.column_int(4),     s.column_int(5),
                         ref_or_null(s, 6),    ref_or_null(s, 7),   ref_or_null(s, 8),
                         ref_or_null(s, 9),    s.column_int(10),    s.column_int(11),
                         !s.column_is_null(10), !s.column_is_null(11)};
  });
}

void scan_collective_members(Database& db, const RowSink<StoredCollectiveMember>& sink) {
  Statement stmt =
      db.prepare("SELECT collective, process, event, start_ns, end_ns FROM collective_members");
  scan_rows<StoredCollectiveMember>(stmt, sink, [](const Statement& s) {
    return StoredCollectiveMember{s.column_int(0), static_cast<ProcessIndex>(s.column_int(1)),
                                  ref_or_null(s, 2), s.column_int(3), s.column_int(4)};
  });
}

}  // namespace weft::db
