#pragma once
// Writers of the packed event and message blocks (docs/schema.md). The
// importer and the test database builder both write through these, so the
// block rule (bucket, order inside a block, parts) lives in one place.
//
// Neither writer prepares or steps anything per record: a call sorts what it
// is given (usually already sorted: then it only checks), cuts it into
// (bucket, process) runs and inserts one row per run.
#include <cstdint>
#include <span>
#include <vector>

#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

// Blocks encoded but not yet inserted: each block's row columns, with its
// blob at [offset, offset + size) of `bytes`.
template <class RowColumns>
struct EncodedBlocks {
  using Block = RowColumns;
  std::vector<Block> blocks;
  std::vector<std::uint8_t> bytes;
  void clear() {
    blocks.clear();
    bytes.clear();
  }
};

struct EventBlockColumns {
  std::int64_t bucket;
  std::int32_t part;
  std::int64_t count;
  TimeNs start_ns;
  TimeNs end_ns;
  EventId first_id;
  EventId last_id;
  std::size_t offset;  // of the blob in `bytes`
  std::size_t size;
};
// Event blocks of one process: the importer's workers encode a location's
// blocks in parallel, before they know where its event ids start
// (EventBlockWriter::write_encoded shifts them).
using EncodedEventBlocks = EncodedBlocks<EventBlockColumns>;

// Cuts events of one process into (bucket, process, part) blocks and encodes
// them: the block rule, in one place.
class EventBlockEncoder {
 public:
  // `shift` is meta.bucket_shift (event_buckets.h).
  explicit EventBlockEncoder(int shift) : shift_(shift) {}
  // Appends the blocks of `events` (reordered in place), all with part `part`.
  void encode(std::span<EventRecord> events, std::int32_t part, EncodedEventBlocks& out);

 private:
  int shift_;
  std::vector<EventRecord> by_level_;
};

class EventBlockWriter {
 public:
  EventBlockWriter(Database& db, int shift);

  // Writes events of one process. `events` is reordered in place. A process
  // may be written in several calls (a long location is flushed in pieces to
  // bound memory); each call adds new parts, so a (bucket, process) can have
  // several block rows.
  void write(ProcessIndex process, std::span<EventRecord> events);
  // Inserts blocks of `process` encoded elsewhere (their parts are theirs),
  // every event id increased by `id_offset`.
  void write_encoded(ProcessIndex process, const EncodedEventBlocks& encoded, EventId id_offset = 0);

  int max_level() const { return max_level_; }
  std::int64_t events_written() const { return events_written_; }
  std::int64_t blocks_written() const { return blocks_written_; }

 private:
  Statement insert_;
  EventBlockEncoder encoder_;
  int max_level_ = 0;
  std::int64_t events_written_ = 0;
  std::int64_t blocks_written_ = 0;
  std::vector<std::int32_t> next_part_;  // by process
  EncodedEventBlocks scratch_;
  std::vector<std::uint8_t> rebased_;
};

struct MessageBlockColumns {
  std::int64_t bucket, owner, part, count;
  TimeNs start_ns, end_ns;
  std::int64_t first_id, last_id;
  std::size_t offset, size;  // the blob's bytes in `bytes`
};
// Message blocks of any owners: the importer encodes a location's matched
// messages in its ordering stage and inserts them in its storing stage.
using EncodedMessageBlocks = EncodedBlocks<MessageBlockColumns>;

// Cuts the messages of one owner into (bucket, owner, part) blocks and
// encodes them; parts are numbered per owner in the order of the calls.
class MessageBlockEncoder {
 public:
  explicit MessageBlockEncoder(int shift) : shift_(shift) {}
  // Appends the blocks of `messages`, all owned by `owner` (message_owner());
  // reordered in place.
  void encode(std::int64_t owner, std::span<MessageRecord> messages, EncodedMessageBlocks& out);
  TimeNs max_message_ns() const { return max_message_ns_; }
  std::int64_t messages_encoded() const { return messages_encoded_; }

 private:
  int shift_;
  TimeNs max_message_ns_ = 0;
  std::int64_t messages_encoded_ = 0;
  std::vector<std::int32_t> next_part_;  // by owner + 1
};

class MessageBlockWriter {
 public:
  MessageBlockWriter(Database& db, int shift);

  // Writes messages all owned by `owner` (message_owner()). Reordered in place.
  void write(std::int64_t owner, std::span<MessageRecord> messages);
  // Writes messages of any owners (sorts them by owner first).
  void write_any(std::span<MessageRecord> messages);
  // Inserts blocks encoded elsewhere (by another encoder of the same shift).
  void insert(const EncodedMessageBlocks& encoded);

  TimeNs max_message_ns() const { return encoder_.max_message_ns(); }
  std::int64_t messages_written() const { return messages_written_; }

 private:
  Statement insert_;
  MessageBlockEncoder encoder_;
  EncodedMessageBlocks scratch_;
  std::int64_t messages_written_ = 0;
};

// The block key of a message: its time's level-0 bucket.
std::int64_t message_bucket(const MessageRecord& m, int shift);

}  // namespace weft::db
