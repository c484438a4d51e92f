#pragma once
// The input of the logical structure analysis (ravel-logical-lateness.txt §3):
// the communication operations of a trace, as structure-of-arrays with integer
// indices. An "operation" is one MPI call (Enter..Leave) that communicates:
// a send, a receive, an Irecv post, a wait that completes requests, or a
// member's part of a collective. Everything else is aggregated
// non-communication work and never enters the analysis.
//
// Invariants (checked by validate_comm_trace):
//  - operations are sorted by (process, start, end) and the ops of process p
//    are exactly [process_first_op[p], process_first_op[p + 1]);
//  - message and collective references are valid op indices or kNoOp.
#include <cstdint>
#include <span>
#include <vector>

#include "common/types.h"
#include "structure/rank_bits.h"

namespace weft::structure {

using OpIndex = std::int32_t;
constexpr OpIndex kNoOp = -1;

enum class OpKind : std::uint8_t { Send, Isend, Recv, Irecv, Wait, Collective };

const char* op_kind_name(OpKind kind);
inline bool is_send(OpKind k) { return k == OpKind::Send || k == OpKind::Isend; }
// Sends and collectives define strides (§3.2); every other op is placed as
// early as its happened-before predecessors allow.
inline bool defines_stride(OpKind k) { return is_send(k) || k == OpKind::Collective; }

// An event id of a store whose ids fit 31 bits (CommTrace::event_id).
using StoredEventId = std::int32_t;

struct CommTrace {
  std::int32_t process_count = 0;

  // One entry per operation.
  std::vector<ProcessIndex> process;
  std::vector<TimeNs> start;
  std::vector<TimeNs> end;
  std::vector<OpKind> kind;
  // The op's event in the store, for writing results back. Optional: the
  // analysis never reads it (InputOps takes it before the ops are coalesced).
  // 32 bits: a store's event ids are 0 .. events - 1 (docs/schema.md), and
  // the loader refuses more than 2^31 - 1 events; 4 bytes per op less at
  // the analysis' peak than the store's 64-bit ids.
  std::vector<StoredEventId> event_id;
  // Optional (empty unless user partitions are requested): the op's segment,
  // i.e. how many times its process had entered the partition function before it.
  std::vector<std::int32_t> segment;

  // CSR: ops of process p are [process_first_op[p], process_first_op[p+1]).
  std::vector<OpIndex> process_first_op;

  // One entry per message. send_op/recv_op are the ops that sent and
  // completed it; post_op is the Irecv that posted it and send_done_op the
  // wait that completed its Isend (kNoOp when absent).
  std::vector<OpIndex> msg_send_op;
  std::vector<OpIndex> msg_recv_op;
  std::vector<OpIndex> msg_post_op;
  std::vector<OpIndex> msg_send_done_op;

  // CSR: members of collective c are coll_members[coll_first[c] .. coll_first[c+1]).
  std::vector<std::int32_t> coll_first{0};
  std::vector<OpIndex> coll_members;

  std::int32_t op_count() const { return static_cast<std::int32_t>(process.size()); }
  std::int32_t message_count() const { return static_cast<std::int32_t>(msg_send_op.size()); }
  std::int32_t collective_count() const { return static_cast<std::int32_t>(coll_first.size()) - 1; }
  OpIndex first_op(ProcessIndex p) const { return process_first_op[static_cast<std::size_t>(p)]; }
  OpIndex end_op(ProcessIndex p) const { return process_first_op[static_cast<std::size_t>(p) + 1]; }
  // The op before/after `op` on its process, or kNoOp.
  OpIndex prev_on_process(OpIndex op) const {
    return op > first_op(process[static_cast<std::size_t>(op)]) ? op - 1 : kNoOp;
  }
  OpIndex next_on_process(OpIndex op) const {
    return op + 1 < end_op(process[static_cast<std::size_t>(op)]) ? op + 1 : kNoOp;
  }
};

// Where the ops split into two parts for `threads` threads (two_parts.h): at
// the first op of the middle process, so that no process's ops straddle the
// parts (a pair of consecutive ops across the split is never one process's).
// The op count (no split) with one thread or one process.
OpIndex split_ops_at_a_process(const CommTrace& trace, int threads);

// Builds process_first_op after the per-op arrays are filled in sorted order.
void index_processes(CommTrace& trace);

// Throws weft::Error describing the first broken invariant.
void validate_comm_trace(const CommTrace& trace);

// For each op, the messages it completes as a receive (CSR over ops), so that
// passes can walk from a receive to its matching sends.
struct ReceivedMessages {
  std::vector<std::int32_t> first;  // op_count + 1 entries
  std::vector<std::int32_t> message;
  // Beside each entry, its message's send op (kNoOp when it has none): the
  // passes that walk receives in op order then read the senders in sequence
  // instead of one cache miss per message into msg_send_op.
  std::vector<OpIndex> send_op;
  std::span<const std::int32_t> of(OpIndex op) const {
    return {message.data() + first[static_cast<std::size_t>(op)],
            message.data() + first[static_cast<std::size_t>(op) + 1]};
  }
  std::span<const OpIndex> senders(OpIndex op) const {
    return {send_op.data() + first[static_cast<std::size_t>(op)],
            send_op.data() + first[static_cast<std::size_t>(op) + 1]};
  }
};
ReceivedMessages index_received_messages(const CommTrace& trace);

// For each op, the collective it belongs to, or -1: a bit per op and an entry
// per member, since most ops are not collective members. An op listed by two
// collectives (a damaged trace) belongs to the later one.
class CollectiveOfOps {
 public:
  CollectiveOfOps() = default;
  explicit CollectiveOfOps(const CommTrace& trace);
  std::int32_t operator[](std::size_t op) const {
    return members_.test(op) ? collective_[static_cast<std::size_t>(members_.rank(op))] : -1;
  }
  // The latest start of the ops that belong to collective c (what its
  // members wait for); the smallest TimeNs when none does.
  TimeNs last_start(std::int32_t c) const { return last_start_[static_cast<std::size_t>(c)]; }

 private:
  RankBits members_;
  std::vector<std::int32_t> collective_;  // per member op, in op order
  std::vector<TimeNs> last_start_;        // per collective
};

}  // namespace weft::structure
