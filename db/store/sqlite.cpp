#include "store/sqlite.h"


#include <utility>

#include "store/block_views.h"
#include "store/writeback_vfs.h"

namespace weft::db {

Database::Database(const std::string& path, Mode mode, Writeback writeback) : path_(path) {
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case Mode::ReadOnly: flags |= SQLITE_OPEN_READONLY; break;
    case Mode::ReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case Mode::Create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  const char* vfs = writeback == Writeback::Early && mode != Mode::ReadOnly ? writeback_vfs_name() : nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, vfs);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(path, "cannot open database: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  // The SQL views `events` and `messages` over the packed blocks.
  if (register_block_views(db_) != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db_);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(path, "cannot register the block views: " + msg);
  }
  // Readers may meet a writer (weft analyze) holding a lock briefly.
  sqlite3_busy_timeout(db_, 5000);
}

Database::~Database() { sqlite3_close_v2(db_); }

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

void Database::fail(const std::string& what) const {
  int code = sqlite3_extended_errcode(db_);
  std::string msg = sqlite3_errmsg(db_);
  if ((code & 0xff) == SQLITE_FULL) msg = "disk full (" + msg + ")";
  if ((code & 0xff) == SQLITE_NOTADB) msg = "not a weft database (" + msg + ")";
  if ((code & 0xff) == SQLITE_CORRUPT) msg = "database is corrupt (" + msg + ")";
  throw Error(path_, what + ": " + msg);
}

void Database::exec(std::string_view sql) {
  std::string owned(sql);
  char* err = nullptr;
  if (sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    fail("SQL failed");
  }
}

Statement Database::prepare(std::string_view sql) { return Statement(*this, sql); }

std::int64_t Database::query_int(std::string_view sql, std::int64_t fallback) {
  Statement s(*this, sql);
  if (!s.step() || s.column_is_null(0)) return fallback;
  return s.column_int(0);
}

void Database::release_cache_memory() {
  sqlite3_db_release_memory(db_);
}

void Database::sync_written_pages_soon() {
  // A hint: any other answer (another VFS: SQLITE_NOTFOUND) changes nothing.
  sqlite3_file_control(db_, "main", kSyncWrittenSoonFileControl, nullptr);
}

int Database::user_version() { return static_cast<int>(query_int("PRAGMA user_version")); }

void Database::set_user_version(int version) {
  exec("PRAGMA user_version = " + std::to_string(version));
}

Statement::Statement(const Database& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()),
                         SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare statement");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

void Statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->fail("bind failed");
}
void Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_->fail("bind failed");
}
void Statement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    db_->fail("bind failed");
}
void Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_->fail("bind failed");
}

void Statement::bind_blob_static(int index, const void* data, std::size_t size) {
  if (sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_STATIC) != SQLITE_OK)
    db_->fail("bind failed");
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("query failed");
}

void Statement::run() {
  int rc = sqlite3_step(stmt_);
  sqlite3_reset(stmt_);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) db_->fail("statement failed");
}

void Statement::reset() { sqlite3_reset(stmt_); }

std::string Statement::column_text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
              : std::string();
}

Transaction::Transaction(Database& db, const char* begin) : db_(db) { db_.exec(begin); }

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace weft::db
