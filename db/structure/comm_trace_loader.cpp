#include "structure/comm_trace_loader.h"

#include <algorithm>
#include <latch>
#include <new>
#include <optional>

#include "common/error.h"
#include "common/beside.h"
#include "common/phase_timer.h"
#include "common/release_memory.h"
#include "store/record_scan.h"
#include "structure/event_op_index.h"
#include "structure/message_block_meeting.h"

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

// What an event is to the analysis: the op kind of its region, or for a wait
// (or any other call) that messages or collectives refer to, the role they
// give it; nullopt for non-communication work.
std::optional<OpKind> op_kind_of_event(const EventRecord& e, const RegionKinds& regions,
                                       const EventOpIndex& index) {
  const RegionKind region = regions.of(e.region);
  if (std::optional<OpKind> kind = op_kind_of_region(region)) return kind;
  if (!index.referenced(e.id)) return std::nullopt;
  if (region == RegionKind::Wait) return OpKind::Wait;
  if (index.has_role(e.id, EventOpIndex::kSent)) return OpKind::Send;
  if (index.has_role(e.id, EventOpIndex::kCollective)) return OpKind::Collective;
  if (index.has_role(e.id, EventOpIndex::kPosted)) return OpKind::Irecv;
  return OpKind::Wait;
}

// Event ids are kept in 32-bit op columns until the ops are numbered, and
// messages and collective members are indexed by 32-bit ints: a count past
// that is refused, naming the file.
void require_int32_count(const Database& db, std::int64_t count, const char* what) {
  if (count > INT32_MAX)
    throw Error(db.path(), std::to_string(count) + " " + what + ": the structure analysis reads at most 2^31 - 1");
}

// The messages' and collective members' references as ops: the message and
// collective columns of a CommTrace and the store ids.
struct ReferencedOps {
  CommTrace trace;  // only the msg_* and coll_* columns
  std::vector<StoredMessageId> message_id;
  std::optional<std::int64_t> bad_message_id;  // the first that does not fit StoredMessageId (refused)
  std::vector<std::int64_t> collective_id;
  std::int64_t unmatched_messages = 0;
  // The collective members with an event, until resolve_collective_ops makes
  // them the coll_* columns; `op` holds the event id until then.
  struct Member {
    std::int64_t collective;
    ProcessIndex process;
    OpIndex op;
  };
  std::vector<Member> members;
};

// Keeps the event references of a batch of messages in the message columns
// of `out` (event ids, -1 for none), where resolve_message_ops makes them ops
// once the ops are numbered, and marks their roles in `roles`. Event ids fit
// those 32-bit columns: load_comm_trace checks.
void keep_message_references(std::span<const MessageRecord> batch, const EventOpIndex& index, EventRoles& roles,
                             ReferencedOps& out) {
  CommTrace& t = out.trace;
  auto keep = [&](EventId e, EventRoles::Role role, std::vector<OpIndex>& column) {
    roles.add(e, role);
    column.push_back(index.contains(e) ? static_cast<OpIndex>(e) : kNoOp);
  };
  for (const MessageRecord& m : batch) {
    keep(m.send_event, EventRoles::kSent, t.msg_send_op);
    keep(m.send_done_event, EventRoles::kCompleted, t.msg_send_done_op);
    keep(m.recv_post_event, EventRoles::kPosted, t.msg_post_op);
    keep(m.recv_event, EventRoles::kCompleted, t.msg_recv_op);
    if ((m.id < 0 || m.id > INT32_MAX) && !out.bad_message_id) out.bad_message_id = m.id;
    out.message_id.push_back(static_cast<StoredMessageId>(m.id));
  }
}

// Room in the message columns for every message of `db` (refused past 2^31).
void reserve_message_columns(Database& db, ReferencedOps& out) {
  const std::int64_t messages = count_messages(db);
  require_int32_count(db, messages, "messages");
  CommTrace& t = out.trace;
  for (std::vector<OpIndex>* column : {&t.msg_send_op, &t.msg_recv_op, &t.msg_post_op, &t.msg_send_done_op})
    column->reserve(static_cast<std::size_t>(messages));
  out.message_id.reserve(static_cast<std::size_t>(messages));
}

// The collective members' references: roles marked, members kept with their
// events (resolve_collective_ops makes them ops).
void keep_member_references(Database& db, EventOpIndex& index, ReferencedOps& out) {
  const std::int64_t members = count_collective_members(db);
  require_int32_count(db, members, "collective members");
  out.members.reserve(static_cast<std::size_t>(members));
  scan_collective_members(db, [&](std::span<const StoredCollectiveMember> batch) {
    for (const StoredCollectiveMember& m : batch) {
      index.roles().add(m.event, EventRoles::kCollective);
      if (m.event != kNullRef)
        out.members.push_back({m.collective, m.process, index.contains(m.event) ? static_cast<OpIndex>(m.event) : kNoOp});
    }
  });
}

// The one pass over the messages and collective members, on one thread:
// marks the roles in which they refer to events, and keeps those references.
ReferencedOps mark_references(Database& db, EventOpIndex& index) {
  ReferencedOps out;
  reserve_message_columns(db, out);
  scan_messages(db, [&](std::span<const MessageRecord> batch) {
    keep_message_references(batch, index, index.roles(), out);
  });
  keep_member_references(db, index, out);
  return out;
}

// The references of the messages read from the back of their table: their
// columns, block by block in reverse key order, and where each block ends.
struct BackMessageReferences {
  ReferencedOps refs;
  std::vector<std::size_t> block_ends;
};

// The front side, on the second connection: the collective members (few),
// then the message blocks from the first on, into the index's roles.
ReferencedOps mark_references_from_front(Database& db, EventOpIndex& index, MessageBlockMeeting& meeting) {
  ReferencedOps out;
  keep_member_references(db, index, out);
  reserve_message_columns(db, out);
  scan_message_blocks(
      db, ScanFrom::Front, [&](const MessageBlockKey& key) { return meeting.take_from_front(key); },
      [&](std::span<const MessageRecord> block) { keep_message_references(block, index, index.roles(), out); });
  return out;
}

// The back side, once this thread has marked the calls: message blocks from
// the last back, their roles into `roles` (the other thread marks the index's).
BackMessageReferences mark_references_from_back(Database& db, const EventOpIndex& index, EventRoles& roles,
                                                MessageBlockMeeting& meeting) {
  BackMessageReferences out;
  scan_message_blocks(
      db, ScanFrom::Back, [&](const MessageBlockKey& key) { return meeting.take_from_back(key); },
      [&](std::span<const MessageRecord> block) {
        keep_message_references(block, index, roles, out.refs);
        out.block_ends.push_back(out.refs.message_id.size());
      });
  return out;
}

// Appends the back side's blocks to the front side's columns, last taken
// first: the messages in table order, as one thread reads them.
void append_back_references(const BackMessageReferences& back, ReferencedOps& front) {
  const CommTrace& from = back.refs.trace;
  CommTrace& to = front.trace;
  const std::pair<const std::vector<OpIndex>*, std::vector<OpIndex>*> columns[] = {
      {&from.msg_send_op, &to.msg_send_op},
      {&from.msg_recv_op, &to.msg_recv_op},
      {&from.msg_post_op, &to.msg_post_op},
      {&from.msg_send_done_op, &to.msg_send_done_op}};
  for (std::size_t b = back.block_ends.size(); b-- > 0;) {
    const std::size_t begin = b == 0 ? 0 : back.block_ends[b - 1], end = back.block_ends[b];
    for (const auto& [src, dst] : columns) dst->insert(dst->end(), src->begin() + begin, src->begin() + end);
    front.message_id.insert(front.message_id.end(), back.refs.message_id.begin() + begin,
                            back.refs.message_id.begin() + end);
  }
  if (!front.bad_message_id) front.bad_message_id = back.refs.bad_message_id;
}

// After the ops are numbered: the kept event references become ops, in place.
// A message with neither a send nor a receive op is dropped; one with only
// one of them is kept (one-sided) and counted.
void resolve_message_ops(const EventOpIndex& index, ReferencedOps& refs) {
  CommTrace& t = refs.trace;
  auto op = [&](OpIndex event) { return event == kNoOp ? kNoOp : index.op_of(event); };
  auto recv_op = [&](OpIndex event) {  // the receive half of a split event
    OpIndex o = op(event);
    return o != kNoOp && index.is_split(event) ? o + 1 : o;
  };
  std::size_t kept = 0;
  for (std::size_t m = 0; m < t.msg_send_op.size(); ++m) {
    const OpIndex send = op(t.msg_send_op[m]), recv = recv_op(t.msg_recv_op[m]);
    if (send == kNoOp && recv == kNoOp) continue;
    if (send == kNoOp || recv == kNoOp) ++refs.unmatched_messages;
    t.msg_send_op[kept] = send;
    t.msg_recv_op[kept] = recv;
    t.msg_post_op[kept] = op(t.msg_post_op[m]);
    t.msg_send_done_op[kept] = recv_op(t.msg_send_done_op[m]);
    refs.message_id[kept] = refs.message_id[m];
    ++kept;
  }
  for (std::vector<OpIndex>* column : {&t.msg_send_op, &t.msg_recv_op, &t.msg_post_op, &t.msg_send_done_op})
    column->resize(kept);
  refs.message_id.resize(kept);
}

// First pass over the events: checks them, marks the communication calls
// (a receive call that also sends, as MPI_Sendrecv, becomes a send and a
// receive op once the roles are known: EventOpIndex::finish_marking) and
// collects the --partition-function entries. Reads no role, so it can run
// while another thread marks them.
void mark_calls(Database& db, const RegionKinds& regions, std::int32_t processes, EventOpIndex& index,
                std::vector<std::pair<ProcessIndex, TimeNs>>& markers, Progress* progress) {
  std::int64_t scanned = 0;
  scan_events(db, [&](std::span<const EventRecord> batch) {
    scanned += static_cast<std::int64_t>(batch.size());
    progress_within(progress, scanned, static_cast<double>(index.events()));
    for (const EventRecord& e : batch) {
      if (e.process < 0 || e.process >= processes)
        throw Error(db.path(), "event " + std::to_string(e.id) + " has process " + std::to_string(e.process) +
                                   " outside 0.." + std::to_string(processes - 1));
      if (!index.contains(e.id))
        throw Error(db.path(), "event id " + std::to_string(e.id) + " outside the ids of the processes");
      if (!index.mark_seen(e.id)) throw Error(db.path(), "event id " + std::to_string(e.id) + " stored twice");
      if (regions.marker(e.region)) markers.push_back({e.process, e.start_ns});
      if (std::optional<OpKind> kind = op_kind_of_region(regions.of(e.region)))
        index.mark_call(e.id, *kind == OpKind::Recv);
    }
  });
}

// Second pass, over the events of processes first .. end - 1: each op's
// columns go straight to its numbered slot, so the ops come out in event id
// order with no sort and no copy, and two threads can fill shares at once.
// The regions that do not fit out.region's width go to `misfits`, for
// NarrowColumn::keep_aside once every share is filled.
void fill_ops(Database& db, const RegionKinds& regions, const EventOpIndex& index, ProcessIndex first,
              ProcessIndex end, LoadedCommTrace& out, std::vector<NarrowColumn::Misfit>& misfits,
              Progress* progress = nullptr) {
  // Told of the share of its processes' events filled, counting each
  // process as an equal share of the run's events (no count per range).
  const double expected_events =
      static_cast<double>(index.events()) * (end - first) / std::max<std::int32_t>(out.trace.process_count, 1);
  std::int64_t scanned = 0;
  CommTrace& t = out.trace;
  auto put = [&](OpIndex op, const EventRecord& e, OpKind kind) {
    auto i = static_cast<std::size_t>(op);
    t.process[i] = e.process;
    t.start[i] = e.start_ns;
    t.end[i] = e.end_ns;
    t.kind[i] = kind;
    t.event_id[i] = static_cast<structure::StoredEventId>(e.id);  // < events <= 2^31 - 1: checked
    if (!out.region.set(i, e.region)) misfits.push_back({i, static_cast<std::int32_t>(e.region)});
  };
  scan_events_of_processes(db, first, end, [&](std::span<const EventRecord> batch) {
    scanned += static_cast<std::int64_t>(batch.size());
    progress_within(progress, scanned, expected_events);
    for (const EventRecord& e : batch) {
      OpIndex op = index.op_of(e.id);
      if (op == kNoOp) continue;
      OpKind kind = *op_kind_of_event(e, regions, index);
      if (index.is_split(e.id)) {
        put(op, e, OpKind::Send);
        put(op + 1, e, OpKind::Recv);
      } else {
        put(op, e, kind);
      }
    }
  });
}

// Ops in event id order must also be in (process, start, end) order: ids grow
// with each process's Enter records. Anything else is a damaged store.
void check_op_order(const Database& db, const CommTrace& t) {
  for (std::size_t i = 1; i < t.process.size(); ++i) {
    bool ordered = t.process[i - 1] < t.process[i] ||
                   (t.process[i - 1] == t.process[i] &&
                    (t.start[i - 1] < t.start[i] || (t.start[i - 1] == t.start[i] && t.end[i - 1] <= t.end[i])));
    if (!ordered) throw Error(db.path(), "event ids are not in process and time order");
  }
}

// Per op, how many entries of the partition function its process made before it.
void assign_segments(std::vector<std::pair<ProcessIndex, TimeNs>>& markers, bool requested, CommTrace& t) {
  const std::size_t n = t.process.size();
  if (markers.empty()) {
    if (requested) t.segment.assign(n, 0);  // the function exists but never ran: one segment
    return;
  }
  std::sort(markers.begin(), markers.end());
  t.segment.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto lo = std::lower_bound(markers.begin(), markers.end(), std::make_pair(t.process[i], TimeNs{INT64_MIN}));
    auto hi = std::upper_bound(lo, markers.end(), std::make_pair(t.process[i], t.start[i]));
    t.segment[i] = static_cast<std::int32_t>(hi - lo);
  }
}

// After the ops are numbered: the kept collective members become the coll_*
// columns of `refs` and its collective store ids.
void resolve_collective_ops(const EventOpIndex& index, ReferencedOps& refs) {
  CommTrace& t = refs.trace;
  std::vector<ReferencedOps::Member>& members = refs.members;
  for (ReferencedOps::Member& m : members)
    if (m.op != kNoOp) m.op = index.op_of(m.op);
  // Members by (collective, process): the scan gives that order already
  // (one block per collective, sorted by process); the sort is for safety.
  auto by_collective = [](const ReferencedOps::Member& a, const ReferencedOps::Member& b) {
    return a.collective != b.collective ? a.collective < b.collective : a.process < b.process;
  };
  if (!std::is_sorted(members.begin(), members.end(), by_collective))
    std::sort(members.begin(), members.end(), by_collective);
  t.coll_first.assign(1, 0);
  t.coll_members.reserve(members.size());
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (k > 0 && members[k].collective != members[k - 1].collective) {
      t.coll_first.push_back(static_cast<std::int32_t>(t.coll_members.size()));
      refs.collective_id.push_back(members[k - 1].collective);
    }
    if (members[k].op != kNoOp) t.coll_members.push_back(members[k].op);
  }
  if (!members.empty()) {
    t.coll_first.push_back(static_cast<std::int32_t>(t.coll_members.size()));
    refs.collective_id.push_back(members.back().collective);
  }
  release_memory(members);
}

// Counts a latch down when it goes out of scope, however the scope is left.
class CountDownOnExit {
 public:
  explicit CountDownOnExit(std::latch& latch) : latch_(latch) {}
  CountDownOnExit(const CountDownOnExit&) = delete;
  CountDownOnExit& operator=(const CountDownOnExit&) = delete;
  ~CountDownOnExit() { latch_.count_down(); }

 private:
  std::latch& latch_;
};

// A second read-only connection to the file of `db` (errors name the same
// file), or nullopt when it cannot read it now: another connection holds it
// exclusively (locking_mode=EXCLUSIVE), or it is in memory.
std::optional<Database> open_second_reader(Database& db) {
  const char* file = sqlite3_db_filename(db.handle(), "main");
  if (!file || !*file) return std::nullopt;
  try {
    Database second(file, Database::Mode::ReadOnly);
    second.set_display_path(db.path());
    sqlite3_busy_timeout(second.handle(), 0);  // a locked file is a fallback, not a wait
    // Its reads in one transaction (one shared lock), ended when it closes.
    second.exec("BEGIN");
    second.query_int("SELECT count(*) FROM processes");
    return second;
  } catch (const Error&) {
    return std::nullopt;
  }
}

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
  const std::int64_t events = db.query_int("SELECT COALESCE(sum(event_count), 0) FROM processes");
  if (events < 0) throw Error(db.path(), "bad event count " + std::to_string(events));
  require_int32_count(db, events, "events");

  PhaseTimer timer("WEFT_ANALYZE_TIMING");
  // Each scan's end as a share of the load's time (16,384 x 200).
  // For a progress bar: each scan ends at its share of the load's time (16,384 x 200).
  progress_stage(options.progress, "reading the events", 0.47);
  // The messages and collective members are read on a second connection and
  // thread while this one reads the events, when the file can be shared (an
  // import's file is locked to its connection until it is done). Whatever
  // fails on the second connection is done again on this one, which reports
  // what is wrong with the file.
  std::optional<Database> second = options.two_threads ? open_second_reader(db) : std::nullopt;
  EventOpIndex index(events);
  std::vector<std::pair<ProcessIndex, TimeNs>> markers;
  ReferencedOps refs;
  if (second) {
    // The other thread reads the collective members, then the messages from
    // the front of their table, while this one reads the events; then this
    // one reads messages from the back until the two meet, rather than wait
    // (message_block_meeting.h).
    MessageBlockMeeting meeting;
    Beside<ReferencedOps> marking =
        run_beside(true, [&] { return mark_references_from_front(*second, index, meeting); });
    mark_calls(db, regions, t.process_count, index, markers, options.progress);
    EventRoles back_roles(events);
    const BackMessageReferences back = mark_references_from_back(db, index, back_roles, meeting);
    try {
      refs = marking.get();
      append_back_references(back, refs);
      index.add_roles(back_roles);
    } catch (const Error&) {
      index.clear_roles();
      refs = mark_references(db, index);
    }
  } else {
    refs = mark_references(db, index);
    mark_calls(db, regions, t.process_count, index, markers, options.progress);
  }
  if (refs.bad_message_id)
    throw Error(db.path(),
                "message id " + std::to_string(*refs.bad_message_id) + " out of range (ids are 0 .. 2^31 - 1)");
  const std::int64_t ops = index.finish_marking();
  timer.mark("  load: mark references and calls");
  progress_stage(options.progress, "loading the operations", 1.0);
  if (ops > INT32_MAX) throw Error(db.path(), "more than 2^31 communication events");
  const auto n = static_cast<std::size_t>(ops);
  // The op columns are first touched where they are sized (value-initialized):
  // 29 bytes per op, ~0.9 GB at 16,384 processes x 200 iterations. On this
  // project's VMs a first-touched page costs ~2 ms per MB, most of it the
  // host backing the page, and two threads touch pages nearly twice as fast
  // as one; so with two threads each sizes some of the columns (the fill
  // phase at 16,384 x 200: 2.09-2.38 s -> 1.67-1.94 s; the whole analysis
  // of 16,384 x 520: medians of four runs 29.2 s -> 24.9 s).
  auto size_first_columns = [&] {
    t.process.resize(n);
    t.start.resize(n);
    t.end.resize(n);
  };
  auto size_other_columns = [&] {
    t.kind.resize(n);
    t.event_id.resize(n);
    out.region.resize(n, NarrowColumn::width_below(static_cast<std::int64_t>(regions.kind.size())));
  };
  auto all_columns_sized = [&] {
    return t.process.size() == n && t.start.size() == n && t.end.size() == n && t.kind.size() == n &&
           t.event_id.size() == n && out.region.size() == n;
  };
  // Then the other thread makes the messages' and collective members'
  // references ops (no file read) and fills the ops of the upper half of the
  // processes, once the columns are sized; this one fills the lower half.
  const ProcessIndex half = t.process_count / 2;
  std::vector<NarrowColumn::Misfit> misfits, upper_misfits;  // the lower and upper halves' (two threads)
  if (second) {
    std::latch columns_sized(2);
    Beside<void> helping = run_beside(true, [&] {
      {
        const CountDownOnExit sized(columns_sized);  // also when sizing throws: the other thread waits for it
        size_other_columns();
      }
      resolve_message_ops(index, refs);
      resolve_collective_ops(index, refs);
      columns_sized.wait();
      // Sizing failed (no memory): that error propagates, and nothing may be filled.
      if (!all_columns_sized()) return;
      fill_ops(*second, regions, index, half, t.process_count, out, upper_misfits);
    });
    {
      const CountDownOnExit sized(columns_sized);
      size_first_columns();
    }
    columns_sized.wait();
    if (!all_columns_sized()) {
      helping.get();  // the other thread's sizing error
      throw std::bad_alloc();
    }
    fill_ops(db, regions, index, 0, half, out, misfits, options.progress);
    try {
      helping.get();
    } catch (const Error&) {
      // Done again on this connection, which reports what is wrong with the file.
      upper_misfits.clear();
      fill_ops(db, regions, index, half, t.process_count, out, upper_misfits);
    }
  } else {
    resolve_message_ops(index, refs);
    resolve_collective_ops(index, refs);
    size_first_columns();
    size_other_columns();
    fill_ops(db, regions, index, 0, t.process_count, out, misfits, options.progress);
  }
  misfits.insert(misfits.end(), upper_misfits.begin(), upper_misfits.end());
  out.region.keep_aside(std::move(misfits));
  timer.mark("  load: fill ops, messages");
  check_op_order(db, t);
  structure::index_processes(t);
  assign_segments(markers, !options.partition_function.empty(), t);
  t.msg_send_op = std::move(refs.trace.msg_send_op);
  t.msg_recv_op = std::move(refs.trace.msg_recv_op);
  t.msg_post_op = std::move(refs.trace.msg_post_op);
  t.msg_send_done_op = std::move(refs.trace.msg_send_done_op);
  t.coll_first = std::move(refs.trace.coll_first);
  t.coll_members = std::move(refs.trace.coll_members);
  out.message_id = std::move(refs.message_id);
  out.collective_id = std::move(refs.collective_id);
  out.unmatched_messages = refs.unmatched_messages;
  if (options.validate) structure::validate_comm_trace(t);
  return out;
}

}  // namespace weft::db
