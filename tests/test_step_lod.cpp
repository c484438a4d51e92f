// The logical timeline's level of detail (db/structure/step_lod.h): every
// finest cell holds the quantized maxima and the class set of its items,
// whatever order the items come in (an MPI analysis gives them process by
// process; a task analysis need not), and region classes are looked up
// through RegionClasses.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <future>
#include <random>
#include <vector>

#include "common/error.h"
#include "store/sqlite.h"
#include "structure/job_exchange.h"
#include "structure/step_lod.h"
#include "summary/start_histogram.h"
#include "weft_test_db.h"

using namespace weft;

namespace {

constexpr std::int64_t kRows = 3000;  // over 1,024 blocks: the finest level has blocks of 4 rows
constexpr std::int64_t kSteps = 40;

db::RegionClasses test_classes() {
  db::RegionClasses c;
  c.set(0, db::StartClass::Send);
  c.set(1, db::StartClass::Receive);
  c.set(2, db::StartClass::Wait);
  c.set(std::int64_t{1} << 40, db::StartClass::Collective);  // beyond the dense range
  return c;
}

// Items on random rows and steps, with some out of range (dropped), regions
// 0..2, one far beyond the dense range and one unknown (Compute).
std::vector<db::StepLodItem> random_items() {
  std::mt19937_64 rng(7);
  std::vector<db::StepLodItem> items;
  const std::array<std::int64_t, 5> regions{0, 1, 2, std::int64_t{1} << 40, 99};
  for (int i = 0; i < 6000; ++i) {
    db::StepLodItem it;
    it.row = static_cast<std::int64_t>(rng() % (kRows + 2)) - 1;
    it.step = static_cast<std::int64_t>(rng() % (kSteps + 2)) - 1;
    it.lateness = static_cast<TimeNs>(rng() % 100000);
    it.diff_lateness = static_cast<TimeNs>(rng() % 3 == 0 ? 0 : rng() % 5000);
    it.global_lateness = static_cast<TimeNs>(rng() % 200000);
    it.duration = static_cast<TimeNs>(1 + rng() % 70000);
    it.region = regions[rng() % regions.size()];
    items.push_back(it);
  }
  return items;
}

db::StepLodTiles build(const std::vector<db::StepLodItem>& items) {
  return db::build_step_lod(kRows, kSteps, [&](const auto& emit) {
    for (const db::StepLodItem& it : items) emit(it);
  }, test_classes());
}

std::vector<std::uint8_t> tile_bytes(const db::StepLodTiles& lod) {
  std::vector<std::uint8_t> out;
  for (const auto& t : lod.tiles.tiles) {
    for (std::int64_t v : {std::int64_t{t.plevel}, std::int64_t{t.tlevel}, t.block, t.tile})
      out.push_back(static_cast<std::uint8_t>(v));
    out.insert(out.end(), lod.tiles.bytes.begin() + static_cast<std::ptrdiff_t>(t.offset),
               lod.tiles.bytes.begin() + static_cast<std::ptrdiff_t>(t.offset + t.size));
  }
  return out;
}

// The largest value of each metric among the items.
db::StepLodMaxima max_of(const std::vector<db::StepLodItem>& items) {
  db::StepLodMaxima max;
  for (const auto& it : items) {
    max.lateness = std::max(max.lateness, it.lateness);
    max.diff_lateness = std::max(max.diff_lateness, it.diff_lateness);
    max.global_lateness = std::max(max.global_lateness, it.global_lateness);
    max.duration = std::max(max.duration, it.duration);
  }
  return max;
}

// A cell as docs/schema.md defines it, one item at a time: each metric's
// largest quantized value, and the union of the classes.
void add_to_expected_cell(std::array<std::uint8_t, db::kStepLodCellBytes>& cell, const db::StepLodItem& it,
                          const db::StepLodMaxima& max, const db::RegionClasses& classes) {
  const std::array<TimeNs, 4> values{it.lateness, it.diff_lateness, it.global_lateness, it.duration};
  const std::array<TimeNs, 4> maxima{max.lateness, max.diff_lateness, max.global_lateness, max.duration};
  for (std::size_t f = 0; f < 4; ++f) cell[f] = std::max(cell[f], db::quantize_metric(values[f], maxima[f]));
  cell[db::kLodClasses] |= static_cast<std::uint8_t>(1u << static_cast<int>(classes.of(it.region)));
}

// Writes `lod` into a new store with the tables its reader needs.
void store(db::Database& db, const db::StepLodTiles& lod) {
  db::Transaction tx(db, "BEGIN IMMEDIATE");
  db.exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value)");
  db.exec("CREATE TABLE IF NOT EXISTS processes(process INTEGER PRIMARY KEY)");
  db::write_step_lod(db, lod);
  tx.commit();
}

}  // namespace

// The builder with the largest differential lateness found from the items
// (the others given): one walk, as the MPI analysis' view tables make it.
db::StepLodTiles build_finding_diff(const std::vector<db::StepLodItem>& items) {
  db::StepLodMaxima given;
  for (const auto& it : items)
    if (it.row >= 0 && it.row < kRows && it.step >= 0 && it.step < kSteps) {
      given.lateness = std::max(given.lateness, it.lateness);
      given.global_lateness = std::max(given.global_lateness, it.global_lateness);
      given.duration = std::max(given.duration, it.duration);
    }
  given.diff_lateness = 1;  // ignored: found from the items
  const db::RegionClasses classes = test_classes();
  db::StepLodBuilder builder(kRows, kSteps, classes, given, {.diff = db::StepLodBuilder::Diff::FromItems});
  for (const db::StepLodItem& it : items) builder.add(it);
  return builder.finish();
}

TEST(RegionClasses, DenseSparseAndUnknownRegions) {
  const db::RegionClasses c = test_classes();
  EXPECT_EQ(c.of(0), db::StartClass::Send);
  EXPECT_EQ(c.of(2), db::StartClass::Wait);
  EXPECT_EQ(c.of(3), db::StartClass::Compute);  // never set
  EXPECT_EQ(c.of(-5), db::StartClass::Compute);
  EXPECT_EQ(c.of(std::int64_t{1} << 40), db::StartClass::Collective);
  EXPECT_EQ(c.of((std::int64_t{1} << 40) + 1), db::StartClass::Compute);
}

TEST(StepLod, FinestCellsAreTheQuantizedMaximaOfTheirItemsInAnyOrder) {
  std::vector<db::StepLodItem> items = random_items();
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.row < b.row; });
  const db::StepLodTiles sorted = build(items);
  const db::StepLodLayout& l = sorted.layout;
  ASSERT_EQ(l.min_plevel, 2);
  ASSERT_EQ(l.min_slevel, 0);

  // Reversed rows take the path for items behind the current block; shuffled
  // ones both paths. The stored bytes are the same.
  std::vector<db::StepLodItem> reversed(items.rbegin(), items.rend());
  EXPECT_EQ(tile_bytes(build(reversed)), tile_bytes(sorted));
  std::vector<db::StepLodItem> shuffled = items;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(11));
  EXPECT_EQ(tile_bytes(build(shuffled)), tile_bytes(sorted));
  // With the largest differential lateness found during the walk, in every
  // order: the same bytes again (the raw cells are quantized at the end).
  EXPECT_EQ(tile_bytes(build_finding_diff(items)), tile_bytes(sorted));
  EXPECT_EQ(tile_bytes(build_finding_diff(reversed)), tile_bytes(sorted));
  EXPECT_EQ(tile_bytes(build_finding_diff(shuffled)), tile_bytes(sorted));
  EXPECT_EQ(db::StepLodBuilder::diff_from_items_bytes(kRows, kSteps),
            l.blocks(l.min_plevel) * kSteps * static_cast<std::int64_t>(sizeof(TimeNs)));

  // The expected cells, item by item from the definition.
  const db::StepLodMaxima max = max_of(items);
  const db::RegionClasses classes = test_classes();
  const std::int64_t blocks = l.blocks(l.min_plevel);
  std::vector<std::array<std::uint8_t, db::kStepLodCellBytes>> expected(static_cast<std::size_t>(blocks * kSteps));
  int kept = 0;
  for (const auto& it : items) {
    if (it.row < 0 || it.row >= kRows || it.step < 0 || it.step >= kSteps) continue;
    ++kept;
    add_to_expected_cell(expected[static_cast<std::size_t>((it.row >> l.min_plevel) * kSteps + it.step)], it, max,
                         classes);
  }
  ASSERT_GT(kept, 5000);
  ASSERT_LT(kept, 6000);  // some items fell outside the rows or steps

  db::Database db(weft::testing::temp_weft_path("step_lod_cells"), db::Database::Mode::Create);
  store(db, sorted);
  db::StepLod lod(db);
  db::StepLodCells cells;
  lod.read(l.min_plevel, l.min_slevel, 0, kSteps - 1, 0, static_cast<ProcessIndex>(kRows - 1), cells);
  ASSERT_EQ(cells.grid.rows, blocks);
  ASSERT_EQ(cells.grid.columns, kSteps);
  int mismatches = 0, occupied = 0;
  for (std::int64_t b = 0; b < blocks; ++b)
    for (std::int64_t s = 0; s < kSteps; ++s) {
      const std::uint8_t* got = cells.grid.at(b, s);
      const auto& want = expected[static_cast<std::size_t>(b * kSteps + s)];
      if (want[db::kLodClasses] != 0) ++occupied;
      if (!std::equal(want.begin(), want.end(), got)) ++mismatches;
    }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(occupied, 3000);
}

// The coarser process levels compressed by a second thread (JobExchange, as
// `weft analyze` offers them to its main thread) give the same tiles in the
// same order as one thread. The builder never takes its offer back here, so
// the helper is certain to build them (on a loaded machine it could lose
// every race for the offer to the builder's own compression of the finest
// level, which LZ4 makes short).
TEST(StepLod, CoarserLevelsBuiltByAHelpingThreadAreTheSameTiles) {
  const std::vector<db::StepLodItem> items = random_items();
  const std::vector<std::uint8_t> alone = tile_bytes(build(items));
  db::JobExchange exchange(db::JobExchange::Takeback::Never);
  std::future<void> helper = std::async(std::launch::async, [&] { exchange.help_until_closed(); });
  db::StepLodTiles shared;
  {
    const db::JobExchange::CloseOnExit closing(&exchange);
    shared = db::build_step_lod(kRows, kSteps, [&](const auto& emit) {
      for (const db::StepLodItem& it : items) emit(it);
    }, test_classes(), max_of(items), &exchange);
  }
  helper.get();
  EXPECT_EQ(exchange.helped(), 1);
  EXPECT_EQ(tile_bytes(shared), alone);
}

namespace {

constexpr std::int64_t kLevelRows = 1500, kLevelSteps = 301;

// Items on random rows and steps of kLevelRows × kLevelSteps, sorted by row,
// none in rows 100-299 nor in the last 100 (blocks without items, inside the
// run and at its end).
std::vector<db::StepLodItem> items_with_empty_rows() {
  std::mt19937_64 rng(3);
  std::vector<db::StepLodItem> items;
  const std::array<std::int64_t, 4> regions{0, 1, 2, 99};
  while (items.size() < 20000) {
    db::StepLodItem it;
    it.row = static_cast<std::int64_t>(rng() % kLevelRows);
    it.step = static_cast<std::int64_t>(rng() % kLevelSteps);
    it.lateness = static_cast<TimeNs>(rng() % 100000);
    it.diff_lateness = static_cast<TimeNs>(rng() % 5000);
    it.global_lateness = static_cast<TimeNs>(rng() % 200000);
    it.duration = static_cast<TimeNs>(1 + rng() % 70000);
    it.region = regions[rng() % regions.size()];
    if ((it.row >= 100 && it.row < 300) || it.row >= kLevelRows - 100) continue;
    items.push_back(it);
  }
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.row < b.row; });
  return items;
}

// The level of detail of `items` built whole or streamed row by row.
db::StepLodTiles build_levels(const std::vector<db::StepLodItem>& items, db::StepLodBuilder::Grid grid) {
  const db::RegionClasses classes = test_classes();
  db::StepLodBuilder builder(kLevelRows, kLevelSteps, classes, max_of(items),
                             {.order = db::StepLodBuilder::Rows::InOrder, .grid = grid});
  EXPECT_EQ(builder.streamed(), grid == db::StepLodBuilder::Grid::Streamed);
  for (const db::StepLodItem& it : items) builder.add(it);
  return builder.finish();
}

// Every level, in processes and in steps, read back from the store: each cell
// holds the largest quantized values and the union of the classes of the
// items in the rows and steps it covers, computed here item by item from
// that definition (docs/schema.md), with odd counts of blocks (1,500 rows:
// 750, 375, 188, ... blocks) and of bins (301 steps: 301, 151, 76).
void expect_every_level_holds_its_items(const db::StepLodTiles& built, const std::vector<db::StepLodItem>& items,
                                        const char* name) {
  const db::StepLodLayout& l = built.layout;
  ASSERT_EQ(l.min_plevel, 1);
  ASSERT_EQ(l.max_plevel, 11);
  ASSERT_EQ(l.min_slevel, 0);
  ASSERT_EQ(l.max_slevel, 2);
  const db::RegionClasses classes = test_classes();
  db::Database db(weft::testing::temp_weft_path(name), db::Database::Mode::Create);
  store(db, built);
  db::StepLod lod(db);
  const db::StepLodMaxima max = max_of(items);
  int levels = 0;
  for (int p = l.min_plevel; p <= l.max_plevel; ++p)
    for (int s = l.min_slevel; s <= l.max_slevel; ++s) {
      const std::int64_t blocks = l.blocks(p), bins = l.bins(s);
      std::vector<std::array<std::uint8_t, db::kStepLodCellBytes>> expected(static_cast<std::size_t>(blocks * bins));
      for (const auto& it : items) {
        add_to_expected_cell(expected[static_cast<std::size_t>((it.row >> p) * bins + (it.step >> s))], it, max,
                             classes);
      }
      db::StepLodCells cells;
      lod.read(p, s, 0, kLevelSteps - 1, 0, static_cast<ProcessIndex>(kLevelRows - 1), cells);
      ASSERT_EQ(cells.grid.rows, blocks) << "level " << p << "," << s;
      ASSERT_EQ(cells.grid.columns, bins) << "level " << p << "," << s;
      int mismatches = 0;
      for (std::int64_t b = 0; b < blocks; ++b)
        for (std::int64_t i = 0; i < bins; ++i) {
          const auto& want = expected[static_cast<std::size_t>(b * bins + i)];
          if (!std::equal(want.begin(), want.end(), cells.grid.at(b, i))) ++mismatches;
        }
      EXPECT_EQ(mismatches, 0) << "level " << p << "," << s;
      ++levels;
    }
  EXPECT_EQ(levels, 11 * 3);
}

}  // namespace

TEST(StepLod, EveryLevelHoldsTheMaximaAndClassesOfTheItemsItCovers) {
  const std::vector<db::StepLodItem> items = items_with_empty_rows();
  expect_every_level_holds_its_items(build_levels(items, db::StepLodBuilder::Grid::Whole), items, "step_lod_whole");
}

// Streamed row by row through the pyramid (no level held whole), the levels
// are the same: every cell checked from the items, and the same tiles, byte
// for byte and in the same order, as the whole grid's.
TEST(StepLod, StreamedRowsMakeTheSameLevels) {
  const std::vector<db::StepLodItem> items = items_with_empty_rows();
  const db::StepLodTiles streamed = build_levels(items, db::StepLodBuilder::Grid::Streamed);
  expect_every_level_holds_its_items(streamed, items, "step_lod_streamed");
  EXPECT_EQ(tile_bytes(streamed), tile_bytes(build_levels(items, db::StepLodBuilder::Grid::Whole)));
}

namespace {

// The tiles of the levels of at least `slevel` steps.
std::vector<std::uint8_t> tile_bytes_from_slevel(db::StepLodTiles lod, int slevel) {
  std::erase_if(lod.tiles.tiles, [&](const auto& t) { return t.tlevel < slevel; });
  return tile_bytes(lod);
}

}  // namespace

// An MPI analysis' events sit on odd steps only (StepLodSteps::OddOnly): its
// finest bins are two steps wide, and every level it has is the same tiles,
// byte for byte, as the levels of two or more steps of a layout that starts
// at one step (whose one-step level has every even column empty). Whole and
// streamed alike.
TEST(StepLod, OddStepsOnlyStartAtBinsOfTwoStepsWithTheSameCells) {
  std::vector<db::StepLodItem> items = items_with_empty_rows();
  for (db::StepLodItem& it : items) it.step |= 1;
  std::erase_if(items, [](const db::StepLodItem& it) { return it.step >= kLevelSteps; });
  const db::RegionClasses classes = test_classes();
  auto build_odd = [&](db::StepLodBuilder::Grid grid) {
    db::StepLodBuilder builder(
        kLevelRows, kLevelSteps, classes, max_of(items),
        {.order = db::StepLodBuilder::Rows::InOrder, .grid = grid, .used = db::StepLodSteps::OddOnly});
    for (const db::StepLodItem& it : items) builder.add(it);
    return builder.finish();
  };
  const db::StepLodTiles every = build_levels(items, db::StepLodBuilder::Grid::Whole);
  ASSERT_EQ(every.layout.min_slevel, 0);
  for (db::StepLodBuilder::Grid grid : {db::StepLodBuilder::Grid::Whole, db::StepLodBuilder::Grid::Streamed}) {
    const db::StepLodTiles odd = build_odd(grid);
    EXPECT_EQ(odd.layout.min_slevel, 1);
    EXPECT_EQ(odd.layout.max_slevel, every.layout.max_slevel);
    EXPECT_EQ(odd.layout.min_plevel, every.layout.min_plevel);
    EXPECT_EQ(odd.layout.max_plevel, every.layout.max_plevel);
    EXPECT_EQ(tile_bytes(odd), tile_bytes_from_slevel(every, 1));
  }
  EXPECT_EQ(db::StepLodBuilder::diff_from_items_bytes(kLevelRows, kLevelSteps, db::StepLodSteps::OddOnly),
            750 * 151 * static_cast<std::int64_t>(sizeof(TimeNs)));
}

// A streamed builder has given its earlier rows away: an item behind them is
// an internal error, not a silently wrong cell.
TEST(StepLod, StreamedRowsOutOfOrderAreAnError) {
  const db::RegionClasses classes = test_classes();
  db::StepLodBuilder builder(kLevelRows, kLevelSteps, classes, {10, 10, 10, 10},
                             {.order = db::StepLodBuilder::Rows::InOrder, .grid = db::StepLodBuilder::Grid::Streamed});
  builder.add({40, 3, 5, 5, 5, 5, 0});
  EXPECT_THROW(builder.add({10, 3, 5, 5, 5, 5, 0}), Error);
}

// Which grids stream: only items in row order with the maxima known, and
// with Grid::Auto only a finest level over 4 MiB. 1,024 processes × 4,481
// steps (stencil2d, 320 iterations): 1,024 × 4,481 cells of 5 bytes, 22.9
// MB; × 281 steps (20 iterations), 1.4 MB.
TEST(StepLod, GridsOverFourMebibytesStream) {
  using B = db::StepLodBuilder;
  const B::Options in_order{.order = B::Rows::InOrder};
  EXPECT_TRUE(B::streams(1024, 4481, in_order));
  EXPECT_FALSE(B::streams(1024, 281, in_order));
  // 819 steps: 4,193,280 bytes, just under 4 MiB; 820: just over.
  EXPECT_FALSE(B::streams(1024, 819, in_order));
  EXPECT_TRUE(B::streams(1024, 820, in_order));
  EXPECT_FALSE(B::streams(1024, 4481, {.diff = B::Diff::FromItems, .order = B::Rows::InOrder}));
  EXPECT_FALSE(B::streams(1024, 4481, {.order = B::Rows::AnyOrder}));
  EXPECT_FALSE(B::streams(1024, 4481, {.order = B::Rows::InOrder, .grid = B::Grid::Whole}));
  EXPECT_TRUE(B::streams(16, 10, {.order = B::Rows::InOrder, .grid = B::Grid::Streamed}));
  EXPECT_FALSE(B::streams(16, 10, {.order = B::Rows::AnyOrder, .grid = B::Grid::Streamed}));
  // Bins of two steps (odd steps only): 1,638 steps are 819 bins, 1,639 are 820.
  const B::Options odd_steps{.order = B::Rows::InOrder, .used = db::StepLodSteps::OddOnly};
  EXPECT_FALSE(B::streams(1024, 1638, odd_steps));
  EXPECT_TRUE(B::streams(1024, 1639, odd_steps));
}
