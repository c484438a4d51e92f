#include "store/schema.h"

#include <sys/stat.h>

#include "store/meta.h"
#include "store/write_journal.h"

namespace weft::db {

void create_tables(Database& db) {
  db.exec(R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE processes(
  process INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, rank INTEGER,
  location_ref INTEGER NOT NULL, group_name TEXT NOT NULL,
  first_event INTEGER NOT NULL, event_count INTEGER NOT NULL, record_count INTEGER NOT NULL);
CREATE TABLE regions(
  region INTEGER PRIMARY KEY, name TEXT NOT NULL, paradigm TEXT NOT NULL, role TEXT NOT NULL,
  kind INTEGER NOT NULL);
CREATE TABLE communicators(
  comm INTEGER PRIMARY KEY, name TEXT NOT NULL, size INTEGER NOT NULL, parent INTEGER,
  self_like INTEGER NOT NULL);
CREATE TABLE comm_members(
  comm INTEGER NOT NULL, rank INTEGER NOT NULL, process INTEGER NOT NULL,
  PRIMARY KEY(comm, rank)) WITHOUT ROWID;
CREATE TABLE event_blocks(
  bucket INTEGER NOT NULL, process INTEGER NOT NULL, part INTEGER NOT NULL,
  count INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  first_id INTEGER NOT NULL, last_id INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY(bucket, process, part)) WITHOUT ROWID;
CREATE TABLE message_blocks(
  bucket INTEGER NOT NULL, process INTEGER NOT NULL, part INTEGER NOT NULL,
  count INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  first_id INTEGER NOT NULL, last_id INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY(bucket, process, part)) WITHOUT ROWID;
CREATE TABLE collectives(
  id INTEGER PRIMARY KEY, comm INTEGER NOT NULL, region INTEGER NOT NULL, root INTEGER,
  begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, members INTEGER NOT NULL);
CREATE TABLE collective_member_blocks(
  collective INTEGER PRIMARY KEY, count INTEGER NOT NULL, data BLOB NOT NULL);
)sql");
}

void create_projections_tables(Database& db) {
  db.exec(R"sql(
CREATE TABLE chare_types(chare_type INTEGER PRIMARY KEY, name TEXT NOT NULL, dimensions INTEGER NOT NULL);
CREATE TABLE chares(
  chare INTEGER PRIMARY KEY, chare_type INTEGER NOT NULL, array_id INTEGER NOT NULL,
  idx0 INTEGER, idx1 INTEGER, idx2 INTEGER, idx3 INTEGER, name TEXT NOT NULL,
  runtime INTEGER NOT NULL, home_pe INTEGER NOT NULL);
CREATE TABLE executions(
  event INTEGER PRIMARY KEY, chare INTEGER NOT NULL, entry_region INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE virtual_ranks(
  vp INTEGER NOT NULL, pe INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL);
CREATE TABLE migrations(
  vp INTEGER NOT NULL, from_pe INTEGER NOT NULL, to_pe INTEGER NOT NULL, time_ns INTEGER NOT NULL);
)sql");
}

void create_indexes(Database& db) {
  db.exec(R"sql(
CREATE INDEX processes_by_first_event ON processes(first_event);
CREATE INDEX event_blocks_by_process ON event_blocks(process, first_id);
CREATE INDEX message_blocks_by_process ON message_blocks(process, first_id);
)sql");
}

namespace {

// "weft import SOURCE -o RUN --force", with the trace the run was made from
// when its meta table still says (the schema of meta has not changed).
std::string reimport_command(Database& db) {
  std::string source = "TRACE";
  try {
    Statement s = db.prepare("SELECT value FROM meta WHERE key = 'source_path'");
    if (s.step() && !s.column_text(0).empty()) source = s.column_text(0);
  } catch (const Error&) {
  }
  return "weft import " + source + " -o " + db.path() + " --force";
}

}  // namespace

void raise_schema_version(Database& db) {
  // 0: a file being written (an import sets its version once loaded).
  const int version = db.user_version();
  if (version < kOldestReadableSchemaVersion || version >= kSchemaVersion) return;
  db.set_user_version(kSchemaVersion);
  write_meta_ints(db, {{"schema_version", kSchemaVersion}});
}

Database open_run(const std::string& path, Database::Mode mode, Database::Writeback writeback) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw Error(path, "no such file");
  if (!S_ISREG(st.st_mode)) throw Error(path, "not a regular file");
  if (mode == Database::Mode::ReadOnly) recover_hot_journal(path);
  Database db(path, mode, writeback);
  // Reading the version is the first access to the file: a non-SQLite file
  // fails here (Database::fail turns SQLITE_NOTADB into "not a weft database").
  int version = db.user_version();
  bool has_meta = db.query_int(
                      "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name='meta'") > 0;
  if (version == 0 || !has_meta)
    throw Error(path, "not a weft run (an SQLite database without weft's tables)");
  if (version < kOldestReadableSchemaVersion)
    throw Error(path, "schema version " + std::to_string(version) + " is older than this weft reads (" +
                          std::to_string(kOldestReadableSchemaVersion) + " to " + std::to_string(kSchemaVersion) +
                          "); upgrade it by importing the trace again: " + reimport_command(db));
  if (version > kSchemaVersion)
    throw Error(path, "schema version " + std::to_string(version) + " is newer than this weft's (" +
                          std::to_string(kSchemaVersion) + "); open it with a newer weft");
  return db;
}

}  // namespace weft::db
