// comm_event_blocks (db/structure/comm_event_blocks.h, written by
// db/structure/structure_store.cpp): one row per (step block, process) run of
// a process's records. The writer fills the table step block by step block,
// resuming each process where its last block stopped; a split MPI_Sendrecv
// (a send and a receive op on one event) is one record, stored in its receive
// half's block even when its send half is in the block before.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "store/sqlite.h"
#include "structure/structure_store.h"
#include "weft_test_db.h"

using namespace weft;

namespace {

constexpr int kProcesses = 3;
constexpr int kIterations = 600;

// A lone MPI_Send on process 0 (its receive is not traced), then a ring of
// MPI_Sendrecv: in iteration i every rank sends to the next and receives from
// the previous in one call. The lone send's step puts every call's send half
// on an odd raw step slot, so that the calls whose send half ends a step
// block have their receive half in the next. Event ids: process by process,
// in start order (write_test_weft).
weft::testing::TestTrace sendrecv_ring() {
  weft::testing::TestTrace trace;
  trace.processes = kProcesses;
  trace.regions.push_back({6, "MPI_Sendrecv", "mpi", RegionKind::Recv});
  trace.regions.push_back({7, "MPI_Send", "mpi", RegionKind::Send});
  EventId next_id = 0;
  std::vector<std::vector<EventId>> call(kProcesses);
  EventId lone = 0;
  auto add = [&](int p, TimeNs start, TimeNs end, std::int64_t region, int depth) {
    trace.events.push_back({p, start, end, region, depth});
    return next_id++;
  };
  for (int p = 0; p < kProcesses; ++p) {
    add(p, 0, 10 * kIterations + 100, 0, 0);
    if (p == 0) lone = add(p, 1, 2, 7, 1);
    for (int i = 0; i < kIterations; ++i) call[static_cast<std::size_t>(p)].push_back(add(p, 10 + 10 * i, 15 + 10 * i, 6, 1));
  }
  trace.messages.push_back({0, 1, 1, 3, lone, -1});
  for (int i = 0; i < kIterations; ++i)
    for (int p = 0; p < kProcesses; ++p) {
      const int to = (p + 1) % kProcesses;
      const auto ui = static_cast<std::size_t>(i);
      trace.messages.push_back({p, to, 10 + 10 * i, 15 + 10 * i, call[static_cast<std::size_t>(p)][ui],
                                call[static_cast<std::size_t>(to)][ui]});
    }
  return trace;
}

}  // namespace

TEST(CommEventBlocks, RowsHoldEachRecordOnceInItsReceiveHalfsBlock) {
  const std::string path = weft::testing::temp_weft_path("sendrecv_ring");
  weft::testing::write_test_weft(path, sendrecv_ring());
  db::Database db(path, db::Database::Mode::ReadWrite);
  for (int threads : {1, 2}) {
    db::AnalysisSettings settings;
    settings.threads = threads;
    db::analyze_run(db, settings);
    const std::int64_t shift = db.query_int("SELECT value FROM meta WHERE key = 'analysis_step_shift'");
    ASSERT_GE(db.query_int("SELECT count(DISTINCT step_block) FROM comm_event_blocks"), 3) << threads;

    // Rows: every record of the row in the row's block; a process's rows
    // cover disjoint, increasing event id ranges, all of its calls.
    std::map<std::int64_t, std::int64_t> next_id, records;
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
