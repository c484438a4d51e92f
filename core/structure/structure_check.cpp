#include "structure/structure_check.h"

#include <algorithm>
#include <tuple>

#include "structure/partition_graph.h"

namespace weft::structure {
namespace {

std::int64_t count_late_messages(const CommTrace& t, const std::vector<std::int64_t>& step) {
  std::int64_t bad = 0;
  for (std::int32_t m = 0; m < t.message_count(); ++m) {
    OpIndex s = t.msg_send_op[static_cast<std::size_t>(m)];
    OpIndex r = t.msg_recv_op[static_cast<std::size_t>(m)];
    if (s != kNoOp && r != kNoOp && step[static_cast<std::size_t>(s)] >= step[static_cast<std::size_t>(r)]) ++bad;
  }
  return bad;
}

std::int64_t count_non_increasing(const CommTrace& t, const std::vector<std::int64_t>& step) {
  std::int64_t bad = 0;
  for (OpIndex op = 1; op < t.op_count(); ++op) {
    auto i = static_cast<std::size_t>(op);
    if (t.process[i] != t.process[i - 1]) continue;
    bool coalesced = t.kind[i] == OpKind::Isend && t.kind[i - 1] == OpKind::Isend && step[i] == step[i - 1];
    if (step[i] <= step[i - 1] && !coalesced) ++bad;
  }
  return bad;
}

std::int64_t count_split_collectives(const CommTrace& t, const std::vector<std::int64_t>& step) {
  std::int64_t bad = 0;
  for (std::int32_t c = 0; c < t.collective_count(); ++c) {
    auto first = t.coll_first[static_cast<std::size_t>(c)];
    auto last = t.coll_first[static_cast<std::size_t>(c) + 1];
    for (auto k = first + 1; k < last; ++k)
      if (step[static_cast<std::size_t>(t.coll_members[static_cast<std::size_t>(k)])] !=
          step[static_cast<std::size_t>(t.coll_members[static_cast<std::size_t>(first)])]) {
        ++bad;
        break;
      }
  }
  return bad;
}

// The groups whose least lateness is not 0, by sorting (partition, step,
// lateness) triples: the first of each group is its least.
std::int64_t count_groups_without_zero_by_triples(const std::vector<std::int32_t>& partition,
                                                  const std::vector<std::int64_t>& step,
                                                  const std::vector<TimeNs>& lateness) {
  std::vector<std::tuple<std::int32_t, std::int64_t, TimeNs>> rows;
  rows.reserve(partition.size());
  for (std::size_t i = 0; i < partition.size(); ++i) rows.emplace_back(partition[i], step[i], lateness[i]);
  std::sort(rows.begin(), rows.end());
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    bool group_start = i == 0 || std::get<0>(rows[i]) != std::get<0>(rows[i - 1]) ||
                       std::get<1>(rows[i]) != std::get<1>(rows[i - 1]);
    if (group_start && std::get<2>(rows[i]) != 0) ++bad;  // sorted: the first is the minimum
  }
  return bad;
}

// The same with one 64-bit key per op: the group's number (partition-major:
// partition x (largest step + 1) + step) and the class of the op's lateness
// (negative, zero, positive) in its two low bits, so that sorted, a group's
// first key holds its least class, and the group passes when that is zero.
// A third of the triples' memory (8 bytes per op instead of 24) and a faster
// sort: at 32.6M ops `weft check` held 103 bytes per op. A damaged file whose
// numbers do not fit in the key (a negative or huge step or partition) is
// counted by triples.
std::int64_t count_groups_without_zero(const std::vector<std::int32_t>& partition,
                                       const std::vector<std::int64_t>& step,
                                       const std::vector<TimeNs>& lateness) {
  if (partition.empty()) return 0;
  const auto [min_part, max_part] = std::minmax_element(partition.begin(), partition.end());
  const auto [min_step, max_step] = std::minmax_element(step.begin(), step.end());
  constexpr std::int64_t kLimit = std::int64_t{1} << 60;  // groups x 4 classes stay under 2^62
  const std::int64_t steps = *max_step + 1;
  if (*min_part < 0 || *min_step < 0 || steps >= kLimit / (std::int64_t{*max_part} + 1))
    return count_groups_without_zero_by_triples(partition, step, lateness);
  std::vector<std::uint64_t> keys(partition.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto group = static_cast<std::uint64_t>(std::int64_t{partition[i]} * steps + step[i]);
    const std::uint64_t lateness_class = lateness[i] < 0 ? 0 : lateness[i] == 0 ? 1 : 2;
    keys[i] = group << 2 | lateness_class;
  }
  std::sort(keys.begin(), keys.end());
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if ((i == 0 || keys[i] >> 2 != keys[i - 1] >> 2) && (keys[i] & 3) != 1) ++bad;
  return bad;
}

std::int64_t count_cycle_partitions(const CommTrace& t, const std::vector<std::int32_t>& partition) {
  std::vector<std::int32_t> ids(partition);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  Partitioning parts;
  parts.count = static_cast<std::int32_t>(ids.size());
  parts.of_op.reserve(partition.size());
  for (std::int32_t p : partition)
    parts.of_op.push_back(static_cast<std::int32_t>(std::lower_bound(ids.begin(), ids.end(), p) - ids.begin()));
  return merge_strongly_connected(t, parts);
}

}  // namespace

CheckResult check_structure(const CommTrace& t, const std::vector<std::int32_t>& partition,
                            const std::vector<std::int64_t>& step, const std::vector<TimeNs>& lateness) {
  CheckResult r;
  r.ops_without_structure = std::count(partition.begin(), partition.end(), -1);
  if (r.ops_without_structure > 0) return r;
  r.send_not_before_receive = count_late_messages(t, step);
  r.steps_not_increasing = count_non_increasing(t, step);
  r.collectives_split = count_split_collectives(t, step);
  r.groups_without_zero_lateness = count_groups_without_zero(partition, step, lateness);
  r.partitions_in_cycles = count_cycle_partitions(t, partition);
  return r;
}

}  // namespace weft::structure
