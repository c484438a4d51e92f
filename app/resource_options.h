#pragma once
// Resource options shared by the commands that open a run or write one:
//   --cache-mib N   SQLite page cache per open database, MiB (default 64)
//   --threads N     worker threads (import: 1 or 2, default 2 when the machine
//                   has two cores or more)
#include <CLI/CLI.hpp>

#include <string>

#include "store/sqlite.h"

namespace weft::app {

struct ResourceOptions {
  int cache_mib = 64;
  int threads = 2;
};

constexpr int kMaxCacheMib = 65536;

void add_cache_option(CLI::App* cmd, ResourceOptions& options);
// The importers' --cache-mib: 0 (the default) sizes the load's cache to the
// trace (db::bulk_load_cache_mib).
void add_load_cache_option(CLI::App* cmd, ResourceOptions& options);
void add_threads_option(CLI::App* cmd, ResourceOptions& options, int max_threads);

// PRAGMA cache_size for `db` (a bound integer, never text from the user).
void apply_cache_size(db::Database& db, const ResourceOptions& options);

}  // namespace weft::app
