// Progress (core/common/progress.h) and the structure analysis' reports to
// it: `weft analyze` and `weft import` draw their progress bar from these.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/progress.h"
#include "store/sqlite.h"
#include "structure/structure_store.h"
#include "weft_test_db.h"

using namespace weft;

namespace {

using Reports = std::vector<std::pair<std::string, double>>;

Progress recording(Reports& reports) {
  return Progress([&reports](const std::string& stage, double done) { reports.emplace_back(stage, done); });
}

}  // namespace

TEST(Progress, StagesMapTheirSharesIntoTheScopeAndBeginWhereTheStageBeforeEnded) {
  Reports reports;
  Progress progress = recording(reports);
  progress.scope(0, 0.5);
  progress.stage("a", 0.5);  // [0, 0.25]
  progress.within(0.5);
  progress.stage("b", 1.0);  // [0.25, 0.5]
  progress.scope(0.5, 1.0);
  progress.stage("c", 0.5);  // [0.5, 0.75]
  progress.within(1.0);
  progress.stage("d", 1.0);  // [0.75, 1]
  progress.within(2.0);      // clamped to the stage's end
  const Reports expected{{"a", 0.0}, {"a", 0.125}, {"b", 0.25}, {"c", 0.5}, {"c", 0.75}, {"d", 0.75}, {"d", 1.0}};
  ASSERT_EQ(reports.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(reports[i].first, expected[i].first) << i;
    EXPECT_DOUBLE_EQ(reports[i].second, expected[i].second) << i;
  }
}

TEST(Progress, ReportsWithinAStageOnlyWhenTheShareMovesByAThousandth) {
  Reports reports;
  Progress progress = recording(reports);
  progress.stage("scan", 1.0);
  for (int i = 1; i <= 100000; ++i) progress.within(i / 100000.0);
  // The stage's start, then one report per thousandth.
  ASSERT_EQ(reports.size(), 1001u);
  EXPECT_DOUBLE_EQ(reports.back().second, 1.0);
  // Starting a stage reports even at the same share.
  progress.stage("next", 1.0);
  EXPECT_EQ(reports.back().first, "next");
}

TEST(Progress, AnAnalysisReportsEachStageInOrderFromNothingToAll) {
  const std::string path = weft::testing::temp_weft_path("progress_ring");
  weft::testing::write_test_weft(path, weft::testing::sendrecv_ring_trace(4, 300, false));
  db::Database db(path, db::Database::Mode::ReadWrite);
  const std::vector<std::string> stages{"reading the events",   "loading the operations", "checking the input",
                                        "keeping the input ops", "coalescing Isends",      "mandatory partitions",
                                        "merging cycles",        "merging leaps",          "strides",
                                        "local steps",           "global steps, lateness", "phases",
                                        "writing the tables"};
  for (int threads : {1, 2}) {
    Reports reports;
    Progress progress = recording(reports);
    db::AnalysisSettings settings;
    settings.threads = threads;
    settings.progress = &progress;
    const structure::AnalysisReport report = db::analyze_run(db, settings);
    EXPECT_EQ(report.ops, 2 * 4 * 300) << threads;  // each MPI_Sendrecv: a send op and a receive op
    std::vector<std::string> seen;
    for (const auto& [stage, done] : reports)
      if (seen.empty() || seen.back() != stage) seen.push_back(stage);
    EXPECT_EQ(seen, stages) << threads << " threads";
    ASSERT_FALSE(reports.empty());
    EXPECT_DOUBLE_EQ(reports.front().second, 0.0);
    EXPECT_DOUBLE_EQ(reports.back().second, 1.0) << threads;
    for (std::size_t i = 1; i < reports.size(); ++i)
      EXPECT_LE(reports[i - 1].second, reports[i].second) << threads << " threads, report " << i << " ("
                                                           << reports[i].first << ")";
  }
}
