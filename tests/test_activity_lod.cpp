// The physical timeline's level of detail (db/summary/activity_lod.h) on
// hand-built runs whose answer is known: which function class is on top of
// the call stacks in each cell, how busy the cell is, how coarser levels vote,
// and that a window read returns each run of cells once.
#include <gtest/gtest.h>

#include "common/int_math.h"
#include "store/sqlite.h"
#include "summary/activity_lod.h"
#include "summary/start_histogram.h"
#include "weft_test_db.h"

using namespace weft;
using weft::testing::TestTrace;

namespace {

constexpr auto kCompute = static_cast<std::uint8_t>(db::StartClass::Compute);
constexpr auto kCollective = static_cast<std::uint8_t>(db::StartClass::Collective);
constexpr auto kSend = static_cast<std::uint8_t>(db::StartClass::Send);

// Writes `trace`, builds the level of detail, returns the open database.
db::Database build(const TestTrace& trace, const std::string& stem) {
  std::string path = weft::testing::temp_weft_path(stem);
  weft::testing::write_test_weft(path, trace);
  db::Database rw(path, db::Database::Mode::ReadWrite);
  db::write_activity_lod(rw);
  return db::Database(path, db::Database::Mode::ReadOnly);
}

// The class of the cell holding time `t` on `process` at level (p, t), and
// how busy it is; -1 where the cell has no event.
struct Probe {
  db::ActivityLod& lod;
  db::LodCells cells;
  const std::uint8_t* cell_at(int p, int tl, ProcessIndex process, TimeNs t) {
    lod.read(p, tl, t, t, process, process, cells);
    EXPECT_EQ(cells.grid.rows * cells.grid.columns, 1);  // a one-cell window reads one cell
    const std::uint8_t* cell = cells.grid.at(process >> p, t / lod.layout().bin_width(tl));
    return cell && cell[0] != 0 ? cell : nullptr;
  }
  int klass_at(int p, int tl, ProcessIndex process, TimeNs t) {
    const std::uint8_t* cell = cell_at(p, tl, process, t);
    return cell ? cell[0] - 1 : -1;
  }
  int busy_at(int p, int tl, ProcessIndex process, TimeNs t) {
    const std::uint8_t* cell = cell_at(p, tl, process, t);
    return cell ? cell[1] : -1;
  }
};

// Runs of one class along the rows of a window read, in (block, bin) order.
struct ClassRun {
  std::int64_t block, first_bin, last_bin;
  int klass;
};
std::vector<ClassRun> class_runs(const db::LodCells& cells) {
  std::vector<ClassRun> runs;
  const db::CellGrid& g = cells.grid;
  for (std::int64_t r = 0; r < g.rows; ++r)
    for (std::int64_t c = 0; c < g.columns; ++c) {
      const std::uint8_t* cell = g.cell(r, c);
      if (cell[0] == 0) continue;
      const std::int64_t block = g.b0 + r, bin = g.i0 + c;
      if (!runs.empty() && runs.back().block == block && runs.back().last_bin + 1 == bin &&
          runs.back().klass == cell[0] - 1)
        runs.back().last_bin = bin;
      else
        runs.push_back({block, bin, bin, cell[0] - 1});
    }
  return runs;
}

}  // namespace

TEST(ActivityLod, LayoutCoversTheRunWithBoundedLevels) {
  db::LodLayout small = db::plan_lod_layout(16, 1'000'000);
  EXPECT_EQ(small.min_plevel, 0);
  EXPECT_EQ(small.max_plevel, 4);  // 2^4 = 16: one block for all
  EXPECT_GE(small.bin_ns * small.bins, 1'000'001);
  EXPECT_LE(small.bins, db::kLodBins);
  EXPECT_GE(small.bins_at(small.max_tlevel), db::kMinLodBins);
  EXPECT_LT(small.bins_at(small.max_tlevel + 1), db::kMinLodBins);

  db::LodLayout big = db::plan_lod_layout(65'536, 1'000'000'000);
  EXPECT_EQ(big.min_plevel, 6);  // 65,536 / 2^6 = 1,024 blocks
  EXPECT_EQ(big.blocks(big.min_plevel), db::kMaxLodBlocks);
  EXPECT_EQ(big.max_plevel, 16);

  // A damaged run's end near 2^63 (test_corrupt_store's hostile edits): the
  // bins still cover it, with no overflow on the way (UBSan checks that).
  db::LodLayout huge = db::plan_lod_layout(4, INT64_MAX);
  EXPECT_LE(huge.bins, db::kLodBins);
  EXPECT_GE(static_cast<double>(huge.bin_ns) * static_cast<double>(huge.bins), static_cast<double>(INT64_MAX));
  EXPECT_EQ(weft::ceil_div(INT64_MAX, 1024), INT64_MAX / 1024 + 1);
  EXPECT_EQ(weft::ceil_div(2048, 1024), 2);
  EXPECT_EQ(weft::ceil_div(0, 7), 0);
  EXPECT_EQ(weft::saturating_add(INT64_MAX - 1, 5), INT64_MAX);
  EXPECT_EQ(weft::saturating_add(INT64_MIN + 1, -5), INT64_MIN);
  EXPECT_EQ(weft::saturating_add(40, 2), 42);
}

TEST(ActivityLod, CellsShowTheInnermostCallAndVoteUpward) {
  // Process 0 computes for 1 ms. Process 1 computes, is in MPI_Allreduce from
  // 400 to 600 µs, then computes; inside its first compute, main calls
  // MPI_Isend (depth 1) from 100 to 200 µs: the innermost call is on top.
  TestTrace trace;
  trace.processes = 2;
  trace.events = {{0, 0, 1'000'000, 1, 0},
                  {1, 0, 400'000, 0, 0},
                  {1, 100'000, 200'000, 2, 1},
                  {1, 400'000, 600'000, 5, 0},
                  {1, 600'000, 1'000'000, 1, 0}};
  db::Database database = build(trace, "lod");
  db::ActivityLod lod(database);
  const db::LodLayout& l = lod.layout();
  EXPECT_EQ(l.min_plevel, 0);
  EXPECT_EQ(l.max_plevel, 1);
  Probe probe{lod, {}};

  // Finest level: one process per block.
  EXPECT_EQ(probe.klass_at(0, 0, 0, 500'000), kCompute);
  EXPECT_EQ(probe.klass_at(0, 0, 1, 50'000), kCompute);
  EXPECT_EQ(probe.klass_at(0, 0, 1, 150'000), kSend);  // the nested call, not main
  EXPECT_EQ(probe.klass_at(0, 0, 1, 500'000), kCollective);
  EXPECT_EQ(probe.klass_at(0, 0, 1, 800'000), kCompute);
  EXPECT_EQ(probe.busy_at(0, 0, 1, 500'000), 255);  // a bin wholly inside the call

  // Both processes in one block: compute on 0 and the collective on 1 are
  // equally busy; ties go to the class listed first (MPI before compute).
  EXPECT_EQ(probe.klass_at(1, 0, 0, 500'000), kCollective);
  EXPECT_EQ(probe.klass_at(1, 0, 0, 800'000), kCompute);

  // Coarser time: a bin of 4^t fine bins votes the same way.
  const int t = l.max_tlevel;
  EXPECT_EQ(probe.klass_at(0, t, 1, 500'000), kCollective);
  EXPECT_EQ(probe.klass_at(0, t, 0, 500'000), kCompute);

  // A window read: process 0 is one run over the whole run; process 1 is
  // compute, send, compute, collective, compute (runs of one class merge).
  db::LodCells cells;
  lod.read(0, 0, 0, 1'000'000, 0, 1, cells);
  const std::vector<ClassRun> runs = class_runs(cells);
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[0].block, 0);
  EXPECT_EQ(runs[0].first_bin, 0);
  EXPECT_EQ(runs[0].last_bin, 1'000'000 / l.bin_ns - (1'000'000 % l.bin_ns == 0));
  const std::uint8_t expected[] = {kCompute, kSend, kCompute, kCollective, kCompute};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(runs[i + 1].block, 1);
    EXPECT_EQ(runs[i + 1].klass, expected[i]) << i;
    if (i > 0) {
      EXPECT_EQ(runs[i + 1].first_bin, runs[i].last_bin + 1) << i;  // no gaps, no overlap
    }
  }
}

TEST(ActivityLod, ChooseLevelsKeepsCellsNearAPixel) {
  TestTrace trace;
  trace.processes = 8;
  for (ProcessIndex p = 0; p < 8; ++p) trace.events.push_back({p, 0, 1'000'000, 1, 0});
  db::Database database = build(trace, "lod_levels");
  db::ActivityLod lod(database);
  const db::LodLayout& l = lod.layout();
  // 1,000 px for the whole run, 100 px per process: the finest level.
  auto [p0, t0] = lod.choose_levels(1000.0 / 1e6, 100.0, 2.0);
  EXPECT_EQ(p0, 0);
  EXPECT_LE(static_cast<double>(l.bin_width(t0)) * 1000.0 / 1e6, 2.0);
  // Half a pixel per process: blocks of 4 processes (2 px), coarser time too.
  auto [p1, t1] = lod.choose_levels(100.0 / 1e6, 0.5, 2.0);
  EXPECT_EQ(p1, 2);
  EXPECT_GT(t1, t0);
}
