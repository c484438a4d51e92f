#include "structure/mandatory_partitions.h"

#include "structure/union_find.h"

namespace weft::structure {
namespace {

void unite_ops(UnionFind& sets, OpIndex a, OpIndex b) {
  if (a != kNoOp && b != kNoOp) sets.unite(a, b);
}

void merge_messages(const CommTrace& t, UnionFind& sets) {
  constexpr std::size_t kAhead = 16;  // messages: the receive ops are at random places
  for (std::size_t m = 0; m < t.msg_send_op.size(); ++m) {
    if (m + kAhead < t.msg_send_op.size() && t.msg_recv_op[m + kAhead] != kNoOp)
      sets.prefetch(t.msg_recv_op[m + kAhead]);
    unite_ops(sets, t.msg_send_op[m], t.msg_recv_op[m]);
    // Waitall partitions: the request's posting op joins its completing wait.
    unite_ops(sets, t.msg_post_op[m], t.msg_recv_op[m]);
    unite_ops(sets, t.msg_send_op[m], t.msg_send_done_op[m]);
  }
}

void merge_collectives(const CommTrace& t, UnionFind& sets) {
  for (std::int32_t c = 0; c < t.collective_count(); ++c) {
    auto first = t.coll_first[static_cast<std::size_t>(c)];
    auto last = t.coll_first[static_cast<std::size_t>(c) + 1];
    for (auto k = first + 1; k < last; ++k)
      sets.unite(t.coll_members[static_cast<std::size_t>(first)],
                 t.coll_members[static_cast<std::size_t>(k)]);
  }
}

void merge_user_segments(const CommTrace& t, UnionFind& sets) {
  std::vector<OpIndex> first_of_segment;
  for (OpIndex op = 0; op < t.op_count(); ++op) {
    auto s = static_cast<std::size_t>(t.segment[static_cast<std::size_t>(op)]);
    if (s >= first_of_segment.size()) first_of_segment.resize(s + 1, kNoOp);
    if (first_of_segment[s] == kNoOp)
      first_of_segment[s] = op;
    else
      sets.unite(first_of_segment[s], op);
  }
}

}  // namespace

Partitioning mandatory_partitions(const CommTrace& t) {
  UnionFind sets(t.op_count());
  merge_messages(t, sets);
  merge_collectives(t, sets);
  if (!t.segment.empty()) merge_user_segments(t, sets);
  Partitioning parts;
  parts.of_op = std::move(sets).labels(&parts.count);
  return parts;
}

}  // namespace weft::structure
