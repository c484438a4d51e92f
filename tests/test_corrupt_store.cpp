// Corrupted-input corpus for the .weft store readers: a good run (imported
// and analyzed from a `weft synth` archive) truncated at many offsets, with
// bytes flipped at many positions, emptied, and edited through SQL into
// hostile but well-formed databases (absurd counts, out-of-range ids, broken
// blobs, missing tables, wrong schema versions). Every damaged file goes
// through `weft info`, `check`, `export` (steps as CSV, messages as JSON),
// `analyze` (on a copy) and, for a subset, `render`, each as a child process
// keeping the contract of corruption_support.h.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <functional>

#include "corruption_support.h"
#include "import_test_support.h"

namespace {

namespace fs = std::filesystem;
using weft::test::CaseTally;
using weft::test::contract_violation;
using weft::test::ProcessResult;

const std::string kWeft = WEFT_BINARY;

class StoreCorpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new weft::test::TempDir("storecorpus");
    ProcessResult r = weft::test::run_process(
        {kWeft, "synth", "stencil2d", "-n", "4", "-i", "3", "-o", (dir_->path / "trace").string()});
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
    r = weft::test::run_process({kWeft, "import", "--quiet", (dir_->path / "trace/traces.otf2").string(),
                                 "-o", good().string()});
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
    // A run file as users hold it: after an `analyze` (WAL mode, checkpointed).
    r = weft::test::run_process({kWeft, "analyze", good().string()});
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
    good_bytes_ = new std::string(weft::test::read_bytes(good()));
  }
  static void TearDownTestSuite() {
    delete good_bytes_;
    delete dir_;
  }
  static fs::path good() { return dir_->path / "good.weft"; }
  static const std::string& good_bytes() { return *good_bytes_; }

  // Runs every reader on `bytes` written as a .weft file.
  void run_readers(CaseTally& tally, const std::string& name, const std::string& bytes,
                   bool with_render) {
    if (!tally.sample()) return;
    fs::path run = dir_->path / "case.weft";
    clear_case_files();
    weft::test::write_bytes(run, bytes);
    auto judge = [&](const std::string& command, std::vector<std::string> argv,
                     std::vector<int> ok_codes, const std::vector<fs::path>& named) {
      ProcessResult r = weft::test::run_process(
          argv, command == "render" ? weft::test::egl_child_limits() : weft::test::ProcessLimits{});
      std::string violation = contract_violation(r, named, ok_codes);
      if (violation.empty() && weft::test::has_temp_files_below(dir_->path))
        violation = "a temporary file was left behind";
      tally.record(name + " / " + command, violation, r);
    };
    const std::string path = run.string();
    judge("info", {kWeft, "info", path}, {0}, {run});
    judge("check", {kWeft, "check", path}, {0, 1}, {run});
    fs::path csv = dir_->path / "steps.csv";
    judge("export steps csv", {kWeft, "export", path, "--what", "steps", "--format", "csv", "-o", csv.string()},
          {0}, {run, csv});
    fs::path json = dir_->path / "messages.json";
    judge("export messages json",
          {kWeft, "export", path, "--what", "messages", "--format", "json", "-o", json.string()}, {0},
          {run, json});
    if (with_render) {
      fs::path png = dir_->path / "case.png";
      judge("render", {kWeft, "render", path, "--view", "physical", "--size", "320x200",
                       "--out", png.string()},
            {0}, {run, png});
    }
    // analyze writes: give it its own copy (the readers above must not be
    // affected by what it does).
    clear_case_files();
    weft::test::write_bytes(run, bytes);
    judge("analyze", {kWeft, "analyze", path}, {0}, {run});
    clear_case_files();
  }

  static void clear_case_files() {
    for (const char* name : {"case.weft", "case.weft-wal", "case.weft-shm", "case.weft-journal",
                             "steps.csv", "messages.json", "case.png"}) {
      std::error_code ec;
      fs::remove(dir_->path / name, ec);
    }
  }

  // Applies SQL to a copy of the good run and returns the file's bytes.
  std::string edited(const std::string& sql) {
    fs::path copy = dir_->path / "edit.weft";
    weft::test::write_bytes(copy, good_bytes());
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(copy.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, ("PRAGMA journal_mode=DELETE;" + sql).c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
    std::string bytes = weft::test::read_bytes(copy);
    fs::remove(copy);
    return bytes;
  }

  static inline weft::test::TempDir* dir_ = nullptr;
  static inline std::string* good_bytes_ = nullptr;
};

TEST_F(StoreCorpus, GoodRunPassesEveryReader) {
  CaseTally tally("store good run");
  run_readers(tally, "unchanged", good_bytes(), true);
}

TEST_F(StoreCorpus, TruncationsAndEmptyFile) {
  CaseTally tally("store truncations");
  const std::string& bytes = good_bytes();
  std::vector<std::size_t> sizes = weft::test::spread_offsets(bytes.size(), 12);
  const std::size_t page = 16384;
  for (std::size_t p = page; p < bytes.size(); p += page * 3) {
    sizes.push_back(p);
    sizes.push_back(p + 1);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  int i = 0;
  for (std::size_t size : sizes)
    run_readers(tally, "cut to " + std::to_string(size), bytes.substr(0, size), i++ % 8 == 0);
}

TEST_F(StoreCorpus, ByteFlips) {
  CaseTally tally("store byte flips");
  const std::string& bytes = good_bytes();
  // The database header (page size, counts, versions), then positions drawn
  // among the non-zero bytes: zero bytes are mostly free space.
  std::vector<std::size_t> positions;
  for (std::size_t at = 0; at < 100; at += 3) positions.push_back(at);
  std::vector<std::size_t> nonzero;
  for (std::size_t at = 100; at < bytes.size(); ++at)
    if (bytes[at] != 0) nonzero.push_back(at);
  weft::test::Prng rng(20240601);
  for (int k = 0; k < 90 && !nonzero.empty(); ++k) positions.push_back(nonzero[rng.below(nonzero.size())]);
  static const unsigned char kMasks[] = {0xff, 0x01, 0x80, 0x10, 0x7f};
  int i = 0;
  for (std::size_t at : positions) {
    std::string damaged = bytes;
    unsigned char mask = kMasks[i % std::size(kMasks)];
    damaged[at] = static_cast<char>(damaged[at] ^ mask);
    run_readers(tally, "byte " + std::to_string(at) + " ^ " + std::to_string(mask), damaged, i++ % 16 == 0);
  }
}

// Well-formed SQLite, hostile content: what a buggy or malicious writer could
// leave. Each edit runs on a fresh copy of the good run.
TEST_F(StoreCorpus, HostileEdits) {
  CaseTally tally("store hostile edits");
  const char* edits[][2] = {
      {"schema version 1 (older)", "PRAGMA user_version=1"},
      {"schema version 99 (newer)", "PRAGMA user_version=99"},
      {"schema version 0", "PRAGMA user_version=0"},
      {"count_processes 2^40", "UPDATE meta SET value='1099511627776' WHERE key='count_processes'"},
      {"count_events 2^62", "UPDATE meta SET value='4611686018427387904' WHERE key='count_events'"},
      {"count_events not a number", "UPDATE meta SET value='lots' WHERE key='count_events'"},
      {"bucket_shift 70", "UPDATE meta SET value='70' WHERE key='bucket_shift'"},
      {"bucket_shift -5", "UPDATE meta SET value='-5' WHERE key='bucket_shift'"},
      {"max_level 1000", "UPDATE meta SET value='1000' WHERE key='max_level'"},
      {"trace_end_ns -1", "UPDATE meta SET value='-1' WHERE key='trace_end_ns'"},
      {"trace_end_ns 2^63-1", "UPDATE meta SET value='9223372036854775807' WHERE key='trace_end_ns'"},
      {"max_message_ns 2^63-1", "UPDATE meta SET value='9223372036854775807' WHERE key='max_message_ns'"},
      {"meta emptied", "DELETE FROM meta"},
      {"no processes", "DELETE FROM processes"},
      {"process index 2^40", "UPDATE processes SET process=1099511627776 WHERE process=3"},
      {"process first_event -7", "UPDATE processes SET first_event=-7 WHERE process=1"},
      {"process event_count 2^40", "UPDATE processes SET event_count=1099511627776"},
      {"event block of process 10^9", "UPDATE event_blocks SET process=1000000000 WHERE process=2"},
      {"event block of process -1", "UPDATE event_blocks SET process=-1 WHERE process=1"},
      {"event block count 2^40", "UPDATE event_blocks SET count=1099511627776"},
      {"event blobs empty", "UPDATE event_blocks SET data=x''"},
      {"event blobs random", "UPDATE event_blocks SET data=randomblob(40)"},
      {"event blobs 0xff", "UPDATE event_blocks SET data=x'ffffffffffffffffffffffffffff'"},
      {"event blobs text", "UPDATE event_blocks SET data='not a blob'"},
      {"event blocks swapped between processes", "UPDATE event_blocks SET process=process+100; UPDATE event_blocks SET process=103-process"},
      {"event block ranges inverted", "UPDATE event_blocks SET start_ns=end_ns+5, first_id=last_id+3"},
      {"event blocks gone", "DELETE FROM event_blocks"},
      {"message block of process 10^9", "UPDATE message_blocks SET process=1000000000 WHERE process=0"},
      {"message blobs random", "UPDATE message_blocks SET data=randomblob(30)"},
      {"message block count 2^40", "UPDATE message_blocks SET count=1099511627776"},
      {"message block counts -5 and 2^30", "UPDATE message_blocks SET count=-5; UPDATE message_blocks SET count=1073741824 WHERE process=1"},
      {"collective members count 2^40", "UPDATE collective_member_blocks SET count=1099511627776"},
      {"collective members count 2^30", "UPDATE collective_member_blocks SET count=1073741824"},
      {"collective member blobs random", "UPDATE collective_member_blocks SET data=randomblob(25)"},
      {"collective members 2^31", "UPDATE collectives SET members=2147483648, region=-5"},
      {"collective ids 10^12", "UPDATE collective_member_blocks SET collective=collective+1000000000000"},
      {"region kind 99, id 2^40", "UPDATE regions SET kind=99; UPDATE regions SET region=1099511627776 WHERE region=0"},
      {"regions gone", "DELETE FROM regions"},
      {"comm_members to process 10^9", "UPDATE comm_members SET process=1000000000"},
      {"comm_event blocks of process 10^6", "UPDATE comm_event_blocks SET process=1000000"},
      {"comm_event blocks at step block -1", "UPDATE comm_event_blocks SET step_block=-1, first_step=-1"},
      {"comm_event blobs random", "UPDATE comm_event_blocks SET data=randomblob(30)"},
      {"comm_event blob count 2^40", "UPDATE comm_event_blocks SET count=1099511627776"},
      {"comm_event ids that do not exist", "UPDATE comm_event_blocks SET first_id=first_id+1000000, last_id=last_id+1000000"},
      {"analysis steps 2^40 in blocks of one step",
       "UPDATE meta SET value='1099511627776' WHERE key='analysis_global_steps'; "
       "UPDATE meta SET value='0' WHERE key='analysis_step_shift'"},
      {"comm_event block key rows 2^31", "UPDATE meta SET value='2147483648' WHERE key='analysis_block_key_rows'"},
      {"comm_event block key rows not the processes", "UPDATE meta SET value=value+1 WHERE key='analysis_block_key_rows'"},
      {"comm_event block keyed near 2^63",
       "UPDATE comm_event_blocks SET block=(4294967295 << 31) | 7 WHERE block=(SELECT max(block) FROM comm_event_blocks)"},
      {"message_step blocks claim process 10^9", "UPDATE message_step_blocks SET src_lo=1000000000, src_hi=1000000000, recv_hi=-5"},
      {"message_step blobs random", "UPDATE message_step_blocks SET data=randomblob(40)"},
      {"message_step blob count 2^40", "UPDATE message_step_blocks SET data=x'8080808080a001'"},
      {"message_step blocks at step 2^40", "UPDATE message_step_blocks SET send_step=send_step+1099511627776"},
      {"step_lod tiles random", "UPDATE step_lod SET data=randomblob(20)"},
      {"step_lod block 2^40", "UPDATE step_lod SET block=block+1099511627776"},
      {"activity_lod tiles random", "UPDATE activity_lod SET data=randomblob(20)"},
      {"activity_lod tile 2^40", "UPDATE activity_lod SET tile=tile+1099511627776"},
      {"lod levels absurd", "UPDATE meta SET value='99' WHERE key IN ('lod_max_plevel', 'step_lod_max_slevel')"},
      {"start_histogram rows out of range", "UPDATE start_histogram SET bin=bin+100000000, class=9"},
      {"histogram bins 2^40", "UPDATE meta SET value='1099511627776' WHERE key='histogram_bins'"},
      {"partitions gone", "DELETE FROM partitions"},
      {"partition edges in a cycle", "INSERT OR IGNORE INTO partition_edges VALUES (1,0),(0,0),(5,1000000000)"},
      {"phases absurd", "UPDATE phases SET first_partition=1000000000, last_partition=-3"},
      {"step_metrics step 2^40", "UPDATE step_metrics SET step=step+1099511627776"},
      {"event_blocks table dropped", "DROP TABLE event_blocks"},
      {"processes table dropped", "DROP TABLE processes"},
      {"comm_event_blocks table dropped", "DROP TABLE comm_event_blocks"},
      {"comm_event_blocks with other columns", "DROP TABLE comm_event_blocks; CREATE TABLE comm_event_blocks(x)"},
      {"step_lod table dropped", "DROP TABLE step_lod"},
      {"activity_lod with other columns", "DROP TABLE activity_lod; CREATE TABLE activity_lod(x)"},
      {"processes as a view", "ALTER TABLE processes RENAME TO p2; CREATE VIEW processes AS SELECT * FROM p2 WHERE 0"},
  };
  int i = 0;
  for (const auto& [name, sql] : edits) run_readers(tally, name, edited(sql), i++ % 3 == 0);
}

}  // namespace
