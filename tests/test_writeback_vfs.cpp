// Connections opened with Database::Writeback::Early go through the
// writeback VFS (db/store/writeback_vfs.h), which forwards every file
// operation to the default VFS and only syncs the file in the background
// every 8 MiB written. A write of more than that, in WAL mode or with the
// rollback journal (`weft analyze`), must be synced in the background and
// read back the same, to this connection and to a reader on the default
// VFS, and leave one file.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "import_test_support.h"
#include "store/sqlite.h"
#include "store/writeback_vfs.h"

using weft::db::Database;
namespace fs = std::filesystem;

namespace {

constexpr int kRows = 96;
constexpr int kBlobBytes = 256 * 1024;  // 24 MiB in all: three writebacks

std::vector<std::uint8_t> blob_of(int row) {
  std::vector<std::uint8_t> b(kBlobBytes);
  std::uint32_t x = 2654435761u * static_cast<std::uint32_t>(row + 1);
  for (auto& byte : b) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    byte = static_cast<std::uint8_t>(x);
  }
  return b;
}

// How many rows of `db` hold exactly blob_of(row).
int matching_rows(Database& db) {
  weft::db::Statement read = db.prepare("SELECT row, data FROM blobs ORDER BY row");
  int matching = 0;
  while (read.step()) {
    const std::vector<std::uint8_t> want = blob_of(static_cast<int>(read.column_int(0)));
    const auto got = read.column_blob(1);
    if (got.size() == want.size() && std::equal(got.begin(), got.end(), want.begin())) ++matching;
  }
  return matching;
}

}  // namespace

TEST(WritebackVfs, IsRegistered) {
  ASSERT_NE(weft::db::writeback_vfs_name(), nullptr);
  EXPECT_NE(sqlite3_vfs_find(weft::db::writeback_vfs_name()), nullptr);
}

// The rows of blob_of, written in one transaction through a 2 MiB cache,
// so that it spills to the file as it goes.
void write_blobs(Database& writer) {
  writer.exec("BEGIN IMMEDIATE");
  weft::db::Statement insert = writer.prepare("INSERT INTO blobs VALUES (?, ?)");
  for (int row = 0; row < kRows; ++row) {
    const std::vector<std::uint8_t> b = blob_of(row);
    insert.bind(1, row);
    insert.bind_blob_static(2, b.data(), b.size());
    insert.run();
  }
}

void expect_intact(const std::string& path) {
  Database reopened(path, Database::Mode::ReadOnly);
  EXPECT_EQ(matching_rows(reopened), kRows);
  weft::db::Statement check = reopened.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
}

TEST(WritebackVfs, AWalTransactionReadsBackTheSameThroughEitherVfs) {
  weft::test::TempDir dir("writeback");
  const std::string path = (dir.path / "run.sqlite").string();
  const std::int64_t syncs_before = weft::db::writeback_vfs_background_syncs();
  {
    Database writer(path, Database::Mode::Create, Database::Writeback::Early);
    writer.exec("PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                "PRAGMA cache_size=-2048;"  // 2 MiB: the transaction spills to the WAL as it goes
                "CREATE TABLE blobs(row INTEGER PRIMARY KEY, data BLOB NOT NULL)");
    write_blobs(writer);
    // A reader on the default VFS sees the old (empty) table meanwhile.
    Database reader(path, Database::Mode::ReadOnly);
    EXPECT_EQ(reader.query_int("SELECT count(*) FROM blobs"), 0);
    writer.exec("COMMIT");
    EXPECT_EQ(reader.query_int("SELECT count(*) FROM blobs"), kRows);
    EXPECT_EQ(matching_rows(reader), kRows);
    EXPECT_EQ(matching_rows(writer), kRows);
    EXPECT_TRUE(fs::exists(path + "-wal"));
  }
  // 24 MiB went to the WAL, then to the database at the checkpoint: each
  // file was synced in the background, the last sync waited for at close.
  EXPECT_GE(weft::db::writeback_vfs_background_syncs() - syncs_before, 2);
  // The last connection's close checkpointed the WAL into the database.
  EXPECT_FALSE(fs::exists(path + "-wal"));
  expect_intact(path);
}

TEST(WritebackVfs, ARollbackJournalTransactionIsSyncedAsItSpillsAndCommitsWhole) {
  weft::test::TempDir dir("writeback");
  const std::string path = (dir.path / "run.sqlite").string();
  {
    Database writer(path, Database::Mode::Create, Database::Writeback::Early);
    writer.exec("PRAGMA page_size=16384; PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL;"
                "PRAGMA cache_size=-2048;"
                "CREATE TABLE blobs(row INTEGER PRIMARY KEY, data BLOB NOT NULL)");
    const std::int64_t syncs_before = weft::db::writeback_vfs_background_syncs();
    write_blobs(writer);
    // The spills synced the database file while the transaction was open.
    for (int wait = 0; wait < 1000 && weft::db::writeback_vfs_background_syncs() == syncs_before; ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_GT(weft::db::writeback_vfs_background_syncs(), syncs_before);
    // Synced pages are not committed ones: a reader still sees no rows.
    Database reader(path, Database::Mode::ReadOnly);
    reader.exec("PRAGMA busy_timeout=0");
    EXPECT_THROW(reader.query_int("SELECT count(*) FROM blobs"), weft::Error);  // the writer's lock
    writer.exec("COMMIT");
    EXPECT_EQ(matching_rows(writer), kRows);
    EXPECT_FALSE(fs::exists(path + "-journal"));
  }
  expect_intact(path);
}

// The background syncs counted so far, once any under way have ended (they
// count when done): waits up to 10 s for `at_least`.
std::int64_t background_syncs_reaching(std::int64_t at_least) {
  for (int wait = 0; wait < 1000 && weft::db::writeback_vfs_background_syncs() < at_least; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return weft::db::writeback_vfs_background_syncs();
}

// `weft analyze` asks for the sync of its bulk once written
// (Database::sync_written_pages_soon): under 8 MiB, where none starts by
// itself, the request starts one; asked again with nothing written since,
// it starts none; a connection without early writeback ignores it.
TEST(WritebackVfs, ARequestedSyncStartsBeforeEightMiBAndOnlyForNewPages) {
  weft::test::TempDir dir("writeback");
  const std::string path = (dir.path / "run.sqlite").string();
  {
    Database writer(path, Database::Mode::Create, Database::Writeback::Early);
    writer.exec("PRAGMA page_size=16384; PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL;"
                "PRAGMA cache_size=-256;"  // 256 KiB: the rows spill to the file as they come
                "CREATE TABLE blobs(row INTEGER PRIMARY KEY, data BLOB NOT NULL)");
    writer.exec("BEGIN IMMEDIATE");
    weft::db::Statement insert = writer.prepare("INSERT INTO blobs VALUES (?, ?)");
    for (int row = 0; row < 8; ++row) {  // 2 MiB
      const std::vector<std::uint8_t> b = blob_of(row);
      insert.bind(1, row);
      insert.bind_blob_static(2, b.data(), b.size());
      insert.run();
    }
    const std::int64_t before = weft::db::writeback_vfs_background_syncs();
    writer.sync_written_pages_soon();
    const std::int64_t after = background_syncs_reaching(before + 1);
    EXPECT_EQ(after, before + 1);
    writer.sync_written_pages_soon();  // nothing written since
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(weft::db::writeback_vfs_background_syncs(), after);
    writer.exec("COMMIT");
    EXPECT_EQ(writer.query_int("SELECT count(*) FROM blobs"), 8);
  }
  const std::int64_t before = weft::db::writeback_vfs_background_syncs();
  {
    Database plain(path, Database::Mode::ReadWrite);
    plain.exec("INSERT INTO blobs(row, data) VALUES (8, x'00')");
    plain.sync_written_pages_soon();  // the default VFS: a no-op, no error
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(weft::db::writeback_vfs_background_syncs(), before);
  Database reopened(path, Database::Mode::ReadOnly);
  EXPECT_EQ(reopened.query_int("SELECT count(*) FROM blobs"), 9);
}

TEST(WritebackVfs, AFileThatCannotBeOpenedIsAnErrorNamingIt) {
  weft::test::TempDir dir("writeback");
  const std::string path = (dir.path / "missing" / "run.sqlite").string();
  try {
    Database db(path, Database::Mode::Create, Database::Writeback::Early);
    db.exec("CREATE TABLE t(x)");
    FAIL() << "opened a file in a missing directory";
  } catch (const weft::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}
