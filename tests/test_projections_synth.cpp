// Synthetic Charm++ runs (`weft synth --format projections`) imported back:
// exact execution and message counts derived by hand from each pattern
// (core/synth/charm/charm_sim.h states the rules), chares and their runtime
// flags, AMPI migrations against the logs, and the delayed entry method.
#include <gtest/gtest.h>

#include <map>

#include "projections/log_reader.h"
#include "projections_test_support.h"
#include "store/record_scan.h"

namespace {

namespace fs = std::filesystem;
using weft::test::count_where;
using weft::test::meta_int;

std::map<std::string, std::int64_t> executions_by_entry(weft::db::Database& db) {
  std::map<std::string, std::int64_t> m;
  weft::db::Statement s = db.prepare(
      "SELECT r.name, count(*) FROM executions x JOIN regions r ON r.region = x.entry_region GROUP BY r.name");
  while (s.step()) m[std::string(s.column_text(0))] = s.column_int(1);
  return m;
}

// jacobi2d, P = 4 PEs, K = 2 chares per PE (C = 8, a 2×4 periodic grid), I = 3.
// Per iteration: C begin_iteration, 4C recvGhost, C contribute, P−1 RecvMsg;
// plus Main::Main and Main::done once.
TEST(ProjectionsSynth, Jacobi2dCountsByHand) {
  weft::test::TempDir dir("proj-jacobi");
  fs::path sts = weft::test::synth_projections(dir.path / "run", "jacobi2d", {"-n", "4", "-i", "3", "--chares-per-pe", "2"});
  weft::test::import_run(sts, dir.path / "run.weft");
  weft::db::Database db = weft::db::open_run((dir.path / "run.weft").string());
  const std::int64_t P = 4, C = 8, I = 3;
  EXPECT_EQ(meta_int(db, "count_pes"), P);
  EXPECT_EQ(meta_int(db, "count_executions"), I * C + 4 * I * C + I * C + I * (P - 1) + 2);  // 155
  // Messages: C bcast deliveries + 4C ghosts + C contributions + P−1 partials per
  // iteration, and the final done: every creation executed.
  EXPECT_EQ(meta_int(db, "count_messages"), I * C + 4 * I * C + I * C + I * (P - 1) + 1);  // 154
  EXPECT_EQ(meta_int(db, "count_unmatched_sends"), 0);
  EXPECT_EQ(meta_int(db, "count_creation_records"), 4 * I * C + I * C + I * (P - 1) + 1);
  EXPECT_EQ(meta_int(db, "count_broadcast_records"), I);
  EXPECT_EQ(meta_int(db, "count_unknown_records"), 0);
  std::map<std::string, std::int64_t> by = executions_by_entry(db);
  EXPECT_EQ(by["Jacobi::begin_iteration()"], I * C);
  EXPECT_EQ(by["Jacobi::recvGhost(GhostMsg* impl_msg)"], 4 * I * C);
  EXPECT_EQ(by["CkReductionMgr::contribute(CkReductionMsg* impl_msg)"], I * C);
  EXPECT_EQ(by["CkReductionMgr::RecvMsg(CkReductionMsg* impl_msg)"], I * (P - 1));
  EXPECT_EQ(by["Main::Main(CkArgMsg* impl_msg)"], 1);
  EXPECT_EQ(by["Main::done(CkReductionMsg* impl_msg)"], 1);
  // Chares: 8 Jacobi elements (2-D index), one CkReductionMgr per PE, Main.
  EXPECT_EQ(meta_int(db, "count_chares"), C + P + 1);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM chares WHERE name LIKE 'Jacobi[%' AND runtime = 0 AND idx1 IS NOT NULL "
                         "AND idx2 IS NULL"), C);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM chares WHERE name LIKE 'CkReductionMgr%' AND runtime = 1"), P);
  EXPECT_EQ(db.query_int("SELECT count(DISTINCT home_pe) FROM chares WHERE name LIKE 'CkReductionMgr%'"), P);
  EXPECT_EQ(db.query_int("SELECT runtime FROM chares WHERE name LIKE 'Main%'"), 0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM chare_types WHERE name = 'Jacobi' AND dimensions = 2"), 1);
  // Each Jacobi element runs 5 executions per iteration, all on its home PE (block map: chare c on PE c / K).
  EXPECT_EQ(db.query_int("SELECT count(*) FROM (SELECT chare, count(*) AS n FROM executions GROUP BY chare) "
                         "JOIN chares USING(chare) WHERE name LIKE 'Jacobi[%' AND n = 15"), C);
  // Regions: the entry methods and Idle, per the store contract.
  EXPECT_EQ(count_where(db, "SELECT kind FROM regions WHERE name = ?1 AND paradigm = 'charm' AND role = 'function'",
                        "Jacobi::recvGhost(GhostMsg* impl_msg)"), 0);
  EXPECT_EQ(count_where(db, "SELECT kind FROM regions WHERE name = ?1 AND role = 'idle'", "Idle"), 8);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM executions"), meta_int(db, "count_executions"));
}

// reduction-tree, P = 3, K = 3 (C = 9 workers), I = 2: per iteration C start,
// C − 1 recvPartial, one Main::iterationDone; plus Main::Main.
TEST(ProjectionsSynth, ReductionTreeCountsByHand) {
  weft::test::TempDir dir("proj-tree");
  fs::path sts =
      weft::test::synth_projections(dir.path / "run", "reduction-tree", {"-n", "3", "-i", "2", "--chares-per-pe", "3"});
  weft::test::import_run(sts, dir.path / "run.weft");
  weft::db::Database db = weft::db::open_run((dir.path / "run.weft").string());
  const std::int64_t C = 9, I = 2;
  EXPECT_EQ(meta_int(db, "count_executions"), I * C + I * (C - 1) + I + 1);  // 37
  EXPECT_EQ(meta_int(db, "count_messages"), I * C + I * (C - 1) + I);        // 36
  EXPECT_EQ(meta_int(db, "count_unmatched_sends"), 0);
  std::map<std::string, std::int64_t> by = executions_by_entry(db);
  EXPECT_EQ(by["Worker::start()"], I * C);
  EXPECT_EQ(by["Worker::recvPartial(PartialMsg* impl_msg)"], I * (C - 1));
  EXPECT_EQ(by["Main::iterationDone()"], I);
  EXPECT_EQ(meta_int(db, "count_chares"), C + 1);  // workers and Main; no runtime chare executes
  EXPECT_EQ(db.query_int("SELECT count(*) FROM chares WHERE runtime = 1"), 0);
  // A message row per broadcast delivery: one start broadcast per iteration reaches all C workers.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM executions x JOIN regions r ON r.region = x.entry_region "
                         "WHERE r.name = 'Worker::start()'"), I * C);
}

struct MigrationRow {
  std::int64_t vp, from, to, time;
};

// ampi, P = 4 PEs, N = 8 ranks (rank v on PE v·4/8), I = 4, rank 1 → PE 3 at
// the end of iteration 1 and rank 6 → PE 0 at the end of iteration 2.
TEST(ProjectionsSynth, AmpiMigrationsFound) {
  weft::test::TempDir dir("proj-ampi");
  fs::path sts = weft::test::synth_projections(
      dir.path / "run", "ampi", {"-n", "4", "-i", "4", "--vps", "8", "--migrate", "1:3@1", "--migrate", "6:0@2"});
  weft::test::import_run(sts, dir.path / "run.weft");
  weft::db::Database db = weft::db::open_run((dir.path / "run.weft").string());
  const std::int64_t N = 8, I = 4;
  EXPECT_EQ(meta_int(db, "count_executions"), 1 + N + 2 * N * (I - 1));  // 57
  EXPECT_EQ(meta_int(db, "count_messages"), N + 2 * N * (I - 1));        // 56
  EXPECT_EQ(meta_int(db, "count_virtual_ranks"), N);
  EXPECT_EQ(meta_int(db, "count_migrations"), 2);
  // AMPI functions: paradigm ampi, kinds by their MPI names.
  EXPECT_EQ(count_where(db, "SELECT kind FROM regions WHERE name = ?1 AND paradigm = 'ampi'", "AMPI_Send"), 1);
  EXPECT_EQ(count_where(db, "SELECT kind FROM regions WHERE name = ?1 AND paradigm = 'ampi'", "AMPI_Recv"), 3);
  EXPECT_EQ(count_where(db, "SELECT kind FROM regions WHERE name = ?1 AND paradigm = 'ampi'", "AMPI_Migrate"), 7);

  std::vector<MigrationRow> rows;
  weft::db::Statement s = db.prepare("SELECT vp, from_pe, to_pe, time_ns FROM migrations ORDER BY vp");
  while (s.step()) rows.push_back({s.column_int(0), s.column_int(1), s.column_int(2), s.column_int(3)});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].vp, 1);
  EXPECT_EQ(rows[0].from, 0);
  EXPECT_EQ(rows[0].to, 3);
  EXPECT_EQ(rows[1].vp, 6);
  EXPECT_EQ(rows[1].from, 3);
  EXPECT_EQ(rows[1].to, 0);

  // The time is the end of the rank's AMPI_Migrate bracket on its old PE,
  // read here straight from the log (records 99 with nested id = the rank).
  for (const MigrationRow& m : rows) {
    weft::db::LogReader log((dir.path / "run" / ("ampi." + std::to_string(m.from) + ".log.gz")).string(), 0);
    weft::db::LogRecord r;
    std::int64_t migrate_end = -1;
    while (log.next(r))
      if (r.type == weft::db::kEndUserEventPair && r.entry == 2 && r.nested_id == m.vp) migrate_end = r.time_us * 1000;
    EXPECT_EQ(m.time, migrate_end) << "vp " << m.vp;
    // Every execution of the rank before that time ran on the old PE, every one after on the new PE.
    weft::db::Statement x = db.prepare(
        "SELECT x.event FROM executions x JOIN chares c USING(chare) WHERE c.name = ?1 ORDER BY x.event");
    std::string name = "ampi[" + std::to_string(m.vp) + "]";
    x.bind(1, std::string_view(name));
    std::vector<std::int64_t> events;
    while (x.step()) events.push_back(x.column_int(0));
    EXPECT_EQ(events.size(), static_cast<std::size_t>(1 + 2 * (I - 1)));
    std::int64_t before = 0, after = 0;
    weft::db::scan_events_by_process(db, [&](weft::ProcessIndex pe, std::span<const weft::db::EventRecord> evs) {
      for (const weft::db::EventRecord& e : evs) {
        if (!std::binary_search(events.begin(), events.end(), e.id)) continue;
        if (e.end_ns <= m.time) {
          EXPECT_EQ(pe, m.from) << "vp " << m.vp << " event " << e.id;
          ++before;
        } else {
          EXPECT_GE(e.start_ns, m.time);
          EXPECT_EQ(pe, m.to) << "vp " << m.vp << " event " << e.id;
          ++after;
        }
      }
    });
    EXPECT_GT(before, 0);
    EXPECT_GT(after, 0);
  }
  // Virtual ranks: 6 ranks on one PE throughout, the two migrated on two.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM virtual_ranks"), N + 2);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM virtual_ranks v JOIN migrations m ON m.vp = v.vp "
                         "WHERE (v.pe = m.from_pe AND v.end_ns = m.time_ns) OR (v.pe = m.to_pe AND v.start_ns = m.time_ns)"),
            4);

  weft::test::CommandResult out = weft::test::run_command(std::string(WEFT_BINARY) + " export " +
                                                          weft::test::quoted(dir.path / "run.weft") + " --what migrations");
  ASSERT_EQ(out.exit_code, 0) << out.output;
  std::string expected = "vp,from_pe,to_pe,time_ns\n1,0,3," + std::to_string(rows[0].time) + "\n6,3,0," +
                         std::to_string(rows[1].time) + "\n";
  EXPECT_EQ(out.output, expected);
}

// --delay CHARE:ITER:FACTOR makes that element's compute the longest execution.
TEST(ProjectionsSynth, DelayedEntryMethodIsTheLongestExecution) {
  weft::test::TempDir dir("proj-delay");
  fs::path sts = weft::test::synth_projections(
      dir.path / "run", "jacobi2d", {"-n", "4", "-i", "3", "--chares-per-pe", "4", "--delay", "5:1:10", "--seed", "7",
                                     "--jitter", "0.2"});
  weft::test::import_run(sts, dir.path / "run.weft");
  weft::db::Database db = weft::db::open_run((dir.path / "run.weft").string());
  std::int64_t longest = -1, longest_event = -1;
  weft::db::scan_events(db, [&](std::span<const weft::db::EventRecord> batch) {
    for (const weft::db::EventRecord& e : batch)
      if (e.depth == 0 && e.region < 9 && e.end_ns - e.start_ns > longest) {
        longest = e.end_ns - e.start_ns;
        longest_event = e.id;
      }
  });
  weft::db::Statement s = db.prepare(
      "SELECT c.name, r.name FROM executions x JOIN chares c USING(chare) JOIN regions r ON r.region = x.entry_region "
      "WHERE x.event = ?1");
  s.bind(1, longest_event);
  ASSERT_TRUE(s.step());
  // 16 chares on a 4×4 grid: chare 5 is (1, 1).
  EXPECT_EQ(std::string(s.column_text(0)), "Jacobi[1,1]");
  EXPECT_EQ(std::string(s.column_text(1)), "Jacobi::recvGhost(GhostMsg* impl_msg)");
}

// Same options, same bytes; a Projections run passes `weft check`.
TEST(ProjectionsSynth, DeterministicAndChecked) {
  weft::test::TempDir dir("proj-det");
  std::vector<std::string> args = {"-n", "3", "-i", "2", "--vps", "5", "--migrate", "4:0@0", "--seed", "3", "--jitter", "0.5"};
  fs::path a = weft::test::synth_projections(dir.path / "a", "ampi", args);
  fs::path b = weft::test::synth_projections(dir.path / "b", "ampi", args);
  for (const fs::path& f : weft::test::files_under(dir.path / "a"))
    EXPECT_EQ(weft::test::read_bytes(dir.path / "a" / f), weft::test::read_bytes(dir.path / "b" / f)) << f;
  weft::test::import_run(a, dir.path / "a.weft");
  weft::test::ProcessResult r = weft::test::run_process({WEFT_BINARY, "check", (dir.path / "a.weft").string()});
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.describe() << r.out;
}

}  // namespace
