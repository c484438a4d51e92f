#include "store/run_info.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "store/schema.h"

namespace weft::db {

std::string RunInfo::meta_or(const std::string& key, const std::string& fallback) const {
  auto it = meta.find(key);
  return it == meta.end() ? fallback : it->second;
}

std::int64_t RunInfo::meta_int(const std::string& key, std::int64_t fallback) const {
  auto it = meta.find(key);
  if (it == meta.end() || it->second.empty()) return fallback;
  return std::strtoll(it->second.c_str(), nullptr, 10);
}

RunInfo read_run_info(const std::string& path) {
  Database db = open_run(path);
  RunInfo info;
  info.path = path;
  info.schema_version = db.user_version();
  Statement rows = db.prepare("SELECT key, value FROM meta");
  while (rows.step()) info.meta[rows.column_text(0)] = rows.column_text(1);
  info.processes = info.meta_int("count_processes");
  info.events = info.meta_int("count_events");
  info.records = info.meta_int("count_records");
  info.messages = info.meta_int("count_messages");
  info.unmatched_sends = info.meta_int("count_unmatched_sends");
  info.unmatched_recvs = info.meta_int("count_unmatched_recvs");
  info.collectives = info.meta_int("count_collectives");
  info.trace_end_ns = info.meta_int("trace_end_ns");
  return info;
}

std::string format_duration_ns(std::int64_t ns) {
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{3600e9, "h"}, {60e9, "min"}, {1e9, "s"},
                                    {1e6, "ms"},   {1e3, "us"}};
  double value = static_cast<double>(ns);
  char text[64];
  for (const Unit& u : kUnits) {
    if (std::llabs(ns) >= static_cast<long long>(u.scale)) {
      std::snprintf(text, sizeof text, "%.3g %s", value / u.scale, u.name);
      return text;
    }
  }
  std::snprintf(text, sizeof text, "%" PRId64 " ns", ns);
  return text;
}

}  // namespace weft::db
