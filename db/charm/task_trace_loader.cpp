#include "charm/task_trace_loader.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "common/error.h"
#include "common/release_memory.h"
#include "projections/projections_check.h"
#include "store/meta.h"
#include "store/record_scan.h"

namespace weft::db {
namespace {

using charm::BlockIndex;
using charm::EventIndex;
using charm::kNone;

// The method part of a region name `Chare::entry(args)`: SDAG serials are
// recognized by it (charm::sdag_serial_number).
std::string entry_part(const std::string& region_name) {
  const std::size_t paren = region_name.find('(');
  const std::size_t colons = region_name.rfind("::", paren);
  return colons == std::string::npos ? region_name : region_name.substr(colons + 2);
}

// What the loader keeps of a message row.
struct Creation {
  std::int64_t id, src, tag, bytes;
  EventId send_event, recv_event;  // kNullRef when absent
  TimeNs send_ns;
};

bool same_creation(const Creation& a, const Creation& b) {
  return a.src == b.src && a.send_event == b.send_event && a.send_ns == b.send_ns && a.tag == b.tag &&
         a.bytes == b.bytes && b.id == a.id + 1;
}

}  // namespace

LoadedTaskTrace load_task_trace(Database& db) {
  if (!is_projections_run(db) || !has_table(db, "executions")) throw Error(db.path(), "not a Charm++ Projections run (no executions table)");
  LoadedTaskTrace out;
  charm::TaskTrace& t = out.trace;
  t.pe_count = static_cast<std::int32_t>(db.query_int("SELECT count(*) FROM processes"));

  {
    Statement s(db, "SELECT chare, runtime, name FROM chares ORDER BY chare");
    while (s.step()) {
      if (s.column_int(0) != t.chare_count())
        throw Error(db.path(), "chares: ids are not dense (chare " + std::to_string(s.column_int(0)) + ")");
      t.chare_runtime.push_back(s.column_int(1) != 0 ? 1 : 0);
      out.chare_name.push_back(s.column_text(2));
    }
  }
  std::int64_t idle_region = -1;
  {
    Statement s(db, "SELECT region, name, role FROM regions ORDER BY region");
    while (s.step()) {
      const std::int64_t r = s.column_int(0);
      if (s.column_text(2) == "idle") idle_region = r;
      if (s.column_text(2) != "function" || r < 0 || r > (1 << 24)) continue;
      if (t.entry_name.size() <= static_cast<std::size_t>(r)) t.entry_name.resize(static_cast<std::size_t>(r) + 1);
      t.entry_name[static_cast<std::size_t>(r)] = entry_part(s.column_text(1));
    }
  }

  // executions: event -> (chare, entry), dense over event ids.
  const std::int64_t id_limit = db.query_int("SELECT coalesce(max(event), -1) + 1 FROM executions");
  std::vector<charm::ChareIndex> chare_of(static_cast<std::size_t>(id_limit), kNone);
  std::vector<charm::EntryIndex> entry_of(static_cast<std::size_t>(id_limit), kNone);
  {
    Statement s(db, "SELECT event, chare, entry_region FROM executions");
    while (s.step()) {
      const std::int64_t e = s.column_int(0), c = s.column_int(1), r = s.column_int(2);
      if (e < 0 || c < 0 || c >= t.chare_count() || r < 0 || r >= static_cast<std::int64_t>(t.entry_name.size()))
        throw Error(db.path(), "executions: event " + std::to_string(e) + " names chare " + std::to_string(c) +
                                   " or entry " + std::to_string(r) + " out of range");
      chare_of[static_cast<std::size_t>(e)] = static_cast<charm::ChareIndex>(c);
      entry_of[static_cast<std::size_t>(e)] = static_cast<charm::EntryIndex>(r);
    }
  }

  // Blocks in (pe, start) order: the scan hands each PE's events sorted by start.
  std::vector<BlockIndex> block_of(static_cast<std::size_t>(id_limit), kNone);
  scan_events_by_process(db, [&](ProcessIndex pe, std::span<const EventRecord> events) {
    for (const EventRecord& e : events) {
      if (e.depth != 0) continue;
      if (e.region == idle_region) {
        t.idle_pe.push_back(pe);
        t.idle_start.push_back(e.start_ns);
        t.idle_end.push_back(e.end_ns);
        continue;
      }
      if (e.id < 0 || e.id >= id_limit || chare_of[static_cast<std::size_t>(e.id)] == kNone) continue;
      block_of[static_cast<std::size_t>(e.id)] = t.block_count();
      t.block_chare.push_back(chare_of[static_cast<std::size_t>(e.id)]);
      t.block_pe.push_back(pe);
      t.block_entry.push_back(entry_of[static_cast<std::size_t>(e.id)]);
      t.block_start.push_back(e.start_ns);
      t.block_end.push_back(e.end_ns);
      t.block_event_id.push_back(e.id);
    }
  });
  release_memory(chare_of);
  release_memory(entry_of);

  std::vector<Creation> creations;
  scan_messages(db, [&](std::span<const MessageRecord> batch) {
    for (const MessageRecord& m : batch)
      if (m.has_send_ns)
        creations.push_back({m.id, m.src, m.tag, m.bytes, m.send_event, m.has_recv_ns ? m.recv_event : kNullRef,
                             m.send_ns});
  });
  std::sort(creations.begin(), creations.end(), [](const Creation& a, const Creation& b) { return a.id < b.id; });

  auto block_at = [&](EventId id) -> BlockIndex {
    return id >= 0 && id < id_limit ? block_of[static_cast<std::size_t>(id)] : kNone;
  };
  // Events in creation order first, then sorted by (block, time) below.
  std::vector<BlockIndex> ev_block;
  std::vector<TimeNs> ev_time;
  std::vector<charm::DepKind> ev_kind;
  std::vector<EventIndex> ev_partner;  // provisional ids
  std::vector<std::int64_t> ev_message;
  for (std::size_t i = 0; i < creations.size();) {
    std::size_t j = i + 1;
    while (j < creations.size() && same_creation(creations[j - 1], creations[j])) ++j;
    const Creation& c = creations[i];
    const BlockIndex sb = block_at(c.send_event);
    EventIndex source = kNone;
    if (sb != kNone) {
      source = static_cast<EventIndex>(ev_block.size());
      const auto ub = static_cast<std::size_t>(sb);
      ev_block.push_back(sb);
      ev_time.push_back(std::clamp(c.send_ns, t.block_start[ub], t.block_end[ub]));
      ev_kind.push_back(charm::DepKind::Source);
      ev_partner.push_back(kNone);
      ev_message.push_back(c.id);
    } else {
      ++out.creations_outside_executions;
    }
    for (std::size_t k = i; k < j; ++k) {
      const BlockIndex rb = block_at(creations[k].recv_event);
      if (rb == kNone) continue;
      if (source != kNone && ev_partner[static_cast<std::size_t>(source)] == kNone)
        ev_partner[static_cast<std::size_t>(source)] = static_cast<EventIndex>(ev_block.size());
      ev_block.push_back(rb);
      ev_time.push_back(t.block_start[static_cast<std::size_t>(rb)]);
      ev_kind.push_back(charm::DepKind::Sink);
      ev_partner.push_back(source);
      ev_message.push_back(creations[k].id);
    }
    i = j;
  }
  release_memory(creations);
  release_memory(block_of);

  // (block, time), a sink before a source at the same instant (a block's sink is its first event).
  std::vector<EventIndex> order(ev_block.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](EventIndex a, EventIndex b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (ev_block[ua] != ev_block[ub]) return ev_block[ua] < ev_block[ub];
    if (ev_time[ua] != ev_time[ub]) return ev_time[ua] < ev_time[ub];
    if (ev_kind[ua] != ev_kind[ub]) return ev_kind[ua] == charm::DepKind::Sink;
    return a < b;
  });
  std::vector<EventIndex> final_of(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) final_of[static_cast<std::size_t>(order[i])] = static_cast<EventIndex>(i);
  t.event_block.reserve(order.size());
  for (EventIndex o : order) {
    const auto uo = static_cast<std::size_t>(o);
    // A block has at most one sink: an execution is triggered by one creation.
    if (ev_kind[uo] == charm::DepKind::Sink && !t.event_block.empty() && t.event_block.back() == ev_block[uo] &&
        t.event_kind.back() == charm::DepKind::Sink)
      throw Error(db.path(), "messages: two creations trigger the execution of event " +
                                 std::to_string(t.block_event_id[static_cast<std::size_t>(ev_block[uo])]));
    t.event_block.push_back(ev_block[uo]);
    t.event_time.push_back(ev_time[uo]);
    t.event_kind.push_back(ev_kind[uo]);
    t.event_partner.push_back(ev_partner[uo] == kNone ? kNone : final_of[static_cast<std::size_t>(ev_partner[uo])]);
    out.event_message.push_back(ev_message[uo]);
  }

  {
    Statement s(db, "SELECT DISTINCT time_ns FROM migrations ORDER BY time_ns");
    while (s.step()) t.lb_step_time.push_back(s.column_int(0));
  }
  charm::validate_task_trace(t);
  return out;
}

}  // namespace weft::db
