#include "structure/isend_coalescing.h"

#include <algorithm>

namespace weft::structure {
namespace {

OpIndex remap(const std::vector<OpIndex>& map, OpIndex op) {
  return op == kNoOp ? kNoOp : map[static_cast<std::size_t>(op)];
}

// Whether `op` continues a run of Isends begun by the op before it.
bool extends_isend_run(const CommTrace& in, OpIndex op) {
  auto i = static_cast<std::size_t>(op);
  return op > 0 && in.kind[i] == OpKind::Isend && in.kind[i - 1] == OpKind::Isend &&
         in.process[i] == in.process[i - 1];
}

}  // namespace

CoalescedTrace coalesce_isends(const CommTrace& in) {
  CoalescedTrace out;
  CommTrace& t = out.trace;
  t.process_count = in.process_count;
  // The op each input op becomes, first, so that the output arrays are
  // allocated once at their final size.
  auto& map = out.op_of_original;
  map.resize(static_cast<std::size_t>(in.op_count()));
  OpIndex last = -1;
  for (OpIndex op = 0; op < in.op_count(); ++op) {
    if (!extends_isend_run(in, op)) ++last;
    map[static_cast<std::size_t>(op)] = last;
  }
  const auto n = static_cast<std::size_t>(last + 1);
  out.coalesced_ops = in.op_count() - (last + 1);
  t.process.resize(n);
  t.start.resize(n);
  t.end.resize(n);
  t.kind.resize(n);
  if (!in.segment.empty()) t.segment.resize(n);
  for (OpIndex op = 0; op < in.op_count(); ++op) {
    auto i = static_cast<std::size_t>(op);
    auto o = static_cast<std::size_t>(map[i]);
    if (extends_isend_run(in, op)) {
      t.end[o] = std::max(t.end[o], in.end[i]);
      continue;
    }
    t.process[o] = in.process[i];
    t.start[o] = in.start[i];
    t.end[o] = in.end[i];
    t.kind[o] = in.kind[i];
    if (!in.segment.empty()) t.segment[o] = in.segment[i];
  }
  index_processes(t);
  const std::size_t messages = in.msg_send_op.size();
  t.msg_send_op.resize(messages);
  t.msg_recv_op.resize(messages);
  t.msg_post_op.resize(messages);
  t.msg_send_done_op.resize(messages);
  for (std::size_t m = 0; m < messages; ++m) {
    t.msg_send_op[m] = remap(map, in.msg_send_op[m]);
    t.msg_recv_op[m] = remap(map, in.msg_recv_op[m]);
    t.msg_post_op[m] = remap(map, in.msg_post_op[m]);
    t.msg_send_done_op[m] = remap(map, in.msg_send_done_op[m]);
  }
  t.coll_first = in.coll_first;
  t.coll_members.resize(in.coll_members.size());
  for (std::size_t k = 0; k < in.coll_members.size(); ++k) t.coll_members[k] = remap(map, in.coll_members[k]);
  return out;
}

}  // namespace weft::structure
