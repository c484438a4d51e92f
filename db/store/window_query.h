#pragma once
// Reads what a view shows: the events and messages of a time × process window,
// plus the small tables every view needs (processes, regions, meta).
//
// One WindowQuery owns one read-only SQLite connection and its prepared
// statements, so it belongs to one thread at a time (the viewer gives its
// background loader its own WindowQuery). Results go into caller-owned
// structure-of-arrays buffers that are cleared, not freed, between queries, so a
// viewer that re-queries every few frames does no per-event allocation.
#include <cstdint>
#include <string>
#include <vector>

#include "common/types.h"
#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

// The facts of the meta table that readers use, parsed once.
struct TraceMeta {
  TimeNs trace_end_ns = 0;
  int bucket_shift = 0;
  int max_level = 0;
  TimeNs max_message_ns = 0;
  std::int64_t count_events = 0;
  std::int64_t count_messages = 0;
};

// One row per process (timeline row), indexed by ProcessIndex.
struct ProcessTable {
  std::vector<std::string> name;
  std::vector<std::string> kind;
  std::size_t size() const { return name.size(); }
};

// One row per region, indexed by a dense position; `id` is the OTF2 region
// reference stored in events.region. `index_of` maps a reference back to its
// position (references are usually dense, but the schema does not promise it).
struct RegionTable {
  std::vector<std::int64_t> id;
  std::vector<std::string> name;
  std::vector<std::string> paradigm;
  std::vector<RegionKind> kind;
  std::size_t size() const { return id.size(); }
  // Position of region reference `region_id`, or -1 when there is none.
  std::int32_t index_of(std::int64_t region_id) const;

  // position by reference for references 0..max (-1: none); filled with the rows
  std::vector<std::int32_t> index_by_id;
};

// A time × process window: events overlapping [t0, t1] on processes [p0, p1]
// (both ends inclusive, as in the schema's overlap rule).
struct Window {
  TimeNs t0 = 0;
  TimeNs t1 = 0;
  ProcessIndex p0 = 0;
  ProcessIndex p1 = 0;
};

// Events of a window, one entry per column. `region` holds positions in the
// RegionTable (not references) so that consumers can index colors directly.
struct WindowEvents {
  std::vector<EventId> id;
  std::vector<ProcessIndex> process;
  std::vector<TimeNs> start_ns;
  std::vector<TimeNs> end_ns;
  std::vector<std::int32_t> region;
  std::vector<std::int32_t> depth;
  std::size_t size() const { return id.size(); }
  void clear();
};

// Matched messages crossing a window (send and receive, times and processes, all known).
struct WindowMessages {
  std::vector<std::int64_t> id;
  std::vector<ProcessIndex> src;
  std::vector<ProcessIndex> dst;
  std::vector<TimeNs> send_ns;
  std::vector<TimeNs> recv_ns;
  std::size_t size() const { return id.size(); }
  void clear();
};

class WindowQuery {
 public:
  // Opens `path` read-only and loads meta, processes and regions. Throws
  // weft::Error naming the file when it is missing or not a weft database.
  explicit WindowQuery(const std::string& path);

  const std::string& path() const { return db_.path(); }
  const TraceMeta& meta() const { return meta_; }
  const ProcessTable& processes() const { return processes_; }
  const RegionTable& regions() const { return regions_; }
  // The read-only connection, for readers of other tables on the same thread
  // (e.g. the logical window of db/structure/logical_window.h).
  Database& database() { return db_; }
  // Raw meta value for `key`, or "" when absent.
  std::string meta_value(const std::string& key);

  // Replaces `out` with the events overlapping `window`: one bucket range scan
  // per level, so the cost does not grow with the number of processes.
  void read_events(const Window& window, WindowEvents& out);
  // Replaces `out` with the matched messages whose [send_ns, recv_ns] overlaps
  // [t0, t1] and whose sender or receiver is in [p0, p1].
  void read_messages(const Window& window, WindowMessages& out);

 private:
  void load_meta();
  void load_processes();
  void load_regions();

  Database db_;
  TraceMeta meta_;
  ProcessTable processes_;
  RegionTable regions_;
  Statement events_stmt_;
  Statement messages_stmt_;
  std::vector<EventRecord> event_scratch_;  // one decoded block, reused
  std::vector<MessageRecord> message_scratch_;
};

}  // namespace weft::db
