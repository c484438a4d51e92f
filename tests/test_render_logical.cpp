// `weft render --view logical` end to end on a stencil2d run with one injected
// delay (`--delay 5:3:4`: rank 5 computes 4x longer in iteration 3). The
// ground truth: the communication event with the run's largest lateness is
// drawn in the top color of the lateness scale (render/metric_colormap.h: only
// the maximum maps exactly to it), and the events of the same step on
// processes that were not late are drawn in other colors.
#include <gtest/gtest.h>

#include <algorithm>

#include "app/class_colors.h"
#include "app/logical_data.h"
#include "app/timeline_data.h"
#include "app/view_filter.h"
#include "import_test_support.h"
#include "metric_colormap.h"
#include "png_test_support.h"
#include "store/sqlite.h"
#include "store/window_query.h"
#include "structure/logical_window.h"
#include "structure/step_lod.h"
#include "structure/time_metrics.h"
#include "summary/start_histogram.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;

namespace {

const std::string kWeft = WEFT_BINARY;

class RenderLogical : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::path trace = dir_.path / "trace";
    run_ = dir_.path / "run.weft";
    auto s = run_command(kWeft + " synth stencil2d -n 16 -i 6 --delay 5:3:4 -o " + quoted(trace));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    auto i = run_command(kWeft + " import -q " + quoted(trace / "traces.otf2") + " -o " + quoted(run_));
    ASSERT_EQ(i.exit_code, 0) << i.output;
  }

  std::int64_t query(const std::string& sql) {
    weft::db::Database db(run_.string(), weft::db::Database::Mode::ReadOnly);
    return db.query_int(sql, -1);
  }

  // Renders `args` to a PNG; returns its path, or "" (and skips) without EGL.
  std::string render(const std::string& name, const std::string& args, const std::string& view = "logical") {
    fs::path png = dir_.path / name;
    auto r = run_command(kWeft + " render " + quoted(run_) + " --view " + view + " --out " + quoted(png) +
                         " " + args);
    if (r.exit_code != 0 && r.output.find("cannot create EGL context") != std::string::npos) {
      skipped_ = true;
      return "";
    }
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return png.string();
  }

  weft::test::TempDir dir_{"render-logical"};
  fs::path run_;
  bool skipped_ = false;
};

TEST_F(RenderLogical, LatestEventCarriesTheTopColorAndItsStepNeighboursDoNot) {
  // The latest event and its (step, process); lateness ties are broken by event id.
  const std::int64_t step = query("SELECT step FROM comm_events ORDER BY lateness_ns DESC, event LIMIT 1");
  const std::int64_t late = query("SELECT process FROM comm_events ORDER BY lateness_ns DESC, event LIMIT 1");
  ASSERT_GE(step, 0);
  // The injected delay is what made it late: the delayed rank or one it sends to
  // (its stencil neighbours 1, 4, 6 and 9 in the 4x4 grid).
  EXPECT_TRUE(late == 5 || late == 1 || late == 4 || late == 6 || late == 9) << late;
  // A process at the same step that was not late at all.
  const std::int64_t calm = query("SELECT process FROM comm_events WHERE step = " + std::to_string(step) +
                                  " AND lateness_ns = 0 ORDER BY process LIMIT 1");
  ASSERT_GE(calm, 0) << "every process is late at step " << step;

  const std::string cell = " --size 640x360 --steps " + std::to_string(step) + ":" + std::to_string(step);
  std::string hot = render("hot.png", cell + " --procs " + std::to_string(late));
  if (skipped_) GTEST_SKIP() << "no headless OpenGL here";
  std::string cold = render("cold.png", cell + " --procs " + std::to_string(calm));
  weft::testing::Png hot_png(hot), cold_png(cold);
  ASSERT_TRUE(hot_png.ok() && cold_png.ok());
  EXPECT_EQ(hot_png.width(), 640);
  EXPECT_EQ(hot_png.height(), 360);
  // One step × one process fills the plot: its box is most of the image.
  const weft::render::Rgba8 top = weft::render::metric_color_top();
  EXPECT_GT(hot_png.count(top), 640 * 360 / 4);
  EXPECT_EQ(cold_png.count(top), 0);
  EXPECT_GT(cold_png.count(weft::render::metric_color_bottom()), 640 * 360 / 4);

  // The whole step for all processes: exactly one row holds the top color.
  std::string column = render("column.png", " --size 640x640 --steps " + std::to_string(step) + ":" +
                                                std::to_string(step));
  weft::testing::Png column_png(column);
  ASSERT_TRUE(column_png.ok());
  int first_row = -1, last_row = -1;
  for (int y = 0; y < column_png.height(); ++y)
    for (int x = 0; x < column_png.width(); ++x)
      if (column_png.pixel(x, y) == top) {
        if (first_row < 0) first_row = y;
        last_row = y;
      }
  ASSERT_GE(first_row, 0);
  // 16 rows in well under 640 px: one row is less than 640 / 16 px tall.
  EXPECT_LT(last_row - first_row, 640 / 16);
}

TEST_F(RenderLogical, MessageLinesAndEveryColorRender) {
  for (const char* color : {"lateness", "dlateness", "glateness", "duration", "function"}) {
    std::string png = render(std::string(color) + ".png", std::string("--size 800x500 --color ") + color);
    if (skipped_) GTEST_SKIP() << "no headless OpenGL here";
    weft::testing::Png image(png);
    ASSERT_TRUE(image.ok()) << color;
  }
  // Message lines are drawn in near-white over the boxes.
  weft::testing::Png image(dir_.path / "lateness.png");
  long light = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width() * 3 / 4; ++x) {
      weft::render::Rgba8 c = image.pixel(x, y);
      if ((c & 0xff) > 200 && ((c >> 8) & 0xff) > 200 && ((c >> 16) & 0xff) > 200) ++light;
    }
  EXPECT_GT(light, 200);
}

TEST_F(RenderLogical, StartHistogramCountsEveryEventOnceByClass) {
  weft::db::Database db(run_.string(), weft::db::Database::Mode::ReadOnly);
  ASSERT_TRUE(weft::db::has_start_histogram(db));
  weft::db::StartHistogram h = weft::db::read_start_histogram(db);
  EXPECT_EQ(h.bins, weft::db::kDefaultStartBins);
  std::int64_t total = 0;
  for (const auto& c : h.counts)
    for (std::int64_t n : c) total += n;
  EXPECT_EQ(total, db.query_int("SELECT count(*) FROM events"));
  // Sends: every MPI_Isend (the stencil sends only with Isend), in the bin of its start.
  std::int64_t sends = 0;
  for (std::int64_t n : h.counts[static_cast<std::size_t>(weft::db::StartClass::Send)]) sends += n;
  EXPECT_EQ(sends, db.query_int("SELECT count(*) FROM events e JOIN regions r ON r.region = e.region "
                                "WHERE r.name = 'MPI_Isend'"));
  const std::int64_t first_isend = db.query_int(
      "SELECT min(e.start_ns) FROM events e JOIN regions r ON r.region = e.region WHERE r.name = 'MPI_Isend'");
  const auto bin = static_cast<std::size_t>(first_isend / h.bin_ns);
  EXPECT_GT(h.counts[static_cast<std::size_t>(weft::db::StartClass::Send)][bin], 0);
  for (std::size_t b = 0; b < bin; ++b)
    EXPECT_EQ(h.counts[static_cast<std::size_t>(weft::db::StartClass::Send)][b], 0) << b;
}

TEST_F(RenderLogical, OverviewShowsTheLatestStepInTheTopColor) {
  std::string png = render("overview.png", "--size 900x300", "overview");
  if (skipped_) GTEST_SKIP() << "no headless OpenGL here";
  weft::testing::Png image(png);
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image.width(), 900);
  // The bar of the step with the run's largest lateness reaches the top color
  // in the step strip (the top 35% of the image), and the bar of the time bin
  // where that event ended does in the time strip (the next 35%): a column
  // of it, full height of each strip's bar area.
  auto top_in_rows = [&](int y0, int y1) {
    long n = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < image.width(); ++x) n += image.pixel(x, y) == weft::render::metric_color_top();
    return n;
  };
  const int strip = 300 * 35 / 100;
  EXPECT_GT(top_in_rows(0, strip), 50);
  EXPECT_GT(top_in_rows(strip, 2 * strip), 50);
}

// The slider strip of a short overview has room for fewer legend rows than
// classes; the legend then takes a second column, and the plot leaves room
// for it: every class's swatch is drawn whole inside the image.
TEST_F(RenderLogical, OverviewLegendShowsEveryStartClassWhole) {
  std::string png = render("overview_legend.png", "--size 900x300", "overview");
  if (skipped_) GTEST_SKIP() << "no headless OpenGL here";
  weft::testing::Png image(png);
  ASSERT_TRUE(image.ok());
  const int strip_top = image.height() * 2 / 3;  // the slider strip is the bottom third
  for (int c = 0; c < weft::db::kStartClasses; ++c) {
    const auto color = weft::app::class_color(static_cast<weft::db::StartClass>(c));
    // A swatch is a solid square; the graph's bars are one pixel wide.
    bool square = false;
    for (int y = strip_top; y + 5 <= image.height() && !square; ++y)
      for (int x = 0; x + 5 <= image.width() && !square; ++x) {
        bool all = true;
        for (int dy = 0; dy < 5 && all; ++dy)
          for (int dx = 0; dx < 5 && all; ++dx) all = image.pixel(x + dx, y + dy) == color;
        square = all;
      }
    EXPECT_TRUE(square) << weft::db::start_class_name(static_cast<weft::db::StartClass>(c));
    int clipped = 0;  // rows where the class's color touches the right edge
    for (int y = strip_top; y < image.height(); ++y) clipped += image.pixel(image.width() - 1, y) == color;
    EXPECT_EQ(clipped, 0) << weft::db::start_class_name(static_cast<weft::db::StartClass>(c));
  }
}

TEST_F(RenderLogical, TimeMetricsBinEveryCommunicationEventByItsEnd) {
  weft::db::Database db(run_.string(), weft::db::Database::Mode::ReadOnly);
  ASSERT_TRUE(weft::db::has_time_metrics(db));
  const weft::db::TimeMetrics m = weft::db::read_time_metrics(db);
  EXPECT_EQ(m.bins, weft::db::kDefaultTimeMetricBins);
  // The bins cover the run: the last one reaches trace_end_ns.
  const std::int64_t end = db.query_int("SELECT value FROM meta WHERE key = 'trace_end_ns'");
  EXPECT_GE(m.bin_ns * m.bins, end);
  EXPECT_LT(m.bin_ns * (m.bins - 1), end);
  // Waits are summed: every event's wait lands in exactly one bin.
  std::int64_t wait = 0;
  for (std::int64_t v : m.values[weft::db::kTimeWait]) wait += v;
  EXPECT_EQ(wait, db.query_int("SELECT sum(wait_ns) FROM comm_events"));
  // Lateness is maxed: the bin where the latest op ends holds the run's
  // maximum, and no bin holds more. (Consecutive Isends are one op, late
  // together, ending with the last of them: the latest end among the events
  // with the top lateness.)
  const std::int64_t max_late = db.query_int("SELECT max(lateness_ns) FROM comm_events");
  ASSERT_GT(max_late, 0);
  const std::int64_t late_end = db.query_int(
      "SELECT max(end_ns) FROM comm_events WHERE lateness_ns = (SELECT max(lateness_ns) FROM comm_events)");
  const auto& late = m.values[weft::db::kTimeLateness];
  EXPECT_EQ(late[static_cast<std::size_t>(late_end / m.bin_ns)], max_late);
  EXPECT_EQ(*std::max_element(late.begin(), late.end()), max_late);
  // Before the delayed iteration nothing is as late.
  EXPECT_LT(late[0], max_late);
}

TEST_F(RenderLogical, SelectionOutlinesTheEventAndItsMessagePartner) {
  // The latest wait: it completes a receive, so it has a partner (the send).
  const std::int64_t event = query("SELECT event FROM comm_events WHERE kind = 4 ORDER BY lateness_ns DESC, event LIMIT 1");
  ASSERT_GE(event, 0);
  std::string png = render("selected.png", "--size 900x500 --select " + std::to_string(event));
  if (skipped_) GTEST_SKIP() << "no headless OpenGL here";
  weft::testing::Png image(png);
  ASSERT_TRUE(image.ok());
  // app/overlay_style.h: kSelectionColor for the event, amber for its partner.
  EXPECT_GT(image.count(weft::render::rgba8(120, 200, 255)), 20);
  EXPECT_GT(image.count(weft::render::rgba8(255, 200, 90)), 20);
  std::string plain = render("plain.png", "--size 900x500");
  weft::testing::Png unselected(plain);
  EXPECT_EQ(unselected.count(weft::render::rgba8(120, 200, 255)), 0);

  auto missing = run_command(kWeft + " render " + quoted(run_) + " --view logical --steps 0:2 --select " +
                             std::to_string(event) + " --out /tmp/never.png");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("--select"), std::string::npos) << missing.output;
}

TEST_F(RenderLogical, StepLevelOfDetailCarriesTheTrueMaxima) {
  weft::db::Database db(run_.string(), weft::db::Database::Mode::ReadOnly);
  ASSERT_TRUE(weft::db::has_step_lod(db));
  weft::db::StepLod lod(db);
  const weft::db::StepLodLayout& l = lod.layout();
  EXPECT_EQ(l.min_plevel, 0);  // 16 processes: one per block at the finest level
  EXPECT_EQ(l.min_slevel, 1);  // events on odd steps only: bins of two steps, one event each
  const std::int64_t max_late = query("SELECT max(lateness_ns) FROM comm_events");
  ASSERT_GT(max_late, 0);
  // Finest level: each cell is one event; its value is that event's lateness.
  weft::db::StepLodCells cells;
  weft::db::Statement rows = db.prepare("SELECT process, step, lateness_ns FROM comm_events WHERE send_step IS NULL");
  int checked = 0;
  while (rows.step()) {
    const auto p = static_cast<weft::ProcessIndex>(rows.column_int(0));
    const std::int64_t step = rows.column_int(1);
    ASSERT_EQ(step % 2, 1) << p << " " << step;
    lod.read(0, 1, step, step, p, p, cells);
    ASSERT_EQ(cells.grid.rows * cells.grid.columns, 1) << p << " " << step;
    const std::uint8_t* cell = cells.grid.at(p, step >> 1);
    ASSERT_TRUE(cell && cell[weft::db::kLodClasses] != 0) << p << " " << step;
    EXPECT_EQ(cell[weft::db::kLodLateness], weft::db::quantize_metric(rows.column_int(2), max_late));
    ++checked;
  }
  EXPECT_GT(checked, 500);
  // Coarsest level: one block of all processes. The bin holding the latest
  // event's step carries the top value, 255; any other bin that does holds an
  // event within 1/255 of the maximum (the quantization step), and every bin
  // carries the quantized maximum of its events.
  const std::int64_t late_step = query("SELECT step FROM comm_events ORDER BY lateness_ns DESC LIMIT 1");
  lod.read(l.max_plevel, l.max_slevel, 0, l.steps - 1, 0, 15, cells);
  bool latest_on_top = false;
  ASSERT_EQ(cells.grid.rows, 1);
  for (std::int64_t column = 0; column < cells.grid.columns; ++column) {
    const std::uint8_t* cell = cells.grid.cell(0, column);
    if (cell[weft::db::kLodClasses] == 0) continue;  // no event in the bin
    const std::int64_t bin = cells.grid.i0 + column;
    const std::int64_t lo = bin << l.max_slevel;
    const std::int64_t hi = lo + (std::int64_t{1} << l.max_slevel) - 1;
    const std::int64_t bin_max = query("SELECT coalesce(max(lateness_ns), 0) FROM comm_events WHERE step BETWEEN " +
                                       std::to_string(lo) + " AND " + std::to_string(hi));
    EXPECT_EQ(cell[weft::db::kLodLateness], weft::db::quantize_metric(bin_max, max_late)) << bin;
    if (late_step >= lo && late_step <= hi) latest_on_top = cell[weft::db::kLodLateness] == 255;
  }
  EXPECT_TRUE(latest_on_top);
}

TEST_F(RenderLogical, BadOptionsAndMissingAnalysisFailWithOneLine) {
  auto bad_color = run_command(kWeft + " render " + quoted(run_) + " --view logical --color heat --out /tmp/never.png");
  EXPECT_EQ(bad_color.exit_code, 2);
  EXPECT_NE(bad_color.output.find("--color"), std::string::npos) << bad_color.output;
  auto bad_steps = run_command(kWeft + " render " + quoted(run_) + " --view logical --steps 9:2 --out /tmp/never.png");
  EXPECT_EQ(bad_steps.exit_code, 2);
  EXPECT_NE(bad_steps.output.find("--steps"), std::string::npos) << bad_steps.output;
  auto time_on_logical = run_command(kWeft + " render " + quoted(run_) + " --view logical --time 0:5 --out /tmp/never.png");
  EXPECT_EQ(time_on_logical.exit_code, 2);

  fs::path trace = dir_.path / "trace";
  fs::path plain = dir_.path / "plain.weft";
  auto i = run_command(kWeft + " import -q --no-analyze " + quoted(trace / "traces.otf2") + " -o " + quoted(plain));
  ASSERT_EQ(i.exit_code, 0) << i.output;
  auto r = run_command(kWeft + " render " + quoted(plain) + " --view logical --out /tmp/never.png");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_NE(r.output.find("weft analyze"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists("/tmp/never.png"));
}

}  // namespace

TEST_F(RenderLogical, MessagesInFlightCarryTheLatenessOfTheirReceive) {
  // The whole run in detail (16 processes, 85 steps: far below the LOD limit).
  weft::db::WindowQuery query(run_.string());
  const weft::app::TraceInfo info = weft::app::read_trace_info(query);
  weft::db::LogicalWindowQuery steps(query.database());
  const weft::db::StructureFacts facts = steps.facts();
  auto filter = weft::app::make_view_filter(info, "", {}, "");
  weft::app::LoadedLogicalWindow w;
  weft::app::load_logical_window(steps, nullptr, info, facts, weft::app::LogicalColor::Lateness, *filter,
                                 {0, facts.global_steps - 1, 0, static_cast<weft::ProcessIndex>(info.processes.size() - 1)},
                                 {10.0, 10.0}, w);
  ASSERT_FALSE(w.from_lod);
  ASSERT_GT(w.messages.size(), 100u);
  ASSERT_EQ(w.recv_lateness.size(), w.messages.size());
  // Each message's glow is the lateness of the event at its receive step on
  // its receiver, as comm_events stores it.
  weft::db::Database db(run_.string(), weft::db::Database::Mode::ReadOnly);
  int late = 0;
  for (std::size_t i = 0; i < w.messages.size(); i += 7) {
    const std::int64_t expected = db.query_int(
        "SELECT max(lateness_ns) FROM comm_events WHERE process = " + std::to_string(w.messages.dst[i]) +
            " AND step = " + std::to_string(w.messages.recv_step[i]), 0);
    EXPECT_EQ(w.recv_lateness[i], expected) << "message " << w.messages.message[i];
    EXPECT_EQ(w.recv_lateness_by_message.at(w.messages.message[i]), expected);
    late += expected > 0;
  }
  // The delay makes some receives late and leaves others on time.
  EXPECT_GT(late, 0);
  EXPECT_LT(late, static_cast<int>((w.messages.size() + 6) / 7));
}
