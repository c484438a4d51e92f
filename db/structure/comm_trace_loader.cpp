#include "structure/comm_trace_loader.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "common/error.h"
#include "store/record_scan.h"

namespace weft::db {
namespace {

using structure::CommTrace;
using structure::kNoOp;
using structure::OpIndex;
using structure::OpKind;

// The kinds of regions, indexed by region reference.
struct RegionKinds {
  std::vector<std::int8_t> kind;  // -1: unknown reference
  std::vector<char> is_marker;    // the --partition-function region
  RegionKind of(std::int64_t region) const {
    if (region < 0 || static_cast<std::size_t>(region) >= kind.size() || kind[static_cast<std::size_t>(region)] < 0)
      return RegionKind::Compute;
    return static_cast<RegionKind>(kind[static_cast<std::size_t>(region)]);
  }
  bool marker(std::int64_t region) const {
    return region >= 0 && static_cast<std::size_t>(region) < is_marker.size() &&
           is_marker[static_cast<std::size_t>(region)];
  }
};

// Region references are OTF2 references: dense in every writer we know, but
// not promised, so very large ones are refused rather than sized blindly.
constexpr std::int64_t kMaxRegionRef = std::int64_t{1} << 24;

RegionKinds read_region_kinds(Database& db, const std::string& marker_name) {
  RegionKinds r;
  Statement s = db.prepare("SELECT region, kind, name FROM regions");
  bool found_marker = false;
  while (s.step()) {
    std::int64_t ref = s.column_int(0);
    if (ref < 0 || ref >= kMaxRegionRef)
      throw Error(db.path(), "region reference " + std::to_string(ref) + " out of range");
    auto i = static_cast<std::size_t>(ref);
    if (i >= r.kind.size()) {
      r.kind.resize(i + 1, -1);
      r.is_marker.resize(i + 1, 0);
    }
    r.kind[i] = static_cast<std::int8_t>(s.column_int(1));
    if (!marker_name.empty() && s.column_text(2) == marker_name) {
      r.is_marker[i] = 1;
      found_marker = true;
    }
  }
  if (!marker_name.empty() && !found_marker)
    throw Error(db.path(), "no region named '" + marker_name + "' for --partition-function");
  return r;
}

std::optional<OpKind> op_kind_of_region(RegionKind k) {
  switch (k) {
    case RegionKind::Send: return OpKind::Send;
    case RegionKind::Isend: return OpKind::Isend;
    case RegionKind::Recv: return OpKind::Recv;
    case RegionKind::Irecv: return OpKind::Irecv;
    case RegionKind::Collective: return OpKind::Collective;
    default: return std::nullopt;  // waits join only when they complete something
  }
}

// An event some message or collective refers to, with the role it plays;
// used for events whose region kind alone does not make them operations.
struct Reference {
  EventId event;
  OpKind role;
  bool operator<(const Reference& o) const { return event < o.event; }
};

struct OpRow {
  ProcessIndex process;
  OpKind kind;
  TimeNs start;
  TimeNs end;
  EventId id;
  std::int64_t region;
  bool receive_half = false;  // the second op of a split send-and-receive call
  bool operator<(const OpRow& o) const {
    if (process != o.process) return process < o.process;
    if (start != o.start) return start < o.start;
    if (end != o.end) return end < o.end;
    if (id != o.id) return id < o.id;
    return receive_half < o.receive_half;
  }
};

}  // namespace

OpIndex op_of_event(const CommTrace& t, EventId event) {
  auto it = std::lower_bound(t.event_id.begin(), t.event_id.end(), event);
  if (it == t.event_id.end() || *it != event) return kNoOp;
  return static_cast<OpIndex>(it - t.event_id.begin());
}

OpIndex receive_op_of_event(const CommTrace& t, EventId event) {
  OpIndex op = op_of_event(t, event);
  if (op != kNoOp && is_split_send_half(t, op)) ++op;
  return op;
}

bool is_split_send_half(const CommTrace& t, OpIndex op) {
  auto i = static_cast<std::size_t>(op);
  return i + 1 < t.event_id.size() && t.event_id[i + 1] == t.event_id[i];
}

LoadedCommTrace load_comm_trace(Database& db, const CommTraceLoadOptions& options) {
  LoadedCommTrace out;
  CommTrace& t = out.trace;
  const RegionKinds regions = read_region_kinds(db, options.partition_function);
  const std::int64_t processes = db.query_int("SELECT count(*) FROM processes");
  if (processes <= 0 || processes > (std::int64_t{1} << 24))
    throw Error(db.path(), "bad process count " + std::to_string(processes));
  t.process_count = static_cast<std::int32_t>(processes);

  std::vector<MessageRecord> messages;
  std::vector<Reference> refs;
  scan_messages(db, [&](std::span<const MessageRecord> batch) {
    for (const MessageRecord& m : batch) {
      messages.push_back(m);
      if (m.send_event != kNullRef) refs.push_back({m.send_event, OpKind::Send});
      if (m.send_done_event != kNullRef) refs.push_back({m.send_done_event, OpKind::Wait});
      if (m.recv_post_event != kNullRef) refs.push_back({m.recv_post_event, OpKind::Irecv});
      if (m.recv_event != kNullRef) refs.push_back({m.recv_event, OpKind::Wait});
    }
  });
  std::vector<StoredCollectiveMember> members;
  scan_collective_members(db, [&](std::span<const StoredCollectiveMember> batch) {
    for (const StoredCollectiveMember& m : batch) {
      if (m.event == kNullRef) continue;  // a member outside any region has no op
      members.push_back(m);
      refs.push_back({m.event, OpKind::Collective});
    }
  });
  std::sort(refs.begin(), refs.end());

  auto is_sender = [&](EventId id) {
    auto it = std::lower_bound(refs.begin(), refs.end(), Reference{id, OpKind::Send});
    for (; it != refs.end() && it->event == id; ++it)
      if (it->role == OpKind::Send) return true;
    return false;
  };
  std::vector<OpRow> rows;
  std::vector<std::pair<ProcessIndex, TimeNs>> markers;
  scan_events(db, [&](std::span<const EventRecord> batch) {
    for (const EventRecord& e : batch) {
      if (e.process < 0 || e.process >= t.process_count)
        throw Error(db.path(), "event " + std::to_string(e.id) + " has process " + std::to_string(e.process) +
                                   " outside 0.." + std::to_string(t.process_count - 1));
      if (regions.marker(e.region)) markers.push_back({e.process, e.start_ns});
      std::optional<OpKind> kind = op_kind_of_region(regions.of(e.region));
      if (!kind) {
        auto it = std::lower_bound(refs.begin(), refs.end(), Reference{e.id, OpKind::Send});
        if (it == refs.end() || it->event != e.id) continue;
        kind = regions.of(e.region) == RegionKind::Wait ? OpKind::Wait : it->role;
      }
      // MPI_Sendrecv (and any receive call that also sends) is a send followed
      // by a receive: two ops, so that an exchange between two such calls is
      // not a happened-before cycle.
      if (*kind == OpKind::Recv && is_sender(e.id)) {
        rows.push_back({e.process, OpKind::Send, e.start_ns, e.end_ns, e.id, e.region, false});
        rows.push_back({e.process, OpKind::Recv, e.start_ns, e.end_ns, e.id, e.region, true});
        continue;
      }
      rows.push_back({e.process, *kind, e.start_ns, e.end_ns, e.id, e.region});
    }
  });
  refs = {};
  std::sort(rows.begin(), rows.end());
  const std::size_t n = rows.size();
  if (n > static_cast<std::size_t>(INT32_MAX)) throw Error(db.path(), "more than 2^31 communication events");
  t.process.reserve(n);
  t.start.reserve(n);
  t.end.reserve(n);
  t.kind.reserve(n);
  t.event_id.reserve(n);
  out.region.reserve(n);
  for (const OpRow& r : rows) {
    t.process.push_back(r.process);
    t.start.push_back(r.start);
    t.end.push_back(r.end);
    t.kind.push_back(r.kind);
    t.event_id.push_back(r.id);
    out.region.push_back(r.region);
  }
  rows = {};
  structure::index_processes(t);
  // Event ids grow with (process, enter order), the order of the ops, so
  // event_id is sorted (a split call's two ops share one) and op_of_event can bisect it.
  if (!std::is_sorted(t.event_id.begin(), t.event_id.end()))
    throw Error(db.path(), "event ids are not in process and time order");

  if (!markers.empty()) {
    std::sort(markers.begin(), markers.end());
    t.segment.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto lo = std::lower_bound(markers.begin(), markers.end(), std::make_pair(t.process[i], TimeNs{INT64_MIN}));
      auto hi = std::upper_bound(lo, markers.end(), std::make_pair(t.process[i], t.start[i]));
      t.segment[i] = static_cast<std::int32_t>(hi - lo);
    }
  } else if (!options.partition_function.empty()) {
    t.segment.assign(n, 0);  // the function exists but never ran: one segment
  }

  auto op = [&](EventId e) { return e == kNullRef ? kNoOp : op_of_event(t, e); };
  auto recv_op = [&](EventId e) { return e == kNullRef ? kNoOp : receive_op_of_event(t, e); };
  for (const MessageRecord& m : messages) {
    OpIndex send = op(m.send_event), recv = recv_op(m.recv_event);
    if (send == kNoOp && recv == kNoOp) continue;
    if (send == kNoOp || recv == kNoOp) ++out.unmatched_messages;
    t.msg_send_op.push_back(send);
    t.msg_recv_op.push_back(recv);
    t.msg_post_op.push_back(op(m.recv_post_event));
    t.msg_send_done_op.push_back(recv_op(m.send_done_event));
    out.message_id.push_back(m.id);
  }
  messages = {};

  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
    return a.collective != b.collective ? a.collective < b.collective : a.process < b.process;
  });
  t.coll_first.assign(1, 0);
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (k > 0 && members[k].collective != members[k - 1].collective) {
      t.coll_first.push_back(static_cast<std::int32_t>(t.coll_members.size()));
      out.collective_id.push_back(members[k - 1].collective);
    }
    OpIndex m = op(members[k].event);
    if (m != kNoOp) t.coll_members.push_back(m);
  }
  if (!members.empty()) {
    t.coll_first.push_back(static_cast<std::int32_t>(t.coll_members.size()));
    out.collective_id.push_back(members.back().collective);
  }
  structure::validate_comm_trace(t);
  return out;
}

}  // namespace weft::db
