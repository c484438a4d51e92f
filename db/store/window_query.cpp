#include "store/window_query.h"

#include <algorithm>
#include <filesystem>

#include "store/event_buckets.h"

namespace weft::db {

namespace {

constexpr int kSchemaVersion = 1;

// References above this are looked up by binary search instead of a dense table
// (a region table with huge sparse references would otherwise waste memory).
constexpr std::int64_t kMaxDenseRegionId = 1 << 20;

Database open_weft_database(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path, "no such file");
  Database db(path, Database::Mode::ReadOnly);
  int version = db.user_version();
  if (version != kSchemaVersion)
    throw Error(path, "not a weft database (schema version " + std::to_string(version) +
                          ", expected " + std::to_string(kSchemaVersion) + ")");
  return db;
}

// The schema's overlap rule, one level per execution; ?1/?2 bucket range,
// ?3 t0, ?4 t1, ?5 p0, ?6 p1.
constexpr const char* kEventsSql =
    "SELECT id, process, start_ns, end_ns, region, depth FROM events"
    " WHERE bucket BETWEEN ?1 AND ?2 AND end_ns >= ?3 AND start_ns <= ?4"
    " AND process BETWEEN ?5 AND ?6";

// Uses messages_by_send: a message crossing [t0, t1] was sent at most
// max_message_ns before t0. Only messages with both ends known can be drawn:
// a side whose rank could not be translated has a NULL process.
constexpr const char* kMessagesSql =
    "SELECT id, src, dst, send_ns, recv_ns FROM messages"
    " WHERE send_ns BETWEEN ?1 AND ?2 AND recv_ns >= ?3"
    " AND src IS NOT NULL AND dst IS NOT NULL"
    " AND ((src BETWEEN ?4 AND ?5) OR (dst BETWEEN ?4 AND ?5))";

}  // namespace

std::int32_t RegionTable::index_of(std::int64_t region_id) const {
  if (region_id >= 0 && region_id < static_cast<std::int64_t>(index_by_id.size()))
    return index_by_id[static_cast<std::size_t>(region_id)];
  auto it = std::lower_bound(id.begin(), id.end(), region_id);
  if (it == id.end() || *it != region_id) return -1;
  return static_cast<std::int32_t>(it - id.begin());
}

void WindowEvents::clear() {
  id.clear();
  process.clear();
  start_ns.clear();
  end_ns.clear();
  region.clear();
  depth.clear();
}

void WindowMessages::clear() {
  id.clear();
  src.clear();
  dst.clear();
  send_ns.clear();
  recv_ns.clear();
}

WindowQuery::WindowQuery(const std::string& path)
    : db_(open_weft_database(path)),
      events_stmt_(db_, kEventsSql),
      messages_stmt_(db_, kMessagesSql) {
  load_meta();
  load_processes();
  load_regions();
}

std::string WindowQuery::meta_value(const std::string& key) {
  Statement s(db_, "SELECT value FROM meta WHERE key = ?1");
  s.bind(1, key);
  return s.step() ? s.column_text(0) : std::string();
}

void WindowQuery::load_meta() {
  auto int_value = [this](const char* key) -> std::int64_t {
    std::string v = meta_value(key);
    if (v.empty()) throw Error(db_.path(), std::string("meta key '") + key + "' is missing");
    try {
      return std::stoll(v);
    } catch (const std::exception&) {
      throw Error(db_.path(), std::string("meta key '") + key + "' is not an integer: " + v);
    }
  };
  meta_.trace_end_ns = int_value("trace_end_ns");
  meta_.bucket_shift = static_cast<int>(int_value("bucket_shift"));
  meta_.max_level = static_cast<int>(int_value("max_level"));
  meta_.max_message_ns = int_value("max_message_ns");
  meta_.count_events = int_value("count_events");
  meta_.count_messages = int_value("count_messages");
  if (meta_.bucket_shift < 0 || meta_.bucket_shift > 40 || meta_.max_level < 0 ||
      meta_.max_level > kMaxBucketLevel)
    throw Error(db_.path(), "meta bucket_shift/max_level out of range");
}

void WindowQuery::load_processes() {
  Statement s(db_, "SELECT process, name, kind FROM processes ORDER BY process");
  while (s.step()) {
    if (s.column_int(0) != static_cast<std::int64_t>(processes_.size()))
      throw Error(db_.path(), "processes are not dense from 0");
    processes_.name.push_back(s.column_text(1));
    processes_.kind.push_back(s.column_text(2));
  }
}

void WindowQuery::load_regions() {
  Statement s(db_, "SELECT region, name, paradigm, kind FROM regions ORDER BY region");
  while (s.step()) {
    regions_.id.push_back(s.column_int(0));
    regions_.name.push_back(s.column_text(1));
    regions_.paradigm.push_back(s.column_text(2));
    std::int64_t kind = s.column_int(3);
    bool known = kind >= 0 && kind <= static_cast<std::int64_t>(RegionKind::OtherParadigm);
    regions_.kind.push_back(known ? static_cast<RegionKind>(kind) : RegionKind::Compute);
  }
  std::int64_t max_id = regions_.id.empty() ? -1 : regions_.id.back();
  if (max_id < kMaxDenseRegionId && (regions_.id.empty() || regions_.id.front() >= 0)) {
    regions_.index_by_id.assign(static_cast<std::size_t>(max_id + 1), -1);
    for (std::size_t i = 0; i < regions_.id.size(); ++i)
      regions_.index_by_id[static_cast<std::size_t>(regions_.id[i])] =
          static_cast<std::int32_t>(i);
  }
}

void WindowQuery::read_events(const Window& window, WindowEvents& out) {
  out.clear();
  if (window.t1 < window.t0 || window.p1 < window.p0) return;
  for (int level = 0; level <= meta_.max_level; ++level) {
    BucketRange range = bucket_range(level, window.t0, window.t1, meta_.bucket_shift);
    events_stmt_.bind(1, range.first);
    events_stmt_.bind(2, range.last);
    events_stmt_.bind(3, window.t0);
    events_stmt_.bind(4, window.t1);
    events_stmt_.bind(5, static_cast<std::int64_t>(window.p0));
    events_stmt_.bind(6, static_cast<std::int64_t>(window.p1));
    while (events_stmt_.step()) {
      out.id.push_back(events_stmt_.column_int(0));
      out.process.push_back(static_cast<ProcessIndex>(events_stmt_.column_int(1)));
      out.start_ns.push_back(events_stmt_.column_int(2));
      out.end_ns.push_back(events_stmt_.column_int(3));
      out.region.push_back(regions_.index_of(events_stmt_.column_int(4)));
      out.depth.push_back(static_cast<std::int32_t>(events_stmt_.column_int(5)));
    }
    events_stmt_.reset();
  }
}

void WindowQuery::read_messages(const Window& window, WindowMessages& out) {
  out.clear();
  if (window.t1 < window.t0 || window.p1 < window.p0) return;
  messages_stmt_.bind(1, window.t0 - meta_.max_message_ns);
  messages_stmt_.bind(2, window.t1);
  messages_stmt_.bind(3, window.t0);
  messages_stmt_.bind(4, static_cast<std::int64_t>(window.p0));
  messages_stmt_.bind(5, static_cast<std::int64_t>(window.p1));
  while (messages_stmt_.step()) {
    out.id.push_back(messages_stmt_.column_int(0));
    out.src.push_back(static_cast<ProcessIndex>(messages_stmt_.column_int(1)));
    out.dst.push_back(static_cast<ProcessIndex>(messages_stmt_.column_int(2)));
    out.send_ns.push_back(messages_stmt_.column_int(3));
    out.recv_ns.push_back(messages_stmt_.column_int(4));
  }
  messages_stmt_.reset();
}

}  // namespace weft::db
