// Connections opened with Database::Writeback::Early go through the
// writeback VFS (db/store/writeback_vfs.h), which forwards every file
// operation to the default VFS and only starts the kernel's writeback early.
// A WAL-mode write of more than the 8 MiB that triggers it must read back
// the same, to this connection and to a reader on the default VFS, and the
// checkpoint at close must leave one file.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
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

TEST(WritebackVfs, AWalTransactionReadsBackTheSameThroughEitherVfs) {
  weft::test::TempDir dir("writeback");
  const std::string path = (dir.path / "run.sqlite").string();
  {
    Database writer(path, Database::Mode::Create, Database::Writeback::Early);
    writer.exec("PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                "PRAGMA cache_size=-2048;"  // 2 MiB: the transaction spills to the WAL as it goes
                "CREATE TABLE blobs(row INTEGER PRIMARY KEY, data BLOB NOT NULL)");
    writer.exec("BEGIN IMMEDIATE");
    weft::db::Statement insert = writer.prepare("INSERT INTO blobs VALUES (?, ?)");
    for (int row = 0; row < kRows; ++row) {
      const std::vector<std::uint8_t> b = blob_of(row);
      insert.bind(1, row);
      insert.bind_blob_static(2, b.data(), b.size());
      insert.run();
    }
    // A reader on the default VFS sees the old (empty) table meanwhile.
    Database reader(path, Database::Mode::ReadOnly);
    EXPECT_EQ(reader.query_int("SELECT count(*) FROM blobs"), 0);
    writer.exec("COMMIT");
    EXPECT_EQ(reader.query_int("SELECT count(*) FROM blobs"), kRows);
    EXPECT_EQ(matching_rows(reader), kRows);
    EXPECT_EQ(matching_rows(writer), kRows);
    EXPECT_TRUE(fs::exists(path + "-wal"));
  }
  // The last connection's close checkpointed the WAL into the database.
  EXPECT_FALSE(fs::exists(path + "-wal"));
  Database reopened(path, Database::Mode::ReadOnly);
  EXPECT_EQ(matching_rows(reopened), kRows);
  weft::db::Statement check = reopened.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), "ok");
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
