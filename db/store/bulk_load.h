#pragma once
// What every importer does around its bulk load: the load pragmas, the meta
// rows, the absolute source path. Shared by the OTF2 and Projections
// importers so both publish the same kind of file.
#include <cstdint>
#include <functional>
#include <string>

#include "common/phase_timer.h"

#include "store/sqlite.h"

namespace weft::db {

// The database is private to the importer until the rename, so durability
// and journaling buy nothing: a failed import deletes the file anyway.
//
// The page cache is small on purpose: the block inserts touch only the last
// leaf of each (table, bucket) run and the interior pages, and a big cache
// made the import slower (at 4,096 processes 64 MiB cost ~20% more CPU than
// 4-8 MiB: first-touch faults of the cache memory, longer dirty-page lists
// to walk at each spill; README "Limits"). But it must hold those last
// leaves: a process writes one block per bucket of each table, so when the
// leaves of every bucket do not fit, each insert reads back and rewrites a
// page evicted by the previous process (a 64-process trace of 104 buckets
// wrote each page five times and read it four times with 8 MiB).
// bulk_load_cache_mib() sizes the cache for a trace's bucket count; the
// analysis that may follow on this connection gets its bigger cache back
// (kAnalysisCachePragma). `--cache-mib` overrides it.
void apply_bulk_load_pragmas(Database& db, int cache_mib);
constexpr int kBulkLoadBaseCacheMib = 8;
// kBulkLoadBaseCacheMib plus room for the last leaf of every bucket run of
// the event and message block tables (all levels), twice over, at most
// kBulkLoadMaxCacheMib.
constexpr int kBulkLoadMaxCacheMib = 256;
int bulk_load_cache_mib(std::int64_t level0_buckets);
void set_page_cache_mib(Database& db, int cache_mib);
// An importer's `--cache-mib` (0: sized to the trace): the cache to open
// with, and the one to switch to once the bucket shift is chosen.
inline int load_cache_mib(int option) { return option > 0 ? option : kBulkLoadBaseCacheMib; }
void size_load_cache(Database& db, int option, std::int64_t level0_buckets);
constexpr const char* kAnalysisCachePragma = "PRAGMA cache_size=-65536;";

// Opens an importer's private database `temp_path` for the bulk load, named
// `output_path` in messages, with apply_bulk_load_pragmas.
Database open_bulk_load(const std::string& temp_path, const std::string& output_path, int cache_mib);

std::string absolute_path(const std::string& path);

// Ends an import's load: builds the indexes (create_indexes), commits `tx`,
// stamps the schema version, runs the caller's `before_publish` work (the
// analysis) with the analysis cache, and switches to WAL mode for publishing (so `weft analyze` never has to switch
// modes, which needs every reader gone, and readers never block it).
void finish_bulk_load(Database& db, Transaction& tx, const std::function<void(Database&)>& before_publish,
                      PhaseTimer& timer);

class MetaWriter {
 public:
  explicit MetaWriter(Database& db) : insert_(db.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)")) {}
  void put(const char* key, const std::string& value) {
    insert_.bind(1, std::string_view(key));
    insert_.bind(2, std::string_view(value));
    insert_.run();
  }
  void put(const char* key, std::int64_t value) { put(key, std::to_string(value)); }
  void put(const char* key, std::uint64_t value) { put(key, std::to_string(value)); }

 private:
  Statement insert_;
};

}  // namespace weft::db
