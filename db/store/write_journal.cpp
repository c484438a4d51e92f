#include "store/write_journal.h"

#include <unistd.h>

#include <string>

namespace weft::db {
namespace {

// The journal mode after `PRAGMA journal_mode=<mode>` (SQLite answers with
// the mode it is in; leaving WAL fails while other connections are open).
std::string set_journal_mode(Database& db, const char* mode) {
  try {
    Statement s = db.prepare(std::string("PRAGMA journal_mode=") + mode);
    return s.step() ? s.column_text(0) : std::string();
  } catch (const Error&) {
    return std::string();  // busy: left as it was
  }
}

}  // namespace

WriteJournal::WriteJournal(Database& db) : db_(db) {
  rollback_ = set_journal_mode(db_, "TRUNCATE") == "truncate";
  if (!rollback_) set_journal_mode(db_, "WAL");
}

WriteJournal::~WriteJournal() {
  if (rollback_) set_journal_mode(db_, "WAL");
}

void recover_hot_journal(const std::string& path) {
  const std::string journal = path + "-journal";
  if (access(journal.c_str(), F_OK) != 0 || access(path.c_str(), W_OK) != 0) return;
  try {
    Database db(path, Database::Mode::ReadWrite);
    db.query_int("SELECT count(*) FROM sqlite_schema");  // rolls a hot journal back
  } catch (const Error&) {
    // The read-only open that follows reports what is wrong with the file.
  }
}

}  // namespace weft::db
