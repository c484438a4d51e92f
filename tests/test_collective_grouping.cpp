// The importer's collective grouping (db/otf2/collective_grouping.h): the k-th
// collective on a communicator at each member is one instance. Members are
// kept in fixed-size chunks; a location's members may straddle two of them.
#include <gtest/gtest.h>

#include <vector>

#include "otf2/collective_grouping.h"

using namespace weft;
using namespace weft::db;

TEST(CollectiveGrouping, ManyMembersAcrossChunksKeepTheirInstancesAndOrder) {
  constexpr int kProcesses = 3;
  constexpr std::uint64_t kInstances = 50000;  // 150,000 members: more than one chunk
  CollectiveGrouper grouper;
  for (ProcessIndex p = 0; p < kProcesses; ++p) {
    std::vector<CollectiveMemberRecord> members;
    for (std::uint64_t k = 0; k < kInstances; ++k) {
      const auto t = static_cast<TimeNs>(1000 * k);
      members.push_back({1, -1, k, p, 7, -1, static_cast<EventId>(p * 1000000 + static_cast<EventId>(k)),
                         t + p, t + 10 * p + 5, static_cast<std::uint64_t>(p), 0});
    }
    grouper.add(members);
  }
  ASSERT_EQ(grouper.member_count(), kProcesses * kInstances);
  for (std::uint32_t i = 0; i < grouper.member_count(); ++i) {
    const CollectiveMemberRecord& m = grouper.member(i);
    ASSERT_EQ(m.process, static_cast<ProcessIndex>(i / kInstances)) << i;
    ASSERT_EQ(m.instance, i % kInstances) << i;
  }
  const GroupedCollectives g = grouper.finish();
  ASSERT_EQ(g.rows.size(), kInstances);
  for (std::uint64_t k = 0; k < kInstances; ++k) {
    const CollectiveRow& row = g.rows[k];  // by begin time: instance k begins at 1000 k
    ASSERT_EQ(row.members, 3u) << k;
    EXPECT_EQ(row.begin_ns, static_cast<TimeNs>(1000 * k)) << k;
    EXPECT_EQ(row.end_ns, static_cast<TimeNs>(1000 * k + 25)) << k;
    for (std::uint32_t j = 0; j < row.members; ++j) {
      const CollectiveMemberRecord& m = grouper.member(g.member_order[row.first_member + j]);
      EXPECT_EQ(m.process, static_cast<ProcessIndex>(j)) << k;  // by process
      EXPECT_EQ(m.instance, k);
    }
  }
}
