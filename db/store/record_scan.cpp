#include "store/record_scan.h"

#include <vector>

#include "store/block_codec.h"

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

// Decodes every block of `table` (one row per (bucket, process, part)) and
// hands the records on in batches of about kScanBatch.
template <class Row, class Decode>
void scan_blocks(Database& db, const char* sql, const RowSink<Row>& sink, Decode decode) {
  Statement stmt = db.prepare(sql);
  std::vector<Row> batch;
  batch.reserve(kScanBatch);
  while (stmt.step()) {
    decode(stmt.column_blob(1), stmt.column_int(0), batch);
    if (batch.size() >= kScanBatch) {
      sink(batch);
      batch.clear();
    }
  }
  if (!batch.empty()) sink(batch);
}

}  // namespace

void scan_events(Database& db, const RowSink<EventRecord>& sink) {
  scan_blocks<EventRecord>(
      db, "SELECT process, data FROM event_blocks", sink,
      [&db](std::span<const std::uint8_t> blob, std::int64_t process, std::vector<EventRecord>& out) {
        decode_event_block(blob, static_cast<ProcessIndex>(process), out, db.path());
      });
}

void scan_messages(Database& db, const RowSink<MessageRecord>& sink) {
  scan_blocks<MessageRecord>(
      db, "SELECT process, data FROM message_blocks", sink,
      [&db](std::span<const std::uint8_t> blob, std::int64_t owner, std::vector<MessageRecord>& out) {
        decode_message_block(blob, owner, out, db.path());
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
