// The Charm++/AMPI views end to end on synthetic Projections runs: the
// pe_utilization and pe_entry_time summaries written at import against sums
// taken here with SQL over the events, the PE view's λ, the virtual-rank
// lanes' tints around a migration, the migration ribbon over the PE view,
// and the usage profile's tallest bar.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <vector>

#include "app/charm_views.h"
#include "charm/task_metrics.h"
#include "png_test_support.h"
#include "projections_test_support.h"
#include "store/record_scan.h"
#include "store/window_query.h"
#include "summary/pe_usage.h"

namespace {

namespace fs = std::filesystem;
using weft::render::Rgba8;
using weft::testing::Png;

constexpr int kWidth = 1200, kHeight = 700;

weft::test::CommandResult render(const fs::path& run, const fs::path& png, const std::string& args) {
  return weft::test::run_command(std::string(WEFT_BINARY) + " render " + weft::test::quoted(run) + " -o " +
                                 weft::test::quoted(png) + " --size " + std::to_string(kWidth) + "x" +
                                 std::to_string(kHeight) + " " + args);
}

void expect_size(const Png& png) {
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(png.width(), kWidth);
  EXPECT_EQ(png.height(), kHeight);
}

// Busy and idle per PE taken independently of summary/pe_usage.cpp: the
// decoded events go into a temporary table and SQL sums them by the regions'
// paradigm and role (schema.md "Charm++ runs": executions are depth-0
// events of charm/function regions, idle intervals of the role-idle region).
struct SqlSums {
  std::vector<std::int64_t> busy, idle;
  std::int64_t longest_execution_pe = -1;
};
SqlSums sums_by_sql(const fs::path& run) {
  weft::db::Database db = weft::db::open_run(run.string(), weft::db::Database::Mode::ReadWrite);
  db.exec("CREATE TEMP TABLE ev(process INTEGER, region INTEGER, depth INTEGER, dur INTEGER)");
  {
    weft::db::Statement ins = db.prepare("INSERT INTO ev VALUES(?1, ?2, ?3, ?4)");
    weft::db::scan_events(db, [&](std::span<const weft::db::EventRecord> batch) {
      for (const weft::db::EventRecord& e : batch) {
        ins.bind(1, static_cast<std::int64_t>(e.process));
        ins.bind(2, e.region);
        ins.bind(3, static_cast<std::int64_t>(e.depth));
        ins.bind(4, e.end_ns - e.start_ns);
        ins.step();
        ins.reset();
      }
    });
  }
  SqlSums s;
  const std::int64_t pes = db.query_int("SELECT count(*) FROM processes");
  s.busy.assign(static_cast<std::size_t>(pes), 0);
  s.idle.assign(static_cast<std::size_t>(pes), 0);
  weft::db::Statement q = db.prepare(
      "SELECT process, SUM(CASE WHEN r.role = 'function' AND r.paradigm = 'charm' THEN dur ELSE 0 END),"
      " SUM(CASE WHEN r.role = 'idle' THEN dur ELSE 0 END)"
      " FROM ev JOIN regions r USING(region) WHERE depth = 0 GROUP BY process");
  while (q.step()) {
    s.busy[static_cast<std::size_t>(q.column_int(0))] = q.column_int(1);
    s.idle[static_cast<std::size_t>(q.column_int(0))] = q.column_int(2);
  }
  s.longest_execution_pe = db.query_int(
      "SELECT process FROM ev JOIN regions r USING(region) WHERE depth = 0 AND r.role = 'function'"
      " AND r.paradigm = 'charm' ORDER BY dur DESC LIMIT 1", -1);
  return s;
}

class CharmViews : public ::testing::Test {
 protected:
  // `weft synth ampi ARGS` imported to run.weft in the test's folder.
  fs::path import_ampi(const std::vector<std::string>& args) {
    const fs::path sts = weft::test::synth_projections(dir_.path / "run", "ampi", args);
    const fs::path run = dir_.path / "run.weft";
    weft::test::import_run(sts, run);
    return run;
  }
  weft::test::TempDir dir_{"render-charm"};
};

// jacobi2d, 4 PEs, 1 element per PE, element 2's compute x10 in iteration 1:
// PE 2 is the busiest, so λ > 0 and its profile bar is the tallest.
TEST_F(CharmViews, UtilizationMatchesSqlAndProfileShowsTheDelayedPe) {
  const fs::path sts = weft::test::synth_projections(
      dir_.path / "run", "jacobi2d", {"-n", "4", "-i", "3", "--chares-per-pe", "1", "--delay", "2:1:10", "--seed", "5"});
  const fs::path run = dir_.path / "run.weft";
  weft::test::import_run(sts, run);
  const SqlSums sql = sums_by_sql(run);
  weft::db::Database db = weft::db::open_run(run.string());
  const weft::db::PeUtilizationTable util = weft::db::read_pe_utilization(db);
  ASSERT_EQ(util.busy.size(), 4u);
  EXPECT_EQ(util.busy, sql.busy);
  EXPECT_EQ(util.idle, sql.idle);
  // The span: first to last depth-0 event, every PE's busy + idle fits in it.
  for (std::size_t p = 0; p < 4; ++p) EXPECT_LE(util.busy[p] + util.idle[p], util.span_ns);
  // The profile's per-PE entry times add up to the PE's busy time (top
  // entries + "other" lose nothing).
  const weft::db::UsageProfile profile = weft::db::read_usage_profile(db);
  ASSERT_EQ(profile.pes, 4);
  for (std::int32_t p = 0; p < 4; ++p) {
    std::int64_t sum = 0;
    for (std::size_t e = 0; e < profile.entries.size(); ++e) sum += profile.at(p, e);
    EXPECT_EQ(sum, util.busy[static_cast<std::size_t>(p)]) << "PE " << p;
  }
  // The delayed element's PE runs the longest execution (x10 compute) and is the busiest.
  const auto busiest = std::max_element(sql.busy.begin(), sql.busy.end()) - sql.busy.begin();
  EXPECT_EQ(busiest, sql.longest_execution_pe);

  // λ in the PE view's title: (max/avg - 1) x 100 from the SQL sums, as the title prints it (%.1f).
  double sum = 0, hi = 0;
  for (std::int64_t b : sql.busy) sum += static_cast<double>(b), hi = std::max(hi, static_cast<double>(b));
  const double lambda = (hi / (sum / 4.0) - 1.0) * 100.0;
  EXPECT_GT(lambda, 10.0);  // a x10 compute on one of 4 PEs
  EXPECT_NEAR(weft::charm::percent_imbalance(util.busy), lambda, 1e-9);
  char expected[64];
  std::snprintf(expected, sizeof expected, "lambda = %.1f%%", lambda);
  const std::optional<weft::app::PeViewSummary> summary = [&] {
    weft::db::WindowQuery query(run.string());
    const weft::app::TraceInfo info = weft::app::read_trace_info(query);
    auto s = weft::app::read_pe_view_summary(query.database(), info);
    EXPECT_TRUE(s.has_value());
    if (s) {
      EXPECT_NE(weft::app::pe_view_title(info, *s).find(expected), std::string::npos)
          << weft::app::pe_view_title(info, *s) << " lacks " << expected;
    }
    return s;
  }();
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->row_labels.size(), 4u);

  // The profile PNG: bars are runs of columns holding entry-method colors;
  // the first 4 are the PEs, the 5th the average. The delayed PE's has the most.
  const fs::path png_path = dir_.path / "profile.png";
  weft::test::CommandResult r = render(run, png_path, "--view profile");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Png png(png_path.string());
  expect_size(png);
  auto busy_color = [](Rgba8 c) {
    if (c == static_cast<Rgba8>(weft::app::kProfileOtherColor)) return true;
    for (std::size_t i = 0; i < 20; ++i)
      if (c == weft::render::categorical_color(i)) return true;
    return false;
  };
  std::vector<std::pair<int, long>> bars;  // (first column, most busy pixels in a column)
  bool in_bar = false;
  for (int x = 0; x < png.width(); ++x) {
    long n = 0;
    for (int y = 0; y < png.height(); ++y) n += busy_color(png.pixel(x, y));
    if (n > 0 && !in_bar) bars.push_back({x, n});
    if (n > 0) bars.back().second = std::max(bars.back().second, n);
    in_bar = n > 0;
  }
  ASSERT_GE(bars.size(), 5u);  // 4 PEs, the average, then the legend's swatches
  long tallest = -1;
  int tallest_pe = -1;
  for (int p = 0; p < 4; ++p)
    if (bars[static_cast<std::size_t>(p)].second > tallest) tallest = bars[static_cast<std::size_t>(p)].second, tallest_pe = p;
  EXPECT_EQ(tallest_pe, busiest);
  // The average bar is lower than the tallest and higher than the least busy.
  long lowest = tallest;
  for (int p = 0; p < 4; ++p) lowest = std::min(lowest, bars[static_cast<std::size_t>(p)].second);
  EXPECT_LT(bars[4].second, tallest);
  EXPECT_GT(bars[4].second, lowest);

  // A run imported before these tables existed: `weft analyze --summaries-only`
  // writes them again, with the same contents.
  {
    weft::db::Database rw = weft::db::open_run(run.string(), weft::db::Database::Mode::ReadWrite);
    rw.exec("DROP TABLE pe_utilization; DROP TABLE pe_entry_time;");
  }
  r = weft::test::run_command(std::string(WEFT_BINARY) + " analyze --summaries-only " + weft::test::quoted(run));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  {
    weft::db::Database again = weft::db::open_run(run.string());
    EXPECT_EQ(weft::db::read_pe_utilization(again).busy, sql.busy);
    EXPECT_EQ(weft::db::read_usage_profile(again).time, profile.time);
  }

  // No virtual ranks: --view vps says so, exit 2.
  r = render(run, dir_.path / "vps.png", "--view vps");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no AMPI virtual ranks"), std::string::npos) << r.output;
}

// ampi, 4 PEs, 8 ranks (rank v on PE v*4/8), rank 1 -> PE 3 at the end of iteration 1.
TEST_F(CharmViews, VirtualRankTintChangesAtTheMigrationAndTheRibbonJoinsThePes) {
  const fs::path run = import_ampi({"-n", "4", "-i", "4", "--vps", "8", "--migrate", "1:3@1", "--seed", "2"});
  weft::db::Database db = weft::db::open_run(run.string());
  const std::int64_t t_mig = db.query_int("SELECT time_ns FROM migrations WHERE vp = 1");
  const std::int64_t first = db.query_int("SELECT MIN(start_ns) FROM virtual_ranks WHERE vp = 1");
  const std::int64_t last = db.query_int("SELECT MAX(end_ns) FROM virtual_ranks WHERE vp = 1");
  ASSERT_EQ(db.query_int("SELECT from_pe FROM migrations WHERE vp = 1"), 0);
  ASSERT_EQ(db.query_int("SELECT to_pe FROM migrations WHERE vp = 1"), 3);
  ASSERT_LT(first, t_mig);
  ASSERT_LT(t_mig, last);

  // Only rank 1's lane: it fills the plot's height. Its leftmost and
  // rightmost tinted pixels are x(first) and x(last); x is linear in time.
  const fs::path png_path = dir_.path / "vps.png";
  weft::test::CommandResult r = render(run, png_path, "--view vps --procs 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Png png(png_path.string());
  expect_size(png);
  const Rgba8 old_tint = weft::render::categorical_color(0), new_tint = weft::render::categorical_color(3);
  const int y = kHeight / 2;
  int left = -1, right = -1;
  for (int x = 0; x < kWidth; ++x) {
    const Rgba8 c = png.pixel(x, y);
    if (c != old_tint && c != new_tint) continue;
    if (left < 0) left = x;
    right = x;
  }
  ASSERT_GE(left, 0);
  const double px_per_ns = static_cast<double>(right + 1 - left) / static_cast<double>(last - first);
  const int x_mig = left + static_cast<int>(static_cast<double>(t_mig - first) * px_per_ns);
  EXPECT_EQ(png.pixel(x_mig - 4, y), old_tint);
  EXPECT_EQ(png.pixel(left + 2, y), old_tint);
  EXPECT_EQ(png.pixel(x_mig + 4, y), new_tint);
  EXPECT_EQ(png.pixel(right - 2, y), new_tint);

  // The PE view around the migration: two windows centred differently give
  // the ribbon's x; both must agree with one linear time axis. Window A
  // [t - d, t + d] puts it at the plot's middle, window B [t - d, t + 3d]
  // at a quarter, so x_A - x_B = W/4 and x_A = plot.x + W/2.
  const std::int64_t t_next = db.query_int("SELECT MIN(start_ns) FROM virtual_ranks WHERE vp = 1 AND pe = 3");
  EXPECT_EQ(t_next, t_mig);
  const std::int64_t d = std::max<std::int64_t>(1000, (last - t_mig) / 16);
  auto ribbon_columns = [&](const std::string& name, const std::string& time) {
    const fs::path p = dir_.path / name;
    weft::test::CommandResult rr = render(run, p, "--view physical --time " + time);
    EXPECT_EQ(rr.exit_code, 0) << rr.output;
    Png img(p.string());
    expect_size(img);
    // The column with the most ribbon pixels, and that column's extent.
    int best_x = -1, best_top = 0, best_bottom = 0;
    long best = 0;
    for (int x = 0; x < img.width(); ++x) {
      long n = 0;
      int top = -1, bottom = -1;
      for (int yy = 0; yy < img.height(); ++yy)
        if (img.pixel(x, yy) == static_cast<Rgba8>(weft::app::kMigrationColor)) {
          ++n;
          if (top < 0) top = yy;
          bottom = yy;
        }
      if (n > best) best = n, best_x = x, best_top = top, best_bottom = bottom;
    }
    return std::array<int, 3>{best_x, best_top, best_bottom};
  };
  const auto a = ribbon_columns("pe_a.png", std::to_string(t_mig - d) + ":" + std::to_string(t_mig + d));
  const auto b = ribbon_columns("pe_b.png", std::to_string(t_mig - d) + ":" + std::to_string(t_mig + 3 * d));
  ASSERT_GE(a[0], 0);
  ASSERT_GE(b[0], 0);
  const double plot_w = 4.0 * (a[0] - b[0]);
  const double plot_x = a[0] - plot_w / 2;
  EXPECT_GT(plot_w, 0.5 * kWidth);  // the plot takes most of the width
  EXPECT_GT(plot_x, 0.0);
  EXPECT_LT(plot_x + plot_w, kWidth);
  // From row 0's centre to row 3's: 3 of the 4 rows, so the ribbon spans
  // more than half of the image height and starts in its upper quarter.
  EXPECT_GT(a[2] - a[1], kHeight / 2);
  EXPECT_LT(a[1], kHeight / 4);
}

// 4,096 ranks in a 700 px image: lanes thinner than a pixel, one rank drawn
// per pixel row. Rank 4093 (prime, so never the one drawn for its pixel row
// at any stride above 1) migrates: its marker must still be drawn, across
// the pixel row of the rank shown for it. Markers are the only near-white
// pixels inside the tinted plot.
TEST_F(CharmViews, MigrationOfAnUndrawnRankStillShowsWhenZoomedOut) {
  const fs::path run = import_ampi({"-n", "4", "-i", "3", "--vps", "4096", "--migrate", "4093:0@1", "--seed", "3"});
  {
    weft::db::Database db = weft::db::open_run(run.string());
    ASSERT_EQ(db.query_int("SELECT count(*) FROM migrations"), 1);
    ASSERT_EQ(db.query_int("SELECT vp FROM migrations"), 4093);
  }
  const fs::path png_path = dir_.path / "vps_all.png";
  weft::test::CommandResult r = render(run, png_path, "--view vps");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Png png(png_path.string());
  expect_size(png);
  auto is_tint = [](Rgba8 c) {
    for (std::size_t pe = 0; pe < 4; ++pe)
      if (c == weft::render::categorical_color(pe)) return true;
    return false;
  };
  int x0 = kWidth, x1 = -1, y0 = kHeight, y1 = -1;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x)
      if (is_tint(png.pixel(x, y))) x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  ASSERT_GT(x1 - x0, kWidth / 2);
  ASSERT_GT(y1 - y0, kHeight / 2);
  // Rank 4093 of 4096 sits at the bottom of the plot: its marker is in the
  // plot's last 8 pixel rows, at one column.
  std::vector<int> marker_columns;
  for (int x = x0; x <= x1; ++x)
    for (int y = y1 - 7; y <= y1; ++y) {
      const Rgba8 c = png.pixel(x, y);
      const int red = c & 0xff, green = (c >> 8) & 0xff, blue = (c >> 16) & 0xff;
      if (std::min({red, green, blue}) >= 215) {
        marker_columns.push_back(x);
        break;
      }
    }
  ASSERT_FALSE(marker_columns.empty());
  EXPECT_LE(marker_columns.back() - marker_columns.front(), 2);
}

}  // namespace
