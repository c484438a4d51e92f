#pragma once
// Pairs send and receive records into messages, and member records into
// collective instances. Both run once after all locations are decoded, over
// plain vectors sorted in place.
#include <cstdint>
#include <vector>

#include "otf2/otf2_event_decoder.h"

namespace weft::db {

// One row of the messages table (-1 / kNoTime for NULL).
struct MessageRow {
  ProcessIndex src;
  ProcessIndex dst;
  std::uint32_t comm;
  std::uint32_t tag;
  std::uint64_t bytes;
  EventId send_event;
  EventId send_done_event;
  EventId recv_post_event;
  EventId recv_event;
  TimeNs send_ns;  // kNoTime when there is no send
  TimeNs recv_ns;  // kNoTime when there is no receive
};
constexpr TimeNs kNoTime = INT64_MIN;

struct MatchedMessages {
  std::vector<MessageRow> rows;  // ordered by send time (receive time when unmatched)
  std::uint64_t unmatched_sends = 0;
  std::uint64_t unmatched_recvs = 0;
  TimeNs max_message_ns = 0;
};

// MPI's non-overtaking rule: the k-th send from src to dst on (comm, tag)
// matches the k-th receive posted at dst from src on (comm, tag). Sorts the
// inputs in place.
MatchedMessages match_messages(std::vector<SendRecord>& sends, std::vector<RecvRecord>& recvs);

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
std::vector<CollectiveRow> group_collectives(std::vector<CollectiveMemberRecord>& members);

}  // namespace weft::db
