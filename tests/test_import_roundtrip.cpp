// weft synth → weft import round trip: for every pattern, the imported .weft
// database holds exactly what the hand-derived formulas (synth_test_support.h,
// computed from n and i alone) predict: records, events per process, matched
// messages with the right event kinds and endpoints, and collective instances.
// A --delay shows up as a long compute on its rank and long waits on its
// grid neighbours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "import_test_support.h"
#include "otf2/otf2_importer.h"
#include "otf2/otf2_synth_writer.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "synth/synth_options.h"
#include "synth/trace_model.h"
#include "synth_test_support.h"

namespace {

using weft::synth::Pattern;
using weft::synth::SynthOptions;
using weft::synth_test::Expected;

// Synthesizes `options` into a fresh temp dir, imports it and opens the run.
class RoundTrip {
 public:
  explicit RoundTrip(const SynthOptions& options) : dir_("roundtrip") {
    const std::string trace_dir = (dir_.path / "trace").string();
    const weft::db::SynthArchiveInfo info =
        weft::db::write_synth_archive(options, trace_dir, false);
    weft::db::ImportOptions import;
    import.trace_path = info.anchor_path;
    import.output_path = (dir_.path / "run.weft").string();
    weft::db::import_otf2(import);
    db_ = std::make_unique<weft::db::Database>(weft::db::open_run(import.output_path));
  }
  weft::db::Database& db() { return *db_; }
  std::int64_t count(const std::string& sql) { return db_->query_int(sql, -1); }
  std::vector<std::int64_t> ints(const std::string& sql) {
    std::vector<std::int64_t> values;
    weft::db::Statement statement = db_->prepare(sql);
    while (statement.step()) values.push_back(statement.column_int(0));
    return values;
  }

 private:
  weft::test::TempDir dir_;
  std::unique_ptr<weft::db::Database> db_;
};

std::int64_t as_int(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// Messages whose event column `column` has region `region`.
std::string messages_with_region(const std::string& column, const std::string& region) {
  return "SELECT count(*) FROM messages m JOIN events e ON e.id = m." + column +
         " JOIN regions g ON g.region = e.region WHERE g.name = '" + region + "'";
}

// Messages whose event column `column` lies in the event range of process m.`side`.
std::string messages_owned_by(const std::string& column, const std::string& side) {
  return "SELECT count(*) FROM messages m JOIN processes p ON m." + column +
         " >= p.first_event AND m." + column + " < p.first_event + p.event_count WHERE p.process = m." +
         side;
}

struct Case {
  Pattern pattern;
  std::int32_t n;
  std::int32_t i;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name(weft::synth::pattern_name(info.param.pattern));
  std::replace(name.begin(), name.end(), '-', '_');
  return name + "_n" + std::to_string(info.param.n) + "_i" + std::to_string(info.param.i);
}

class ImportRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(ImportRoundTrip, DatabaseMatchesHandFormulas) {
  const Case c = GetParam();
  const auto n = static_cast<std::uint64_t>(c.n);
  const auto i = static_cast<std::uint64_t>(c.i);
  const Expected expected = weft::synth_test::expected_for(c.pattern, n, i);
  RoundTrip run(weft::synth_test::make_options(c.pattern, c.n, c.i));

  // meta and processes
  EXPECT_EQ(run.count("SELECT value FROM meta WHERE key = 'count_records'"), as_int(expected.records));
  EXPECT_EQ(run.count("SELECT value FROM meta WHERE key = 'count_unmatched_sends'"), 0);
  EXPECT_EQ(run.count("SELECT value FROM meta WHERE key = 'count_unmatched_recvs'"), 0);
  std::vector<std::int64_t> ranks_in_order;
  for (std::uint64_t r = 0; r < n; ++r) ranks_in_order.push_back(as_int(r));
  EXPECT_EQ(run.ints("SELECT rank FROM processes ORDER BY process"), ranks_in_order);

  // events: one row per region instance, per process as the formula says
  std::uint64_t total_regions = 0;
  for (std::uint64_t r : expected.regions) total_regions += r;
  EXPECT_EQ(run.count("SELECT count(*) FROM events"), as_int(total_regions));
  std::vector<std::int64_t> per_rank;
  for (std::uint64_t r : expected.regions) per_rank.push_back(as_int(r));
  EXPECT_EQ(run.ints("SELECT event_count FROM processes ORDER BY rank"), per_rank);
  EXPECT_EQ(run.count("SELECT count(*) FROM events e JOIN processes p ON p.process = e.process "
                      "WHERE e.id < p.first_event OR e.id >= p.first_event + p.event_count"),
            0);

  // messages: all matched, endpoints are the owners of the send/receive events
  const std::int64_t messages = as_int(expected.messages);
  EXPECT_EQ(run.count("SELECT count(*) FROM messages"), messages);
  EXPECT_EQ(run.count("SELECT count(*) FROM messages WHERE send_event IS NULL OR recv_event IS NULL "
                      "OR src IS NULL OR dst IS NULL"),
            0);
  EXPECT_EQ(run.count(messages_owned_by("send_event", "src")), messages);
  EXPECT_EQ(run.count(messages_owned_by("recv_event", "dst")), messages);

  const bool nonblocking = c.pattern == Pattern::Stencil2d || c.pattern == Pattern::AmgLike;
  if (nonblocking) {
    EXPECT_EQ(run.count(messages_with_region("send_event", "MPI_Isend")), messages);
    EXPECT_EQ(run.count(messages_with_region("send_done_event", "MPI_Waitall")), messages);
    EXPECT_EQ(run.count(messages_with_region("recv_post_event", "MPI_Irecv")), messages);
    EXPECT_EQ(run.count(messages_with_region("recv_event", "MPI_Waitall")), messages);
    EXPECT_EQ(run.count(messages_owned_by("send_done_event", "src")), messages);
    EXPECT_EQ(run.count(messages_owned_by("recv_post_event", "dst")), messages);
  } else {
    EXPECT_EQ(run.count("SELECT count(*) FROM messages WHERE send_done_event IS NOT NULL "
                        "OR recv_post_event IS NOT NULL"),
              0);
    EXPECT_EQ(run.count(messages_with_region("send_event", "MPI_Send")), messages);
    EXPECT_EQ(run.count(messages_with_region("recv_event", "MPI_Recv")), messages);
  }

  if (c.pattern == Pattern::Stencil2d) {
    // East/west on the row communicators, north/south on MPI_COMM_WORLD.
    const weft::synth::Grid grid = weft::synth::stencil_grid(c.n);
    const std::string px = std::to_string(grid.px);
    const std::string ends =
        "SELECT count(*) FROM messages m JOIN processes s ON s.process = m.src "
        "JOIN processes d ON d.process = m.dst WHERE ";
    const auto row_pairs = static_cast<std::int64_t>(grid.py) * (grid.px - 1);
    const auto column_pairs = static_cast<std::int64_t>(grid.px) * (grid.py - 1);
    EXPECT_EQ(run.count(ends + "m.comm <> 0 AND abs(s.rank - d.rank) = 1 AND s.rank / " + px +
                        " = d.rank / " + px),
              as_int(i) * 2 * row_pairs);
    EXPECT_EQ(run.count(ends + "m.comm = 0 AND abs(s.rank - d.rank) = " + px),
              as_int(i) * 2 * column_pairs);
  }

  // collectives: instances and members per formula, members sized like their
  // communicator, member events in the collective's region
  EXPECT_EQ(run.count("SELECT count(*) FROM collectives"), as_int(expected.collective_instances));
  EXPECT_EQ(run.count("SELECT count(*) FROM collective_members"), as_int(expected.collective_members));
  EXPECT_EQ(run.count("SELECT coalesce(sum(members), 0) FROM collectives"),
            as_int(expected.collective_members));
  EXPECT_EQ(run.count("SELECT count(*) FROM collectives c JOIN communicators k ON k.comm = c.comm "
                      "WHERE c.members <> k.size OR c.members <> (SELECT count(*) FROM "
                      "collective_members m WHERE m.collective = c.id)"),
            0);
  EXPECT_EQ(run.count("SELECT count(*) FROM collective_members m JOIN collectives c ON c.id = "
                      "m.collective JOIN events e ON e.id = m.event JOIN regions g ON g.region = "
                      "c.region WHERE e.region = c.region AND e.process = m.process AND g.name IN "
                      "('MPI_Allreduce', 'MPI_Barrier')"),
            as_int(expected.collective_members));
}

INSTANTIATE_TEST_SUITE_P(
    AllPatterns, ImportRoundTrip,
    ::testing::Values(Case{Pattern::Stencil2d, 4, 3}, Case{Pattern::Stencil2d, 6, 2},
                      Case{Pattern::Stencil2d, 9, 2}, Case{Pattern::Ring, 4, 3},
                      Case{Pattern::Ring, 6, 2}, Case{Pattern::AllreduceBinomial, 4, 3},
                      Case{Pattern::AllreduceBinomial, 6, 2},
                      Case{Pattern::AllreduceCollective, 4, 3},
                      Case{Pattern::AllreduceCollective, 6, 2}, Case{Pattern::MergeTree, 4, 3},
                      Case{Pattern::MergeTree, 6, 2}, Case{Pattern::AmgLike, 4, 3},
                      Case{Pattern::AmgLike, 6, 2}, Case{Pattern::Pingpong, 4, 3},
                      Case{Pattern::Pingpong, 6, 2}),
    case_name);

// --delay 4:2:5 on a 3 × 3 stencil: rank 4's compute in iteration 2 is 5×
// its usual length, and its four grid neighbours wait for its halo.
TEST(ImportRoundTripDelay, DelayedRankAndWaitingNeighbours) {
  SynthOptions options = weft::synth_test::make_options(Pattern::Stencil2d, 9, 4);
  options.jitter = 0.0;
  options.delays.push_back(weft::synth::parse_delay("4:2:5"));
  RoundTrip run(options);

  std::vector<std::int64_t> compute = run.ints(
      "SELECT e.end_ns - e.start_ns FROM events e JOIN processes p ON p.process = e.process "
      "JOIN regions g ON g.region = e.region WHERE p.rank = 4 AND g.name = 'compute' ORDER BY 1");
  ASSERT_EQ(compute.size(), 4u);
  const double median = (static_cast<double>(compute[1]) + static_cast<double>(compute[2])) / 2;
  ASSERT_GT(median, 0.0);
  const double ratio = static_cast<double>(compute.back()) / median;
  EXPECT_GE(ratio, 4.5);
  EXPECT_LE(ratio, 5.5);

  const weft::synth::Grid grid = weft::synth::stencil_grid(9);
  const std::int32_t col = 4 % grid.px, row = 4 / grid.px;
  std::vector<std::int64_t> neighbours;
  if (col > 0) neighbours.push_back(4 - 1);
  if (col + 1 < grid.px) neighbours.push_back(4 + 1);
  if (row > 0) neighbours.push_back(4 - grid.px);
  if (row + 1 < grid.py) neighbours.push_back(4 + grid.px);
  std::sort(neighbours.begin(), neighbours.end());
  ASSERT_EQ(neighbours.size(), 4u);

  // The longest Waitall instances, one per neighbour.
  std::vector<std::int64_t> longest = run.ints(
      "SELECT p.rank FROM events e JOIN processes p ON p.process = e.process JOIN regions g ON "
      "g.region = e.region WHERE g.name = 'MPI_Waitall' ORDER BY e.end_ns - e.start_ns DESC, e.id "
      "LIMIT " + std::to_string(neighbours.size()));
  std::sort(longest.begin(), longest.end());
  EXPECT_EQ(longest, neighbours);
}

}  // namespace
