#include "store/record_scan.h"

#include <algorithm>
#include <string>
#include <vector>

#include "store/block_codec.h"

namespace weft::db {
namespace {

constexpr std::size_t kScanBatch = 4096;

// Decodes every block that `stmt` selects (rows of a block table: owner,
// data) and hands the records on in batches of about kScanBatch.
template <class Row, class Decode>
void scan_blocks(Statement& stmt, const RowSink<Row>& sink, Decode decode) {
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

template <class Row, class Decode>
void scan_blocks(Database& db, const char* sql, const RowSink<Row>& sink, Decode decode) {
  Statement stmt = db.prepare(sql);
  scan_blocks(stmt, sink, decode);
}

// Decodes event blocks for scan_blocks, naming db's file in errors.
auto event_decoder(Database& db) {
  return [&db](std::span<const std::uint8_t> blob, std::int64_t process, std::vector<EventRecord>& out) {
    decode_event_block(blob, static_cast<ProcessIndex>(process), out, db.path());
  };
}

}  // namespace

void scan_events(Database& db, const RowSink<EventRecord>& sink) {
  scan_blocks<EventRecord>(db, "SELECT process, data FROM event_blocks", sink, event_decoder(db));
}

void scan_events_of_processes(Database& db, ProcessIndex first, ProcessIndex end, const RowSink<EventRecord>& sink) {
  Statement stmt = db.prepare("SELECT process, data FROM event_blocks WHERE process >= ? AND process < ?");
  stmt.bind(1, static_cast<std::int64_t>(first));
  stmt.bind(2, static_cast<std::int64_t>(end));
  scan_blocks<EventRecord>(stmt, sink, event_decoder(db));
}

namespace {

// The blocks' record counts summed, but no more than their bytes can hold and
// no less than 0 (a damaged count must not size an allocation). length() of
// a blob reads only its row's header, not its pages.
std::int64_t counted_records(Database& db, const char* table, std::size_t min_record_bytes) {
  Statement s = db.prepare(std::string("SELECT COALESCE(sum(count), 0), COALESCE(sum(length(data)), 0) FROM ") + table);
  if (!s.step()) return 0;
  const std::int64_t fit = s.column_int(1) / static_cast<std::int64_t>(min_record_bytes);
  return std::clamp<std::int64_t>(s.column_int(0), 0, std::max<std::int64_t>(fit, 0));
}

}  // namespace

std::int64_t count_collective_members(Database& db) {
  return counted_records(db, "collective_member_blocks", kMinMemberBytes);
}

std::int64_t count_messages(Database& db) { return counted_records(db, "message_blocks", kMinMessageBytes); }

void scan_events_by_process(
    Database& db, const std::function<void(ProcessIndex, std::span<const EventRecord>)>& sink) {
  // event_blocks_by_process serves the order: no sort of the table.
  Statement stmt = db.prepare("SELECT process, data FROM event_blocks ORDER BY process");
  std::vector<EventRecord> events;
  std::int64_t current = -1;
  auto flush = [&] {
    if (current < 0) return;
    std::sort(events.begin(), events.end(), [](const EventRecord& a, const EventRecord& b) {
      if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
      return a.depth < b.depth;
    });
    sink(static_cast<ProcessIndex>(current), events);
    events.clear();
  };
  while (stmt.step()) {
    const std::int64_t process = stmt.column_int(0);
    if (process != current) {
      flush();
      current = process;
    }
    decode_event_block(stmt.column_blob(1), static_cast<ProcessIndex>(process), events, db.path());
  }
  flush();
}

void scan_messages(Database& db, const RowSink<MessageRecord>& sink) {
  scan_blocks<MessageRecord>(
      db, "SELECT process, data FROM message_blocks", sink,
      [&db](std::span<const std::uint8_t> blob, std::int64_t owner, std::vector<MessageRecord>& out) {
        decode_message_block(blob, owner, out, db.path());
      });
}

void scan_message_blocks(Database& db, ScanFrom from, const std::function<bool(const MessageBlockKey&)>& claim,
                         const RowSink<MessageRecord>& sink) {
  Statement stmt = db.prepare(from == ScanFrom::Front
                                  ? "SELECT bucket, process, part, data FROM message_blocks"
                                    " ORDER BY bucket, process, part"
                                  : "SELECT bucket, process, part, data FROM message_blocks"
                                    " ORDER BY bucket DESC, process DESC, part DESC");
  std::vector<MessageRecord> block;
  while (stmt.step()) {
    const MessageBlockKey key{stmt.column_int(0), stmt.column_int(1), stmt.column_int(2)};
    if (!claim(key)) return;
    block.clear();
    decode_message_block(stmt.column_blob(3), key.process, block, db.path());
    sink(block);
  }
}

void scan_collective_members(Database& db, const RowSink<StoredCollectiveMember>& sink) {
  std::vector<PackedCollectiveMember> packed;
  scan_blocks<StoredCollectiveMember>(
      db, "SELECT collective, data FROM collective_member_blocks", sink,
      [&db, &packed](std::span<const std::uint8_t> blob, std::int64_t collective,
                     std::vector<StoredCollectiveMember>& out) {
        packed.clear();
        decode_member_block(blob, collective, packed, db.path());
        for (const PackedCollectiveMember& p : packed) out.push_back(p.member);
      });
}

}  // namespace weft::db
