#include "otf2/collective_grouping.h"

#include <algorithm>
#include <tuple>

namespace weft::db {

std::vector<CollectiveRow> group_collectives(BigVector<CollectiveMemberRecord>& members) {
  auto key = [](const CollectiveMemberRecord& m) {
    return std::make_tuple(m.comm, m.owner, m.instance, m.process);
  };
  std::sort(members.begin(), members.end(),
            [&](const CollectiveMemberRecord& a, const CollectiveMemberRecord& b) {
              return key(a) < key(b);
            });
  std::vector<CollectiveRow> rows;
  for (size_t i = 0; i < members.size();) {
    const CollectiveMemberRecord& first = members[i];
    CollectiveRow row{first.comm, first.region, first.root, first.start_ns, first.end_ns,
                      static_cast<std::uint32_t>(i), 0};
    size_t j = i;
    for (; j < members.size() && members[j].comm == first.comm && members[j].owner == first.owner &&
           members[j].instance == first.instance;
         ++j) {
      row.begin_ns = std::min(row.begin_ns, members[j].start_ns);
      row.end_ns = std::max(row.end_ns, members[j].end_ns);
      if (row.root < 0) row.root = members[j].root;
    }
    row.members = static_cast<std::uint32_t>(j - i);
    rows.push_back(row);
    i = j;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const CollectiveRow& a, const CollectiveRow& b) {
    return a.begin_ns < b.begin_ns;
  });
  return rows;
}

}  // namespace weft::db
