#pragma once
// Pairs send and receive records into messages, and member records into
// collective instances. Both run once after all locations are decoded, over
// plain vectors sorted in place.
#include <cstdint>
#include <vector>

#include "otf2/otf2_event_decoder.h"

namespace weft::db {

#include <functional>
#include <span>

struct MatchedMessages {
  // recv_of_send[i]: index in `recvs` of the receive that matches send i, or -1.
  BigVector<std::int64_t> recv_of_send;
  // Indices of the receives that match no send.
  std::vector<std::int64_t> receive_only;
  std::uint64_t unmatched_sends = 0;
  std::uint64_t unmatched_recvs = 0;
  TimeNs max_message_ns = 0;
  std::uint64_t count() const { return recv_of_send.size() + receive_only.size(); }
};

// MPI's non-overtaking rule: the k-th send from src to dst on (comm, tag)
// matches the k-th receive posted at dst from src on (comm, tag). The records
// are bucketed by sending rank first (a counting sort), so every sort is
// small and cache-resident; the inputs are not reordered.
MatchedMessages match_messages(const BigVector<SendRecord>& sends,
                               const BigVector<RecvRecord>& recvs);

// Hands the messages to `sink` owner by owner (docs/schema.md: the sender,
// or the receiver of a receive-only message), each owner's messages in time
// order. Message ids are positions in that order: every send in `sends` order
// (by sending process, then send time), then the receive-only messages by
// receiving process and receive time.
using MessageOwnerSink = std::function<void(std::int64_t owner, std::span<MessageRecord>)>;
void for_each_owner_messages(const BigVector<SendRecord>& sends, const BigVector<RecvRecord>& recvs,
                             const MatchedMessages& matched, const MessageOwnerSink& sink);

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
