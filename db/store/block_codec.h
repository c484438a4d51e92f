#pragma once
// The byte format of the packed blocks in event_blocks.data,
// message_blocks.data, collective_member_blocks.data, comm_event_blocks.data
// and message_step_blocks.data (docs/schema.md, "Block format").
//
// A block is a varint count followed by that many records, each field a
// LEB128 varint, most of them zigzag-coded differences from the previous
// record of the block, so that the sorted, repetitive columns of a trace cost
// one or two bytes each. Decoding never trusts the blob: every read is bounds
// checked, the claimed count is checked against the blob's size before
// anything is allocated, and any inconsistency throws weft::Error.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "store/records.h"

namespace weft::db {

// The smallest encoding of one record (every field one byte): a count larger
// than blob_size / this is a corrupt blob.
constexpr std::size_t kMinEventBytes = 5;
constexpr std::size_t kMinMessageBytes = 5;

// Appends the encoding of `events` (one process, sorted by start_ns then id)
// to `out`. The process is not stored in the blob (it is the row's column).
void encode_event_block(std::span<const EventRecord> events, std::vector<std::uint8_t>& out);

// Appends the decoded events of `blob` to `out`, each with process `process`.
// Throws weft::Error (naming `what`) for a truncated or corrupt blob.
void decode_event_block(std::span<const std::uint8_t> blob, ProcessIndex process,
                        std::vector<EventRecord>& out, const std::string& what = "event block");

// Appends `blob` (an encode_event_block result) to `out` with every event id
// increased by `offset`. Only the first record's id is stored whole (the
// others are differences), so this rewrites one varint: the importer encodes
// a location's blocks before it knows where the location's ids start.
void append_rebased_event_block(std::span<const std::uint8_t> blob, EventId offset,
                                std::vector<std::uint8_t>& out);

// Messages owned by `owner` (message_owner()), in any order; ids ascending
// gives the smallest blobs.
void encode_message_block(std::span<const MessageRecord> messages, std::int64_t owner,
                          std::vector<std::uint8_t>& out);
void decode_message_block(std::span<const std::uint8_t> blob, std::int64_t owner,
                          std::vector<MessageRecord>& out,
                          const std::string& what = "message block");

// The members of one collective instance (collective_member_blocks.data);
// the collective id is the row's, not stored in the blob.
constexpr std::size_t kMinMemberBytes = 6;
void encode_member_block(std::span<const PackedCollectiveMember> members,
                         std::vector<std::uint8_t>& out);
void decode_member_block(std::span<const std::uint8_t> blob, std::int64_t collective,
                         std::vector<PackedCollectiveMember>& out,
                         const std::string& what = "collective member block");

// The communication events of one process in one step block
// (comm_event_blocks.data), in event order; the process is the row's.
constexpr std::size_t kMinCommEventBytes = 12;
void encode_comm_event_block(std::span<const CommEventRecord> events,
                             std::vector<std::uint8_t>& out);
// The same bytes, built one event at a time: a writer need not hold a
// block's records (120 bytes each) to encode them when the block is done.
class CommEventBlockEncoder {
 public:
  void add(const CommEventRecord& event);
  std::size_t count() const { return count_; }
  // The block (its count, then its events); valid until the next add or clear.
  std::span<const std::uint8_t> blob();
  void clear();

 private:
  // Room for the count's varint ahead of the events: it is known last.
  static constexpr std::size_t kCountRoom = 10;
  std::vector<std::uint8_t> bytes_ = std::vector<std::uint8_t>(kCountRoom);  // grown, never shrunk
  std::size_t size_ = kCountRoom;  // bytes in use
  std::size_t count_ = 0;
  // The previous event's fields, for the differences.
  std::int64_t event_ = 0, region_ = 0, start_ = 0, partition_ = 0, step_ = 0, local_step_ = 0;
  std::int64_t collective_ = 0, message_ = 0, send_step_ = 0;
};
void decode_comm_event_block(std::span<const std::uint8_t> blob, ProcessIndex process,
                             std::vector<CommEventRecord>& out,
                             const std::string& what = "communication event block");

// The message lines sent at one global step (message_step_blocks.data),
// sorted by (src, message); the send step is the row's.
constexpr std::size_t kMinMessageStepBytes = 4;
void encode_message_step_block(std::span<const MessageStepRecord> lines, std::vector<std::uint8_t>& out);
void decode_message_step_block(std::span<const std::uint8_t> blob, std::int64_t send_step,
                               std::vector<MessageStepRecord>& out,
                               const std::string& what = "message step block");

// The count a blob claims (its first varint), checked against its size.
std::uint64_t block_count(std::span<const std::uint8_t> blob, std::size_t min_record_bytes,
                          const std::string& what);

}  // namespace weft::db
