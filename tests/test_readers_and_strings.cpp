// Concurrent readers (WAL): a reader that keeps a run open while `weft
// analyze` rewrites its structure sees the old or the new analysis, never a
// mix; readers (info, check, export, render) never change the file; two
// renders can read one file at once. Untrusted strings: region names and meta
// text with commas, quotes, line breaks and terminal escapes come out quoted
// in CSV, escaped in JSON and escaped on the terminal.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <thread>

#include "app/table_writer.h"
#include "common/text.h"
#include "corruption_support.h"
#include "import_test_support.h"
#include "store/schema.h"
#include "weft_test_db.h"

namespace {

namespace fs = std::filesystem;
using weft::test::ProcessResult;

const std::string kWeft = WEFT_BINARY;

ProcessResult weft_cli(std::vector<std::string> args) {
  args.insert(args.begin(), kWeft);
  return weft::test::run_process(args);
}

TEST(ConcurrentReaders, ReaderSeesOneWholeAnalysisWhileAnalyzeRewrites) {
  weft::test::TempDir dir("readers");
  fs::path trace = dir.path / "trace";
  ASSERT_EQ(weft_cli({"synth", "stencil2d", "-n", "32", "-i", "30", "-o", trace.string()}).exit_code, 0);
  fs::path run = dir.path / "run.weft";
  ASSERT_EQ(weft_cli({"import", "--quiet", (trace / "traces.otf2").string(), "-o", run.string()}).exit_code, 0);

  weft::db::Database reader = weft::db::open_run(run.string());
  // The state a snapshot shows: the option the analysis ran with, the
  // partition count it recorded in meta, and the rows of its tables.
  struct Snapshot {
    std::string leap_merge;
    std::int64_t meta_partitions, partition_rows, comm_rows, max_partition;
  };
  auto snapshot = [&] {
    Snapshot s;
    weft::db::Statement m = reader.prepare("SELECT value FROM meta WHERE key = 'analysis_leap_merge'");
    s.leap_merge = m.step() ? m.column_text(0) : "";
    s.meta_partitions = reader.query_int("SELECT value FROM meta WHERE key = 'analysis_partitions'", -1);
    s.partition_rows = reader.query_int("SELECT count(*) FROM partitions");
    s.comm_rows = reader.query_int("SELECT count(*) FROM comm_events");
    s.max_partition = reader.query_int("SELECT max(partition) FROM comm_events");
    return s;
  };
  reader.exec("BEGIN");
  const Snapshot first = snapshot();
  reader.exec("COMMIT");
  ASSERT_EQ(first.leap_merge, "1");

  // Analyses alternate the leap merge on a second thread while this one reads.
  std::atomic<bool> done{false};
  std::vector<ProcessResult> analyses;
  std::thread writer([&] {
    for (int k = 0; k < 6; ++k)
      analyses.push_back(weft_cli({"analyze", k % 2 == 0 ? "--no-leap-merge" : "--leap-force", run.string()}));
    done = true;
  });
  int reads = 0, mixes = 0, long_snapshot_changes = 0;
  std::set<std::string> seen;
  // One read transaction held across the whole run of analyses: its snapshot
  // never changes (checked at the end), while short ones follow the writer.
  weft::db::Database held = weft::db::open_run(run.string());
  held.exec("BEGIN");
  const std::int64_t held_rows = held.query_int("SELECT count(*) FROM partitions");
  while (!done) {
    reader.exec("BEGIN");
    Snapshot s = snapshot();
    reader.exec("COMMIT");
    ++reads;
    seen.insert(s.leap_merge);
    if (s.meta_partitions != s.partition_rows || s.max_partition + 1 != s.partition_rows ||
        s.comm_rows != first.comm_rows)
      ++mixes;
    if (held.query_int("SELECT count(*) FROM partitions") != held_rows) ++long_snapshot_changes;
  }
  writer.join();
  held.exec("COMMIT");
  for (const ProcessResult& r : analyses) EXPECT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_EQ(mixes, 0) << "of " << reads << " reads";
  EXPECT_EQ(long_snapshot_changes, 0);
  EXPECT_GT(reads, 0);
  std::printf("[readers] %d consistent reads, analyses seen: %zu kinds\n", reads, seen.size());
}

TEST(ConcurrentReaders, ReadersNeverWriteAndTwoRendersShareAFile) {
  weft::test::TempDir dir("readonly");
  fs::path trace = dir.path / "trace";
  ASSERT_EQ(weft_cli({"synth", "ring", "-n", "4", "-i", "3", "-o", trace.string()}).exit_code, 0);
  fs::path run = dir.path / "run.weft";
  ASSERT_EQ(weft_cli({"import", "--quiet", (trace / "traces.otf2").string(), "-o", run.string()}).exit_code, 0);
  fs::permissions(run, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string bytes = weft::test::read_bytes(run);
  struct stat before {};
  stat(run.c_str(), &before);

  EXPECT_EQ(weft_cli({"info", run.string()}).exit_code, 0);
  EXPECT_EQ(weft_cli({"check", run.string()}).exit_code, 0);
  EXPECT_EQ(weft_cli({"export", run.string(), "-o", (dir.path / "s.csv").string()}).exit_code, 0);
  std::vector<std::string> render = {kWeft, "render", run.string(), "--size", "200x100",
                                     "--out", ""};
  auto a = render, b = render;
  a.back() = (dir.path / "a.png").string();
  b.back() = (dir.path / "b.png").string();
  weft::test::ChildProcess ra = weft::test::start_process(a, weft::test::egl_child_limits());
  weft::test::ChildProcess rb = weft::test::start_process(b, weft::test::egl_child_limits());
  ProcessResult first = weft::test::finish_process(ra), second = weft::test::finish_process(rb);
  EXPECT_TRUE(first.exited && first.exit_code == 0) << first.describe();
  EXPECT_TRUE(second.exited && second.exit_code == 0) << second.describe();

  struct stat after {};
  stat(run.c_str(), &after);
  EXPECT_EQ(weft::test::read_bytes(run), bytes);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
}

TEST(UntrustedStrings, TerminalEscapes) {
  EXPECT_EQ(weft::escape_control_chars("plain, \"quoted\" ünïcode"), "plain, \"quoted\" ünïcode");
  EXPECT_EQ(weft::escape_control_chars("a\nb\r\tc"), "a\\nb\\r\\tc");
  EXPECT_EQ(weft::escape_control_chars("\x1b[2J\x07\x7f"), "\\x1b[2J\\x07\\x7f");
  EXPECT_EQ(weft::escape_control_chars("\xc2\x9b" "31m"), "\\xc2\\x9b31m");  // C1 CSI in UTF-8
  EXPECT_EQ(weft::escape_control_chars(std::string("nul\0x", 5)), "nul\\x00x");
}

TEST(UntrustedStrings, CsvAndJsonQuoting) {
  using weft::app::csv_quote;
  using weft::app::json_quote;
  EXPECT_EQ(csv_quote("MPI_Send"), "MPI_Send");
  EXPECT_EQ(csv_quote("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_quote("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_quote("cr\r\nlf"), "\"cr\r\nlf\"");
  EXPECT_EQ(csv_quote("esc\x1b[31m"), "esc\\x1b[31m");
  EXPECT_EQ(json_quote("q\"b\\n\nt\x1b\x7f"), "\"q\\\"b\\\\n\\nt\\u001b\\u007f\"");
}

// Splits RFC 4180 CSV into rows of fields (quoted fields may hold , " and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = was_quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  if (!field.empty() || was_quoted) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// A hand-built run (the OTF2 writer of `weft synth` names regions itself)
// whose send region is named with every awkward character, analyzed and
// exported through the CLI.
TEST(UntrustedStrings, HostileRegionNameThroughAnalyzeExportAndInfo) {
  const std::string hostile = "MPI_Isend, \"the\nsend\"\x1b]0;owned\x07 %s%n";
  weft::testing::TestTrace trace;
  trace.processes = 2;
  trace.regions[2].name = hostile;
  for (int p = 0; p < 2; ++p) {
    trace.events.push_back({p, 0, 1000, 0, 0});
    trace.events.push_back({p, 100 + p, 200, 2, 1});   // the hostile-named Isend
    trace.events.push_back({p, 300, 400, 5, 1});       // MPI_Allreduce
  }
  std::string path = weft::testing::temp_weft_path("hostile_names");
  weft::testing::write_test_weft(path, trace);
  {
    weft::db::Database db(path, weft::db::Database::Mode::ReadWrite);
    db.exec("INSERT INTO meta VALUES('source_path', '/traces/evil' || char(27) || '[2J' || char(10) || 'x.otf2')");
    db.exec("INSERT INTO meta VALUES('creator', 'creator' || char(13) || char(7))");
  }
  ProcessResult r = weft_cli({"analyze", path});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();

  r = weft_cli({"export", path, "--what", "steps", "--format", "csv"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  auto rows = parse_csv(r.out);
  ASSERT_GE(rows.size(), 3u) << r.out;
  const std::string expected_field = "MPI_Isend, \"the\nsend\"\\x1b]0;owned\\x07 %s%n";
  int hostile_rows = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), rows[0].size()) << "row " << i << " of:\n" << r.out;
    if (rows[i][2] == expected_field) ++hostile_rows;
  }
  EXPECT_EQ(hostile_rows, 2) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);

  r = weft_cli({"export", path, "--what", "steps", "--format", "json"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("\"MPI_Isend, \\\"the\\nsend\\\"\\u001b]0;owned\\u0007 %s%n\""), std::string::npos) << r.out;

  r = weft_cli({"info", path});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/traces/evil\\x1b[2J\\nx.otf2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("creator\\r\\x07"), std::string::npos) << r.out;

  // An error message that quotes a name stays one escaped line.
  r = weft_cli({"analyze", path, "--partition-function", "no\x1b[31mne\nx"});
  EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("no\\x1b[31mne\\nx"), std::string::npos) << r.err;
}

}  // namespace
