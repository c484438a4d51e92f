// Crash-safe writes: `weft import` and `weft analyze` killed with SIGKILL at
// random moments leave the previous run intact (it opens, with the same
// counts) and no temporary file; SIGINT, SIGTERM and SIGHUP remove the
// temporary and end the process with one line; a full disk is reported as
// "disk full". The moments are drawn from a fixed seed, spread over the
// measured length of a whole run, so every phase gets hit.
#include <gtest/gtest.h>
#include <sys/prctl.h>

#include <chrono>
#include <thread>

#include "corruption_support.h"
#include "import_test_support.h"
#include "store/run_info.h"
#include "store/schema.h"

namespace {

namespace fs = std::filesystem;
using weft::test::ProcessResult;

const std::string kWeft = WEFT_BINARY;
constexpr int kKills = 24;

// The facts a reader would see: counts from meta and from the tables.
struct RunFacts {
  std::int64_t events = -1, messages = -1, processes = -1, partitions = -1, partition_rows = -1;
  std::string analysis_leap_merge;
  bool operator==(const RunFacts&) const = default;
};

RunFacts read_facts(const fs::path& run) {
  weft::db::RunInfo info = weft::db::read_run_info(run.string());
  weft::db::Database db = weft::db::open_run(run.string());
  RunFacts f;
  f.events = info.events;
  f.messages = info.messages;
  f.processes = db.query_int("SELECT count(*) FROM processes");
  f.partitions = info.meta_int("analysis_partitions", -1);
  f.partition_rows = db.query_int("SELECT count(*) FROM partitions", -1);
  f.analysis_leap_merge = info.meta_or("analysis_leap_merge", "");
  return f;
}

// Reaps the guardian processes a killed weft left (they become our children:
// this process is a subreaper), waiting at most `seconds` as a hang guard.
void reap_orphans(double seconds = 60) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid < 0) return;  // ECHILD: none left
    if (pid == 0) {
      if (std::chrono::steady_clock::now() > deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class CrashSafety : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    dir_ = new weft::test::TempDir("crash");
    weft::test::synth_trace({"stencil2d", "-n", "64", "-i", "40"}, dir_->path / "big");
    weft::test::synth_trace({"ring", "-n", "3", "-i", "2"}, dir_->path / "small");
  }
  static void TearDownTestSuite() {
    delete dir_;
    prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  static std::string big() { return (dir_->path / "big/traces.otf2").string(); }
  static std::string small() { return (dir_->path / "small/traces.otf2").string(); }

  // Imports `trace` into `run` and returns how long it took.
  static double import(const std::string& trace, const fs::path& run) {
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = weft::test::run_process({kWeft, "import", "--quiet", "--force", trace, "-o", run.string()});
    EXPECT_TRUE(r.exited && r.exit_code == 0) << r.describe();
    return seconds_since(t0);
  }

  // Starts `argv`, kills it with SIGKILL after `delay` seconds (unless it
  // ended before) and returns how it ended, once its guardian is gone too.
  static ProcessResult kill_after(const std::vector<std::string>& argv, double delay) {
    weft::test::ChildProcess child = weft::test::start_process(argv);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    kill(child.pid, SIGKILL);  // the process only, as `kill -9 PID` does
    ProcessResult r = weft::test::finish_process(child);
    reap_orphans();
    return r;
  }

  static inline weft::test::TempDir* dir_ = nullptr;
};

TEST_F(CrashSafety, SigkillDuringImportKeepsThePreviousRun) {
  fs::path run = dir_->path / "import.weft";
  import(small(), run);
  const RunFacts before = read_facts(run);
  const std::string before_bytes = weft::test::read_bytes(run);
  // How long a whole import of the big trace takes here: the kills are spread
  // over 1.2 times that (a few land after the end: then the new run is whole).
  fs::path probe = dir_->path / "probe.weft";
  const double whole = import(big(), probe);
  const RunFacts after = read_facts(probe);
  ASSERT_NE(before, after);
  weft::test::Prng rng(8);
  int interrupted = 0;
  for (int k = 0; k < kKills; ++k) {
    double delay = whole * 1.2 * static_cast<double>(rng.below(1000)) / 1000.0;
    ProcessResult r = kill_after({kWeft, "import", "--quiet", "--force", big(), "-o", run.string()}, delay);
    SCOPED_TRACE("kill " + std::to_string(k) + " after " + std::to_string(delay) + " s: " + r.describe());
    EXPECT_FALSE(weft::test::has_temp_files(dir_->path));
    // Killed before the rename: the previous run, byte for byte. Killed after
    // it (while exiting) or not killed: the whole new run. Nothing else.
    const RunFacts now = read_facts(run);
    if (!r.exited) ASSERT_EQ(r.signal, SIGKILL);
    else ASSERT_EQ(r.exit_code, 0);
    if (!r.exited && now == before) {
      ++interrupted;
      EXPECT_TRUE(weft::test::read_bytes(run) == before_bytes) << "the previous run changed";
    } else {
      EXPECT_EQ(now, after) << "neither the previous run nor the new one";
      weft::test::write_bytes(run, before_bytes);  // back to the previous run
    }
  }
  std::printf("[crash] %d of %d imports killed midway\n", interrupted, kKills);
  EXPECT_GE(interrupted, kKills / 2);
}

TEST_F(CrashSafety, SigkillDuringAnalyzeKeepsOneWholeAnalysis) {
  fs::path run = dir_->path / "analyze.weft";
  import(big(), run);
  const RunFacts before = read_facts(run);
  ASSERT_EQ(before.analysis_leap_merge, "1");
  // The other analysis (no leap merge) of the same run, and its duration.
  fs::path other = dir_->path / "analyze-other.weft";
  fs::copy_file(run, other);
  // The fastest of three, so that most kills land before the end even when
  // the machine is busier than it was for one of them.
  double whole = 0;
  ProcessResult r;
  for (int k = 0; k < 3; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    r = weft::test::run_process({kWeft, "analyze", "--no-leap-merge", other.string()});
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
    whole = k == 0 ? seconds_since(t0) : std::min(whole, seconds_since(t0));
  }
  const RunFacts after = read_facts(other);
  ASSERT_EQ(after.analysis_leap_merge, "0");
  const std::string before_bytes = weft::test::read_bytes(run);
  weft::test::Prng rng(9);
  int interrupted = 0, hot_journals = 0;
  for (int k = 0; k < kKills; ++k) {
    double delay = whole * 1.2 * static_cast<double>(rng.below(1000)) / 1000.0;
    r = kill_after({kWeft, "analyze", "--no-leap-merge", run.string()}, delay);
    SCOPED_TRACE("kill " + std::to_string(k) + " after " + std::to_string(delay) + " s: " + r.describe());
    EXPECT_FALSE(weft::test::has_temp_files(dir_->path));
    // Killed inside a transaction with the rollback journal
    // (store/write_journal.h): the readers below roll it back.
    if (fs::exists(run.string() + "-journal") &&
        weft::test::read_bytes(run.string() + "-journal").substr(0, 8) != std::string(8, '\0'))
      ++hot_journals;
    // Whatever the moment: one whole analysis, the old or the new, its meta
    // facts agreeing with its tables, and `weft check` content with it.
    RunFacts now = read_facts(run);
    EXPECT_TRUE(now == before || now == after) << "a mix of two analyses: " << now.partitions << " / "
                                               << now.partition_rows << " / " << now.analysis_leap_merge;
    ProcessResult check = weft::test::run_process({kWeft, "check", run.string()});
    EXPECT_TRUE(check.exited && check.exit_code == 0) << check.describe() << check.out;
    if (r.exited) {
      ASSERT_EQ(r.exit_code, 0);
      EXPECT_EQ(now, after);
    } else {
      ++interrupted;
      if (now == after) std::printf("[crash] analyze killed after its commit\n");
    }
    // Rolled back by read_facts; what may remain is a finished journal (its
    // magic zeroed, nothing to roll back) that the process left undeleted,
    // or an empty one (killed between creating the journal and writing its
    // header; SQLite never takes an empty journal for a hot one).
    if (fs::exists(run.string() + "-journal")) {
      const std::string journal = weft::test::read_bytes(run.string() + "-journal");
      if (!journal.empty()) {
        EXPECT_EQ(journal.substr(0, 8), std::string(8, '\0'));
      }
    }
    // Back to the old analysis for the next kill (no -wal left: the check
    // above and read_facts closed the last connections).
    for (const char* side : {"-wal", "-shm", "-journal"}) fs::remove(run.string() + side);
    weft::test::write_bytes(run, before_bytes);
  }
  std::printf("[crash] %d of %d analyses killed midway, %d in a transaction with a rollback journal\n",
              interrupted, kKills, hot_journals);
  EXPECT_GE(interrupted, kKills / 2);
}

// The rollback journal's side of a killed analysis, made certain: a writer
// killed inside a transaction that has already written pages into the file
// leaves a hot journal; the next reader (read-only, as `weft info` and the
// viewer open runs) must roll it back and see the run as it was.
TEST_F(CrashSafety, AHotJournalIsRolledBackByTheNextReader) {
  fs::path run = dir_->path / "journal.weft";
  import(small(), run);
  const RunFacts before = read_facts(run);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A writer as `weft analyze` with the rollback journal, with a cache so
    // small that its changes spill into the database file before a commit.
    weft::db::Database db(run.string(), weft::db::Database::Mode::ReadWrite);
    db.exec("PRAGMA journal_mode=DELETE; PRAGMA cache_size=10; BEGIN IMMEDIATE;"
            "DELETE FROM partitions; UPDATE meta SET value = 'x' WHERE key = 'count_events';"
            "CREATE TABLE filler(data BLOB);"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)"
            " INSERT INTO filler SELECT randomblob(8000) FROM n;");
    raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::string journal = run.string() + "-journal";
  ASSERT_TRUE(fs::exists(journal));
  ASSERT_NE(weft::test::read_bytes(journal).substr(0, 8), std::string(8, '\0')) << "the journal is not hot";
  EXPECT_EQ(read_facts(run), before);
  EXPECT_FALSE(fs::exists(journal));
  ProcessResult check = weft::test::run_process({kWeft, "check", run.string()});
  EXPECT_TRUE(check.exited && check.exit_code == 0) << check.describe() << check.out;
}

// Waits (hang guard: 60 s) until `dir` holds a temporary output, so that the
// signal lands while the import writes.
bool wait_for_temp_file(const fs::path& dir) {
  auto t0 = std::chrono::steady_clock::now();
  while (seconds_since(t0) < 60) {
    if (weft::test::has_temp_files(dir)) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return false;
}

TEST_F(CrashSafety, SigintSigtermSighupRemoveTheTemporary) {
  for (int signo : {SIGINT, SIGTERM, SIGHUP}) {
    weft::test::TempDir dir("signal");
    fs::path run = dir.path / "run.weft";
    import(small(), run);
    const std::string before = weft::test::read_bytes(run);
    weft::test::ChildProcess child =
        weft::test::start_process({kWeft, "import", "--quiet", "--force", big(), "-o", run.string()});
    ASSERT_TRUE(wait_for_temp_file(dir.path));
    kill(child.pid, signo);
    ProcessResult r = weft::test::finish_process(child);
    reap_orphans();
    SCOPED_TRACE(strsignal(signo));
    if (r.exited) {  // finished before the signal arrived: nothing to check
      EXPECT_EQ(r.exit_code, 0) << r.describe();
      continue;
    }
    EXPECT_EQ(r.signal, signo) << r.describe();
    EXPECT_EQ(r.err, "\nweft: " + run.string() + ": interrupted, output not written\n");
    EXPECT_FALSE(weft::test::has_temp_files(dir.path));
    EXPECT_EQ(weft::test::read_bytes(run), before);
  }
}

// A 1 MiB tmpfs in a private mount namespace (needs root or user namespaces;
// skipped where neither is available).
TEST_F(CrashSafety, DiskFullIsReportedAsSuch) {
  weft::test::TempDir dir("full");
  fs::path mnt = dir.path / "mnt";
  fs::create_directory(mnt);
  const std::string script =
      "mount -t tmpfs -o size=1m weft-full \"$1\" || exit 77; shift; \"$@\"; rc=$?; "
      "ls -A \"$MNT\" >&2; exit $rc";
  auto in_small_fs = [&](std::vector<std::string> argv) {
    std::vector<std::string> full = {"/usr/bin/unshare", "-m", "/bin/sh", "-c", script, "sh", mnt.string()};
    full.insert(full.end(), argv.begin(), argv.end());
    weft::test::ProcessLimits limits;
    limits.env = {"MNT=" + mnt.string()};
    return weft::test::run_process(full, limits);
  };
  ProcessResult r = in_small_fs({kWeft, "import", "--quiet", big(), "-o", (mnt / "run.weft").string()});
  if (r.exited && r.exit_code == 77) GTEST_SKIP() << "cannot mount a small tmpfs here: " << r.err;
  EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
  // One line, then the listing of the file system: empty.
  EXPECT_EQ(r.err.rfind("weft: " + (mnt / "run.weft").string() + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("disk full"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "files left on the full disk: " << r.err;

  // An export to a full disk, through -o and through standard output.
  fs::path run = dir.path / "run.weft";
  import(big(), run);
  r = in_small_fs({kWeft, "export", run.string(), "--what", "steps", "-o", (mnt / "steps.csv").string()});
  EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
  EXPECT_EQ(r.err.rfind("weft: " + (mnt / "steps.csv").string() + ": write failed: disk full", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "files left on the full disk: " << r.err;
  weft::test::ProcessLimits to_dev_full;
  to_dev_full.stdout_path = "/dev/full";
  r = weft::test::run_process({kWeft, "export", run.string(), "--what", "steps"}, to_dev_full);
  EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
  EXPECT_EQ(r.err.rfind("weft: standard output: write failed: disk full", 0), 0u) << r.err;
}

}  // namespace
