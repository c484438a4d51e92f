// comm_event_blocks (db/structure/comm_event_blocks.h, written by
// db/structure/structure_store.cpp): one row per (step block, process) run of
// a process's records, keyed by a rowid in (step block, process, first event)
// order. The writer fills the table step block by step block, resuming each
// process where its last block stopped; a split MPI_Sendrecv (a send and a
// receive op on one event) is one record, stored in its receive half's block
// even when its send half is in the block before. A logical-timeline window
// reads the same events through the key and, in a file analyzed before the
// key, through the old table's columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "store/sqlite.h"
#include "structure/comm_event_blocks.h"
#include "structure/logical_window.h"
#include "structure/structure_store.h"
#include "weft_test_db.h"

using namespace weft;

namespace {

constexpr int kProcesses = 3;
constexpr int kIterations = 600;

// A lone MPI_Send on process 0 (its receive is not traced), then a ring of
// MPI_Sendrecv (weft::testing::sendrecv_ring_trace). The lone send's step
// puts every call's send half on an odd raw step slot, so that the calls
// whose send half ends a step block have their receive half in the next.
weft::testing::TestTrace sendrecv_ring() { return weft::testing::sendrecv_ring_trace(kProcesses, kIterations, true); }

// The sendrecv_ring run, stored under a name of the test's, opened for writing.
db::Database stored_sendrecv_ring(const char* name) {
  const std::string path = weft::testing::temp_weft_path(name);
  weft::testing::write_test_weft(path, sendrecv_ring());
  return db::Database(path, db::Database::Mode::ReadWrite);
}

}  // namespace

TEST(CommEventBlocks, RowsHoldEachRecordOnceInItsReceiveHalfsBlock) {
  db::Database db = stored_sendrecv_ring("sendrecv_ring");
  for (int threads : {1, 2}) {
    db::AnalysisSettings settings;
    settings.threads = threads;
    db::analyze_run(db, settings);
    const std::int64_t shift = db.query_int("SELECT value FROM meta WHERE key = 'analysis_step_shift'");
    ASSERT_GE(db.query_int("SELECT count(DISTINCT step_block) FROM comm_event_blocks"), 3) << threads;

    // Rows: every record of the row in the row's block; a process's rows
    // cover disjoint, increasing event id ranges, all of its calls.
    std::map<std::int64_t, std::int64_t> next_id, records;
    // The key: rowid order is (step block, process, first event) order.
    const std::int64_t key_rows = db.query_int("SELECT value FROM meta WHERE key = 'analysis_block_key_rows'");
    EXPECT_EQ(key_rows, kProcesses);
    {
      db::Statement by_key = db.prepare("SELECT block, step_block, process, first_id FROM comm_event_blocks ORDER BY block");
      std::int64_t previous_pair = -1, previous_first = -1;
      int rows_seen = 0;
      while (by_key.step()) {
        const std::int64_t pair = by_key.column_int(1) * key_rows + by_key.column_int(2);
        EXPECT_EQ(by_key.column_int(0) >> db::CommEventBlockKey::kPairShift, pair) << threads;
        EXPECT_TRUE(pair > previous_pair || (pair == previous_pair && by_key.column_int(3) > previous_first)) << threads;
        previous_pair = pair;
        previous_first = by_key.column_int(3);
        ++rows_seen;
      }
      EXPECT_GT(rows_seen, 10);
    }
    db::Statement rows = db.prepare(
        "SELECT step_block, process, first_id, last_id, count, first_step, last_step FROM comm_event_blocks"
        " ORDER BY process, first_id");
    while (rows.step()) {
      const std::int64_t block = rows.column_int(0), process = rows.column_int(1);
      EXPECT_EQ(rows.column_int(5) >> shift, block) << threads;
      EXPECT_EQ(rows.column_int(6) >> shift, block) << threads;
      EXPECT_LE(rows.column_int(2), rows.column_int(3));
      if (next_id.count(process)) {
        EXPECT_GE(rows.column_int(2), next_id[process]) << threads;
      }
      next_id[process] = rows.column_int(3) + 1;
      records[process] += rows.column_int(4);
    }
    ASSERT_EQ(records.size(), static_cast<std::size_t>(kProcesses));
    // Its calls, and process 0's lone send.
    const std::map<std::int64_t, std::int64_t> expected{{0, kIterations + 1}, {1, kIterations}, {2, kIterations}};
    EXPECT_EQ(records, expected) << threads;

    // Records: each call once, with its send half's step; some calls have
    // their send half in the block before their receive half's.
    EXPECT_EQ(db.query_int("SELECT count(DISTINCT event) FROM comm_events"), kProcesses * kIterations + 1);
    EXPECT_EQ(db.query_int("SELECT count(*) FROM comm_events"), kProcesses * kIterations + 1);
    EXPECT_EQ(db.query_int("SELECT count(*) FROM comm_events WHERE send_step IS NOT NULL AND send_step < step"),
              kProcesses * kIterations);
    EXPECT_GT(db.query_int("SELECT count(*) FROM comm_events WHERE (send_step >> " + std::to_string(shift) +
                           ") < (step >> " + std::to_string(shift) + ")"),
              0)
        << threads;
  }
}

namespace {

// Every event of a logical-timeline window, as "event:process:step" lines.
std::vector<std::string> window_events(db::Database& db, const db::StepWindow& w) {
  db::LogicalWindowQuery query(db);
  db::StepEvents events;
  query.read_events(w, events);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < events.event.size(); ++i)
    out.push_back(std::to_string(events.event[i]) + ":" + std::to_string(events.process[i]) + ":" +
                  std::to_string(events.step[i]));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

namespace {

// The run's comm_event_blocks as an analysis before the rowid key wrote it:
// keyed WITHOUT ROWID by its columns, with the index by process, and no
// analysis_block_key_rows.
void rewrite_as_before_the_key(db::Database& db) {
  db.exec(R"sql(
    CREATE TABLE old_blocks(
      step_block INTEGER NOT NULL, process INTEGER NOT NULL, first_id INTEGER NOT NULL,
      last_id INTEGER NOT NULL, count INTEGER NOT NULL,
      first_step INTEGER NOT NULL, last_step INTEGER NOT NULL, data BLOB NOT NULL,
      PRIMARY KEY(step_block, process, first_id)) WITHOUT ROWID;
    INSERT INTO old_blocks SELECT step_block, process, first_id, last_id, count, first_step, last_step, data
      FROM comm_event_blocks;
    DROP TABLE comm_event_blocks;
    ALTER TABLE old_blocks RENAME TO comm_event_blocks;
    CREATE INDEX comm_event_blocks_by_process ON comm_event_blocks(process, first_id);
    DELETE FROM meta WHERE key = 'analysis_block_key_rows';
  )sql");
}

// scan_comm_events' event ids and processes, in its order.
std::vector<std::pair<std::int64_t, std::int64_t>> scanned_events(db::Database& db) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  db::scan_comm_events(db, [&](std::span<const db::CommEventRecord> batch) {
    for (const db::CommEventRecord& e : batch) out.push_back({e.event, e.process});
  });
  return out;
}

// The rows of a comm_events query, one line each.
std::string query_rows(db::Database& db, const std::string& sql) {
  std::string all;
  db::Statement s = db.prepare(sql);
  while (s.step())
    for (int c = 0; c < s.column_count(); ++c) all += s.column_text(c) + (c + 1 < s.column_count() ? "," : "\n");
  return all;
}

// Lookups of comm_events by process and by event id give what a full scan
// filtered by the same condition gives (`+ 0` keeps SQLite from handing the
// constraint to the view, which then scans every row).
void expect_lookups_match_the_full_scan(db::Database& db, const char* layout) {
  for (int p = 0; p < kProcesses; ++p) {
    const std::string by_process =
        query_rows(db, "SELECT event, step, lateness_ns FROM comm_events WHERE process = " + std::to_string(p));
    EXPECT_EQ(by_process, query_rows(db, "SELECT event, step, lateness_ns FROM comm_events WHERE process + 0 = " +
                                             std::to_string(p)))
        << layout << " process " << p;
    EXPECT_FALSE(by_process.empty()) << layout;
  }
  for (std::int64_t id : {std::int64_t{0}, std::int64_t{1}, std::int64_t{kIterations / 2}, std::int64_t{kIterations + 2},
                          std::int64_t{3 * kIterations + 3}}) {
    EXPECT_EQ(query_rows(db, "SELECT process, step, send_step FROM comm_events WHERE event = " + std::to_string(id)),
              query_rows(db, "SELECT process, step, send_step FROM comm_events WHERE event + 0 = " + std::to_string(id)))
        << layout << " event " << id;
  }
}

}  // namespace

// No index by process: scan_comm_events reads each process's rowid range per
// step block, and the comm_events view's lookups by process and by id do the
// same. Files analyzed by earlier versions (with the index, or before the
// rowid key) read the same; a row beyond the run's step blocks is an error.
TEST(CommEventBlocks, ScansAndLookupsByProcessAndIdGoThroughTheKeyOnEveryLayout) {
  db::Database db = stored_sendrecv_ring("sendrecv_ring_scan");
  db::analyze_run(db, db::AnalysisSettings{});
  ASSERT_GE(db.query_int("SELECT count(DISTINCT step_block) FROM comm_event_blocks"), 3);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'comm_event_blocks'"), 0);

  // Every record once, in event id order (so process by process).
  const auto scanned = scanned_events(db);
  ASSERT_EQ(scanned.size(), static_cast<std::size_t>(kProcesses * kIterations + 1));
  for (std::size_t i = 1; i < scanned.size(); ++i) {
    ASSERT_LT(scanned[i - 1].first, scanned[i].first) << i;
    ASSERT_LE(scanned[i - 1].second, scanned[i].second) << i;
  }
  expect_lookups_match_the_full_scan(db, "rowid key, no index");
  const std::string all = query_rows(db, "SELECT * FROM comm_events ORDER BY event");

  // As the previous version wrote it: the same key, plus the index.
  db.exec("CREATE INDEX comm_event_blocks_by_process ON comm_event_blocks(process, first_id)");
  EXPECT_EQ(scanned_events(db), scanned);
  expect_lookups_match_the_full_scan(db, "rowid key and index");

  // The key's meta fact lost: the view reads the whole table, the scan the index.
  db.exec("DELETE FROM meta WHERE key = 'analysis_block_key_rows'");
  EXPECT_EQ(scanned_events(db), scanned);
  expect_lookups_match_the_full_scan(db, "rowid key without its meta fact");
  db.exec("INSERT INTO meta VALUES ('analysis_block_key_rows', " + std::to_string(kProcesses) + ")");

  // A damaged file: the run's steps end before its last row's step block.
  db.exec("UPDATE meta SET value = 3 WHERE key = 'analysis_global_steps'");
  EXPECT_THROW(scanned_events(db), Error);
  db.exec("UPDATE meta SET value = " + std::to_string(scanned.size() * 4) + " WHERE key = 'analysis_global_steps'");
  EXPECT_EQ(scanned_events(db), scanned);
  // Damaged meta facts that would make the scan probe ~2^32 (row, block)
  // pairs, or read other rows' ranges: refused. The view reads the whole
  // table when the key's fact is not the run's count of processes.
  db.exec("CREATE TABLE saved_meta AS SELECT * FROM meta");
  db.exec("UPDATE meta SET value = 1099511627776 WHERE key = 'analysis_global_steps'");
  db.exec("UPDATE meta SET value = 0 WHERE key = 'analysis_step_shift'");
  EXPECT_THROW(scanned_events(db), Error);
  db.exec("DELETE FROM meta; INSERT INTO meta SELECT * FROM saved_meta; DROP TABLE saved_meta");
  EXPECT_EQ(scanned_events(db), scanned);
  for (const char* rows : {"4", "2147483648"}) {
    db.exec(std::string("UPDATE meta SET value = ") + rows + " WHERE key = 'analysis_block_key_rows'");
    EXPECT_THROW(scanned_events(db), Error) << rows;
    expect_lookups_match_the_full_scan(db, "key fact not the run's processes");
  }
  db.exec("UPDATE meta SET value = " + std::to_string(kProcesses) + " WHERE key = 'analysis_block_key_rows'");
  // A row keyed at the last pair the key holds (of no process of the run):
  // the view's lookups stop at the step blocks the file could hold instead
  // of probing ~2^32 / 3 of them (the scan refuses it as beyond the run).
  db.exec("INSERT INTO comm_event_blocks SELECT ((4294967295 << 31) | 7), step_block, 99, first_id, last_id, count,"
          " first_step, last_step, data FROM comm_event_blocks LIMIT 1");
  for (int p = 0; p < kProcesses; ++p) {
    const std::string where = "SELECT event, step FROM comm_events WHERE process ";
    EXPECT_EQ(query_rows(db, where + "= " + std::to_string(p)), query_rows(db, where + "+ 0 = " + std::to_string(p)))
        << "a row keyed past the file's step blocks, process " << p;
  }
  EXPECT_THROW(scanned_events(db), Error);
  db.exec("DELETE FROM comm_event_blocks WHERE process = 99");

  // Steps that fall back along a process (a repaired trace): process 1's
  // records of its first two step blocks trade rows, so the first block's
  // row holds the later events. The scan still gives event id order.
  db.exec(R"sql(
    CREATE TABLE swapped AS SELECT block, first_id, last_id, count, first_step, last_step, data
      FROM comm_event_blocks WHERE process = 1 ORDER BY block LIMIT 2;
    UPDATE comm_event_blocks SET (first_id, last_id, count, first_step, last_step, data) =
      (SELECT s.first_id, s.last_id, s.count, s.first_step, s.last_step, s.data FROM swapped s
        WHERE s.block != comm_event_blocks.block)
      WHERE block IN (SELECT block FROM swapped);
  )sql");
  ASSERT_GT(db.query_int("SELECT first_id FROM comm_event_blocks WHERE process = 1 ORDER BY block LIMIT 1"),
            db.query_int("SELECT first_id FROM comm_event_blocks WHERE process = 1 ORDER BY block LIMIT 1 OFFSET 1"));
  EXPECT_EQ(scanned_events(db), scanned);
  db.exec(R"sql(
    UPDATE comm_event_blocks SET (first_id, last_id, count, first_step, last_step, data) =
      (SELECT s.first_id, s.last_id, s.count, s.first_step, s.last_step, s.data FROM swapped s
        WHERE s.block = comm_event_blocks.block)
      WHERE block IN (SELECT block FROM swapped);
    DROP TABLE swapped;
  )sql");

  // Before the key: keyed WITHOUT ROWID by the columns, read through the index.
  rewrite_as_before_the_key(db);
  EXPECT_EQ(scanned_events(db), scanned);
  expect_lookups_match_the_full_scan(db, "before the key");
  EXPECT_EQ(query_rows(db, "SELECT * FROM comm_events ORDER BY event"), all);
}

TEST(CommEventBlocks, AWindowReadsItsEventsByTheKeyAndFromAFileAnalyzedBeforeIt) {
  db::Database db = stored_sendrecv_ring("sendrecv_ring_window");
  db::analyze_run(db, db::AnalysisSettings{});
  const std::int64_t shift = db.query_int("SELECT value FROM meta WHERE key = 'analysis_step_shift'");
  // Windows inside one step block, across blocks, on one process, past the
  // run's last step and process.
  const std::vector<db::StepWindow> windows{{0, 100, 0, 2}, {(1 << shift) - 7, (3 << shift) + 5, 1, 2},
                                            {200, 2000, 1, 1}, {(4 << shift) + 3, 1 << 30, 0, 50}};
  std::vector<std::vector<std::string>> by_key;
  for (const db::StepWindow& w : windows) {
    by_key.push_back(window_events(db, w));
    // Exactly the events in the window, from the comm_events view.
    const std::int64_t expected = db.query_int(
        "SELECT count(*) FROM comm_events WHERE step BETWEEN " + std::to_string(w.s0) + " AND " +
        std::to_string(w.s1) + " AND process BETWEEN " + std::to_string(w.p0) + " AND " + std::to_string(w.p1));
    EXPECT_EQ(static_cast<std::int64_t>(by_key.back().size()), expected) << w.s0 << ".." << w.s1;
    EXPECT_GT(expected, 0) << w.s0 << ".." << w.s1;
  }

  // The table as an analysis before the key wrote it: keyed WITHOUT ROWID
  // by its columns, and no analysis_block_key_rows.
  rewrite_as_before_the_key(db);
  for (std::size_t i = 0; i < windows.size(); ++i) EXPECT_EQ(window_events(db, windows[i]), by_key[i]) << i;
}

// An analysis of an analyzed run sets the previous tables aside, writes the
// new ones into pages free before it (or new ones), and drops the previous
// ones last (structure_store.cpp, set_aside_structure_tables): their pages
// are never reused by the transaction that frees them, which would copy each
// to the rollback journal first. The file keeps room for two analyses and
// grows no further.
TEST(CommEventBlocks, AnAnalysisAgainReplacesThePreviousOneWithoutReusingItsPages) {
  db::Database db = stored_sendrecv_ring("sendrecv_ring_again");
  auto results = [&] {
    std::string all;
    db::Statement s = db.prepare("SELECT * FROM comm_events ORDER BY event");
    while (s.step())
      for (int c = 0; c < s.column_count(); ++c) all += s.column_text(c) + (c + 1 < s.column_count() ? "," : "\n");
    return all;
  };
  auto table_pages = [&](const char* table) {
    return db.query_int(std::string("SELECT count(*) FROM dbstat WHERE name = '") + table + "'");
  };
  db::analyze_run(db, db::AnalysisSettings{});
  const std::string first = results();
  const std::int64_t first_blocks_pages = table_pages("comm_event_blocks");
  ASSERT_GT(first_blocks_pages, 2);
  ASSERT_EQ(db.query_int("PRAGMA freelist_count"), 0);

  db::analyze_run(db, db::AnalysisSettings{});
  EXPECT_EQ(results(), first);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'weft_previous_%'"), 0);
  // The previous analysis' pages are free, none of them taken by the new one.
  EXPECT_GE(db.query_int("PRAGMA freelist_count"), first_blocks_pages);
  const std::int64_t pages_after_two = db.query_int("PRAGMA page_count");

  db::analyze_run(db, db::AnalysisSettings{});
  EXPECT_EQ(results(), first);
  EXPECT_EQ(db.query_int("PRAGMA page_count"), pages_after_two);
  db::Statement check = db.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
}
