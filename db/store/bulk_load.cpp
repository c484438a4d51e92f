#include "store/bulk_load.h"

#include <cstdlib>

namespace weft::db {

void apply_bulk_load_pragmas(Database& db, int cache_mib) {
  const std::string kib = std::to_string(-std::int64_t{1024} * cache_mib);
  db.exec(
      "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
      "PRAGMA cache_size=" + kib + "; PRAGMA temp.cache_size=-65536;");
}

std::string absolute_path(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (!resolved) return path;
  std::string result = resolved;
  free(resolved);
  return result;
}

}  // namespace weft::db
