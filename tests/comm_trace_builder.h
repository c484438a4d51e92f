#pragma once
// Hand-built communication traces for the structure tests.
#include <initializer_list>
#include <vector>

#include "structure/comm_trace.h"

namespace weft::structure {

// Ops must be added per process in time order, processes in increasing order.
class TraceBuilder {
 public:
  explicit TraceBuilder(std::int32_t processes) { t_.process_count = processes; }
  // `event`: the op's event id; by default the op's index.
  OpIndex op(ProcessIndex p, TimeNs start, TimeNs end, OpKind kind, StoredEventId event = -1) {
    t_.process.push_back(p);
    t_.start.push_back(start);
    t_.end.push_back(end);
    t_.kind.push_back(kind);
    t_.event_id.push_back(event >= 0 ? event : t_.op_count() - 1);
    return t_.op_count() - 1;
  }
  void message(OpIndex send, OpIndex recv, OpIndex post = kNoOp, OpIndex send_done = kNoOp) {
    t_.msg_send_op.push_back(send);
    t_.msg_recv_op.push_back(recv);
    t_.msg_post_op.push_back(post);
    t_.msg_send_done_op.push_back(send_done);
  }
  void collective(std::initializer_list<OpIndex> members) { add_collective(members); }
  void collective(const std::vector<OpIndex>& members) { add_collective(members); }
  CommTrace build() {
    index_processes(t_);
    return t_;
  }

 private:
  template <class Members>
  void add_collective(const Members& members) {
    for (OpIndex m : members) t_.coll_members.push_back(m);
    t_.coll_first.push_back(static_cast<std::int32_t>(t_.coll_members.size()));
  }

  CommTrace t_;
};

}  // namespace weft::structure
