#include "store/block_writer.h"

#include <algorithm>
#include <array>

#include "store/block_codec.h"
#include "store/event_buckets.h"

namespace weft::db {
namespace {

bool by_start(const EventRecord& a, const EventRecord& b) {
  return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.id < b.id;
}

std::int32_t take_part(std::vector<std::int32_t>& next_part, std::int64_t index) {
  auto i = static_cast<std::size_t>(std::max<std::int64_t>(index, 0));
  if (i >= next_part.size()) next_part.resize(i + 1, 0);
  return next_part[i]++;
}

}  // namespace

std::int64_t message_bucket(const MessageRecord& m, int shift) {
  return std::max<TimeNs>(message_time(m), 0) >> shift;
}

void EventBlockEncoder::encode(std::span<EventRecord> events, std::int32_t part, EncodedEventBlocks& out) {
  if (events.empty()) return;
  // Within a process ids follow Enter order, so the importer's events are
  // nearly in start order already; sorting is the fallback for other writers.
  if (!std::is_sorted(events.begin(), events.end(), by_start))
    std::sort(events.begin(), events.end(), by_start);

  // Stable counting sort by level: within a level, buckets grow with start, so
  // each level becomes a sequence of (bucket, start, id)-ordered runs.
  std::array<std::size_t, kMaxBucketLevel + 2> first{};
  for (const EventRecord& e : events) ++first[static_cast<std::size_t>(bucket_level(e.end_ns - e.start_ns, shift_)) + 1];
  for (std::size_t l = 1; l < first.size(); ++l) first[l] += first[l - 1];
  by_level_.resize(events.size());
  std::array<std::size_t, kMaxBucketLevel + 1> at{};
  std::copy(first.begin(), first.end() - 1, at.begin());
  for (const EventRecord& e : events)
    by_level_[at[static_cast<std::size_t>(bucket_level(e.end_ns - e.start_ns, shift_))]++] = e;

  for (std::size_t i = 0; i < by_level_.size();) {
    std::int64_t bucket = bucket_key(by_level_[i].start_ns, by_level_[i].end_ns, shift_);
    std::size_t j = i + 1;
    while (j < by_level_.size() &&
           bucket_key(by_level_[j].start_ns, by_level_[j].end_ns, shift_) == bucket)
      ++j;
    std::span<const EventRecord> run(by_level_.data() + i, j - i);
    EncodedEventBlocks::Block block{bucket, part, static_cast<std::int64_t>(run.size()), run.front().start_ns,
                                    run.front().end_ns, run.front().id, run.front().id, out.bytes.size(), 0};
    for (const EventRecord& e : run) {
      block.end_ns = std::max(block.end_ns, e.end_ns);
      block.first_id = std::min(block.first_id, e.id);
      block.last_id = std::max(block.last_id, e.id);
    }
    encode_event_block(run, out.bytes);
    block.size = out.bytes.size() - block.offset;
    out.blocks.push_back(block);
    i = j;
  }
}

EventBlockWriter::EventBlockWriter(Database& db, int shift)
    : insert_(db.prepare("INSERT INTO event_blocks VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")),
      encoder_(shift) {}

void EventBlockWriter::write(ProcessIndex process, std::span<EventRecord> events) {
  if (events.empty()) return;
  scratch_.clear();
  encoder_.encode(events, take_part(next_part_, process), scratch_);
  write_encoded(process, scratch_);
}

void EventBlockWriter::write_encoded(ProcessIndex process, const EncodedEventBlocks& encoded, EventId id_offset) {
  for (const EncodedEventBlocks::Block& b : encoded.blocks) {
    std::span<const std::uint8_t> blob(encoded.bytes.data() + b.offset, b.size);
    if (id_offset != 0) {
      rebased_.clear();
      append_rebased_event_block(blob, id_offset, rebased_);
      blob = rebased_;
    }
    max_level_ = std::max(max_level_, static_cast<int>(b.bucket / kBucketLevelStride));
    insert_.bind(1, b.bucket);
    insert_.bind(2, static_cast<std::int64_t>(process));
    insert_.bind(3, static_cast<std::int64_t>(b.part));
    insert_.bind(4, b.count);
    insert_.bind(5, b.start_ns);
    insert_.bind(6, b.end_ns);
    insert_.bind(7, b.first_id + id_offset);
    insert_.bind(8, b.last_id + id_offset);
    insert_.bind_blob_static(9, blob.data(), blob.size());
    insert_.run();
    ++blocks_written_;
    events_written_ += b.count;
  }
}

void MessageBlockEncoder::encode(std::int64_t owner, std::span<MessageRecord> messages, EncodedMessageBlocks& out) {
  if (messages.empty()) return;
  auto key = [this](const MessageRecord& m) { return std::make_pair(message_bucket(m, shift_), m.id); };
  auto less = [&](const MessageRecord& a, const MessageRecord& b) { return key(a) < key(b); };
  if (!std::is_sorted(messages.begin(), messages.end(), less))
    std::sort(messages.begin(), messages.end(), less);
  const std::int32_t part = take_part(next_part_, owner + 1);
  for (std::size_t i = 0; i < messages.size();) {
    const std::int64_t bucket = message_bucket(messages[i], shift_);
    std::size_t j = i + 1;
    while (j < messages.size() && message_bucket(messages[j], shift_) == bucket) ++j;
    std::span<const MessageRecord> run(messages.data() + i, j - i);
    EncodedMessageBlocks::Block block{bucket, owner, part, static_cast<std::int64_t>(run.size()),
                                      message_time(run.front()), message_time(run.front()),
                                      run.front().id, run.front().id, out.bytes.size(), 0};
    for (const MessageRecord& m : run) {
      block.start_ns = std::min(block.start_ns, message_time(m));
      block.end_ns = std::max(block.end_ns, m.has_recv_ns ? m.recv_ns : message_time(m));
      if (m.has_send_ns && m.has_recv_ns) max_message_ns_ = std::max(max_message_ns_, m.recv_ns - m.send_ns);
      block.first_id = std::min(block.first_id, m.id);
      block.last_id = std::max(block.last_id, m.id);
    }
    encode_message_block(run, owner, out.bytes);
    block.size = out.bytes.size() - block.offset;
    out.blocks.push_back(block);
    i = j;
  }
  messages_encoded_ += static_cast<std::int64_t>(messages.size());
}

MessageBlockWriter::MessageBlockWriter(Database& db, int shift)
    : insert_(db.prepare("INSERT INTO message_blocks VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")),
      encoder_(shift) {}

void MessageBlockWriter::write(std::int64_t owner, std::span<MessageRecord> messages) {
  scratch_.clear();
  encoder_.encode(owner, messages, scratch_);
  insert(scratch_);
}

void MessageBlockWriter::insert(const EncodedMessageBlocks& encoded) {
  for (const EncodedMessageBlocks::Block& b : encoded.blocks) {
    insert_.bind(1, b.bucket);
    insert_.bind(2, b.owner);
    insert_.bind(3, b.part);
    insert_.bind(4, b.count);
    insert_.bind(5, b.start_ns);
    insert_.bind(6, b.end_ns);
    insert_.bind(7, b.first_id);
    insert_.bind(8, b.last_id);
    insert_.bind_blob_static(9, encoded.bytes.data() + b.offset, b.size);
    insert_.run();
    messages_written_ += b.count;
  }
}

void MessageBlockWriter::write_any(std::span<MessageRecord> messages) {
  std::stable_sort(messages.begin(), messages.end(), [](const MessageRecord& a, const MessageRecord& b) {
    return message_owner(a) < message_owner(b);
  });
  for (std::size_t i = 0; i < messages.size();) {
    std::int64_t owner = message_owner(messages[i]);
    std::size_t j = i + 1;
    while (j < messages.size() && message_owner(messages[j]) == owner) ++j;
    write(owner, messages.subspan(i, j - i));
    i = j;
  }
}

}  // namespace weft::db
