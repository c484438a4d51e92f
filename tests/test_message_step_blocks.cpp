// The logical view's message lines as blocks (db/structure/message_step_blocks.h):
// blocks keep every line once, in (send step, src, message) order, and are cut
// so that each blob stays on its b-tree page (no overflow pages).
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "store/block_codec.h"
#include "store/sqlite.h"
#include "structure/message_step_blocks.h"
#include "weft_test_db.h"

using namespace weft;

namespace {

// Lines of messages 0..n-1: sent at step 1 + 2 (m % 3) by row (m * 7) % 97 to
// row (m * 13) % 89, received 2 + 2 (m % 5) steps later; every 11th message
// is one-sided (no line).
bool line_of(std::size_t m, db::MessageLine& line) {
  if (m % 11 == 10) return false;
  const auto i = static_cast<std::int32_t>(m);
  line = {static_cast<std::int64_t>(m) * 1000 + 17, (i * 7) % 97, (i * 13) % 89, 1 + 2 * (i % 3),
          1 + 2 * (i % 3) + 2 + 2 * (i % 5)};
  return true;
}

using LineKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

std::vector<LineKey> expected_lines(std::size_t n) {
  std::vector<LineKey> lines;
  db::MessageLine l{};
  for (std::size_t m = 0; m < n; ++m)
    if (line_of(m, l)) lines.emplace_back(l.send_step, l.src, l.message, l.dst, l.recv_step);
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace

TEST(MessageStepBlocks, BlocksLongerThanTheLimitAreHalvedAndKeepEveryLineInOrder) {
  constexpr std::size_t kMessages = 9000;  // 8,182 lines: 2,727 or 2,728 per send step
  constexpr std::size_t kMaxBlob = 600;
  const db::MessageStepBlocks built = db::build_message_step_blocks("test", kMessages, line_of, kMaxBlob);
  std::vector<LineKey> read;
  std::int64_t previous_step = -1, next_seq = 0, max_span = 0;
  for (const db::MessageStepBlocks::Block& b : built.blocks) {
    EXPECT_LE(b.blob.size(), kMaxBlob);
    EXPECT_LE(b.count, static_cast<std::int64_t>(db::kMessageStepsPerBlock));
    if (b.send_step != previous_step) next_seq = 0;
    EXPECT_EQ(b.seq, next_seq++) << "blocks of a send step are numbered 0, 1, ...";
    previous_step = b.send_step;
    std::vector<db::MessageStepRecord> lines;
    db::decode_message_step_block(b.blob, b.send_step, lines, "test");
    ASSERT_EQ(static_cast<std::int64_t>(lines.size()), b.count);
    for (const db::MessageStepRecord& m : lines) {
      EXPECT_TRUE(m.src >= b.src_lo && m.src <= b.src_hi && m.dst >= b.dst_lo && m.dst <= b.dst_hi);
      EXPECT_LE(m.recv_step, b.recv_hi);
      read.emplace_back(m.send_step, m.src, m.message, m.dst, m.recv_step);
      max_span = std::max(max_span, m.recv_step - m.send_step);
    }
  }
  EXPECT_EQ(read, expected_lines(kMessages));  // every line once, sorted by (send step, src, message)
  EXPECT_EQ(built.max_span, max_span);
  EXPECT_EQ(max_span, 10);
  // ~5 bytes a line: 1,024-line blocks would be ~5 KB, so they were cut.
  EXPECT_GT(built.blocks.size(), 3 * (kMessages / 11 * 10) / db::kMessageStepsPerBlock);
}

TEST(MessageStepBlocks, StoredBlocksNeedNoOverflowPages) {
  for (const int page_size : {4096, 16384}) {
    const std::string path = weft::testing::temp_weft_path("msteps" + std::to_string(page_size));
    db::Database db(path, db::Database::Mode::Create);
    db.exec("PRAGMA page_size=" + std::to_string(page_size));
    db.exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value)");  // the page size takes effect with the first table
    // (U - 12) * 64 / 255 - 23 local bytes, less a margin of 64 for the other columns.
    EXPECT_EQ(db::largest_message_step_blob(db), page_size == 4096 ? 938u : 4022u);
    EXPECT_EQ(db::write_message_step_blocks(db, 40000, line_of), 10);
    EXPECT_EQ(db.query_int("SELECT sum(count) FROM message_step_blocks"),
              static_cast<std::int64_t>(expected_lines(40000).size()));
    EXPECT_EQ(db.query_int("SELECT count(*) FROM dbstat WHERE name = 'message_step_blocks' AND pagetype = 'overflow'"),
              0)
        << page_size;
    EXPECT_GT(db.query_int("SELECT count(*) FROM message_step_blocks WHERE count > 1"), 0);
  }
}

// The send steps may come from a source of their own (an analysis reads them
// without the receive side): the blocks are the same bytes as with the lines
// alone, whether the candidates arrive out of sender order (sorted per step)
// or in it (as an analysis numbers its messages: only checked).
TEST(MessageStepBlocks, ASendStepSourceGivesTheSameBlocks) {
  constexpr std::size_t kMessages = 6000;
  auto in_sender_order = [](std::size_t m, db::MessageLine& line) {
    if (m % 11 == 10) return false;
    const auto i = static_cast<std::int32_t>(m);
    line = {static_cast<std::int64_t>(m) + 5, i / 60, (i * 13) % 89, 1 + 2 * (i % 3), 1 + 2 * (i % 3) + 2};
    return true;
  };
  for (const db::MessageLineSource& lines : {db::MessageLineSource(line_of), db::MessageLineSource(in_sender_order)}) {
    const db::MessageStepBlocks alone = db::build_message_step_blocks("test", kMessages, lines, 600);
    db::MessageLine line{};
    const db::MessageStepBlocks with_steps = db::build_message_step_blocks(
        "test", kMessages,
        [&](std::size_t m, std::int32_t& send_step) {
          if (!lines(m, line)) return false;
          send_step = line.send_step;
          return true;
        },
        lines, 600);
    ASSERT_EQ(alone.blocks.size(), with_steps.blocks.size());
    std::vector<LineKey> read;
    for (std::size_t b = 0; b < alone.blocks.size(); ++b) {
      EXPECT_EQ(alone.blocks[b].blob, with_steps.blocks[b].blob) << b;
      std::vector<db::MessageStepRecord> decoded;
      db::decode_message_step_block(alone.blocks[b].blob, alone.blocks[b].send_step, decoded, "test");
      for (const db::MessageStepRecord& m : decoded) read.emplace_back(m.send_step, m.src, m.message, m.dst, m.recv_step);
    }
    std::vector<LineKey> expected;
    for (std::size_t m = 0; m < kMessages; ++m)
      if (lines(m, line)) expected.emplace_back(line.send_step, line.src, line.message, line.dst, line.recv_step);
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(read, expected);
    EXPECT_EQ(alone.max_span, with_steps.max_span);
  }
}

// The lines cut into ranges of send steps, encoded apart (as the analysis
// does on two threads, db/structure/view_tables.cpp) and joined, are the
// blocks made in one go, whatever the number of parts, and the ranges hold
// about as many lines each without cutting a step.
TEST(MessageStepBlocks, PartsEncodedApartJoinToTheSameBlocks) {
  // 10,000 messages, 1,000 sent at each of the steps 0..9, by sender m / 10.
  constexpr std::size_t kMessages = 10000;
  auto lines = [](std::size_t m, db::MessageLine& line) {
    const auto i = static_cast<std::int32_t>(m);
    line = {static_cast<std::int64_t>(m), i / 10, (i * 13) % 89, i % 10, i % 10 + 1 + i % 3};
    return true;
  };
  auto send_step_of = [&](std::size_t m, std::int32_t& send_step) {
    db::MessageLine line{};
    lines(m, line);
    send_step = line.send_step;
    return true;
  };
  const db::MessageStepBlocks whole = db::build_message_step_blocks("test", kMessages, send_step_of, lines, 600);
  const db::MessageLineOrder order("test", kMessages, send_step_of);
  ASSERT_EQ(order.step_end(), 10u);
  // The k-th of n bounds is the first step at or after k/n of the lines.
  EXPECT_EQ(order.split_steps(1), (std::vector<std::size_t>{0, 10}));
  EXPECT_EQ(order.split_steps(2), (std::vector<std::size_t>{0, 5, 10}));
  EXPECT_EQ(order.split_steps(3), (std::vector<std::size_t>{0, 4, 7, 10}));
  EXPECT_EQ(order.split_steps(8), (std::vector<std::size_t>{0, 2, 3, 4, 5, 7, 8, 9, 10}));
  for (const std::size_t parts : {1u, 2u, 3u, 8u, 16u}) {
    const std::vector<std::size_t> bounds = order.split_steps(parts);
    ASSERT_EQ(bounds.size(), parts + 1);
    // Encoded last part first, as the analysis' helper thread takes them.
    std::vector<db::MessageStepBlocks> encoded(parts);
    for (std::size_t i = parts; i-- > 0;) encoded[i] = order.encode(bounds[i], bounds[i + 1], lines, 600);
    db::MessageStepBlocks joined;
    for (db::MessageStepBlocks& part : encoded) db::append_message_step_blocks(joined, std::move(part));
    ASSERT_EQ(joined.blocks.size(), whole.blocks.size()) << parts;
    for (std::size_t b = 0; b < whole.blocks.size(); ++b) {
      EXPECT_EQ(joined.blocks[b].send_step, whole.blocks[b].send_step);
      EXPECT_EQ(joined.blocks[b].seq, whole.blocks[b].seq);
      EXPECT_EQ(joined.blocks[b].blob, whole.blocks[b].blob);
    }
    EXPECT_EQ(joined.max_span, 3);
    EXPECT_EQ(joined.max_span, whole.max_span);
  }
}

// Lines are encoded a block at a time while they come in sender order; a
// step found out of order after some of its blocks went out is encoded again
// from its start, sorted: every line once, blocks numbered from 0, as for a
// step out of order from its first line.
TEST(MessageStepBlocks, AStepFoundOutOfOrderPartWayIsEncodedAgainSorted) {
  // Step 3: 3,000 lines, senders 0, 1, 2, ... except line 2,048, whose sender
  // is 0 again: the first of the third block, after two full blocks went out
  // (out of order only against the block before). Step 5: in order.
  constexpr std::size_t kMessages = 4000;
  auto lines = [](std::size_t m, db::MessageLine& line) {
    const auto i = static_cast<std::int32_t>(m);
    const bool late = m == 2048;
    line = {static_cast<std::int64_t>(m), late ? 0 : i, i % 89, m < 3000 ? 3 : 5, m < 3000 ? 4 : 9};
    return true;
  };
  const db::MessageStepBlocks built = db::build_message_step_blocks("test", kMessages, lines, 100000);
  std::vector<LineKey> read;
  std::vector<std::pair<std::int64_t, std::int64_t>> keys;
  for (const db::MessageStepBlocks::Block& b : built.blocks) {
    keys.emplace_back(b.send_step, b.seq);
    std::vector<db::MessageStepRecord> decoded;
    db::decode_message_step_block(b.blob, b.send_step, decoded, "test");
    for (const db::MessageStepRecord& m : decoded) read.emplace_back(m.send_step, m.src, m.message, m.dst, m.recv_step);
  }
  // 3,000 lines in blocks of 1,024: 3 blocks at step 3, 1 at step 5.
  EXPECT_EQ(keys, (std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 0}, {3, 1}, {3, 2}, {5, 0}}));
  std::vector<LineKey> expected;
  db::MessageLine line{};
  for (std::size_t m = 0; m < kMessages; ++m) {
    lines(m, line);
    expected.emplace_back(line.send_step, line.src, line.message, line.dst, line.recv_step);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(read, expected);  // the late line first: sender 0, after message 0
  EXPECT_EQ(std::get<2>(read[1]), 2048);
  EXPECT_EQ(built.max_span, 4);
}
