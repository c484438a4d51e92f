#include "app/resource_options.h"

#include <algorithm>
#include <thread>

namespace weft::app {

void add_cache_option(CLI::App* cmd, ResourceOptions& options) {
  cmd->add_option("--cache-mib", options.cache_mib, "SQLite page cache, MiB")
      ->check(CLI::Range(1, kMaxCacheMib))
      ->capture_default_str();
}

void add_load_cache_option(CLI::App* cmd, ResourceOptions& options) {
  options.cache_mib = 0;
  cmd->add_option("--cache-mib", options.cache_mib,
                  "SQLite page cache while loading, MiB (0: sized to the trace's time buckets)")
      ->check(CLI::Range(0, kMaxCacheMib))
      ->capture_default_str();
}

void add_threads_option(CLI::App* cmd, ResourceOptions& options, int max_threads) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.threads = std::clamp(cores, 1, max_threads);
  cmd->add_option("--threads", options.threads, "worker threads (1.." + std::to_string(max_threads) + ")")
      ->check(CLI::Range(1, max_threads))
      ->capture_default_str();
}

void apply_cache_size(db::Database& db, const ResourceOptions& options) {
  db.exec("PRAGMA cache_size=" + std::to_string(-std::int64_t{1024} * std::clamp(options.cache_mib, 1, kMaxCacheMib)));
}

}  // namespace weft::app
