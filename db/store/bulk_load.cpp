#include "store/bulk_load.h"

#include <cstdlib>

#include "store/schema.h"

namespace weft::db {

void apply_bulk_load_pragmas(Database& db, int cache_mib) {
  const std::string kib = std::to_string(-std::int64_t{1024} * cache_mib);
  db.exec(
      "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
      "PRAGMA cache_size=" + kib + "; PRAGMA temp.cache_size=-65536;");
}

Database open_bulk_load(const std::string& temp_path, const std::string& output_path, int cache_mib) {
  Database db(temp_path, Database::Mode::ReadWrite);
  db.set_display_path(output_path);
  apply_bulk_load_pragmas(db, cache_mib);
  return db;
}

std::string absolute_path(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (!resolved) return path;
  std::string result = resolved;
  free(resolved);
  return result;
}

void finish_bulk_load(Database& db, Transaction& tx, const std::function<void(Database&)>& before_publish,
                      PhaseTimer& timer) {
  tx.commit();
  db.set_user_version(kSchemaVersion);
  timer.mark("commit");
  if (before_publish) {
    db.exec(kAnalysisCachePragma);
    before_publish(db);
    timer.mark("before publish (analysis, summaries)");
  }
  db.exec("PRAGMA journal_mode=WAL");
}

}  // namespace weft::db
