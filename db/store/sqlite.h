#pragma once
// Thin RAII wrappers over the SQLite C API. Every failure becomes weft::Error
// naming the database file. Statements are prepared once and reused: hot loops
// call bind/step/reset, never prepare.
#include <sqlite3.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/error.h"

namespace weft::db {

class Statement;

class Database {
 public:
  enum class Mode { ReadOnly, ReadWrite, Create };
  // When written pages go to the disk. OnSync: when the kernel flushes them
  // or SQLite syncs. Early: synced in the background every 8 MiB written
  // (store/writeback_vfs.h), for connections whose commits or checkpoints
  // sync (synchronous=NORMAL or FULL), so that a sync waits for the last
  // few MiB only.
  enum class Writeback { OnSync, Early };
  Database(const std::string& path, Mode mode, Writeback writeback = Writeback::OnSync);
  ~Database();
  // The name errors give the file: by default the path it was opened with; the
  // importer names the output it is building, not the temporary file that
  // will have disappeared by the time the user reads the message.
  void set_display_path(const std::string& name) { path_ = name; }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;

  // Runs one or more statements that return no rows.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  // Convenience for "SELECT <one integer>": returns fallback when there is no row.
  std::int64_t query_int(std::string_view sql, std::int64_t fallback = 0);

  // Drops the clean pages of this connection's page cache into the heap, for
  // a pass that has read what it needs and goes on to allocate its own arrays
  // (the structure analysis after loading): they reuse those pages, already
  // resident, where pages handed back to the kernel would be faulted in and
  // zeroed again (app/malloc_tuning.h).
  void release_cache_memory();
  // Starts the background sync of the pages written to the database file
  // since the last one (Writeback::Early; nothing otherwise), for a writer
  // whose commit comes soon and then waits for less. SQLite's cache may
  // still hold dirty pages: the commit writes and syncs those.
  void sync_written_pages_soon();

  int user_version();
  void set_user_version(int version);

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(const Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;

  // Parameters are 1-based as in SQLite.
  void bind(int index, std::int64_t value);
  void bind(int index, int value) { bind(index, static_cast<std::int64_t>(value)); }
  void bind(int index, double value);
  void bind(int index, std::string_view value);
  void bind_null(int index);
  // The bytes must stay valid until the statement is stepped and reset.
  void bind_blob_static(int index, const void* data, std::size_t size);

  // Returns true when a row is available, false when done.
  bool step();
  // Steps a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  std::int64_t column_int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double column_double(int col) const { return sqlite3_column_double(stmt_, col); }
  bool column_is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string column_text(int col) const;
  int column_count() const { return sqlite3_column_count(stmt_); }
  // Valid until the next step/reset.
  std::span<const std::uint8_t> column_blob(int col) const {
    const void* data = sqlite3_column_blob(stmt_, col);
    int size = sqlite3_column_bytes(stmt_, col);
    return {static_cast<const std::uint8_t*>(data), data ? static_cast<std::size_t>(size) : 0};
  }

 private:
  const Database* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// RAII transaction: commits on commit(), rolls back if destroyed without it.
class Transaction {
 public:
  explicit Transaction(Database& db, const char* begin = "BEGIN");
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool open_ = true;
};

}  // namespace weft::db
