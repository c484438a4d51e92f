#include "store/bulk_load.h"

#include <algorithm>
#include <cstdlib>

#include "store/schema.h"

namespace weft::db {

void apply_bulk_load_pragmas(Database& db, int cache_mib) {
  db.exec("PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
          "PRAGMA temp.cache_size=-65536;");
  set_page_cache_mib(db, cache_mib);
}

int bulk_load_cache_mib(std::int64_t level0_buckets) {
  constexpr std::int64_t kPageBytes = 16384;  // apply_bulk_load_pragmas
  constexpr std::int64_t kTables = 2;         // event_blocks, message_blocks
  // Level l has a quarter of level l-1's buckets (event_buckets.h): 4/3 of
  // level 0's in all.
  const std::int64_t runs = std::max<std::int64_t>(level0_buckets, 1) * 4 / 3 + 1;
  const std::int64_t hot_mib = (kTables * runs * kPageBytes * 2 + (1 << 20) - 1) >> 20;
  return static_cast<int>(std::min<std::int64_t>(kBulkLoadBaseCacheMib + hot_mib, kBulkLoadMaxCacheMib));
}

void size_load_cache(Database& db, int option, std::int64_t level0_buckets) {
  if (option <= 0) set_page_cache_mib(db, bulk_load_cache_mib(level0_buckets));
}

void set_page_cache_mib(Database& db, int cache_mib) {
  db.exec("PRAGMA cache_size=" + std::to_string(-std::int64_t{1024} * cache_mib));
}

Database open_bulk_load(const std::string& temp_path, const std::string& output_path, int cache_mib) {
  // synchronous=OFF: SQLite never syncs this file; AtomicOutput::commit does,
  // once, and with early writeback it waits for the last few MiB only (0.3 s
  // -> 3 ms at 16,384 processes).
  Database db(temp_path, Database::Mode::ReadWrite, Database::Writeback::Early);
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
  // After the rows, not before: one sorted build instead of an insert into
  // each index per block row.
  create_indexes(db);
  timer.mark("indexes");
  tx.commit();
  db.set_user_version(kSchemaVersion);
  timer.mark("commit");
  if (before_publish) {
    // The analysis reads the messages on a second connection while this one
    // reads the events (structure/comm_trace_loader.cpp): the file stops
    // being locked to this connection after its next access.
    db.exec("PRAGMA locking_mode=NORMAL");
    db.exec(kAnalysisCachePragma);
    before_publish(db);
    timer.mark("before publish (analysis, summaries)");
  }
  db.exec("PRAGMA journal_mode=WAL");
}

}  // namespace weft::db
