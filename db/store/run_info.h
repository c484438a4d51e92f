#pragma once
// A summary of a .weft run for `weft info` and for anyone who wants the meta
// facts without SQL.
#include <cstdint>
#include <map>
#include <string>

namespace weft::db {

struct RunInfo {
  std::string path;
  int schema_version = 0;
  std::map<std::string, std::string> meta;  // every meta row
  std::int64_t processes = 0;
  std::int64_t events = 0;
  std::int64_t records = 0;
  std::int64_t messages = 0;
  std::int64_t unmatched_sends = 0;
  std::int64_t unmatched_recvs = 0;
  std::int64_t collectives = 0;
  std::int64_t trace_end_ns = 0;

  // meta value or `fallback` when absent.
  std::string meta_or(const std::string& key, const std::string& fallback = "") const;
  std::int64_t meta_int(const std::string& key, std::int64_t fallback = 0) const;
};

// Opens the run read-only through open_run (version check) and reads meta.
RunInfo read_run_info(const std::string& path);

// "1.234 s", "12.5 ms", "830 ns": a duration for people.
std::string format_duration_ns(std::int64_t ns);

}  // namespace weft::db
