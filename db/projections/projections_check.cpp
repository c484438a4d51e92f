#include "projections/projections_check.h"

#include <algorithm>
#include <unordered_map>

#include "store/meta.h"
#include "store/record_scan.h"

namespace weft::db {

bool is_projections_run(Database& db) {
  Statement s = db.prepare("SELECT value FROM meta WHERE key = 'source_format'");
  return s.step() && s.column_text(0) == "projections";
}

ProjectionsCheck check_projections_run(Database& db) {
  ProjectionsCheck c;
  // execution event → (chare, entry region)
  std::unordered_map<std::int64_t, std::int64_t> entry_of;
  std::int64_t missing_chares = 0;
  {
    const std::int64_t chares = db.query_int("SELECT count(*) FROM chares");
    Statement s = db.prepare("SELECT event, chare, entry_region FROM executions");
    while (s.step()) {
      entry_of.emplace(s.column_int(0), s.column_int(2));
      if (s.column_int(1) < 0 || s.column_int(1) >= chares) ++missing_chares;
    }
  }
  c.executions = static_cast<std::int64_t>(entry_of.size());
  std::int64_t execution_mismatch = 0;  // an executions row whose event is not a depth-0 event of its entry
  std::int64_t overlapping = 0;         // depth-0 intervals of one PE that overlap
  std::int64_t not_nested = 0;          // a deeper event outside every depth-0 event of its PE
  std::int64_t found = 0;
  scan_events_by_process(db, [&](ProcessIndex, std::span<const EventRecord> events) {
    TimeNs top_end = -1;
    TimeNs top_start = -1;
    for (const EventRecord& e : events) {
      c.events++;
      auto it = entry_of.find(e.id);
      if (it != entry_of.end()) {
        ++found;
        if (e.depth != 0 || e.region != it->second) ++execution_mismatch;
      }
      if (e.depth == 0) {
        // Zero-length records (an idle that ends where it begins) overlap nothing.
        if (e.end_ns == e.start_ns) continue;
        if (e.start_ns < top_end) ++overlapping;
        top_start = e.start_ns;
        top_end = std::max(top_end, e.end_ns);
      } else if (e.start_ns < top_start || e.end_ns > top_end) {
        // Brackets outside executions are stored at depth 0, so a deeper
        // event always lies inside the depth-0 event before it.
        ++not_nested;
      }
    }
  });
  execution_mismatch += c.executions - found;
  std::int64_t bad_ends = 0;  // message ends that are not executions
  std::int64_t backwards = 0;  // executed before created
  scan_messages(db, [&](std::span<const MessageRecord> batch) {
    for (const MessageRecord& m : batch) {
      ++c.messages;
      if (m.recv_event != kNullRef && !entry_of.count(m.recv_event)) ++bad_ends;
      if (m.send_event != kNullRef && !entry_of.count(m.send_event)) ++bad_ends;
      if (m.has_send_ns && m.has_recv_ns && m.recv_ns < m.send_ns) ++backwards;
    }
  });
  const std::int64_t pes = db.query_int("SELECT count(*) FROM processes");
  Statement mig = db.prepare("SELECT count(*) FROM migrations WHERE from_pe = to_pe OR from_pe < 0 OR to_pe < 0 "
                             "OR from_pe >= ?1 OR to_pe >= ?1");
  mig.bind(1, pes);
  mig.step();
  c.executed_before_created = backwards;
  c.lines = {{"every execution is a depth-0 event of its entry", execution_mismatch},
             {"every execution's chare exists", missing_chares},
             {"executions of one PE do not overlap", overlapping},
             {"brackets lie inside their execution", not_nested},
             {"message ends are executions", bad_ends},
             {"migrations move between two existing PEs", mig.column_int(0)}};
  return c;
}

}  // namespace weft::db
