#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "store/record_scan.h"
#include "store/window_query.h"
#include "weft_test_db.h"

using namespace weft;
using weft::testing::random_test_trace;
using weft::testing::temp_weft_path;
using weft::testing::write_test_weft;

namespace {

// Brute force: every event id overlapping the window, by a full table scan.
std::vector<EventId> scan_events(db::Database& database, const db::Window& w) {
  db::Statement s = database.prepare(
      "SELECT id FROM events WHERE end_ns >= ?1 AND start_ns <= ?2 AND process BETWEEN ?3 AND ?4"
      " ORDER BY id");
  s.bind(1, w.t0);
  s.bind(2, w.t1);
  s.bind(3, static_cast<std::int64_t>(w.p0));
  s.bind(4, static_cast<std::int64_t>(w.p1));
  std::vector<EventId> ids;
  while (s.step()) ids.push_back(s.column_int(0));
  return ids;
}

std::vector<std::int64_t> scan_messages(db::Database& database, const db::Window& w) {
  db::Statement s = database.prepare(
      "SELECT id FROM messages WHERE send_ns <= ?2 AND recv_ns >= ?1"
      " AND src IS NOT NULL AND dst IS NOT NULL"
      " AND (src BETWEEN ?3 AND ?4 OR dst BETWEEN ?3 AND ?4) ORDER BY id");
  s.bind(1, w.t0);
  s.bind(2, w.t1);
  s.bind(3, static_cast<std::int64_t>(w.p0));
  s.bind(4, static_cast<std::int64_t>(w.p1));
  std::vector<std::int64_t> ids;
  while (s.step()) ids.push_back(s.column_int(0));
  return ids;
}

}  // namespace

namespace {

void check_random_windows(const std::string& path) {
  db::WindowQuery query(path);
  db::Database database(path, db::Database::Mode::ReadOnly);
  const TimeNs end = query.meta().trace_end_ns;

  std::mt19937_64 rng(5);
  db::WindowEvents events;
  db::WindowMessages messages;
  for (int i = 0; i < 300; ++i) {
    db::Window w;
    w.t0 = static_cast<TimeNs>(rng() % static_cast<std::uint64_t>(end));
    // Widths from 1 ns to the whole trace.
    auto width = static_cast<TimeNs>(std::pow(static_cast<double>(end), static_cast<double>(rng() % 1000) / 1000.0));
    w.t1 = w.t0 + width;
    w.p0 = static_cast<ProcessIndex>(rng() % 12);
    w.p1 = w.p0 + static_cast<ProcessIndex>(rng() % static_cast<std::uint64_t>(12 - w.p0));
    query.read_events(w, events);
    std::vector<EventId> got = events.id;
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, scan_events(database, w)) << "window " << w.t0 << ".." << w.t1;
    // Every returned row really overlaps (the columns belong together).
    for (std::size_t k = 0; k < events.size(); ++k) {
      EXPECT_LE(events.start_ns[k], w.t1);
      EXPECT_GE(events.end_ns[k], w.t0);
      EXPECT_GE(events.region[k], 0);
    }
    query.read_messages(w, messages);
    std::vector<std::int64_t> got_messages = messages.id;
    std::sort(got_messages.begin(), got_messages.end());
    ASSERT_EQ(got_messages, scan_messages(database, w)) << "window " << w.t0 << ".." << w.t1;
  }
}

}  // namespace

TEST(WindowQuery, EventsAndMessagesMatchBruteForceForRandomWindows) {
  std::string path = temp_weft_path("wq");
  write_test_weft(path, random_test_trace(12, 400, 11));
  ASSERT_GT(db::WindowQuery(path).meta().max_level, 2) << "the trace should use several bucket levels";
  check_random_windows(path);
}

// The importer's coarse buckets (about kTargetEventsPerBlock events per
// block): few levels, many events per block, blocks reaching far outside a
// narrow window.
TEST(WindowQuery, CoarseBlocksMatchBruteForce) {
  std::string path = temp_weft_path("wq");
  weft::testing::TestTrace trace = random_test_trace(12, 400, 12);
  TimeNs end = 0;
  for (const auto& e : trace.events) end = std::max(end, e.end);
  trace.bucket_shift = db::choose_block_shift(end, 400);
  write_test_weft(path, trace);
  check_random_windows(path);
}

TEST(WindowQuery, LongEventSpanningTheTraceIsInEveryWindow) {
  std::string path = temp_weft_path("wq");
  write_test_weft(path, random_test_trace(3, 200, 2));
  db::WindowQuery query(path);
  db::WindowEvents events;
  const TimeNs end = query.meta().trace_end_ns;
  for (TimeNs t : {TimeNs{0}, end / 3, end / 2, end - 1, end}) {
    query.read_events({t, t, 1, 1}, events);
    auto depth0 = std::count(events.depth.begin(), events.depth.end(), 0);
    EXPECT_EQ(depth0, 1) << "at " << t;
    for (ProcessIndex p : events.process) EXPECT_EQ(p, 1);
  }
}

TEST(WindowQuery, ReadsTablesAndMeta) {
  std::string path = temp_weft_path("wq");
  write_test_weft(path, random_test_trace(4, 10, 3));
  db::WindowQuery query(path);
  ASSERT_EQ(query.processes().size(), 4u);
  EXPECT_EQ(query.processes().name[2], "Rank 2");
  ASSERT_EQ(query.regions().size(), 6u);
  EXPECT_EQ(query.regions().name[query.regions().index_of(4)], "MPI_Waitall");
  EXPECT_EQ(query.regions().kind[query.regions().index_of(4)], RegionKind::Wait);
  EXPECT_EQ(query.regions().index_of(99), -1);
}

TEST(WindowQuery, RejectsMissingAndForeignFiles) {
  EXPECT_THROW(db::WindowQuery("/nonexistent/run.weft"), Error);
  std::string text = temp_weft_path("not_sqlite");
  std::ofstream(text) << "hello, not a database\n";
  EXPECT_THROW(db::WindowQuery{text}, Error);
  std::string other = temp_weft_path("other_sqlite");
  {
    db::Database database(other, db::Database::Mode::Create);
    database.exec("CREATE TABLE t(x)");
  }
  try {
    db::WindowQuery query(other);
    FAIL() << "a SQLite file without the weft schema was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a weft run"), std::string::npos) << e.what();
  }
}

TEST(RecordScan, EventsAndMessagesArriveOnceEachWithTheirColumns) {
  std::string path = temp_weft_path("scan");
  weft::testing::TestTrace trace = random_test_trace(5, 300, 3);
  write_test_weft(path, trace);
  db::Database database(path, db::Database::Mode::ReadOnly);

  std::vector<db::EventRecord> events;
  db::scan_events(database, [&](std::span<const db::EventRecord> batch) {
    events.insert(events.end(), batch.begin(), batch.end());
  });
  ASSERT_EQ(events.size(), trace.events.size());
  std::sort(events.begin(), events.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].id, static_cast<EventId>(i));
    EXPECT_LE(events[i].start_ns, events[i].end_ns);
  }

  std::vector<db::MessageRecord> messages;
  db::scan_messages(database, [&](std::span<const db::MessageRecord> batch) {
    messages.insert(messages.end(), batch.begin(), batch.end());
  });
  ASSERT_EQ(messages.size(), trace.messages.size());
  for (const db::MessageRecord& m : messages) {
    EXPECT_TRUE(m.has_send_ns && m.has_recv_ns);
    EXPECT_LE(m.send_ns, m.recv_ns);
  }
}

namespace {

// The ids scan_events_of_processes gives for [first, end), sorted.
std::vector<EventId> ids_of_processes(db::Database& database, ProcessIndex first, ProcessIndex end) {
  std::vector<EventId> ids;
  db::scan_events_of_processes(database, first, end, [&](std::span<const db::EventRecord> batch) {
    for (const db::EventRecord& e : batch) {
      EXPECT_GE(e.process, first);
      EXPECT_LT(e.process, end);
      ids.push_back(e.id);
    }
  });
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

// A range of processes reads each of their events once and no other: by key
// ranges, a time bucket at a time, when the range has at least as many
// processes as the table has buckets; by the process index otherwise. Both
// against the whole table's scan, and the counts against the trace.
TEST(RecordScan, EventsOfAProcessRangeArriveOnceEach) {
  std::string path = temp_weft_path("scan_range");
  weft::testing::TestTrace trace = random_test_trace(40, 300, 9);
  trace.bucket_shift = 27;  // coarse buckets: fewer than the processes
  write_test_weft(path, trace);
  db::Database database(path, db::Database::Mode::ReadOnly);
  const std::int64_t buckets = database.query_int("SELECT count(DISTINCT bucket) FROM event_blocks");
  ASSERT_GT(buckets, 3);
  ASSERT_LT(buckets, 40);
  std::vector<db::EventRecord> all;  // the whole table, as scan_events reads it
  db::scan_events(database, [&](std::span<const db::EventRecord> batch) { all.insert(all.end(), batch.begin(), batch.end()); });
  ASSERT_EQ(all.size(), trace.events.size());
  int by_buckets = 0, by_index = 0;
  for (auto [first, end] : {std::pair{0, 40}, std::pair{0, 20}, std::pair{20, 40}, std::pair{7, 8}, std::pair{39, 40},
                            std::pair{5, 5}, std::pair{30, 45}}) {
    std::vector<EventId> want;
    for (const db::EventRecord& e : all)
      if (e.process >= first && e.process < end) want.push_back(e.id);
    std::sort(want.begin(), want.end());
    ASSERT_EQ(want.size(), static_cast<std::size_t>(std::count_if(trace.events.begin(), trace.events.end(), [&](const auto& e) {
                return e.process >= first && e.process < end;
              })));
    EXPECT_EQ(ids_of_processes(database, first, end), want) << first << ".." << end;
    (end - first >= buckets ? by_buckets : by_index) += 1;
  }
  EXPECT_EQ(by_buckets, 4);
  EXPECT_EQ(by_index, 3);
}
