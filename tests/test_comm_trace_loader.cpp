// The structure analysis' loader (db/structure/comm_trace_loader.h) reads the
// messages and collective members on a second connection and thread while it
// reads the events, and on its one connection when asked to or when the file
// is locked to that connection: all three give the same trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>
#include <string>

#include "import_test_support.h"
#include "store/block_codec.h"
#include "store/sqlite.h"
#include "store/record_scan.h"
#include "structure/comm_trace_loader.h"
#include "structure/message_block_meeting.h"
#include "weft_test_db.h"

using weft::test::quoted;
using weft::test::run_command;

namespace {

// Every column of the loaded trace, as text.
std::string dump(const weft::db::LoadedCommTrace& l) {
  const weft::structure::CommTrace& t = l.trace;
  std::string s = "processes " + std::to_string(t.process_count) + " unmatched " +
                  std::to_string(l.unmatched_messages) + "\n";
  auto column = [&](const char* name, const auto& values) {
    s += name;
    for (const auto& v : values) s += " " + std::to_string(static_cast<long long>(v));
    s += "\n";
  };
  column("process", t.process);
  column("start", t.start);
  column("end", t.end);
  column("kind", t.kind);
  column("event", t.event_id);
  column("first_op", t.process_first_op);
  column("send", t.msg_send_op);
  column("recv", t.msg_recv_op);
  column("post", t.msg_post_op);
  column("send_done", t.msg_send_done_op);
  column("coll_first", t.coll_first);
  column("coll_members", t.coll_members);
  std::vector<std::int32_t> regions;
  for (std::size_t op = 0; op < l.region.size(); ++op) regions.push_back(l.region[op]);
  column("region", regions);
  column("message_id", l.message_id);
  column("collective_id", l.collective_id);
  return s;
}

// `weft synth <pattern>` imported without analysis into dir/run.weft, whose
// path it returns (empty, with a test failure, when a command fails).
std::string synth_and_import(const weft::test::TempDir& dir, const std::string& pattern) {
  const std::filesystem::path trace = dir.path / "trace", weft = dir.path / "run.weft";
  auto s = run_command(std::string(WEFT_BINARY) + " synth " + pattern + " -o " + quoted(trace));
  EXPECT_EQ(s.exit_code, 0) << s.output;
  auto i = run_command(std::string(WEFT_BINARY) + " import -q --no-analyze " + quoted(trace / "traces.otf2") +
                       " -o " + quoted(weft));
  EXPECT_EQ(i.exit_code, 0) << i.output;
  return s.exit_code == 0 && i.exit_code == 0 ? weft.string() : std::string();
}

}  // namespace

TEST(CommTraceLoader, OneOrTwoConnectionsAndALockedFileLoadTheSameTrace) {
  weft::test::TempDir dir("loader");
  const std::string run = synth_and_import(dir, "amg-like -n 12 -i 3 --jitter 0.2");
  ASSERT_FALSE(run.empty());

  weft::db::Database db(run, weft::db::Database::Mode::ReadWrite);
  const std::string two = dump(weft::db::load_comm_trace(db, {"", true}));
  EXPECT_NE(two.find("collective_id "), std::string::npos);
  EXPECT_GT(two.size(), 2000u);
  EXPECT_EQ(dump(weft::db::load_comm_trace(db, {"", false})), two);

  // Locked: a rollback journal and an exclusive transaction keep every other
  // connection out, so the loader reads everything on this one.
  db.exec("PRAGMA journal_mode=DELETE");
  db.exec("BEGIN EXCLUSIVE");
  {
    weft::db::Database other(run, weft::db::Database::Mode::ReadOnly);
    sqlite3_busy_timeout(other.handle(), 0);
    EXPECT_THROW(other.query_int("SELECT count(*) FROM processes"), weft::Error) << "the file should be locked";
  }
  EXPECT_EQ(dump(weft::db::load_comm_trace(db, {"", true})), two);
  db.exec("COMMIT");
}

// MPI_Sendrecv: a receive call that also sends is two ops on one event, its
// send half then its receive half (so that two ranks exchanging through it
// make no happened-before cycle). The send half is what the message it sends
// refers to, the receive half what the message it receives refers to. A wait
// that completes nothing stays out; one a message refers to is an op.
TEST(CommTraceLoader, ASendrecvIsASendAndAReceiveOnOneEvent) {
  using weft::structure::OpKind;
  weft::testing::TestTrace trace;
  trace.processes = 2;
  trace.regions.push_back({6, "MPI_Sendrecv", "mpi", weft::RegionKind::Recv});
  // Event ids: process 0: 0 main, 1 Sendrecv, 2 Waitall; process 1: 3 main,
  // 4 Isend, 5 Waitall, 6 Sendrecv.
  trace.events = {{0, 0, 100, 0, 0}, {0, 10, 20, 6, 1}, {0, 30, 40, 4, 1},
                  {1, 0, 100, 0, 0}, {1, 5, 8, 2, 1},   {1, 12, 18, 4, 1}, {1, 25, 35, 6, 1}};
  trace.messages = {{0, 1, 10, 18, 1, 5},    // 0's Sendrecv sends it, 1's Waitall completes it
                    {1, 0, 5, 20, 4, 1},     // 1's Isend to 0's Sendrecv
                    {1, 0, 25, 40, 6, -1},   // 1's Sendrecv sends it; its receive is not traced
                    {0, 1, 50, 60, 99, -1}};  // refers to no stored event: dropped
  const std::string path = weft::testing::temp_weft_path("sendrecv");
  weft::testing::write_test_weft(path, trace);
  weft::db::Database db(path, weft::db::Database::Mode::ReadOnly);
  for (const bool two_threads : {false, true}) {
    const weft::db::LoadedCommTrace l = weft::db::load_comm_trace(db, {"", two_threads});
    const weft::structure::CommTrace& t = l.trace;
    // Ops in event id order: event 1 split (0 send, 1 receive), the Isend
    // (2), the Waitall of process 1 (3: a message's receive event; process
    // 0's completes nothing and is no op), event 6 split (4, 5).
    ASSERT_EQ(t.op_count(), 6) << two_threads;
    EXPECT_EQ(t.event_id, (std::vector<weft::structure::StoredEventId>{1, 1, 4, 5, 6, 6})) << two_threads;
    EXPECT_EQ(t.kind, (std::vector<OpKind>{OpKind::Send, OpKind::Recv, OpKind::Isend, OpKind::Wait, OpKind::Send,
                                           OpKind::Recv}))
        << two_threads;
    EXPECT_TRUE(weft::db::is_split_send_half(t, 0));
    EXPECT_FALSE(weft::db::is_split_send_half(t, 1));
    EXPECT_EQ(weft::db::op_of_event(t, 1), 0);
    EXPECT_EQ(weft::db::receive_op_of_event(t, 1), 1);
    EXPECT_EQ(weft::db::op_of_event(t, 2), weft::structure::kNoOp);
    // Messages come in the store's scan order: (id, send op, receive op) by id.
    std::vector<std::array<std::int64_t, 3>> messages;
    for (std::size_t m = 0; m < l.message_id.size(); ++m)
      messages.push_back({l.message_id[m], t.msg_send_op[m], t.msg_recv_op[m]});
    std::sort(messages.begin(), messages.end());
    EXPECT_EQ(messages, (std::vector<std::array<std::int64_t, 3>>{{0, 0, 3}, {1, 2, 1}, {2, 4, weft::structure::kNoOp}}))
        << two_threads;
    EXPECT_EQ(l.unmatched_messages, 1);
  }
}

// The region column holds 1 byte per op for a table of six regions; an op
// whose event names a region past the table (a damaged store: here the wait
// a message refers to, in region 300) keeps that reference, through the
// ops kept aside (common/narrow_column.h), on one connection or two.
TEST(CommTraceLoader, AnOpsRegionPastTheTableIsKeptAsItWasRead) {
  weft::testing::TestTrace trace;
  trace.processes = 2;
  // Event ids: process 0: 0 main, 1 Isend; process 1: 2 main, 3 a wait in
  // region 300, 4 Waitall.
  trace.events = {{0, 0, 100, 0, 0}, {0, 10, 20, 2, 1}, {1, 0, 100, 0, 0}, {1, 30, 40, 300, 1}, {1, 50, 60, 4, 1}};
  trace.messages = {{0, 1, 10, 40, 1, 3}};
  const std::string path = weft::testing::temp_weft_path("region_past_table");
  weft::testing::write_test_weft(path, trace);
  weft::db::Database db(path, weft::db::Database::Mode::ReadOnly);
  for (const bool two_threads : {false, true}) {
    const weft::db::LoadedCommTrace l = weft::db::load_comm_trace(db, {"", two_threads});
    ASSERT_EQ(l.trace.op_count(), 2) << two_threads;  // the Isend and the wait (the Waitall completes nothing)
    EXPECT_EQ(l.region.width(), 1u);
    EXPECT_EQ(l.region[0], 2) << two_threads;
    EXPECT_EQ(l.region[1], 300) << two_threads;
  }
}

// Message store ids are held in 32 bits: a damaged store whose message has
// an id past 2^31 - 1 is refused with an error naming the file and the id,
// on one connection or two.
TEST(CommTraceLoader, AMessageIdPastThirtyOneBitsIsRefusedNamingTheFile) {
  weft::testing::TestTrace trace;
  trace.processes = 2;
  trace.events = {{0, 0, 100, 0, 0}, {0, 10, 20, 2, 1}, {1, 0, 100, 0, 0}, {1, 30, 40, 4, 1}};
  trace.messages = {{0, 1, 10, 40, 1, 3}};
  const std::string path = weft::testing::temp_weft_path("message_id_range");
  weft::testing::write_test_weft(path, trace);
  {
    weft::db::Database db(path, weft::db::Database::Mode::ReadWrite);
    weft::db::Statement row = db.prepare("SELECT process, data FROM message_blocks");
    ASSERT_TRUE(row.step());
    const std::int64_t owner = row.column_int(0);
    std::vector<weft::db::MessageRecord> messages;
    weft::db::decode_message_block(row.column_blob(1), owner, messages);
    ASSERT_EQ(messages.size(), 1u);
    row.reset();
    messages[0].id = std::int64_t{1} << 31;
    std::vector<std::uint8_t> blob;
    weft::db::encode_message_block(messages, owner, blob);
    weft::db::Statement update = db.prepare("UPDATE message_blocks SET data = ?");
    update.bind_blob_static(1, blob.data(), blob.size());
    update.run();
  }
  weft::db::Database db(path, weft::db::Database::Mode::ReadOnly);
  for (const bool two_threads : {false, true}) {
    try {
      weft::db::load_comm_trace(db, {"", two_threads});
      ADD_FAILURE() << "loaded a message id past 2^31 - 1, two threads " << two_threads;
    } catch (const weft::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find("message id 2147483648 out of range"), std::string::npos) << what;
    }
  }
}

// The two sides of the message scan, driven by hand in every interleaving of
// a few steps: the front side's blocks are a first run of the keys, the back
// side's the rest, and no key is taken twice or left out.
TEST(MessageBlockMeeting, TheTwoEndsTakeEveryBlockOnce) {
  std::vector<weft::db::MessageBlockKey> keys;
  for (std::int64_t bucket = 0; bucket < 3; ++bucket)
    for (std::int64_t process = 0; process < 3; ++process) keys.push_back({bucket, process, process % 2});
  const int n = static_cast<int>(keys.size());
  // pattern bit i: step i moves the front side (1) or the back side (0);
  // a side that was refused stops, as scan_message_blocks does.
  for (unsigned pattern = 0; pattern < (1u << 12); ++pattern) {
    weft::db::MessageBlockMeeting meeting;
    int front = 0, back = n - 1;  // the next key each side tries
    bool front_done = false, back_done = false;
    std::vector<int> taken(keys.size(), 0);
    for (int step = 0; !(front_done && back_done); ++step) {
      const bool move_front = step < 12 ? (pattern >> step & 1u) != 0 : !front_done;
      if (move_front && !front_done) {
        if (front < n && meeting.take_from_front(keys[static_cast<std::size_t>(front)]))
          ++taken[static_cast<std::size_t>(front++)];
        else
          front_done = true;
      } else if (!move_front && !back_done) {
        if (back >= 0 && meeting.take_from_back(keys[static_cast<std::size_t>(back)]))
          ++taken[static_cast<std::size_t>(back--)];
        else
          back_done = true;
      }
    }
    EXPECT_EQ(taken, std::vector<int>(keys.size(), 1)) << "pattern " << pattern;
    EXPECT_EQ(front, back + 1) << "pattern " << pattern;  // a first run and the rest
  }
}

// scan_message_blocks from the front gives the records of scan_messages in
// its order; from the back, the same blocks last first, each in its order;
// a refused claim ends the scan.
TEST(CommTraceLoader, MessageBlocksScanFromEitherEnd) {
  weft::test::TempDir dir("blocks");
  const std::string run = synth_and_import(dir, "stencil2d -n 16 -i 4");
  ASSERT_FALSE(run.empty());
  weft::db::Database db(run, weft::db::Database::Mode::ReadOnly);
  std::vector<std::int64_t> all;
  weft::db::scan_messages(db, [&](std::span<const weft::db::MessageRecord> batch) {
    for (const weft::db::MessageRecord& m : batch) all.push_back(m.id);
  });
  auto blocks_from = [&](weft::db::ScanFrom from, std::size_t at_most) {
    std::vector<std::vector<std::int64_t>> blocks;
    std::vector<weft::db::MessageBlockKey> keys;
    weft::db::scan_message_blocks(
        db, from,
        [&](const weft::db::MessageBlockKey& key) {
          keys.push_back(key);
          return blocks.size() < at_most;
        },
        [&](std::span<const weft::db::MessageRecord> block) {
          blocks.emplace_back();
          for (const weft::db::MessageRecord& m : block) blocks.back().push_back(m.id);
        });
    return std::make_pair(blocks, keys);
  };
  const auto [front, front_keys] = blocks_from(weft::db::ScanFrom::Front, SIZE_MAX);
  ASSERT_GT(front.size(), 3u);
  EXPECT_TRUE(std::is_sorted(front_keys.begin(), front_keys.end()));
  std::vector<std::int64_t> joined;
  for (const auto& b : front) joined.insert(joined.end(), b.begin(), b.end());
  EXPECT_EQ(joined, all);
  const auto [back, back_keys] = blocks_from(weft::db::ScanFrom::Back, SIZE_MAX);
  EXPECT_EQ(std::vector(back.rbegin(), back.rend()), front);
  EXPECT_TRUE(std::is_sorted(back_keys.rbegin(), back_keys.rend()));
  const auto [two, two_keys] = blocks_from(weft::db::ScanFrom::Back, 2);
  EXPECT_EQ(two.size(), 2u);
  EXPECT_EQ(two_keys.size(), 3u);  // the third claim was refused, and the scan ended
}

// Where the two threads meet in the messages depends on their speeds: loaded
// many times, the trace is the same as one thread's every time.
TEST(CommTraceLoader, TwoThreadsMeetingAnywhereLoadTheSameTrace) {
  weft::test::TempDir dir("meet");
  const std::string run = synth_and_import(dir, "stencil2d -n 64 -i 6");
  ASSERT_FALSE(run.empty());
  weft::db::Database db(run, weft::db::Database::Mode::ReadOnly);
  const std::string one = dump(weft::db::load_comm_trace(db, {"", false}));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(dump(weft::db::load_comm_trace(db, {"", true})), one) << "load " << i;
}
