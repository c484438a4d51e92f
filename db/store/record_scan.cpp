#include "store/record_scan.h"

#include <algorithm>
#include <optional>
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

namespace {

// The distinct buckets of event_blocks in increasing order, a seek each, or
// nullopt once there are more than `limit`.
std::optional<std::vector<std::int64_t>> event_buckets_up_to(Database& db, std::size_t limit) {
  Statement first = db.prepare("SELECT min(bucket) FROM event_blocks");
  Statement next = db.prepare("SELECT min(bucket) FROM event_blocks WHERE bucket > ?1");
  std::vector<std::int64_t> buckets;
  for (Statement* s = &first; s->step() && !s->column_is_null(0); s = &next) {
    buckets.push_back(s->column_int(0));
    if (buckets.size() > limit) return std::nullopt;
    s->reset();
    next.bind(1, buckets.back());
  }
  return buckets;
}

}  // namespace

void scan_events_of_processes(Database& db, ProcessIndex first, ProcessIndex end, const RowSink<EventRecord>& sink) {
  // A range of processes is one range of the key (bucket, process, part) per
  // time bucket: read so, the rows come in table order, where the index on
  // process would cost a search of the table per row (the loader's "fill
  // ops" at 65,536 processes × 5 iterations, 196,608 rows in 3 buckets:
  // 0.085 → 0.055 s). A range with fewer processes than the table has
  // buckets reads by the index.
  const std::size_t processes = end > first ? static_cast<std::size_t>(end - first) : 0;
  if (std::optional<std::vector<std::int64_t>> buckets = event_buckets_up_to(db, processes)) {
    Statement stmt = db.prepare("SELECT process, data FROM event_blocks WHERE bucket = ?1 AND process >= ?2 AND process < ?3");
    stmt.bind(2, static_cast<std::int64_t>(first));  // kept across resets
    stmt.bind(3, static_cast<std::int64_t>(end));
    for (std::int64_t bucket : *buckets) {
      stmt.bind(1, bucket);
      scan_blocks<EventRecord>(stmt, sink, event_decoder(db));
      stmt.reset();
    }
    return;
  }
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
