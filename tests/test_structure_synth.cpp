// The logical structure of `weft synth` runs, through the real CLI path
// (synth -> import, which analyzes -> check / export / analyze). Expected
// partitions and steps are derived by hand from each pattern's definition
// (core/synth/patterns/*.cpp) and the rules of ravel-logical-lateness.txt §3;
// the derivation is written next to each test. Step numbering: a
// communication op in raw slot r is at global step 2r + 1.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "import_test_support.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "structure/logical_window.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;

namespace {

const std::string kWeft = WEFT_BINARY;

struct Run {
  weft::test::TempDir dir{"structure"};
  fs::path weft;
};

// synth + import (with the analysis); `import_flags` go to weft import.
std::unique_ptr<Run> make_run(const std::string& pattern, int n, int iterations,
                              const std::string& synth_flags = "",
                              const std::string& import_flags = "") {
  auto run = std::make_unique<Run>();
  fs::path trace = run->dir.path / "trace";
  run->weft = run->dir.path / "run.weft";
  auto s = run_command(kWeft + " synth " + pattern + " -n " + std::to_string(n) + " -i " +
                       std::to_string(iterations) + " " + synth_flags + " -o " + quoted(trace));
  EXPECT_EQ(s.exit_code, 0) << s.output;
  auto i = run_command(kWeft + " import -q " + import_flags + " " + quoted(trace / "traces.otf2") +
                       " -o " + quoted(run->weft));
  EXPECT_EQ(i.exit_code, 0) << i.output;
  return run;
}

std::int64_t query(const Run& run, const std::string& sql) {
  weft::db::Database db(run.weft.string(), weft::db::Database::Mode::ReadOnly);
  return db.query_int(sql, -1);
}

std::int64_t meta(const Run& run, const std::string& key) {
  return query(run, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'analysis_" + key + "'");
}

// The global step of the k-th (0-based) event of `function` on process p.
std::int64_t step_of(const Run& run, int p, const std::string& function, int k) {
  return query(run, "SELECT c.step FROM comm_events c JOIN regions r ON r.region = c.region WHERE c.process = " +
                        std::to_string(p) + " AND r.name = '" + function + "' ORDER BY c.event LIMIT 1 OFFSET " +
                        std::to_string(k));
}

void expect_check_passes(const Run& run) {
  auto c = run_command(kWeft + " check " + quoted(run.weft));
  EXPECT_EQ(c.exit_code, 0) << c.output;
}

int log2_exact(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

}  // namespace

// ring: each iteration's sends and receives form a cycle around the ring
// (Send_r -> Recv_r, which is matched by Send_{r-1}), so the SCC merge makes
// one partition per iteration: sends at stride 1 (raw 0), receives at raw 1.
// 2 raw slots = 4 steps per iteration; Send of iteration j at 4j+1, Recv at 4j+3.
TEST(SynthStructure, RingIsOnePartitionPerIterationWithFourStepsEach) {
  for (int n : {3, 8}) {
    const int i = 3;
    auto run = make_run("ring", n, i);
    EXPECT_EQ(meta(*run, "partitions"), i) << n;
    EXPECT_EQ(meta(*run, "global_steps"), 4 * i + 1) << n;
    EXPECT_EQ(meta(*run, "phases"), i) << n;
    for (int j = 0; j < i; ++j) {
      EXPECT_EQ(step_of(*run, n - 1, "MPI_Send", j), 4 * j + 1);
      EXPECT_EQ(step_of(*run, 1, "MPI_Recv", j), 4 * j + 3);
    }
    expect_check_passes(*run);
  }
}

// stencil2d on a px × py grid: per iteration the halo exchange (all Irecvs,
// coalesced Isends and Waitalls, connected through the grid by messages and
// the Waitall merge) is one partition and the Allreduce another: 2i partitions.
// In the halo partition a rank's d Irecvs come first (raw 0..d-1), the
// coalesced Isends are stride 1 and wait for the busiest rank: raw d_max, the
// Waitall raw d_max + 1; the Allreduce partition is one raw slot. So
// d_max + 3 raw slots = 2(d_max + 3) steps per iteration.
TEST(SynthStructure, Stencil2dHasTwoPartitionsAndTwoTimesDmaxPlusThreeStepsPerIteration) {
  struct Case { int n; int d_max; };
  for (Case c : {Case{4, 2}, Case{6, 3}, Case{9, 4}, Case{16, 4}}) {
    const int i = 3, per = 2 * (c.d_max + 3);
    auto run = make_run("stencil2d", c.n, i);
    EXPECT_EQ(meta(*run, "partitions"), 2 * i) << c.n;
    EXPECT_EQ(meta(*run, "global_steps"), per * i + 1) << c.n;
    EXPECT_EQ(meta(*run, "phase_period"), 2) << c.n;
    for (int j = 0; j < i; ++j) {
      EXPECT_EQ(step_of(*run, 0, "MPI_Irecv", 2 * j), per * j + 1) << c.n;  // rank 0 has 2 neighbours
      EXPECT_EQ(step_of(*run, 0, "MPI_Isend", 2 * j), per * j + 2 * c.d_max + 1) << c.n;
      EXPECT_EQ(step_of(*run, 0, "MPI_Waitall", j), per * j + 2 * c.d_max + 3) << c.n;
      EXPECT_EQ(step_of(*run, c.n - 1, "MPI_Allreduce", j), per * (j + 1) - 1) << c.n;
    }
    expect_check_passes(*run);
  }
}

// The message lines of the logical view (message_step_blocks): one per
// matched message, each from its send's step to its receive's, and a window
// read returns exactly the lines that a brute-force filter of all of them
// keeps (blocks are skipped by their bounds, never wrongly).
TEST(SynthStructure, MessageLinesOfAWindowAreExactlyThoseCrossingIt) {
  auto run = make_run("stencil2d", 16, 3);
  weft::db::Database db(run->weft.string(), weft::db::Database::Mode::ReadOnly);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM message_steps"), db.query_int("SELECT count(*) FROM messages"));
  EXPECT_EQ(db.query_int("SELECT count(*) FROM message_steps WHERE recv_step <= send_step"), 0);
  // Each line starts at the step of its Isend: the comm_events row of the
  // sender whose message is this one.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM message_steps m JOIN comm_events c ON c.message = m.message"
                         " AND c.process = m.src WHERE c.step <> m.send_step"),
            0);
  struct Line {
    std::int64_t message, src, dst, send_step, recv_step;
    bool operator<(const Line& o) const { return message < o.message; }
  };
  std::vector<Line> all;
  weft::db::Statement rows = db.prepare("SELECT message, src, dst, send_step, recv_step FROM message_steps");
  while (rows.step())
    all.push_back({rows.column_int(0), rows.column_int(1), rows.column_int(2), rows.column_int(3), rows.column_int(4)});
  ASSERT_FALSE(all.empty());
  weft::db::LogicalWindowQuery query(db);
  const std::int64_t max_span = query.facts().max_message_steps;
  for (weft::db::StepWindow w : {weft::db::StepWindow{0, 1000, 0, 15}, weft::db::StepWindow{9, 12, 3, 5},
                                 weft::db::StepWindow{20, 20, 15, 15}, weft::db::StepWindow{30, 40, 0, 0}}) {
    weft::db::StepMessages got;
    query.read_messages(w, got);
    std::vector<Line> read, expected;
    for (std::size_t i = 0; i < got.message.size(); ++i)
      read.push_back({got.message[i], got.src[i], got.dst[i], got.send_step[i], got.recv_step[i]});
    for (const Line& l : all)
      if (l.send_step >= std::max<std::int64_t>(0, w.s0 - max_span) && l.send_step <= w.s1 && l.recv_step >= w.s0 &&
          ((l.src >= w.p0 && l.src <= w.p1) || (l.dst >= w.p0 && l.dst <= w.p1)))
        expected.push_back(l);
    std::sort(read.begin(), read.end());
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(read.size(), expected.size()) << w.s0 << ":" << w.s1 << " " << w.p0 << ":" << w.p1;
    for (std::size_t i = 0; i < read.size(); ++i) {
      EXPECT_EQ(read[i].message, expected[i].message);
      EXPECT_EQ(read[i].src, expected[i].src);
      EXPECT_EQ(read[i].dst, expected[i].dst);
      EXPECT_EQ(read[i].send_step, expected[i].send_step);
      EXPECT_EQ(read[i].recv_step, expected[i].recv_step);
    }
  }
}

// allreduce-binomial with n = 2^L: the reduce is L levels of messages, level k
// sent after the sender has received from its k children, so the level-k
// message is sent at raw 2k and received at 2k+1; the broadcast mirrors it:
// 4L raw slots = 8 log2(n) steps per iteration, whatever the leap merge does.
TEST(SynthStructure, BinomialAllreduceDepthGrowsWithLog2OfTheProcessCount) {
  for (int n : {4, 8, 16}) {
    const int i = 2, L = log2_exact(n), per = 8 * L;
    auto run = make_run("allreduce-binomial", n, i);
    EXPECT_EQ(meta(*run, "global_steps"), per * i + 1) << n;
    for (int j = 0; j < i; ++j)
      for (int k = 0; k < L; ++k)  // rank 0 receives from 2^k at raw 4Lj + 2k + 1
        EXPECT_EQ(step_of(*run, 0, "MPI_Recv", L * j + k), per * j + 4 * k + 3) << n << " " << k;
    expect_check_passes(*run);
  }
}

// merge-tree without the leap merge: every message is its own partition. Rank
// 0 receives from 1, 2, 4, ... 2^(L-1) in turn, each message partition two raw
// slots long and after the previous one on rank 0: 2L raw slots per iteration
// along rank 0, which is the longest path.
TEST(SynthStructure, MergeTreeWithoutLeapMergeKeepsOnePartitionPerMessage) {
  const int n = 8, i = 3, L = 3;
  auto run = make_run("merge-tree", n, i, "", "--no-leap-merge");
  EXPECT_EQ(meta(*run, "partitions"), i * (n - 1));
  EXPECT_EQ(meta(*run, "global_steps"), 4 * L * i + 1);
  expect_check_passes(*run);
}

// amg-like: iteration t exchanges halos with ranks s_t = 2^(t mod K) away, so
// the halo messages form s_t chains (one per residue mod s_t), each a partition
// covering its ranks; then the world Allreduce and the two half Allreduces.
// Every leap is complete, so nothing merges: sum over t of (s_t + 3) partitions.
TEST(SynthStructure, AmgLikePartitionsFollowTheNeighbourDistanceOfEachLevel) {
  struct Case { int n; int i; int partitions; };
  for (Case c : {Case{8, 3, (1 + 2 + 4) + 3 * 3}, Case{16, 4, (1 + 2 + 4 + 8) + 4 * 3}}) {
    auto run = make_run("amg-like", c.n, c.i);
    EXPECT_EQ(meta(*run, "partitions"), c.partitions) << c.n;
    EXPECT_EQ(meta(*run, "incomplete_leaps"), 0) << c.n;
    expect_check_passes(*run);
  }
}

// A slow compute on rank R at iteration I makes R's first op after it late
// while its predecessor (the previous Allreduce) is not: the largest
// differential lateness of the run. The neighbours that wait for R's halo
// inherit lateness through the messages.
TEST(SynthStructure, InjectedDelayIsWhereTheLargestDifferentialLatenessIs) {
  const int n = 16, i = 5, R = 5, I = 2, per = 2 * (4 + 3);
  auto run = make_run("stencil2d", n, i, "--delay 5:2:4");
  EXPECT_EQ(query(*run, "SELECT process FROM comm_events ORDER BY diff_lateness_ns DESC, event LIMIT 1"), R);
  std::int64_t step = query(*run, "SELECT step FROM comm_events ORDER BY diff_lateness_ns DESC, event LIMIT 1");
  EXPECT_EQ((step - 1) / per, I) << step;
  for (int neighbour : {1, 4, 6, 9}) {
    std::int64_t late = query(*run, "SELECT max(c.lateness_ns) FROM comm_events c JOIN regions r ON "
                                    "r.region = c.region WHERE r.name = 'MPI_Waitall' AND c.process = " +
                                        std::to_string(neighbour) + " AND c.step BETWEEN " +
                                        std::to_string(per * I) + " AND " + std::to_string(per * (I + 1)));
    EXPECT_GT(late, 0) << neighbour;
  }
  // Before the delay, differences in neighbour counts make small lateness
  // only: far below what the delay causes.
  std::int64_t before = query(*run, "SELECT max(diff_lateness_ns) FROM comm_events WHERE step < " +
                                        std::to_string(per * I));
  std::int64_t top = query(*run, "SELECT max(diff_lateness_ns) FROM comm_events");
  EXPECT_LT(before * 4, top);
}

TEST(SynthStructure, ExportWritesTheDocumentedColumnsInCsvAndJson) {
  auto run = make_run("stencil2d", 6, 2);
  auto csv = run_command(kWeft + " export " + quoted(run->weft) + " --what steps --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(csv.output.substr(0, csv.output.find('\n')),
            "event_id,process,function,kind,start_ns,end_ns,partition,step,collective_id,message_id,"
            "lateness_ns,global_lateness_ns,diff_lateness_ns");
  const std::int64_t events = query(*run, "SELECT count(*) FROM comm_events");
  EXPECT_EQ(std::count(csv.output.begin(), csv.output.end(), '\n'), events + 1);

  fs::path json_file = run->dir.path / "steps.json";
  auto json = run_command(kWeft + " export " + quoted(run->weft) + " --what steps --format json -o " +
                          quoted(json_file));
  ASSERT_EQ(json.exit_code, 0) << json.output;
  std::ifstream in(json_file);
  nlohmann::json rows = nlohmann::json::parse(in);
  ASSERT_EQ(static_cast<std::int64_t>(rows.size()), events);
  std::int64_t collectives = 0;
  for (const auto& row : rows) {
    if (row["kind"] == "collective") {
      EXPECT_TRUE(row["collective_id"].is_number());
      EXPECT_TRUE(row["message_id"].is_null());
      ++collectives;
    }
  }
  EXPECT_EQ(collectives, 6 * 2);

  auto msgs = run_command(kWeft + " export " + quoted(run->weft) + " --what messages");
  ASSERT_EQ(msgs.exit_code, 0);
  EXPECT_EQ(msgs.output.substr(0, msgs.output.find('\n')),
            "message_id,send_event_id,recv_event_id,src,dst,tag,communicator,bytes,send_ns,recv_ns");
  EXPECT_EQ(std::count(msgs.output.begin(), msgs.output.end(), '\n'),
            query(*run, "SELECT count(*) FROM messages") + 1);
}

TEST(SynthStructure, AnalyzeReplacesTheStructureInPlace) {
  auto run = make_run("stencil2d", 9, 2, "", "--no-analyze");
  EXPECT_EQ(query(*run, "SELECT count(*) FROM sqlite_master WHERE name = 'comm_events'"), 0);
  auto check = run_command(kWeft + " check " + quoted(run->weft));
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_NE(check.output.find("weft analyze"), std::string::npos) << check.output;

  auto a = run_command(kWeft + " analyze --no-isend-coalescing " + quoted(run->weft));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  // Without coalescing the 4 Isends of an interior rank are strides 1..4, so
  // the halo partition is d_max + 4 + 1 = 9 raw slots wide, +1 for the Allreduce.
  EXPECT_EQ(meta(*run, "global_steps"), 2 * 10 * 2 + 1);
  expect_check_passes(*run);
  a = run_command(kWeft + " analyze " + quoted(run->weft));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(meta(*run, "global_steps"), 2 * 7 * 2 + 1);
  expect_check_passes(*run);
}

TEST(SynthStructure, AMissingPartitionFunctionIsAClearError) {
  auto run = make_run("ring", 4, 2, "", "--no-analyze");
  auto a = run_command(kWeft + " analyze --partition-function no_such_region " + quoted(run->weft));
  EXPECT_EQ(a.exit_code, 2);
  EXPECT_NE(a.output.find("no_such_region"), std::string::npos) << a.output;
}

TEST(SynthStructure, PartitionFunctionMakesOnePartitionPerCall) {
  // Each ring iteration starts with `compute`: one partition per iteration.
  auto run = make_run("ring", 4, 3, "", "--partition-function compute");
  EXPECT_EQ(meta(*run, "partitions"), 3);
  expect_check_passes(*run);
}

TEST(RealTraceStructure, EverySharedOtf2TraceAnalyzesAndPassesCheck) {
  const fs::path traces = WEFT_SHARED_DIR "/traces";
  if (!fs::exists(traces / "README.md")) GTEST_SKIP() << traces << " is absent: no real traces";
  weft::test::TempDir dir("real_structure");
  int analyzed = 0;
  for (const auto& entry : fs::directory_iterator(traces)) {
    fs::path anchor = entry.path() / "traces.otf2";
    if (!fs::exists(anchor)) continue;
    fs::path out = dir.path / (entry.path().filename().string() + ".weft");
    auto i = run_command(kWeft + " import -q " + quoted(anchor) + " -o " + quoted(out));
    ASSERT_EQ(i.exit_code, 0) << anchor << ": " << i.output;
    auto c = run_command(kWeft + " check " + quoted(out));
    EXPECT_EQ(c.exit_code, 0) << anchor << ": " << c.output;
    ++analyzed;
  }
  EXPECT_GE(analyzed, 1);
}

// --reorder (charm-logical-structure.txt §3.2.1) through import and analyze.
// ring: sends have no receive before them in their partition (w 0, step raw
// 0), each receive one after its send (raw 1): the strides' 4 steps per
// iteration. stencil2d 3x3 (coalesced Isends): each op one step after its
// process predecessor and a Waitall after its neighbors' Isends: Irecvs raw
// 0..d-1, the Isend raw d, the Waitall raw 5 for the interior and edge ranks
// (an interior neighbor's Isend at 4) and 4 for corners; 6 slots, +1 for the
// Allreduce: 7 per iteration as with strides.
TEST(SynthStructure, ReorderKeepsTheRingAndStencilSteps) {
  auto ring = make_run("ring", 4, 3, "", "--reorder");
  EXPECT_EQ(meta(*ring, "reorder"), 1);
  EXPECT_EQ(meta(*ring, "partitions"), 3);
  EXPECT_EQ(meta(*ring, "global_steps"), 4 * 3 + 1);
  EXPECT_EQ(step_of(*ring, 3, "MPI_Send", 2), 9);
  EXPECT_EQ(step_of(*ring, 1, "MPI_Recv", 2), 11);
  expect_check_passes(*ring);

  auto stencil = make_run("stencil2d", 9, 2, "", "--no-analyze");
  auto a = run_command(kWeft + " analyze --reorder " + quoted(stencil->weft));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(meta(*stencil, "reorder"), 1);
  EXPECT_EQ(meta(*stencil, "global_steps"), 2 * 7 * 2 + 1);
  expect_check_passes(*stencil);
}

// `weft analyze --threads 2` builds the view tables (message lines, step level
// of detail, time bins) on a second thread while it writes comm_event_blocks;
// `--threads 1` builds them in turn. Both store the same bytes.
TEST(SynthStructure, AnalysisStoresTheSameTablesWithOneOrTwoThreads) {
  auto one = make_run("amg-like", 12, 3, "--jitter 0.2", "--no-analyze");
  auto two = make_run("amg-like", 12, 3, "--jitter 0.2", "--no-analyze");
  auto a1 = run_command(kWeft + " analyze --threads 1 " + quoted(one->weft));
  ASSERT_EQ(a1.exit_code, 0) << a1.output;
  auto a2 = run_command(kWeft + " analyze --threads 2 " + quoted(two->weft));
  ASSERT_EQ(a2.exit_code, 0) << a2.output;
  auto dump = [](const ::Run& run) {
    weft::db::Database db(run.weft.string(), weft::db::Database::Mode::ReadOnly);
    std::string all;
    for (const char* sql :
         {"SELECT send_step || ':' || seq || ':' || count || ':' || hex(data) FROM message_step_blocks"
          " ORDER BY send_step, seq",
          "SELECT plevel || ':' || tlevel || ':' || block || ':' || tile || ':' || hex(data) FROM step_lod"
          " ORDER BY plevel, tlevel, block, tile",
          "SELECT bin || ':' || ops || ':' || max_lateness_ns || ':' || max_global_lateness_ns || ':' ||"
          " max_diff_lateness_ns || ':' || sum_wait_ns FROM time_metrics ORDER BY bin",
          "SELECT process || ':' || first_id || ':' || hex(data) FROM comm_event_blocks ORDER BY process, first_id",
          "SELECT key || '=' || value FROM meta WHERE key LIKE 'analysis_%' OR key LIKE 'step_lod_%'"
          " OR key LIKE 'time_metrics_%' ORDER BY key"}) {
      weft::db::Statement rows = db.prepare(sql);
      while (rows.step()) all += std::string(rows.column_text(0)) + "\n";
    }
    return all;
  };
  const std::string d1 = dump(*one);
  EXPECT_NE(d1.find("analysis_max_message_steps="), std::string::npos);
  EXPECT_GT(std::count(d1.begin(), d1.end(), '\n'), 20);
  EXPECT_EQ(d1, dump(*two));
}
