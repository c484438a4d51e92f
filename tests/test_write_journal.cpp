// `weft analyze` writes with SQLite's rollback journal while it has the run
// to itself and with the WAL while another connection has it open
// (db/store/write_journal.h); either way the results are the same and the
// published file is back in WAL mode afterwards.
#include <gtest/gtest.h>

#include <string>

#include "import_test_support.h"
#include "store/sqlite.h"
#include "store/write_journal.h"

using weft::db::Database;
using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;

namespace {

const std::string kWeft = WEFT_BINARY;

std::string journal_mode(const fs::path& run) {
  Database db(run.string(), Database::Mode::ReadOnly);
  weft::db::Statement s = db.prepare("PRAGMA journal_mode");
  return s.step() ? s.column_text(0) : "";
}

}  // namespace

TEST(WriteJournal, RollbackJournalAloneWalBesideAnotherConnection) {
  weft::test::TempDir dir("journal");
  const fs::path run = dir.path / "run.sqlite";
  {
    Database db(run.string(), Database::Mode::Create);
    db.exec("PRAGMA journal_mode=WAL; CREATE TABLE t(x)");
  }
  {
    Database db(run.string(), Database::Mode::ReadWrite);
    {
      const weft::db::WriteJournal journal(db);
      EXPECT_TRUE(journal.uses_rollback_journal());
      db.exec("INSERT INTO t VALUES (1)");
      // A commit empties the journal rather than deleting it (TRUNCATE).
      weft::db::Statement mode = db.prepare("PRAGMA journal_mode");
      ASSERT_TRUE(mode.step());
      EXPECT_EQ(mode.column_text(0), "truncate");
      EXPECT_TRUE(fs::exists(run.string() + "-journal"));
      EXPECT_EQ(fs::file_size(run.string() + "-journal"), 0u);
    }
    EXPECT_FALSE(fs::exists(run.string() + "-journal"));  // deleted by the switch back to WAL
    Database reader(run.string(), Database::Mode::ReadOnly);
    EXPECT_EQ(reader.query_int("SELECT count(*) FROM t"), 1);
    {
      const weft::db::WriteJournal journal(db);
      EXPECT_FALSE(journal.uses_rollback_journal());  // the reader keeps the WAL
      db.exec("INSERT INTO t VALUES (2)");
      EXPECT_EQ(reader.query_int("SELECT count(*) FROM t"), 2);
    }
  }
  EXPECT_EQ(journal_mode(run), "wal");
}

TEST(WriteJournal, AnalyzeGivesTheSameResultsWithEitherJournal) {
  weft::test::TempDir dir("journal");
  ASSERT_EQ(run_command(kWeft + " synth stencil2d -n 16 -i 4 --jitter 0.2 -o " + quoted(dir.path / "t")).exit_code, 0);
  const fs::path run = dir.path / "run.weft";
  ASSERT_EQ(run_command(kWeft + " import --quiet --no-analyze " + quoted(dir.path / "t/traces.otf2") + " -o " +
                        quoted(run)).exit_code, 0);
  auto analyze_and_export = [&](const std::string& name) {
    auto r = run_command(kWeft + " analyze " + quoted(run));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const fs::path csv = dir.path / name;
    r = run_command(kWeft + " export " + quoted(run) + " --what steps --format csv -o " + quoted(csv));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return weft::test::run_command("cat " + quoted(csv)).output;
  };
  const std::string alone = analyze_and_export("alone.csv");
  EXPECT_EQ(journal_mode(run), "wal");
  EXPECT_FALSE(fs::exists(run.string() + "-journal"));
  std::string beside;
  {
    Database viewer(run.string(), Database::Mode::ReadOnly);  // as a viewer holds the file open
    viewer.query_int("SELECT count(*) FROM partitions");
    beside = analyze_and_export("beside.csv");
  }
  EXPECT_GT(alone.size(), 1000u);
  EXPECT_EQ(alone, beside);
  EXPECT_EQ(journal_mode(run), "wal");
}
