#include "structure/comm_trace.h"

#include <algorithm>
#include <limits>
#include <string>

#include "common/error.h"

namespace weft::structure {

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::Send: return "send";
    case OpKind::Isend: return "isend";
    case OpKind::Recv: return "recv";
    case OpKind::Irecv: return "irecv";
    case OpKind::Wait: return "wait";
    case OpKind::Collective: return "collective";
  }
  return "send";
}

OpIndex split_ops_at_a_process(const CommTrace& t, int threads) {
  if (threads < 2 || t.process_count < 2) return t.op_count();
  return t.first_op(t.process_count / 2);
}

void index_processes(CommTrace& trace) {
  trace.process_first_op.assign(static_cast<std::size_t>(trace.process_count) + 1, 0);
  for (ProcessIndex p : trace.process) ++trace.process_first_op[static_cast<std::size_t>(p) + 1];
  for (std::size_t p = 0; p < static_cast<std::size_t>(trace.process_count); ++p)
    trace.process_first_op[p + 1] += trace.process_first_op[p];
}

namespace {

[[noreturn, gnu::cold]] void broken(const std::string& what) {
  throw Error("communication trace: " + what);
}

[[noreturn, gnu::cold, gnu::noinline]] void broken_op_ref(const char* what, std::int32_t message) {
  broken(std::string(what) + " of message " + std::to_string(message) + " is not an operation");
}

// One compare per reference in the loop, the message out of it: called
// four times per message, the check with its error path was not inlined,
// and a call per reference was 2% of an analysis' instructions.
inline void check_op_ref(OpIndex op, OpIndex op_count, const char* what, std::int32_t message) {
  if (op != kNoOp && (op < 0 || op >= op_count)) [[unlikely]]
    broken_op_ref(what, message);
}

}  // namespace

void validate_comm_trace(const CommTrace& t) {
  const std::size_t n = t.process.size();
  if (t.start.size() != n || t.end.size() != n || t.kind.size() != n || (!t.event_id.empty() && t.event_id.size() != n) ||
      (!t.segment.empty() && t.segment.size() != n))
    broken("per-operation arrays differ in length");
  if (t.process_first_op.size() != static_cast<std::size_t>(t.process_count) + 1 ||
      t.process_first_op.back() != static_cast<OpIndex>(n))
    broken("process index does not cover the operations");
  for (std::size_t i = 0; i < n; ++i) {
    if (t.process[i] < 0 || t.process[i] >= t.process_count) broken("operation with a bad process");
    if (i > 0 && t.process[i] == t.process[i - 1] &&
        (t.start[i] < t.start[i - 1] || (t.start[i] == t.start[i - 1] && t.end[i] < t.end[i - 1])))
      broken("operations of process " + std::to_string(t.process[i]) + " are not in time order");
    if (i > 0 && t.process[i] < t.process[i - 1]) broken("operations are not grouped by process");
  }
  const std::size_t m = t.msg_send_op.size();
  if (t.msg_recv_op.size() != m || t.msg_post_op.size() != m || t.msg_send_done_op.size() != m)
    broken("per-message arrays differ in length");
  const OpIndex ops = t.op_count();
  for (std::size_t i = 0; i < m; ++i) {
    auto id = static_cast<std::int32_t>(i);
    check_op_ref(t.msg_send_op[i], ops, "send", id);
    check_op_ref(t.msg_recv_op[i], ops, "receive", id);
    check_op_ref(t.msg_post_op[i], ops, "receive post", id);
    check_op_ref(t.msg_send_done_op[i], ops, "send completion", id);
  }
  if (t.coll_first.empty() || t.coll_first.front() != 0 ||
      t.coll_first.back() != static_cast<std::int32_t>(t.coll_members.size()))
    broken("collective index does not cover the members");
  for (OpIndex op : t.coll_members)
    if (op < 0 || op >= t.op_count()) broken("collective member is not an operation");
}

ReceivedMessages index_received_messages(const CommTrace& t) {
  ReceivedMessages r;
  r.first.assign(static_cast<std::size_t>(t.op_count()) + 1, 0);
  for (OpIndex op : t.msg_recv_op)
    if (op != kNoOp) ++r.first[static_cast<std::size_t>(op) + 1];
  for (std::size_t i = 0; i + 1 < r.first.size(); ++i) r.first[i + 1] += r.first[i];
  r.message.resize(static_cast<std::size_t>(r.first.back()));
  r.send_op.resize(static_cast<std::size_t>(r.first.back()));
  std::vector<std::int32_t> fill(r.first.begin(), r.first.end() - 1);
  for (std::int32_t m = 0; m < t.message_count(); ++m) {
    OpIndex op = t.msg_recv_op[static_cast<std::size_t>(m)];
    if (op == kNoOp) continue;
    const auto k = static_cast<std::size_t>(fill[static_cast<std::size_t>(op)]++);
    r.message[k] = m;
    r.send_op[k] = t.msg_send_op[static_cast<std::size_t>(m)];
  }
  return r;
}

CollectiveOfOps::CollectiveOfOps(const CommTrace& t) : members_(static_cast<std::size_t>(t.op_count())) {
  for (OpIndex op : t.coll_members)
    if (op >= 0 && op < t.op_count()) members_.set(static_cast<std::size_t>(op));
  members_.count_members();
  collective_.assign(static_cast<std::size_t>(members_.members()), -1);
  for (std::int32_t c = 0; c < t.collective_count(); ++c)
    for (auto k = t.coll_first[static_cast<std::size_t>(c)]; k < t.coll_first[static_cast<std::size_t>(c) + 1]; ++k) {
      const OpIndex op = t.coll_members[static_cast<std::size_t>(k)];
      if (op >= 0 && op < t.op_count())
        collective_[static_cast<std::size_t>(members_.rank(static_cast<std::size_t>(op)))] = c;
    }
  // Computed here, on the thread that indexes the collectives while the
  // partitions are merged, rather than by the lateness metrics after the steps.
  last_start_.assign(static_cast<std::size_t>(t.collective_count()), std::numeric_limits<TimeNs>::min());
  for (std::int32_t c = 0; c < t.collective_count(); ++c) {
    TimeNs& last = last_start_[static_cast<std::size_t>(c)];
    for (auto k = t.coll_first[static_cast<std::size_t>(c)]; k < t.coll_first[static_cast<std::size_t>(c) + 1]; ++k) {
      const OpIndex op = t.coll_members[static_cast<std::size_t>(k)];
      if (op >= 0 && op < t.op_count() && (*this)[static_cast<std::size_t>(op)] == c)
        last = std::max(last, t.start[static_cast<std::size_t>(op)]);
    }
  }
}

}  // namespace weft::structure
