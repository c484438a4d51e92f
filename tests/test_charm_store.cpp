// The task-based logical structure of Projections runs through the CLI:
// `weft synth --format projections`, `weft import` (which analyzes), then
// the stored tables, `weft check`, `weft info` and the rendered logical view.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "charm/task_structure_store.h"
#include "metric_colormap.h"
#include "png_test_support.h"
#include "projections_test_support.h"
#include "store/record_scan.h"
#include "structure/comm_event_blocks.h"
#include "store/sqlite.h"

namespace {

using weft::test::TempDir;
using weft::test::run_command;
using weft::test::quoted;
namespace db = weft::db;
namespace fs = std::filesystem;

const std::string kWeft = WEFT_BINARY;

std::int64_t row_of(db::Database& d, const std::string& name) {
  db::Statement s = d.prepare("SELECT row FROM logical_rows WHERE name = ?1");
  s.bind(1, std::string_view(name));
  EXPECT_TRUE(s.step()) << name;
  return s.column_int(0);
}

class CharmStore : public ::testing::Test {
 protected:
  TempDir dir_{"charm-store"};
};

// jacobi2d on 4 PEs with 4 chares each: a 4x4 grid; chare 5 is Jacobi[1,1]
// (x = 5 % 4, y = 5 / 4) and computes 4x longer in iteration 1 (--delay
// 5:1:4). Its execution is the one that stands out: the largest differential
// duration (its sub-block minus the shortest one of its phase and step: the
// other elements' normal computes) of the run.
TEST_F(CharmStore, DelayedChareHasTheLargestDifferentialDuration) {
  const fs::path sts = weft::test::synth_projections(
      dir_.path / "j", "jacobi2d", {"-n", "4", "-i", "3", "--chares-per-pe", "4", "--delay", "5:1:4"});
  const fs::path run = dir_.path / "j.weft";
  weft::test::import_run(sts, run);
  db::Database d(run.string(), db::Database::Mode::ReadOnly);
  ASSERT_TRUE(db::has_task_structure(d));

  // Rows: Main and the 16 Jacobi elements (application) first, the 4
  // CkReductionMgr groups (runtime, one per PE) last.
  const std::int64_t rows = d.query_int("SELECT count(*) FROM logical_rows");
  EXPECT_EQ(rows, 1 + 16 + 4);
  EXPECT_EQ(d.query_int("SELECT count(*) FROM logical_rows WHERE runtime = 1"), 4);
  EXPECT_EQ(d.query_int("SELECT min(row) FROM logical_rows WHERE runtime = 1"), 17);
  EXPECT_EQ(d.query_int("SELECT max(row) FROM logical_rows WHERE runtime = 0"), 16);
  EXPECT_EQ(d.query_int("SELECT count(*) FROM logical_rows WHERE name LIKE 'CkReductionMgr%' AND runtime = 1"), 4);

  const std::int64_t delayed = row_of(d, "Jacobi[1,1]");
  db::CommEventRecord top{};
  top.diff_lateness_ns = -1;
  std::int64_t ties = 0;
  db::scan_comm_events(d, [&](std::span<const db::CommEventRecord> batch) {
    for (const db::CommEventRecord& e : batch) {
      if (e.diff_lateness_ns > top.diff_lateness_ns) top = e, ties = 0;
      else if (e.diff_lateness_ns == top.diff_lateness_ns) ++ties;
    }
  });
  EXPECT_EQ(top.process, delayed);
  EXPECT_EQ(ties, 0);
  // Its compute is 4 x the normal one, so at least 3 normal computes (the
  // jacobi compute is 40 µs: core/synth/charm) longer than the shortest.
  EXPECT_GE(top.diff_lateness_ns, 3 * 40'000);
  EXPECT_EQ(d.query_int("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'analysis_max_diff_lateness_ns'"),
            top.diff_lateness_ns);

  // Drawn in the top color at its row, and nowhere on a neighbour's row.
  auto top_pixels = [&](std::int64_t row, const std::string& tag) -> long {
    const fs::path png = dir_.path / (tag + ".png");
    auto r = run_command(kWeft + " render " + quoted(run) + " --view logical --color dlateness --procs " +
                         std::to_string(row) + " --steps " + std::to_string(std::max<std::int64_t>(0, top.step - 3)) +
                         ":" + std::to_string(top.step + 3) + " --size 800x300 --out " + quoted(png));
    if (r.exit_code != 0 && r.output.find("cannot create EGL context") != std::string::npos) return -1;
    EXPECT_EQ(r.exit_code, 0) << r.output;
    weft::testing::Png image(png.string());
    EXPECT_TRUE(image.ok());
    long n = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width() * 3 / 4; ++x) n += image.pixel(x, y) == weft::render::metric_color_top();
    return n;
  };
  const long at_row = top_pixels(delayed, "delayed");
  if (at_row < 0) GTEST_SKIP() << "no headless OpenGL here";
  EXPECT_GT(at_row, 100);
  EXPECT_EQ(top_pixels(row_of(d, "Jacobi[0,0]"), "other"), 0);

  auto check = run_command(kWeft + " check " + quoted(run));
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("no two events of one chare on one step"), std::string::npos) << check.output;
}

// ampi on 2 PEs with 4 virtual ranks (rank v on PE v*2/4: ranks 0,1 on PE 0,
// 2,3 on PE 1), 3 iterations, rank 1 moved to PE 1 at the end of iteration 0.
// Costs (core/synth/charm/charm_sim.cpp): every execution 1 µs overhead,
// each creation 1 µs, message latency 1 µs local / 5 µs remote.
//  Main::Main on PE 0: 1 + 10 + 1 (broadcast at 11) = [0, 12].
//  ampi::run (iteration 0): 1 + 100 compute + 2 sends + 5 AMPI_Migrate = 108 µs.
//    PE 0: rank 0 [12, 120], rank 1 [120, 228] -> rank 1 migrates at 228 µs
//    (the end of its AMPI_Migrate): the one balancing step.
//    PE 1 (broadcast arrives at 16): rank 2 [16, 124], rank 3 [124, 232].
//  ampi::generic: 1 + 1 (AMPI_Recv) = 2 µs, the second of an iteration
//    also 100 compute + 2 sends (iteration 1) or none (iteration 2, the
//    last): per rank 2 + 104 + 2 + 102 = 210 µs, all after 228 (both PEs
//    are busy with the runs until then).
// Before the step [0, 228): PE 0 busy 12 + 108 + 108 = 228, PE 1 busy
//   16..228 = 212; λ = max/avg - 1 = 228 / 220 - 1 = 8/220 = 3.6364 %.
// After [228, end]: PE 0 runs rank 0's generics, 210; PE 1 the rest of
//   rank 3's run (4) and the generics of ranks 1, 2, 3 (630): 634;
//   λ = 634 / 422 - 1 = 212/422 = 50.237 %.
// Whole run: busy 438 and 846; λ = 846 / 642 - 1 = 204/642 = 31.776 %.
TEST_F(CharmStore, AmpiImbalanceBeforeAndAfterTheBalancingStep) {
  const fs::path sts = weft::test::synth_projections(
      dir_.path / "a", "ampi", {"-n", "2", "--vps", "4", "-i", "3", "--migrate", "1:1@0"});
  const fs::path run = dir_.path / "a.weft";
  weft::test::import_run(sts, run);
  db::Database d(run.string(), db::Database::Mode::ReadOnly);
  const std::vector<db::ImbalanceInterval> iv = db::read_imbalance_intervals(d);
  ASSERT_EQ(iv.size(), 2u);
  EXPECT_EQ(iv[0].end_ns, 228'000);
  EXPECT_NEAR(iv[0].lambda_percent, 800.0 / 220.0, 1e-9);
  EXPECT_NEAR(iv[1].lambda_percent, 21200.0 / 422.0, 1e-9);
  EXPECT_EQ(d.query_int("SELECT busy_ns FROM pe_metrics WHERE pe = 0"), 438'000);
  EXPECT_EQ(d.query_int("SELECT busy_ns FROM pe_metrics WHERE pe = 1"), 846'000);
  auto info = run_command(kWeft + " info " + quoted(run));
  EXPECT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("3.6 % before LB step 1"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("50.2 % after LB step 1"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("31.8 % over the run"), std::string::npos) << info.output;
  auto check = run_command(kWeft + " check " + quoted(run));
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

// --no-reorder is recorded and still gives a structure that passes check;
// `weft import --no-analyze` stores no structure.
TEST_F(CharmStore, NoReorderAndNoAnalyze) {
  const fs::path sts = weft::test::synth_projections(dir_.path / "r", "reduction-tree", {"-n", "4", "-i", "2"});
  const fs::path run = dir_.path / "r.weft";
  weft::test::import_run(sts, run, {"--no-analyze"});
  {
    db::Database d(run.string(), db::Database::Mode::ReadOnly);
    EXPECT_FALSE(db::has_task_structure(d));
  }
  auto a = run_command(kWeft + " analyze --no-reorder " + quoted(run));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  db::Database d(run.string(), db::Database::Mode::ReadOnly);
  EXPECT_TRUE(db::has_task_structure(d));
  EXPECT_EQ(weft::test::meta_int(d, "analysis_reorder"), 0);
  auto check = run_command(kWeft + " check " + quoted(run));
  EXPECT_EQ(check.exit_code, 0) << check.output;
  auto steps = run_command(kWeft + " export " + quoted(run) + " --what steps");
  EXPECT_EQ(steps.exit_code, 0) << steps.output;
}

// The real Projections traces of the corpus analyze and pass check.
TEST_F(CharmStore, RealTracesAnalyzeAndPassCheck) {
  const fs::path root = WEFT_SHARED_DIR "/traces";
  std::vector<fs::path> runs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator(); ++it)
    if (it->path().extension() == ".sts") runs.push_back(it->path());
  if (runs.empty()) GTEST_SKIP() << "no Projections traces under " << root;
  for (const fs::path& sts : runs) {
    const fs::path run = dir_.path / (sts.parent_path().filename().string() + ".weft");
    weft::test::import_run(sts, run);
    auto check = run_command(kWeft + " check " + quoted(run));
    EXPECT_EQ(check.exit_code, 0) << sts << "\n" << check.output;
    EXPECT_NE(check.output.find("task structure:"), std::string::npos) << check.output;
  }
}

}  // namespace
