#pragma once
// The message lines of the logical timeline (docs/schema.md,
// "message_step_blocks"): every matched message with the logical rows and
// global steps of its two ends, packed by send step. A step window reads its
// lines with one primary-key range scan over a few blocks per step, each
// block carrying the bounds of its rows so that a process window skips the
// rest, and writing them is one SQLite row per block instead of per message.
//
// Runs analyzed by weft before this table existed have a `message_steps`
// table of one row per message; the reader falls back to it. On newer runs
// `message_steps` is an SQL view of the blocks (store/block_views.h).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

// At most this many lines per block (all of one send step); fewer where the
// block's blob would not fit on its b-tree page.
constexpr std::size_t kMessageStepsPerBlock = 1024;

// A line as the analyses produce it (rows and steps fit 32 bits).
struct MessageLine {
  std::int64_t message;
  std::int32_t src, dst;
  std::int32_t send_step, recv_step;
};

// Candidate i's line into `line`; false when it has none (a one-sided
// message). Called a few times per candidate, so that the lines are never all
// held at once: a run's messages can number in the hundreds of millions.
using MessageLineSource = std::function<bool(std::size_t i, MessageLine& line)>;
// Candidate i's send step alone, where a source has it for less than the whole
// line: the same answer and the same send step as its MessageLineSource.
using MessageSendStepSource = std::function<bool(std::size_t i, std::int32_t& send_step)>;

// Message lines encoded as blocks, ready to insert: built without the
// database, so that an analysis can build them on a second thread.
struct MessageStepBlocks {
  struct Block {
    std::int64_t send_step = 0, seq = 0, count = 0;
    std::int64_t src_lo = 0, src_hi = 0, dst_lo = 0, dst_hi = 0, recv_hi = 0;
    std::vector<std::uint8_t> blob;  // sized to fit: no growth slack is held
  };
  std::vector<Block> blocks;
  std::int64_t max_span = 0;  // the largest recv_step - send_step (meta analysis_max_message_steps)
};

// The largest blob of a block that stays on its b-tree page in `db`.
std::size_t largest_message_step_blob(Database& db);

// The lines of candidates 0 .. candidates-1, ordered by send step, sender and
// message, in blocks whose blobs are at most `max_blob` bytes (unless one line
// is longer). Memory: 4 bytes per line, one block's lines (64 KB; 24 bytes
// per line of the busiest send step when the candidates are not in sender
// order within a step) and the blobs (about 5 bytes a line). Throws
// weft::Error naming `path` on a negative send step or more than 2^32
// candidates.
MessageStepBlocks build_message_step_blocks(const std::string& path, std::size_t candidates,
                                            const MessageLineSource& line_of, std::size_t max_blob);
// Asks the cache for what line_of(i) will read (a hint: it changes nothing).
using MessageLinePrefetch = std::function<void(std::size_t i)>;

// The candidates with a line, ordered by send step (a counting sort over the
// send steps from `send_step_of`): 4 bytes per line. The blocks of separate
// ranges of send steps are then encoded apart, on two threads if need be
// (encoding is most of the work: 22 of 24 ms at 4,096 processes), and
// joined in step order: each step's blocks are numbered from 0 (`seq`).
class MessageLineOrder {
 public:
  // Throws weft::Error naming `path` on a negative send step or more than
  // 2^32 candidates.
  MessageLineOrder(const std::string& path, std::size_t candidates, const MessageSendStepSource& send_step_of);

  // One past the last send step that has a line.
  std::size_t step_end() const { return step_first_.empty() ? 0 : step_first_.size() - 1; }
  // `parts` + 1 bounds, 0 first and step_end() last, cutting the send steps
  // into ranges of about as many lines each (a busy step is never cut, so
  // ranges may be empty).
  std::vector<std::size_t> split_steps(std::size_t parts) const;
  // The blocks of send steps [first_step, last_step): line_of is called once
  // per candidate (twice for some of a step found out of sender order), and
  // `prefetch`, when given, a few lines ahead of it.
  MessageStepBlocks encode(std::size_t first_step, std::size_t last_step, const MessageLineSource& line_of,
                           std::size_t max_blob, const MessageLinePrefetch& prefetch = nullptr) const;

 private:
  std::vector<std::size_t> step_first_;  // CSR over send steps into order_
  std::vector<std::uint32_t> order_;     // candidate indices
};

// Appends `later`'s blocks (of later send steps) to `blocks`.
void append_message_step_blocks(MessageStepBlocks& blocks, MessageStepBlocks&& later);

// The lines as build_message_step_blocks above, with the send steps that
// order them from `send_step_of` (MessageLineOrder::encode over all steps).
MessageStepBlocks build_message_step_blocks(const std::string& path, std::size_t candidates,
                                            const MessageSendStepSource& send_step_of,
                                            const MessageLineSource& line_of, std::size_t max_blob,
                                            const MessageLinePrefetch& prefetch = nullptr);
// (Re)creates message_step_blocks inside the caller's transaction and inserts the blocks.
void write_message_step_blocks(Database& db, const MessageStepBlocks& blocks);
// Both; returns the blocks' max_span.
std::int64_t write_message_step_blocks(Database& db, std::size_t candidates, const MessageLineSource& line_of);

bool has_message_steps(Database& db);

// Reads the lines of a run's analysis through prepared statements.
class MessageStepReader {
 public:
  explicit MessageStepReader(Database& db);
  // Lines sent at steps [send0, send1] that reach step recv_min or later and
  // have an end on a row within [row0, row1], appended to `out`.
  void read(std::int64_t send0, std::int64_t send1, std::int64_t recv_min, std::int64_t row0,
            std::int64_t row1, std::vector<MessageStepRecord>& out);
  // Every line, appended to `out`.
  void read_all(std::vector<MessageStepRecord>& out);

 private:
  Database& db_;
  bool blocks_;  // false: an older run's message_steps rows
  Statement window_;
  Statement all_;
  std::vector<MessageStepRecord> scratch_;
};

}  // namespace weft::db
