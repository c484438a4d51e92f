// The view tables of an MPI analysis (db/structure/view_tables.h): the time
// bins and the step level of detail are made in one walk of the ops when its
// memory fits, or in two (time bins first, then the level of detail with the
// ranges they give). Both must give the same tables and facts, on a run with
// Isend runs to coalesce (several input ops per analyzed op), jitter and a
// delay (differential lateness that is not the lateness), and collectives.
// The same tables again when another thread takes the work offered to it
// (the message lines' parts).
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "import_test_support.h"
#include "store/sqlite.h"
#include "structure/analysis.h"
#include "structure/comm_trace_loader.h"
#include "structure/job_exchange.h"
#include "structure/view_tables.h"

namespace {

using weft::test::quoted;
using weft::test::run_command;

void expect_same_tables(const weft::db::ViewTables& one, const weft::db::ViewTables& two) {
  const weft::db::TimeMetrics& a = one.time_metrics.metrics;
  const weft::db::TimeMetrics& b = two.time_metrics.metrics;
  EXPECT_EQ(a.bins, b.bins);
  EXPECT_EQ(a.bin_ns, b.bin_ns);
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(one.time_metrics.ops, two.time_metrics.ops);
  EXPECT_EQ(one.step_lod.tiles.bytes, two.step_lod.tiles.bytes);
  ASSERT_EQ(one.step_lod.tiles.tiles.size(), two.step_lod.tiles.tiles.size());
  for (std::size_t i = 0; i < one.step_lod.tiles.tiles.size(); ++i) {
    const auto& x = one.step_lod.tiles.tiles[i];
    const auto& y = two.step_lod.tiles.tiles[i];
    EXPECT_EQ(std::make_pair(x.plevel, x.tlevel), std::make_pair(y.plevel, y.tlevel)) << i;
    EXPECT_EQ(std::make_pair(x.block, x.tile), std::make_pair(y.block, y.tile)) << i;
    EXPECT_EQ(std::make_pair(x.offset, x.size), std::make_pair(y.offset, y.size)) << i;
  }
  ASSERT_EQ(one.message_steps.blocks.size(), two.message_steps.blocks.size());
  for (std::size_t i = 0; i < one.message_steps.blocks.size(); ++i) {
    const auto& x = one.message_steps.blocks[i];
    const auto& y = two.message_steps.blocks[i];
    EXPECT_EQ(std::make_pair(x.send_step, x.seq), std::make_pair(y.send_step, y.seq)) << i;
    EXPECT_EQ(x.blob, y.blob) << i;
  }
  EXPECT_EQ(one.facts.max_lateness, two.facts.max_lateness);
  EXPECT_EQ(one.facts.max_global_lateness, two.facts.max_global_lateness);
  EXPECT_EQ(one.facts.max_diff_lateness, two.facts.max_diff_lateness);
  EXPECT_EQ(one.facts.max_wait, two.facts.max_wait);
  EXPECT_EQ(one.facts.max_duration, two.facts.max_duration);
  EXPECT_EQ(one.facts.max_message_steps, two.facts.max_message_steps);
}

}  // namespace

TEST(ViewTables, OneWalkOfTheOpsMakesWhatTwoWalksMake) {
  weft::test::TempDir dir("view_tables");
  for (const std::string pattern : {"amg-like", "stencil2d"}) {
    const std::filesystem::path trace = dir.path / pattern, run = dir.path / (pattern + ".weft");
    auto s = run_command(std::string(WEFT_BINARY) + " synth " + pattern + " -n 40 -i 4 --jitter 0.3 --delay 5:2:6 -o " +
                         quoted(trace));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    auto i = run_command(std::string(WEFT_BINARY) + " import -q --no-analyze " + quoted(trace / "traces.otf2") +
                         " -o " + quoted(run));
    ASSERT_EQ(i.exit_code, 0) << i.output;

    weft::db::Database db(run.string(), weft::db::Database::Mode::ReadOnly);
    weft::db::LoadedCommTrace loaded = weft::db::load_comm_trace(db, {"", false});
    const std::unique_ptr<weft::structure::StructureResult> r =
        weft::structure::analyze_structure(std::move(loaded.trace), {});
    const weft::db::ViewTableInputs inputs = weft::db::read_view_table_inputs(db);
    const weft::db::ViewTables one = weft::db::build_view_tables(inputs, loaded, *r, weft::db::MetricsWalks::One);
    const weft::db::ViewTables two = weft::db::build_view_tables(inputs, loaded, *r, weft::db::MetricsWalks::Two);
    SCOPED_TRACE(pattern);
    // A run worth comparing: delayed (a differential lateness below the
    // lateness somewhere) and with coalesced Isend runs for amg-like.
    ASSERT_GT(one.facts.max_diff_lateness, 0);
    ASSERT_GT(one.facts.max_lateness, 0);
    ASSERT_FALSE(one.step_lod.tiles.tiles.empty());
    if (pattern == "amg-like") {
      ASSERT_GT(r->report.coalesced_isends, 0);
    }
    expect_same_tables(one, two);
    // And Auto picks one of them for so small a run: the same again.
    expect_same_tables(weft::db::build_view_tables(inputs, loaded, *r), two);
    ASSERT_GT(one.message_steps.blocks.size(), 0u);
    // With another thread that takes offered work (the message lines' parts,
    // from the first on, while this one runs them from the last back): the
    // same tables.
    weft::db::JobExchange exchange;
    std::future<void> helper = std::async(std::launch::async, [&] { exchange.help_until_closed(); });
    weft::db::ViewTables shared;
    {
      const weft::db::JobExchange::CloseOnExit closing(&exchange);
      shared = weft::db::build_view_tables(inputs, loaded, *r, weft::db::MetricsWalks::Auto, &exchange);
    }
    helper.get();
    expect_same_tables(shared, two);
  }
}
