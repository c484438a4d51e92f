#include "otf2/collective_grouping.h"

#include <algorithm>
#include <tuple>

#include "common/error.h"

namespace weft::db {

std::uint32_t CollectiveGrouper::instance_of(const CollectiveMemberRecord& m) {
  std::uint64_t key = std::uint64_t{m.comm} << 32 | static_cast<std::uint32_t>(m.owner + 1);
  if (key != last_group_key_) {
    last_group_key_ = key;
    last_group_ = &groups_[key];  // node-based map: the pointer stays valid
  }
  std::vector<std::uint32_t>& by_k = *last_group_;
  if (m.instance >= by_k.size()) by_k.resize(m.instance + 1, UINT32_MAX);
  std::uint32_t& slot = by_k[m.instance];
  if (slot == UINT32_MAX) {
    slot = static_cast<std::uint32_t>(instances_.size());
    instances_.push_back({m.comm, m.owner, m.instance});
  }
  return slot;
}

void CollectiveGrouper::add(std::span<const CollectiveMemberRecord> members) {
  if (count_ + members.size() >= UINT32_MAX)
    throw Error("more than 2^32 collective members: not supported");
  for (const CollectiveMemberRecord& m : members) {
    std::uint32_t i = instance_of(m);
    ++instances_[i].members;
    instance_of_member_.push_back(i);
  }
  for (std::size_t at = 0; at < members.size();) {
    if (chunks_.empty() || chunks_.back().size() == kChunkSize) {
      chunks_.emplace_back();
      chunks_.back().reserve(kChunkSize);
    }
    BigVector<CollectiveMemberRecord>& chunk = chunks_.back();
    const std::size_t take = std::min(members.size() - at, kChunkSize - chunk.size());
    chunk.insert(chunk.end(), members.begin() + static_cast<std::ptrdiff_t>(at),
                 members.begin() + static_cast<std::ptrdiff_t>(at + take));
    at += take;
  }
  count_ += members.size();
}

GroupedCollectives CollectiveGrouper::finish() const {
  GroupedCollectives out;
  // Each instance's members, in arrival (= process) order: a counting sort.
  std::vector<std::uint32_t> first(instances_.size() + 1, 0);
  for (std::size_t i = 0; i < instances_.size(); ++i) first[i + 1] = first[i] + instances_[i].members;
  out.member_order.resize(count_);
  std::vector<std::uint32_t> at(first.begin(), first.end() - 1);
  for (std::size_t m = 0; m < count_; ++m)
    out.member_order[at[instance_of_member_[m]]++] = static_cast<std::uint32_t>(m);

  out.rows.reserve(instances_.size());
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    const CollectiveMemberRecord& head = member(out.member_order[first[i]]);
    CollectiveRow row{head.comm, head.region, head.root, head.start_ns, head.end_ns, first[i],
                      instances_[i].members};
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k) {
      const CollectiveMemberRecord& m = member(out.member_order[k]);
      row.begin_ns = std::min(row.begin_ns, m.start_ns);
      row.end_ns = std::max(row.end_ns, m.end_ns);
      if (row.root < 0) row.root = m.root;
    }
    out.rows.push_back(row);
  }
  // Instances appear in arrival order; rows are by begin time, ties in
  // (comm, owner, instance) order, whatever order the locations came in.
  std::vector<std::uint32_t> by_begin(instances_.size());
  for (std::size_t i = 0; i < by_begin.size(); ++i) by_begin[i] = static_cast<std::uint32_t>(i);
  std::sort(by_begin.begin(), by_begin.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Instance& x = instances_[a];
    const Instance& y = instances_[b];
    return std::tie(out.rows[a].begin_ns, x.comm, x.owner, x.instance) <
           std::tie(out.rows[b].begin_ns, y.comm, y.owner, y.instance);
  });
  std::vector<CollectiveRow> sorted;
  sorted.reserve(out.rows.size());
  for (std::uint32_t i : by_begin) sorted.push_back(out.rows[i]);
  out.rows = std::move(sorted);
  return out;
}

}  // namespace weft::db
