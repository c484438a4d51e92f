#include "structure/message_step_blocks.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <span>
#include <utility>

#include "common/error.h"
#include "store/block_codec.h"
#include "store/meta.h"

namespace weft::db {
namespace {

constexpr std::size_t kPrefetchLines = 16;  // how far ahead `prefetch` is asked

// The block rows: bounds first, so that the window query filters on them
// before it reads a blob.
constexpr const char* kBlocksWindowSql =
    "SELECT send_step, data FROM message_step_blocks"
    " WHERE send_step BETWEEN ?1 AND ?2 AND recv_hi >= ?3"
    " AND ((src_lo <= ?5 AND src_hi >= ?4) OR (dst_lo <= ?5 AND dst_hi >= ?4))";
constexpr const char* kBlocksAllSql = "SELECT send_step, data FROM message_step_blocks";
// An older run: one row per line.
constexpr const char* kRowsWindowSql =
    "SELECT message, src, dst, send_step, recv_step FROM message_steps"
    " WHERE send_step BETWEEN ?1 AND ?2 AND recv_step >= ?3"
    " AND ((src BETWEEN ?4 AND ?5) OR (dst BETWEEN ?4 AND ?5))";
constexpr const char* kRowsAllSql = "SELECT message, src, dst, send_step, recv_step FROM message_steps";

// Appends `lines` as one block, or as halves (recursively) when its blob
// would be longer than `max_blob`; a single line is always one block.
void add_fitting_blocks(std::span<const MessageStepRecord> lines, std::size_t max_blob, std::int64_t& seq,
                        std::vector<std::uint8_t>& scratch, MessageStepBlocks& out) {
  scratch.clear();
  encode_message_step_block(lines, scratch);
  if (scratch.size() > max_blob && lines.size() > 1) {
    const std::size_t half = lines.size() / 2;
    add_fitting_blocks(lines.first(half), max_blob, seq, scratch, out);
    add_fitting_blocks(lines.subspan(half), max_blob, seq, scratch, out);
    return;
  }
  MessageStepBlocks::Block b;
  b.send_step = lines.front().send_step;
  b.seq = seq++;
  b.count = static_cast<std::int64_t>(lines.size());
  b.src_lo = b.src_hi = lines.front().src;
  b.dst_lo = b.dst_hi = lines.front().dst;
  b.recv_hi = lines.front().recv_step;
  for (const MessageStepRecord& m : lines) {
    b.src_lo = std::min(b.src_lo, m.src);
    b.src_hi = std::max(b.src_hi, m.src);
    b.dst_lo = std::min(b.dst_lo, m.dst);
    b.dst_hi = std::max(b.dst_hi, m.dst);
    b.recv_hi = std::max(b.recv_hi, m.recv_step);
  }
  b.blob.assign(scratch.begin(), scratch.end());
  out.blocks.push_back(std::move(b));
}

}  // namespace

// A WITHOUT ROWID row longer than the index b-tree's local payload limit,
// (U - 12) * 64 / 255 - 23 bytes for usable page size U (SQLite's file
// format), spills its tail into an overflow page of its own: at 1,024 lines a
// block of ~4.8 KB left most of a 16 KiB overflow page empty, 17 MB of the
// 24 MB table at 16,384 processes. The margin covers the record header and
// the key and bounds columns.
std::size_t largest_message_step_blob(Database& db) {
  const std::int64_t usable = db.query_int("PRAGMA page_size");
  const std::int64_t max_local = (usable - 12) * 64 / 255 - 23;
  return static_cast<std::size_t>(std::max<std::int64_t>(max_local - 64, 256));
}

MessageStepBlocks build_message_step_blocks(const std::string& path, std::size_t candidates,
                                            const MessageLineSource& line_of, std::size_t max_blob) {
  MessageLine line{};
  return build_message_step_blocks(
      path, candidates,
      [&](std::size_t i, std::int32_t& send_step) {
        if (!line_of(i, line)) return false;
        send_step = line.send_step;
        return true;
      },
      line_of, max_blob);
}

MessageLineOrder::MessageLineOrder(const std::string& path, std::size_t candidates,
                                   const MessageSendStepSource& send_step_of) {
  if (candidates > UINT32_MAX) throw Error(path, "more than 2^32 message lines");
  // Counting sort of the candidates by send step: lines per step, then each
  // step's candidates in place.
  std::int32_t send_step = 0;
  for (std::size_t i = 0; i < candidates; ++i) {
    if (!send_step_of(i, send_step)) continue;
    if (send_step < 0) throw Error(path, "message line with a negative send step");
    const auto step = static_cast<std::size_t>(send_step);
    if (step + 2 > step_first_.size()) step_first_.resize(step + 2, 0);
    ++step_first_[step + 1];
  }
  for (std::size_t s = 1; s < step_first_.size(); ++s) step_first_[s] += step_first_[s - 1];
  order_.resize(step_first_.empty() ? 0 : step_first_.back());
  std::vector<std::size_t> fill(step_first_);
  for (std::size_t i = 0; i < candidates; ++i)
    if (send_step_of(i, send_step)) order_[fill[static_cast<std::size_t>(send_step)]++] = static_cast<std::uint32_t>(i);
}

std::vector<std::size_t> MessageLineOrder::split_steps(std::size_t parts) const {
  std::vector<std::size_t> bounds{0};
  const std::size_t lines = order_.size();
  std::size_t step = 0;
  for (std::size_t k = 1; k < parts; ++k) {
    // The first step that starts at or after the k-th share of the lines.
    const std::size_t target = lines * k / parts;
    while (step < step_end() && step_first_[step] < target) ++step;
    bounds.push_back(step);
  }
  bounds.push_back(step_end());
  return bounds;
}

MessageStepBlocks MessageLineOrder::encode(std::size_t first_step, std::size_t last_step,
                                           const MessageLineSource& line_of, std::size_t max_blob,
                                           const MessageLinePrefetch& prefetch) const {
  MessageStepBlocks out;
  // A send step's lines go out sorted by sender and message, in blocks of at
  // most kMessageStepsPerBlock lines. Candidates numbered in that order (an
  // analysis' messages) are encoded a block at a time as they come, checked
  // line by line: one block's lines are held (64 KB), where holding the
  // busiest step's lines to check and sort them took 24 bytes per line of
  // that step (6.3 MB at 65,536 processes, on each thread that encodes a
  // part). A step found out of order is dropped and encoded again, sorted.
  const auto by_sender = [](const MessageLine& a, const MessageLine& b) {
    return a.src != b.src ? a.src < b.src : a.message < b.message;
  };
  std::vector<MessageStepRecord> block_lines;
  block_lines.reserve(kMessageStepsPerBlock);
  std::vector<std::uint8_t> scratch;
  std::vector<MessageLine> step_lines;  // only for steps out of order
  auto read_line = [&](std::size_t k, std::size_t end, MessageLine& line) {
    if (prefetch && k + kPrefetchLines < end) prefetch(order_[k + kPrefetchLines]);
    line_of(order_[k], line);
  };
  auto add_block = [&](std::span<const MessageLine> lines, std::int64_t& seq) {
    block_lines.clear();
    for (const MessageLine& l : lines) block_lines.push_back({l.message, l.src, l.dst, l.send_step, l.recv_step});
    add_fitting_blocks(block_lines, max_blob, seq, scratch, out);
  };
  std::array<MessageLine, kMessageStepsPerBlock> block{};
  for (std::size_t s = first_step; s < last_step; ++s) {
    const std::size_t first = step_first_[s], end = step_first_[s + 1];
    const std::size_t blocks_before = out.blocks.size();
    const std::int64_t span_before = out.max_span;
    std::int64_t seq = 0;
    bool in_order = true;
    for (std::size_t at = first; at < end && in_order; at += kMessageStepsPerBlock) {
      const std::size_t count = std::min(kMessageStepsPerBlock, end - at);
      for (std::size_t j = 0; j < count && in_order; ++j) {
        read_line(at + j, end, block[j]);
        const MessageLine& line = block[j];
        // The line before: in this block, or the last of the full block before.
        const MessageLine& previous = block[j > 0 ? j - 1 : kMessageStepsPerBlock - 1];
        if ((j > 0 || at > first) && by_sender(line, previous)) in_order = false;
        out.max_span = std::max<std::int64_t>(out.max_span, std::int64_t{line.recv_step} - line.send_step);
      }
      if (in_order) add_block(std::span<const MessageLine>(block.data(), count), seq);
    }
    if (in_order) continue;
    out.blocks.resize(blocks_before);
    out.max_span = span_before;
    if (step_lines.capacity() == 0) {
      // Sized once for the busiest step of the range: grown line by line, it
      // left its smaller buffers behind as holes in the heap.
      std::size_t most_lines = 0;
      for (std::size_t t = s; t < last_step; ++t) most_lines = std::max(most_lines, step_first_[t + 1] - step_first_[t]);
      step_lines.reserve(most_lines);
    }
    step_lines.resize(end - first);
    for (std::size_t k = first; k < end; ++k) {
      read_line(k, end, step_lines[k - first]);
      const MessageLine& line = step_lines[k - first];
      out.max_span = std::max<std::int64_t>(out.max_span, std::int64_t{line.recv_step} - line.send_step);
    }
    std::sort(step_lines.begin(), step_lines.end(), by_sender);
    seq = 0;
    for (std::size_t at = 0; at < step_lines.size(); at += kMessageStepsPerBlock)
      add_block(std::span<const MessageLine>(step_lines).subspan(at, std::min(kMessageStepsPerBlock, step_lines.size() - at)),
                seq);
  }
  return out;
}

void append_message_step_blocks(MessageStepBlocks& blocks, MessageStepBlocks&& later) {
  if (blocks.blocks.empty()) {
    blocks.blocks = std::move(later.blocks);
  } else {
    blocks.blocks.insert(blocks.blocks.end(), std::make_move_iterator(later.blocks.begin()),
                         std::make_move_iterator(later.blocks.end()));
  }
  blocks.max_span = std::max(blocks.max_span, later.max_span);
}

MessageStepBlocks build_message_step_blocks(const std::string& path, std::size_t candidates,
                                            const MessageSendStepSource& send_step_of,
                                            const MessageLineSource& line_of, std::size_t max_blob,
                                            const MessageLinePrefetch& prefetch) {
  const MessageLineOrder order(path, candidates, send_step_of);
  return order.encode(0, order.step_end(), line_of, max_blob, prefetch);
}

void write_message_step_blocks(Database& db, const MessageStepBlocks& blocks) {
  db.exec("DROP TABLE IF EXISTS message_step_blocks");
  if (has_table(db, "message_steps")) db.exec("DROP TABLE message_steps");  // an older run's rows
  db.exec(
      "CREATE TABLE message_step_blocks(send_step INTEGER NOT NULL, seq INTEGER NOT NULL,"
      " count INTEGER NOT NULL, src_lo INTEGER NOT NULL, src_hi INTEGER NOT NULL,"
      " dst_lo INTEGER NOT NULL, dst_hi INTEGER NOT NULL, recv_hi INTEGER NOT NULL,"
      " data BLOB NOT NULL, PRIMARY KEY(send_step, seq)) WITHOUT ROWID");
  Statement insert = db.prepare("INSERT INTO message_step_blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const MessageStepBlocks::Block& b : blocks.blocks) {
    const std::int64_t columns[] = {b.send_step, b.seq, b.count, b.src_lo, b.src_hi, b.dst_lo, b.dst_hi, b.recv_hi};
    for (int c = 0; c < 8; ++c) insert.bind(c + 1, columns[c]);
    insert.bind_blob_static(9, b.blob.data(), b.blob.size());
    insert.run();
  }
}

std::int64_t write_message_step_blocks(Database& db, std::size_t candidates, const MessageLineSource& line_of) {
  MessageStepBlocks blocks = build_message_step_blocks(db.path(), candidates, line_of, largest_message_step_blob(db));
  write_message_step_blocks(db, blocks);
  return blocks.max_span;
}

bool has_message_steps(Database& db) {
  return has_table(db, "message_step_blocks") || has_table(db, "message_steps");
}

MessageStepReader::MessageStepReader(Database& db)
    : db_(db),
      blocks_(has_table(db, "message_step_blocks")),
      window_(db, blocks_ ? kBlocksWindowSql : kRowsWindowSql),
      all_(db, blocks_ ? kBlocksAllSql : kRowsAllSql) {}

void MessageStepReader::read(std::int64_t send0, std::int64_t send1, std::int64_t recv_min, std::int64_t row0,
                             std::int64_t row1, std::vector<MessageStepRecord>& out) {
  window_.bind(1, send0);
  window_.bind(2, send1);
  window_.bind(3, recv_min);
  window_.bind(4, row0);
  window_.bind(5, row1);
  while (window_.step()) {
    if (!blocks_) {
      out.push_back({window_.column_int(0), window_.column_int(1), window_.column_int(2), window_.column_int(3),
                     window_.column_int(4)});
      continue;
    }
    scratch_.clear();
    decode_message_step_block(window_.column_blob(1), window_.column_int(0), scratch_, db_.path());
    for (const MessageStepRecord& m : scratch_)
      if (m.recv_step >= recv_min && ((m.src >= row0 && m.src <= row1) || (m.dst >= row0 && m.dst <= row1)))
        out.push_back(m);
  }
  window_.reset();
}

void MessageStepReader::read_all(std::vector<MessageStepRecord>& out) {
  while (all_.step()) {
    if (blocks_)
      decode_message_step_block(all_.column_blob(1), all_.column_int(0), out, db_.path());
    else
      out.push_back({all_.column_int(0), all_.column_int(1), all_.column_int(2), all_.column_int(3),
                     all_.column_int(4)});
  }
  all_.reset();
}

}  // namespace weft::db
