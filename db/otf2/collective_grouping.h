#pragma once
// Groups collective member records into collective instances: the k-th
// collective on a communicator at each member is one instance (per process on
// self-like communicators, whose records carry the process as owner).
//
// Members are assigned to their instance as locations are committed (by the
// importer's workers, during decoding); after the last location only
// a counting pass orders them. Sorting all member records after decoding
// was a serial tail of ~0.1 s at 4,096 processes.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/huge_page_allocator.h"
#include "otf2/otf2_event_decoder.h"

namespace weft::db {

struct CollectiveRow {
  std::uint32_t comm;
  std::uint32_t region;  // the region of the instance's first member
  ProcessIndex root;     // the first root a member names, -1: none
  TimeNs begin_ns;
  TimeNs end_ns;
  std::uint32_t first_member;  // index into GroupedCollectives::member_order
  std::uint32_t members;
};

struct GroupedCollectives {
  std::vector<CollectiveRow> rows;  // by begin time, then (comm, owner, instance)
  // Indices into the added members: each row's members, by process.
  std::vector<std::uint32_t> member_order;
};

class CollectiveGrouper {
 public:
  // The members of one location; locations in process order.
  void add(std::span<const CollectiveMemberRecord> members);
  GroupedCollectives finish() const;
  // Member i of all added, in arrival order (GroupedCollectives::member_order).
  const CollectiveMemberRecord& member(std::uint32_t i) const {
    return chunks_[i / kChunkSize][i % kChunkSize];
  }
  std::size_t member_count() const { return count_; }

 private:
  struct Instance {
    std::uint32_t comm;
    ProcessIndex owner;
    std::uint64_t instance;
    std::uint32_t members = 0;
  };
  std::uint32_t instance_of(const CollectiveMemberRecord& m);

  // Members in chunks of a fixed size, so that adding never moves the ones
  // stored: a vector copied every member again at each doubling (5% of a
  // 1,024-process import's CPU time, with the page faults of each new copy).
  // 6 MiB: whole 2 MiB pages (HugePageAllocator), none half used.
  static constexpr std::size_t kChunkSize = (std::size_t{6} << 20) / sizeof(CollectiveMemberRecord);
  std::vector<BigVector<CollectiveMemberRecord>> chunks_;
  std::size_t count_ = 0;
  std::vector<std::uint32_t> instance_of_member_;
  std::vector<Instance> instances_;
  // Instances of each (comm, owner), by k. Codes use a few communicators, so
  // the last group looked up is remembered.
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> groups_;
  std::uint64_t last_group_key_ = ~std::uint64_t{0};
  std::vector<std::uint32_t>* last_group_ = nullptr;
};

}  // namespace weft::db
