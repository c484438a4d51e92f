#include "store/window_query.h"

#include <algorithm>

#include "store/block_codec.h"
#include "store/event_buckets.h"
#include "store/schema.h"

namespace weft::db {

namespace {

// References above this are looked up by binary search instead of a dense table
// (a region table with huge sparse references would otherwise waste memory).
constexpr std::int64_t kMaxDenseRegionId = 1 << 20;

// Read-only, with open_run's checks (regular file, SQLite, weft tables,
// schema version): the viewer and render never write to a run.
Database open_weft_database(const std::string& path) { return open_run(path, Database::Mode::ReadOnly); }

// The blocks of one level that can hold events overlapping the window: the
// bucket range of the schema's overlap rule, narrowed by each block's span.
// ?1/?2 bucket range, ?3 t0, ?4 t1, ?5 p0, ?6 p1.
constexpr const char* kEventsSql =
    "SELECT process, data FROM event_blocks"
    " WHERE bucket BETWEEN ?1 AND ?2 AND end_ns >= ?3 AND start_ns <= ?4"
    " AND process BETWEEN ?5 AND ?6";

// A message crossing [t0, t1] was sent (its block's time) at most
// max_message_ns before t0: one bucket range over every sender. ?1/?2 bucket
// range, ?3 t0, ?4 t1.
constexpr const char* kMessagesSql =
    "SELECT process, data FROM message_blocks"
    " WHERE bucket BETWEEN ?1 AND ?2 AND end_ns >= ?3 AND start_ns <= ?4";

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
  if (meta_.trace_end_ns < 0 || meta_.max_message_ns < 0 || meta_.count_events < 0 ||
      meta_.count_messages < 0)
    throw Error(db_.path(), "meta trace_end_ns/max_message_ns/counts are negative");
}

void WindowQuery::load_processes() {
  Statement s(db_, "SELECT process, name, kind FROM processes ORDER BY process");
  while (s.step()) {
    if (s.column_int(0) != static_cast<std::int64_t>(processes_.size()))
      throw Error(db_.path(), "processes are not dense from 0");
    processes_.name.push_back(s.column_text(1));
    processes_.kind.push_back(s.column_text(2));
  }
  // An import always writes at least one (an archive without locations is refused).
  if (processes_.name.empty()) throw Error(db_.path(), "the processes table is empty");
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
      event_scratch_.clear();
      decode_event_block(events_stmt_.column_blob(1),
                         static_cast<ProcessIndex>(events_stmt_.column_int(0)), event_scratch_,
                         db_.path());
      for (const EventRecord& e : event_scratch_) {
        if (e.end_ns < window.t0 || e.start_ns > window.t1) continue;
        out.id.push_back(e.id);
        out.process.push_back(e.process);
        out.start_ns.push_back(e.start_ns);
        out.end_ns.push_back(e.end_ns);
        out.region.push_back(regions_.index_of(e.region));
        out.depth.push_back(e.depth);
      }
    }
    events_stmt_.reset();
  }
}

void WindowQuery::read_messages(const Window& window, WindowMessages& out) {
  out.clear();
  if (window.t1 < window.t0 || window.p1 < window.p0) return;
  const int shift = meta_.bucket_shift;
  messages_stmt_.bind(1, std::max<TimeNs>(window.t0 - meta_.max_message_ns, 0) >> shift);
  messages_stmt_.bind(2, std::max<TimeNs>(window.t1, 0) >> shift);
  messages_stmt_.bind(3, window.t0);
  messages_stmt_.bind(4, window.t1);
  auto in_range = [&window](std::int64_t p) { return p >= window.p0 && p <= window.p1; };
  while (messages_stmt_.step()) {
    message_scratch_.clear();
    decode_message_block(messages_stmt_.column_blob(1), messages_stmt_.column_int(0),
                         message_scratch_, db_.path());
    for (const MessageRecord& m : message_scratch_) {
      // Only messages with both ends known can be drawn.
      if (!m.has_send_ns || !m.has_recv_ns || m.src == kNullRef || m.dst == kNullRef) continue;
      if (m.send_ns > window.t1 || m.recv_ns < window.t0) continue;
      if (!in_range(m.src) && !in_range(m.dst)) continue;
      out.id.push_back(m.id);
      out.src.push_back(static_cast<ProcessIndex>(m.src));
      out.dst.push_back(static_cast<ProcessIndex>(m.dst));
      out.send_ns.push_back(m.send_ns);
      out.recv_ns.push_back(m.recv_ns);
    }
  }
  messages_stmt_.reset();
}

}  // namespace weft::db
