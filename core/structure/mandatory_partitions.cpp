#include "structure/mandatory_partitions.h"

#include "common/two_parts.h"
#include "structure/shared_union_find.h"

namespace weft::structure {
namespace {

void unite_ops(SharedUnionFind& sets, OpIndex a, OpIndex b) {
  if (a != kNoOp && b != kNoOp) sets.unite(a, b);
}

// Messages first .. end - 1.
void merge_messages(const CommTrace& t, std::size_t first, std::size_t end, SharedUnionFind& sets) {
  constexpr std::size_t kAhead = 16;  // messages: the receive ops are at random places
  for (std::size_t m = first; m < end; ++m) {
    if (m + kAhead < end && t.msg_recv_op[m + kAhead] != kNoOp) sets.prefetch(t.msg_recv_op[m + kAhead]);
    unite_ops(sets, t.msg_send_op[m], t.msg_recv_op[m]);
    // Waitall partitions: the request's posting op joins its completing wait.
    unite_ops(sets, t.msg_post_op[m], t.msg_recv_op[m]);
    unite_ops(sets, t.msg_send_op[m], t.msg_send_done_op[m]);
  }
}

void merge_collectives(const CommTrace& t, SharedUnionFind& sets) {
  for (std::int32_t c = 0; c < t.collective_count(); ++c) {
    auto first = t.coll_first[static_cast<std::size_t>(c)];
    auto last = t.coll_first[static_cast<std::size_t>(c) + 1];
    for (auto k = first + 1; k < last; ++k)
      sets.unite(t.coll_members[static_cast<std::size_t>(first)],
                 t.coll_members[static_cast<std::size_t>(k)]);
  }
}

void merge_user_segments(const CommTrace& t, SharedUnionFind& sets) {
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

Partitioning mandatory_partitions(const CommTrace& t, int threads) {
  SharedUnionFind sets(t.op_count());
  // The unions are split between two threads: the first half of the messages
  // on this one, the second half and the collectives on the other. The sets,
  // and so the labels, do not depend on the order of the unions.
  const std::size_t messages = t.msg_send_op.size();
  const std::size_t split = two_part_split(messages, threads);
  run_in_two_parts(split, messages, [&](int part, std::size_t first, std::size_t end) {
    merge_messages(t, first, end, sets);
    if (part == 1 || split >= messages) merge_collectives(t, sets);
  });
  if (!t.segment.empty()) merge_user_segments(t, sets);
  Partitioning parts;
  parts.of_op = std::move(sets).labels(&parts.count);
  return parts;
}

}  // namespace weft::structure
