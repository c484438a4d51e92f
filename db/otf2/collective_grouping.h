#pragma once
// Groups collective member records into collective instances, once after all
// locations are decoded.
#include <cstdint>
#include <vector>

#include "otf2/huge_page_allocator.h"
#include "otf2/otf2_event_decoder.h"

namespace weft::db {

struct CollectiveRow {
  std::uint32_t comm;
  std::uint32_t region;
  ProcessIndex root;
  TimeNs begin_ns;
  TimeNs end_ns;
  std::uint32_t first_member;  // index into the sorted member records
  std::uint32_t members;
};

// Groups member records into instances (the k-th collective on a comm at each
// member; per process on self-like comms). Sorts `members` so that each
// instance's members are contiguous; rows are ordered by begin time.
std::vector<CollectiveRow> group_collectives(BigVector<CollectiveMemberRecord>& members);

}  // namespace weft::db
