#pragma once
// The journal of a long write transaction on a published run (`weft
// analyze`): SQLite's rollback journal while this is the file's only
// connection, its WAL otherwise.
//
// Why: in WAL mode every page of the transaction is written twice (to the
// WAL, then by the checkpoint into the database) and synced twice, and a page
// spilled to the WAL and changed again makes the commit re-read the WAL to
// redo its checksums. The analysis writes ~70 MB of new pages at 16,384
// processes, so that was 0.17-0.2 s of a 1.3 s analysis; with the rollback
// journal the new pages go to the database once (pages that held data before
// the transaction are copied to the journal first), and the commit syncs the
// journal and the database: 0.05 s. Either way the commit is atomic and a
// killed writer leaves the previous analysis (a hot journal is rolled back by
// the next connection, see open_run).
//
// A file open elsewhere (a viewer, `weft export`) keeps WAL: SQLite cannot
// leave WAL mode then, and its readers keep reading the old analysis while
// the new one is written. With the rollback journal, a connection that opens
// the file during the write waits for the commit (busy timeout). The
// published file's mode, WAL, is restored when the transaction is done.
//
// The rollback journal is SQLite's TRUNCATE mode: a commit empties the
// journal instead of deleting it (as atomic; a journal of zero bytes is never
// hot). The switch, the analysis and the switch back are three transactions,
// and each unlink took ~0.3 ms here; the switch back to WAL deletes the file.
#include "store/sqlite.h"

namespace weft::db {

class WriteJournal {
 public:
  // Switches `db` (opened read-write, no transaction open) to the rollback
  // journal when no other connection has the file open.
  explicit WriteJournal(Database& db);
  // Back to WAL; best effort (a reader that opened the file meanwhile keeps
  // it in rollback mode until the next writer switches it).
  ~WriteJournal();
  WriteJournal(const WriteJournal&) = delete;
  WriteJournal& operator=(const WriteJournal&) = delete;

  bool uses_rollback_journal() const { return rollback_; }

 private:
  Database& db_;
  bool rollback_ = false;
};

// Rolls back a hot journal that a killed writer left beside `path` (SQLite
// does it on the next read-write access; a read-only connection would fail
// with SQLITE_READONLY_ROLLBACK instead). No-op without a journal file, and
// when the file cannot be opened for writing (the read-only open that
// follows reports the problem).
void recover_hot_journal(const std::string& path);

}  // namespace weft::db
