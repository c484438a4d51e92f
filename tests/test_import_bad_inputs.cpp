// Bad input gives one "weft: FILE: problem" line, exit status 2, and no output
// or temporary file; an existing output survives a failed import.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <string>

#include "common/error.h"
#include "import_test_support.h"
#include "otf2/otf2_importer.h"
#include "store/event_buckets.h"
#include "store/meta.h"
#include "store/run_info.h"
#include "store/schema.h"
#include "summary/activity_lod.h"

namespace {

namespace fs = weft::test::fs;
using weft::test::quoted;
using weft::test::run_command;
using weft::test::SyntheticRecord;
using R = SyntheticRecord;

const std::string kTraces = WEFT_SHARED_DIR "/traces";
const std::string kWeft = WEFT_BINARY;

bool have_traces() { return fs::exists(kTraces + "/jacobi-cpu-2/traces.otf2"); }

// A writable copy of a real trace folder.
fs::path copy_trace(const std::string& folder, const fs::path& into) {
  fs::path dest = into / folder;
  fs::copy(kTraces + "/" + folder, dest, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(dest))
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  fs::permissions(dest, fs::perms::owner_write, fs::perm_options::add);
  return dest;
}

// Runs `weft import` and checks the failure contract.
void expect_import_fails(const fs::path& anchor, const fs::path& out, const std::string& message) {
  auto r = run_command(kWeft + " import --quiet " + quoted(anchor) + " -o " + quoted(out));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("weft: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << "expected '" << message << "' in: " << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(weft::test::has_temp_files(out.parent_path()));
}

TEST(ImportBadInput, MissingInputFile) {
  weft::test::TempDir dir("bad");
  expect_import_fails(dir.path / "nothere.otf2", dir.path / "out.weft", "nothere.otf2: no such file");
}

TEST(ImportBadInput, TextFileIsNotAnAnchor) {
  weft::test::TempDir dir("bad");
  std::ofstream(dir.path / "x.otf2") << "this is not an OTF2 archive\n";
  expect_import_fails(dir.path / "x.otf2", dir.path / "out.weft", "x.otf2: not an OTF2 anchor file");
}

TEST(ImportBadInput, ZeroLengthAnchor) {
  weft::test::TempDir dir("bad");
  std::ofstream(dir.path / "z.otf2");
  expect_import_fails(dir.path / "z.otf2", dir.path / "out.weft", "z.otf2: not an OTF2 anchor file");
}

TEST(ImportBadInput, ArchiveWithoutLocations) {
  weft::test::TempDir dir("bad");
  fs::path anchor = weft::test::write_synthetic_archive(dir.path / "empty", {});
  expect_import_fails(anchor, dir.path / "out.weft", "no locations");
}

TEST(ImportBadInput, TruncatedEventFile) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent";
  weft::test::TempDir dir("bad");
  fs::path trace = copy_trace("jacobi-cpu-2", dir.path);
  fs::resize_file(trace / "traces/1.evt", fs::file_size(trace / "traces/1.evt") / 2);
  expect_import_fails(trace / "traces.otf2", dir.path / "out.weft", "traces/1.evt: ");
}

TEST(ImportBadInput, EventFileCutAtAChunkBoundaryIsStillCaught) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent";
  weft::test::TempDir dir("bad");
  fs::path trace = copy_trace("jacobi-cpu-2", dir.path);
  fs::resize_file(trace / "traces/1.evt", 0);
  expect_import_fails(trace / "traces.otf2", dir.path / "out.weft", "traces/1.evt: ");
}

TEST(ImportBadInput, TruncatedGlobalDefinitions) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent";
  weft::test::TempDir dir("bad");
  fs::path trace = copy_trace("jacobi-cpu-2", dir.path);
  fs::resize_file(trace / "traces.def", fs::file_size(trace / "traces.def") / 2);
  expect_import_fails(trace / "traces.otf2", dir.path / "out.weft", "traces.def: ");
}

TEST(ImportBadInput, TruncatedLocalDefinitions) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent";
  weft::test::TempDir dir("bad");
  fs::path trace = copy_trace("jacobi-cpu-2", dir.path);
  fs::resize_file(trace / "traces/1.def", fs::file_size(trace / "traces/1.def") / 2);
  expect_import_fails(trace / "traces.otf2", dir.path / "out.weft", "traces/1.def: ");
}

// OTF2's writer refuses time going backwards, so the test writes a marker
// timestamp and patches its 8 raw bytes in the .evt file afterwards.
TEST(ImportBadInput, TimestampsGoingBackwards) {
  weft::test::TempDir dir("bad");
  const std::uint64_t marker = 0x00000000DEADBEEFull;
  fs::path anchor = weft::test::write_synthetic_archive(
      dir.path / "back", {{{R::Enter, 10, 0}, {R::Leave, 20, 0}},
                          {{R::Enter, 10, 0}, {R::Enter, 30, 0}, {R::Leave, marker, 0},
                           {R::Leave, marker + 1, 0}}});
  fs::path evt = dir.path / "back/traces/1.evt";
  std::string bytes;
  {
    std::ifstream in(evt, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string needle(reinterpret_cast<const char*>(&marker), sizeof marker);
  size_t at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos) << "marker timestamp not found in " << evt;
  const std::uint64_t earlier = 25;
  bytes.replace(at, sizeof earlier, reinterpret_cast<const char*>(&earlier), sizeof earlier);
  std::ofstream(evt, std::ios::binary | std::ios::trunc) << bytes;
  expect_import_fails(anchor, dir.path / "out.weft", "traces/1.evt: timestamps go backwards in location 1");
}

TEST(ImportBadInput, UnmatchedMessagesAreKeptAndWarned) {
  weft::test::TempDir dir("unmatched");
  // Rank 0 sends twice to rank 1, rank 1 receives once; rank 1 also receives
  // from rank 0 on nothing... and leaves a region open at the end.
  fs::path anchor = weft::test::write_synthetic_archive(
      dir.path / "msgs",
      {{{R::Enter, 0, 0}, {R::Enter, 10, 1}, {R::Send, 11, 1}, {R::Leave, 12, 1},
        {R::Enter, 20, 1}, {R::Send, 21, 1}, {R::Leave, 22, 1}, {R::Leave, 100, 0}},
       {{R::Enter, 0, 0}, {R::Enter, 15, 2}, {R::Recv, 30, 0}, {R::Leave, 31, 2}, {R::Enter, 90, 0}}});
  fs::path out = dir.path / "out.weft";
  auto r = run_command(kWeft + " import --quiet " + quoted(anchor) + " -o " + quoted(out));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("weft: warning: 1 unmatched send(s) and 0 unmatched receive(s)"),
            std::string::npos)
      << r.output;
  weft::db::RunInfo info = weft::db::read_run_info(out.string());
  EXPECT_EQ(info.messages, 2);
  EXPECT_EQ(info.unmatched_sends, 1);
  EXPECT_EQ(info.meta_int("count_unclosed_regions"), 2);
  weft::db::Database db = weft::db::open_run(out.string());
  // The first send matches the only receive (non-overtaking), the second stays open.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages WHERE send_ns = 11 AND recv_ns = 30 AND "
                         "src = 0 AND dst = 1"),
            1);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages WHERE send_ns = 21 AND recv_ns IS NULL AND "
                         "recv_event IS NULL AND dst = 1"),
            1);
  // Unclosed regions end at their location's last timestamp (90).
  EXPECT_EQ(db.query_int("SELECT count(*) FROM events WHERE process = 1 AND end_ns = 90"), 2);
  EXPECT_FALSE(weft::test::has_temp_files(dir.path));
}

// Without a trace length in the clock properties the importer stages rows and
// copies them in key order at the end; the result must follow the same rules.
// A receive completed before its send started (clock skew) is ordered
// logically and reported: --quiet hides the progress bar and the summary
// lines, not the repair (weft import and weft analyze alike).
TEST(ImportBadInput, ClockSkewIsWarnedAboutEvenWhenQuiet) {
  weft::test::TempDir dir("skew");
  fs::path anchor = weft::test::write_synthetic_archive(
      dir.path / "skew",
      {{{R::Enter, 0, 0}, {R::Enter, 40, 1}, {R::Send, 41, 1}, {R::Leave, 42, 1}, {R::Leave, 100, 0}},
       {{R::Enter, 0, 0}, {R::Enter, 10, 2}, {R::Recv, 20, 0}, {R::Leave, 21, 2}, {R::Leave, 100, 0}}});
  fs::path out = dir.path / "out.weft";
  const std::string warning = "weft: warning: 1 message(s) received before they were sent (clock skew)";
  for (const std::string& command :
       {kWeft + " import --quiet " + quoted(anchor) + " -o " + quoted(out), kWeft + " analyze -q " + quoted(out)}) {
    auto r = run_command(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(warning), std::string::npos) << command << "\n" << r.output;
    EXPECT_EQ(r.output.find("communication events"), std::string::npos) << command << "\n" << r.output;
  }
  // Without --quiet the summary line is there too.
  auto r = run_command(kWeft + " analyze " + quoted(out));
  EXPECT_NE(r.output.find(": 2 communication events"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(warning), std::string::npos) << r.output;
}

TEST(ImportOutput, StagedLoadWithoutTraceLength) {
  weft::test::TempDir dir("staged");
  std::vector<std::vector<SyntheticRecord>> locations(3);
  for (std::uint64_t loc = 0; loc < 3; ++loc)
    for (std::uint64_t i = 0; i < 500; ++i) {
      std::uint64_t t = i * 1000 + loc;
      locations[loc].push_back({R::Enter, t, 0});
      // Durations from 10 ns to 990 ns: several bucket levels.
      locations[loc].push_back({R::Leave, t + std::min<std::uint64_t>(10 + i * i, 990), 0});
    }
  fs::path anchor = weft::test::write_synthetic_archive(dir.path / "t", locations, false);
  weft::db::ImportOptions options;
  options.trace_path = anchor.string();
  options.output_path = (dir.path / "run.weft").string();
  weft::db::ImportSummary s = weft::db::import_otf2(options);
  EXPECT_EQ(s.events, 1500u);
  weft::db::Database db = weft::db::open_run(options.output_path);
  weft::db::RunInfo info = weft::db::read_run_info(options.output_path);
  int shift = static_cast<int>(info.meta_int("bucket_shift", -1));
  weft::db::Statement rows = db.prepare("SELECT bucket, start_ns, end_ns FROM events");
  int wrong = 0, n = 0;
  while (rows.step()) {
    ++n;
    if (rows.column_int(0) != weft::db::bucket_key(rows.column_int(1), rows.column_int(2), shift)) ++wrong;
  }
  EXPECT_EQ(n, 1500);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(info.trace_end_ns, 499 * 1000 + 2 + 990);
}

TEST(ImportOutput, ExistingOutputNeedsForceAndSurvivesAFailedImport) {
  weft::test::TempDir dir("force");
  fs::path good = weft::test::write_synthetic_archive(
      dir.path / "good", {{{R::Enter, 0, 0}, {R::Leave, 10, 0}}});
  fs::path out = dir.path / "run.weft";
  auto r = run_command(kWeft + " import --quiet " + quoted(good) + " -o " + quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto size_before = fs::file_size(out);

  r = run_command(kWeft + " import --quiet " + quoted(good) + " -o " + quoted(out));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("output exists (use --force"), std::string::npos) << r.output;

  std::ofstream(dir.path / "bad.otf2") << "garbage";
  r = run_command(kWeft + " import --quiet --force " + quoted(dir.path / "bad.otf2") + " -o " +
                  quoted(out));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  ASSERT_TRUE(fs::exists(out));
  EXPECT_EQ(fs::file_size(out), size_before);
  EXPECT_EQ(weft::db::read_run_info(out.string()).events, 1);
  EXPECT_FALSE(weft::test::has_temp_files(dir.path));

  r = run_command(kWeft + " import --quiet --force " + quoted(good) + " -o " + quoted(out));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(RunFile, InfoRejectsMissingAndForeignFiles) {
  weft::test::TempDir dir("info");
  auto r = run_command(kWeft + " info " + quoted(dir.path / "none.weft"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("none.weft: no such file"), std::string::npos) << r.output;

  std::ofstream(dir.path / "text.weft") << "not a database at all, just some text\n";
  r = run_command(kWeft + " info " + quoted(dir.path / "text.weft"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("text.weft: "), std::string::npos) << r.output;

  { weft::db::Database other((dir.path / "other.db").string(), weft::db::Database::Mode::Create);
    other.exec("CREATE TABLE t(x)"); }
  r = run_command(kWeft + " info " + quoted(dir.path / "other.db"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("not a weft run"), std::string::npos) << r.output;
}

// Imports a one-event trace into DIR/run.weft; returns its path.
std::string import_one_event_run(const fs::path& dir) {
  fs::path anchor = weft::test::write_synthetic_archive(dir / "t", {{{R::Enter, 0, 0}, {R::Leave, 5, 0}}});
  weft::db::ImportOptions options;
  options.trace_path = anchor.string();
  options.output_path = (dir / "run.weft").string();
  weft::db::import_otf2(options);
  return options.output_path;
}

TEST(RunFile, OpenRunNamesVersionMismatch) {
  weft::test::TempDir dir("version");
  const std::string run = import_one_event_run(dir.path);
  { weft::db::Database db(run, weft::db::Database::Mode::ReadWrite);
    db.set_user_version(weft::db::kSchemaVersion + 1); }
  try {
    weft::db::open_run(run);
    FAIL() << "open_run accepted a newer schema";
  } catch (const weft::Error& e) {
    std::string what = e.what();
    const int ours = weft::db::kSchemaVersion;
    EXPECT_NE(what.find("schema version " + std::to_string(ours + 1) + " is newer"), std::string::npos) << what;
    EXPECT_NE(what.find("(" + std::to_string(ours) + ")"), std::string::npos) << what;
  }
}

TEST(RunFile, Version2RunsReadAndWritingTheirTilesRaisesTheVersion) {
  // A run written before the LZ4 tiles (schema version 2, zlib tiles) opens;
  // once this build writes tiles into it, it is version 3 (an older weft
  // would read those tiles as damaged); version 1 is refused.
  weft::test::TempDir dir("version2");
  const std::string run = import_one_event_run(dir.path);
  ASSERT_EQ(weft::db::kSchemaVersion, 3);
  auto set_version = [&](int version) {
    weft::db::Database db(run, weft::db::Database::Mode::ReadWrite);
    db.set_user_version(version);
    weft::db::write_meta_ints(db, {{"schema_version", version}});
  };
  set_version(2);
  {
    weft::db::Database db = weft::db::open_run(run, weft::db::Database::Mode::ReadWrite);
    EXPECT_EQ(db.user_version(), 2);
    weft::db::write_activity_lod(db);
    EXPECT_EQ(db.user_version(), 3);
    EXPECT_EQ(weft::db::read_meta_int(db, "schema_version"), 3);
  }
  set_version(1);
  try {
    weft::db::open_run(run);
    FAIL() << "open_run accepted schema version 1";
  } catch (const weft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 1 is older than this weft reads (2 to 3)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
