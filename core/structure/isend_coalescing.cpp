#include "structure/isend_coalescing.h"

namespace weft::structure {
namespace {

OpIndex remap(const std::vector<OpIndex>& map, OpIndex op) {
  return op == kNoOp ? kNoOp : map[static_cast<std::size_t>(op)];
}

}  // namespace

CoalescedTrace coalesce_isends(const CommTrace& in) {
  CoalescedTrace out;
  CommTrace& t = out.trace;
  t.process_count = in.process_count;
  out.op_of_original.resize(static_cast<std::size_t>(in.op_count()));
  for (OpIndex op = 0; op < in.op_count(); ++op) {
    auto i = static_cast<std::size_t>(op);
    bool extends_run = op > 0 && in.kind[i] == OpKind::Isend && in.kind[i - 1] == OpKind::Isend &&
                       in.process[i] == in.process[i - 1];
    if (extends_run) {
      t.end.back() = std::max(t.end.back(), in.end[i]);
      ++out.coalesced_ops;
    } else {
      t.process.push_back(in.process[i]);
      t.start.push_back(in.start[i]);
      t.end.push_back(in.end[i]);
      t.kind.push_back(in.kind[i]);
      t.event_id.push_back(in.event_id[i]);
      if (!in.segment.empty()) t.segment.push_back(in.segment[i]);
    }
    out.op_of_original[i] = t.op_count() - 1;
  }
  index_processes(t);
  const auto& map = out.op_of_original;
  t.msg_send_op.reserve(in.msg_send_op.size());
  for (std::size_t m = 0; m < in.msg_send_op.size(); ++m) {
    t.msg_send_op.push_back(remap(map, in.msg_send_op[m]));
    t.msg_recv_op.push_back(remap(map, in.msg_recv_op[m]));
    t.msg_post_op.push_back(remap(map, in.msg_post_op[m]));
    t.msg_send_done_op.push_back(remap(map, in.msg_send_done_op[m]));
  }
  t.coll_first = in.coll_first;
  t.coll_members.reserve(in.coll_members.size());
  for (OpIndex op : in.coll_members) t.coll_members.push_back(remap(map, op));
  return out;
}

}  // namespace weft::structure
