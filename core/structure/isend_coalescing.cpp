#include "structure/isend_coalescing.h"

#include <algorithm>
#include "common/release_memory.h"


namespace weft::structure {
namespace {

OpIndex remap(const std::vector<OpIndex>& map, OpIndex op) {
  return op == kNoOp ? kNoOp : map[static_cast<std::size_t>(op)];
}

void remap_all(const std::vector<OpIndex>& map, std::vector<OpIndex>& ops) {
  for (OpIndex& op : ops) op = remap(map, op);
}

// Whether `op` continues a run of Isends begun by the op before it.
bool extends_isend_run(const CommTrace& in, OpIndex op) {
  auto i = static_cast<std::size_t>(op);
  return op > 0 && in.kind[i] == OpKind::Isend && in.kind[i - 1] == OpKind::Isend &&
         in.process[i] == in.process[i - 1];
}

}  // namespace

std::vector<OpIndex> isend_coalescing_map(const CommTrace& in) {
  std::vector<OpIndex> map(static_cast<std::size_t>(in.op_count()));
  OpIndex last = -1;
  for (OpIndex op = 0; op < in.op_count(); ++op) {
    if (!extends_isend_run(in, op)) ++last;
    map[static_cast<std::size_t>(op)] = last;
  }
  return map;
}

std::int32_t coalesce_isends(CommTrace& t, const std::vector<OpIndex>& map) {
  const std::int32_t ops = t.op_count();
  release_memory(t.event_id);
  // Op i moves to map[i] <= i, so walking up writes only slots already read.
  for (OpIndex op = 0; op < ops; ++op) {
    auto i = static_cast<std::size_t>(op);
    auto o = static_cast<std::size_t>(map[i]);
    if (op > 0 && map[i] == map[i - 1]) {
      t.end[o] = std::max(t.end[o], t.end[i]);
      continue;
    }
    t.process[o] = t.process[i];
    t.start[o] = t.start[i];
    t.end[o] = t.end[i];
    t.kind[o] = t.kind[i];
    if (!t.segment.empty()) t.segment[o] = t.segment[i];
  }
  const auto n = static_cast<std::size_t>(ops > 0 ? map.back() + 1 : 0);
  shrink_in_place(t.process, n);
  shrink_in_place(t.start, n);
  shrink_in_place(t.end, n);
  shrink_in_place(t.kind, n);
  shrink_in_place(t.segment, n);
  index_processes(t);
  remap_all(map, t.msg_send_op);
  remap_all(map, t.msg_recv_op);
  remap_all(map, t.msg_post_op);
  remap_all(map, t.msg_send_done_op);
  remap_all(map, t.coll_members);
  return ops - static_cast<std::int32_t>(n);
}

}  // namespace weft::structure
