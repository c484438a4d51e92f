// weft synth: the generated OTF2 archives parse with otf2-print, hold exactly
// the records the hand-derived formulas of synth_test_support.h predict (the
// same formulas are written at the top of each core/synth/patterns/*.cpp), are
// deterministic, and honour --delay. Bad arguments are rejected.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "otf2/otf2_synth_writer.h"
#include "synth/synth_options.h"
#include "synth_test_support.h"

namespace fs = std::filesystem;
using weft::synth::Pattern;
using weft::synth::SynthOptions;
using namespace weft::synth_test;

namespace {

// ---------------------------------------------------------------------------
// Reading archives back through otf2-print.
// ---------------------------------------------------------------------------
struct PrintedEvent {
  std::string type;
  std::uint64_t location = 0;
  std::uint64_t time = 0;
  std::string attributes;
};

struct PrintedTrace {
  int exit_code = -1;
  std::vector<PrintedEvent> events;

  std::uint64_t count(const std::string& type) const {
    std::uint64_t c = 0;
    for (const PrintedEvent& e : events) c += e.type == type;
    return c;
  }
};

PrintedTrace otf2_print(const std::string& anchor) {
  PrintedTrace trace;
  const std::string command = "otf2-print '" + anchor + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return trace;
  std::string text;
  char buffer[1 << 16];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, got);
  const int status = pclose(pipe);
  trace.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

  std::istringstream lines(text);
  std::string line;
  bool in_events = false;
  while (std::getline(lines, line)) {
    if (!in_events) {
      in_events = line.rfind("-----", 0) == 0;
      continue;
    }
    std::istringstream fields(line);
    PrintedEvent e;
    if (!(fields >> e.type >> e.location >> e.time)) continue;
    std::getline(fields, e.attributes);
    trace.events.push_back(std::move(e));
  }
  return trace;
}

// The quoted name after `key` in an otf2-print attribute list, e.g. Communicator: "X".
std::string quoted_after(const std::string& attributes, const std::string& key) {
  std::size_t at = attributes.find(key + ": \"");
  if (at == std::string::npos) return "";
  at += key.size() + 3;
  return attributes.substr(at, attributes.find('"', at) - at);
}

std::string unique_temp_dir(const std::string& name) {
  static int counter = 0;
  return ::testing::TempDir() + "weft_synth_" + name + "_" + std::to_string(getpid()) + "_" +
         std::to_string(counter++);
}

class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(unique_temp_dir(name)) {}
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}


std::uint64_t comm_size(const std::string& name, std::uint64_t n, std::uint64_t row_size) {
  if (name == "MPI_COMM_WORLD") return n;
  if (name == "MPI_COMM_SPLIT even") return (n + 1) / 2;
  if (name == "MPI_COMM_SPLIT odd") return n / 2;
  return row_size;  // "MPI_COMM_SPLIT row R"
}

// Generates the archive and checks every count of `expected` against otf2-print.
void check_counts(Pattern pattern, std::int32_t n, std::int32_t i, const Expected& expected) {
  SCOPED_TRACE(std::string(weft::synth::pattern_name(pattern)) + " n=" + std::to_string(n) +
               " i=" + std::to_string(i));
  TempDir dir("counts");
  const weft::db::SynthArchiveInfo info =
      weft::db::write_synth_archive(make_options(pattern, n, i), dir.path(), false);
  EXPECT_EQ(info.anchor_path, dir.path() + "/traces.otf2");
  EXPECT_EQ(info.records, expected.records);
  EXPECT_TRUE(fs::exists(dir.path() + "/traces.def"));
  EXPECT_TRUE(fs::is_directory(dir.path() + "/traces"));

  const PrintedTrace trace = otf2_print(info.anchor_path);
  ASSERT_EQ(trace.exit_code, 0);
  EXPECT_EQ(trace.events.size(), expected.records);
  EXPECT_EQ(trace.count("MPI_SEND") + trace.count("MPI_ISEND"), expected.messages);
  EXPECT_EQ(trace.count("MPI_RECV") + trace.count("MPI_IRECV"), expected.messages);
  EXPECT_EQ(trace.count("MPI_ISEND"), trace.count("MPI_ISEND_COMPLETE"));
  EXPECT_EQ(trace.count("MPI_IRECV"), trace.count("MPI_IRECV_REQUEST"));
  EXPECT_EQ(trace.count("MPI_COLLECTIVE_BEGIN"), expected.collective_members);
  EXPECT_EQ(trace.count("MPI_COLLECTIVE_END"), expected.collective_members);

  // Collective instances: members on each communicator / its size.
  std::uint64_t px = 1;
  for (std::uint64_t p = 1; p * p <= static_cast<std::uint64_t>(n); ++p)
    if (n % p == 0) px = p;
  std::map<std::string, std::uint64_t> ends_per_comm;
  for (const PrintedEvent& e : trace.events)
    if (e.type == "MPI_COLLECTIVE_END") ++ends_per_comm[quoted_after(e.attributes, "Communicator")];
  std::uint64_t instances = 0;
  for (const auto& [name, ends] : ends_per_comm) {
    const std::uint64_t size = comm_size(name, static_cast<std::uint64_t>(n), px);
    EXPECT_EQ(ends % size, 0u) << name;
    instances += ends / size;
  }
  EXPECT_EQ(instances, expected.collective_instances);

  // Region instances per rank, and time order per location.
  std::vector<std::uint64_t> enters(static_cast<std::size_t>(n), 0), leaves(enters);
  std::vector<std::uint64_t> last_time(static_cast<std::size_t>(n), 0);
  for (const PrintedEvent& e : trace.events) {
    ASSERT_LT(e.location, static_cast<std::uint64_t>(n));
    EXPECT_GE(e.time, last_time[e.location]);
    last_time[e.location] = e.time;
    enters[e.location] += e.type == "ENTER";
    leaves[e.location] += e.type == "LEAVE";
  }
  EXPECT_EQ(enters, expected.regions);
  EXPECT_EQ(leaves, expected.regions);
}

}  // namespace

TEST(SynthCounts, Stencil2d) {
  check_counts(Pattern::Stencil2d, 4, 3, expected_stencil2d(4, 3));
  check_counts(Pattern::Stencil2d, 9, 2, expected_stencil2d(9, 2));
  check_counts(Pattern::Stencil2d, 6, 2, expected_stencil2d(6, 2));
}

TEST(SynthCounts, Ring) {
  check_counts(Pattern::Ring, 4, 3, expected_ring(4, 3));
  check_counts(Pattern::Ring, 6, 2, expected_ring(6, 2));
}

TEST(SynthCounts, AllreduceBinomial) {
  check_counts(Pattern::AllreduceBinomial, 4, 3, expected_allreduce_binomial(4, 3));
  check_counts(Pattern::AllreduceBinomial, 6, 2, expected_allreduce_binomial(6, 2));
}

TEST(SynthCounts, AllreduceCollective) {
  check_counts(Pattern::AllreduceCollective, 4, 3, expected_allreduce_collective(4, 3));
  check_counts(Pattern::AllreduceCollective, 6, 2, expected_allreduce_collective(6, 2));
  check_counts(Pattern::AllreduceCollective, 1, 2, expected_allreduce_collective(1, 2));
}

TEST(SynthCounts, MergeTree) {
  check_counts(Pattern::MergeTree, 4, 3, expected_merge_tree(4, 3));
  check_counts(Pattern::MergeTree, 6, 2, expected_merge_tree(6, 2));
}

TEST(SynthCounts, AmgLike) {
  check_counts(Pattern::AmgLike, 4, 3, expected_amg_like(4, 3));
  check_counts(Pattern::AmgLike, 6, 4, expected_amg_like(6, 4));
}

TEST(SynthCounts, Pingpong) {
  check_counts(Pattern::Pingpong, 4, 3, expected_pingpong(4, 3));
  check_counts(Pattern::Pingpong, 2, 2, expected_pingpong(2, 2));
}

// More ranks than one writer block (kSynthRanksPerBlock): blocks must join seamlessly.
TEST(SynthCounts, SpansSeveralWriterBlocks) {
  const std::int32_t n = weft::db::kSynthRanksPerBlock + 44;
  TempDir dir("blocks");
  const auto info =
      weft::db::write_synth_archive(make_options(Pattern::AmgLike, n, 3), dir.path(), false);
  EXPECT_EQ(info.records, expected_amg_like(static_cast<std::uint64_t>(n), 3).records);
}

// Messages on a row communicator name their peer by rank in that row; otf2-print
// translates it back to a location, which must be the grid neighbour.
TEST(SynthSemantics, Stencil2dRowCommunicatorUsesRowRanks) {
  TempDir dir("rows");
  const auto info =
      weft::db::write_synth_archive(make_options(Pattern::Stencil2d, 9, 1), dir.path(), false);
  const PrintedTrace trace = otf2_print(info.anchor_path);
  ASSERT_EQ(trace.exit_code, 0);
  int row_messages = 0;
  for (const PrintedEvent& e : trace.events) {
    if (e.type != "MPI_ISEND") continue;
    const std::string comm = quoted_after(e.attributes, "Communicator");
    // "Receiver: R ("Master thread" <LOC>)"
    const std::size_t r_at = e.attributes.find("Receiver: ") + 10;
    const std::uint64_t rank = std::stoull(e.attributes.substr(r_at));
    const std::size_t loc_at = e.attributes.find('<', r_at) + 1;
    const std::uint64_t location = std::stoull(e.attributes.substr(loc_at));
    if (comm == "MPI_COMM_WORLD") {
      EXPECT_EQ(location, rank);
      EXPECT_EQ(location + 3 == e.location || e.location + 3 == location, true);
    } else {
      ++row_messages;
      EXPECT_EQ(comm, "MPI_COMM_SPLIT row " + std::to_string(e.location / 3));
      EXPECT_EQ(rank, location % 3);
      EXPECT_EQ(location / 3, e.location / 3);
      EXPECT_TRUE(location + 1 == e.location || e.location + 1 == location);
    }
  }
  EXPECT_EQ(row_messages, 12);  // 3 rows × 2 neighbour pairs × 2 directions
}

TEST(SynthDeterminism, SameSeedSameFilesDifferentSeedDifferentTimes) {
  TempDir a("det_a"), b("det_b"), c("det_c");
  SynthOptions options = make_options(Pattern::AmgLike, 6, 4);
  options.jitter = 0.3;
  options.seed = 42;
  weft::db::write_synth_archive(options, a.path(), false);
  weft::db::write_synth_archive(options, b.path(), false);
  options.seed = 43;
  weft::db::write_synth_archive(options, c.path(), false);

  // The anchor holds OTF2's random trace identifier; every other file must match.
  EXPECT_EQ(read_file(a.path() + "/traces.def"), read_file(b.path() + "/traces.def"));
  bool any_differs = false;
  for (int r = 0; r < 6; ++r) {
    const std::string evt = "/traces/" + std::to_string(r) + ".evt";
    const std::string first = read_file(a.path() + evt);
    EXPECT_FALSE(first.empty());
    EXPECT_EQ(first, read_file(b.path() + evt)) << evt;
    any_differs = any_differs || first != read_file(c.path() + evt);
  }
  EXPECT_TRUE(any_differs);
}

// Durations of the `compute` regions of one location, in order.
std::vector<std::uint64_t> compute_durations(const PrintedTrace& trace, std::uint64_t location) {
  std::vector<std::uint64_t> durations;
  std::uint64_t entered = 0;
  for (const PrintedEvent& e : trace.events) {
    if (e.location != location || quoted_after(e.attributes, "Region") != "compute") continue;
    if (e.type == "ENTER") entered = e.time;
    if (e.type == "LEAVE") durations.push_back(e.time - entered);
  }
  return durations;
}

TEST(SynthDelay, DelayedComputeIsFactorTimesLonger) {
  TempDir plain("delay_plain"), delayed("delay_delayed");
  SynthOptions options = make_options(Pattern::Stencil2d, 4, 3);
  weft::db::write_synth_archive(options, plain.path(), false);
  options.delays.push_back(weft::synth::parse_delay("2:1:3"));
  weft::db::write_synth_archive(options, delayed.path(), false);

  const PrintedTrace base = otf2_print(plain.path() + "/traces.otf2");
  const PrintedTrace slow = otf2_print(delayed.path() + "/traces.otf2");
  const std::vector<std::uint64_t> base2 = compute_durations(base, 2);
  const std::vector<std::uint64_t> slow2 = compute_durations(slow, 2);
  ASSERT_EQ(base2.size(), 3u);
  ASSERT_EQ(slow2.size(), 3u);
  EXPECT_EQ(slow2[0], base2[0]);
  EXPECT_EQ(slow2[1], 3 * base2[1]);
  EXPECT_EQ(slow2[2], base2[2]);
  // Other ranks compute as before (they wait, in MPI calls, instead).
  EXPECT_EQ(compute_durations(slow, 1), compute_durations(base, 1));
}

TEST(SynthOptions, RejectsBadArguments) {
  using weft::Error;
  EXPECT_THROW(weft::synth::validate(make_options(Pattern::Ring, 0, 1)), Error);
  EXPECT_THROW(weft::synth::validate(make_options(Pattern::Ring, 70000, 1)), Error);
  EXPECT_THROW(weft::synth::validate(make_options(Pattern::Ring, 1, 1)), Error);
  EXPECT_THROW(weft::synth::validate(make_options(Pattern::Pingpong, 1, 1)), Error);
  EXPECT_THROW(weft::synth::validate(make_options(Pattern::Stencil2d, 4, 0)), Error);
  EXPECT_NO_THROW(weft::synth::validate(make_options(Pattern::Stencil2d, 1, 1)));
  EXPECT_NO_THROW(weft::synth::validate(make_options(Pattern::Ring, 65536, 1)));
  EXPECT_THROW(weft::synth::parse_pattern("stencil3d"), Error);
  EXPECT_EQ(weft::synth::parse_pattern("merge-tree"), Pattern::MergeTree);
  for (const char* bad : {"1:2", "1:2:", "a:1:2", "1:b:2", "1:1:0", "1:1:-2", "1:1:x", "-1:1:2",
                          "1:1:2:3", ""})
    EXPECT_THROW(weft::synth::parse_delay(bad), Error) << bad;
  const weft::synth::Delay d = weft::synth::parse_delay("3:10:2.5");
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.iteration, 10);
  EXPECT_DOUBLE_EQ(d.factor, 2.5);

  SynthOptions options = make_options(Pattern::Ring, 4, 3);
  options.delays.push_back({4, 0, 2.0});  // rank out of range
  EXPECT_THROW(weft::synth::validate(options), Error);
  options.delays = {{0, 3, 2.0}};  // iteration out of range
  EXPECT_THROW(weft::synth::validate(options), Error);
  options.delays.clear();
  options.jitter = 1.5;
  EXPECT_THROW(weft::synth::validate(options), Error);
}

namespace {

int run_weft(const std::string& arguments) {
  const std::string command = std::string(WEFT_BINARY) + " " + arguments + " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(SynthCli, WritesArchiveAndRefusesToOverwrite) {
  TempDir dir("cli");
  ASSERT_EQ(run_weft("synth ring -n 4 -i 3 --seed 7 --jitter 0.1 --delay 1:2:4 -o " + dir.path()), 0);
  const PrintedTrace trace = otf2_print(dir.path() + "/traces.otf2");
  ASSERT_EQ(trace.exit_code, 0);
  EXPECT_EQ(trace.events.size(), expected_ring(4, 3).records);

  EXPECT_EQ(run_weft("synth ring -n 4 -i 3 -o " + dir.path()), 2);
  EXPECT_EQ(run_weft("synth ring -n 4 -i 2 -o " + dir.path() + " --force"), 0);
  EXPECT_EQ(otf2_print(dir.path() + "/traces.otf2").events.size(), expected_ring(4, 2).records);
}

TEST(SynthCli, BadArgumentsExitNonZero) {
  TempDir dir("cli_bad");
  EXPECT_EQ(run_weft("synth ring -n 0 -i 3 -o " + dir.path()), 2);
  EXPECT_EQ(run_weft("synth ring -n 70000 -i 3 -o " + dir.path()), 2);
  EXPECT_EQ(run_weft("synth pingpong -n 1 -i 3 -o " + dir.path()), 2);
  EXPECT_EQ(run_weft("synth hexagon -n 4 -i 3 -o " + dir.path()), 2);
  EXPECT_EQ(run_weft("synth ring -n 4 -i 3 --delay 1:2 -o " + dir.path()), 2);
  EXPECT_EQ(run_weft("synth ring -n 4 -i 3 --delay 9:0:2 -o " + dir.path()), 2);
  EXPECT_NE(run_weft("synth ring -n 4 -i 3"), 0);  // no -o: CLI11 usage error
  EXPECT_FALSE(fs::exists(dir.path() + "/traces.otf2"));
}
