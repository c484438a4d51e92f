#include "structure/isend_coalescing.h"

#include <algorithm>

#include "common/beside.h"
#include "common/release_memory.h"

namespace weft::structure {
namespace {

// The coalesced op of input op `op` (kNoOp stays kNoOp).
OpIndex remap(const RankBits& starts, OpIndex op) {
  return op == kNoOp ? kNoOp : starts.rank(static_cast<std::size_t>(op) + 1) - 1;
}

void remap_all(const RankBits& starts, std::vector<OpIndex>& ops) {
  for (OpIndex& op : ops) op = remap(starts, op);
}

// Whether `op` continues a run of Isends begun by the op before it.
bool extends_isend_run(const CommTrace& in, OpIndex op) {
  auto i = static_cast<std::size_t>(op);
  return op > 0 && in.kind[i] == OpKind::Isend && in.kind[i - 1] == OpKind::Isend &&
         in.process[i] == in.process[i - 1];
}

}  // namespace

RankBits isend_run_starts(const CommTrace& in, bool coalesce) {
  const auto n = static_cast<std::size_t>(in.op_count());
  RankBits starts(n);
  for (OpIndex op = 0; op < in.op_count(); ++op)
    if (!coalesce || !extends_isend_run(in, op)) starts.set(static_cast<std::size_t>(op));
  starts.count_members();
  return starts;
}

std::int32_t coalesce_isends(CommTrace& t, const RankBits& starts, int threads) {
  const std::int32_t ops = t.op_count();
  release_memory(t.event_id);
  // The references to ops are renumbered apart from the op columns: a rank
  // query per reference, at random places of `starts`.
  Beside<void> references = run_beside(threads > 1, [&] {
    remap_all(starts, t.msg_send_op);
    remap_all(starts, t.msg_recv_op);
    remap_all(starts, t.msg_post_op);
    remap_all(starts, t.msg_send_done_op);
    remap_all(starts, t.coll_members);
  });
  // Op i moves to slot o = starts.rank(i) <= i, so walking up writes only
  // slots already read. The walk counts the starts itself rather than ask
  // for a rank per op.
  std::size_t o = 0, next_slot = 0;
  for (OpIndex op = 0; op < ops; ++op) {
    auto i = static_cast<std::size_t>(op);
    if (!starts.test(i)) {  // continues the run in slot o
      t.end[o] = std::max(t.end[o], t.end[i]);
      continue;
    }
    o = next_slot++;
    t.process[o] = t.process[i];
    t.start[o] = t.start[i];
    t.end[o] = t.end[i];
    t.kind[o] = t.kind[i];
    if (!t.segment.empty()) t.segment[o] = t.segment[i];
  }
  const auto n = static_cast<std::size_t>(starts.members());
  shrink_in_place(t.process, n);
  shrink_in_place(t.start, n);
  shrink_in_place(t.end, n);
  shrink_in_place(t.kind, n);
  shrink_in_place(t.segment, n);
  // A run never crosses processes, so each process's first op starts one and
  // the ops keep their order: the process index is renumbered like an op
  // reference, one rank query per process instead of a count per op.
  for (OpIndex& first : t.process_first_op) first = starts.rank(static_cast<std::size_t>(first));
  references.get();
  return ops - static_cast<std::int32_t>(n);
}

}  // namespace weft::structure
