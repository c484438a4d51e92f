#pragma once
// Pairs send and receive records into messages while the locations are still
// being decoded.
//
// MPI's non-overtaking rule: the k-th send from rank src to rank dst on
// (comm, tag) matches the k-th receive posted at dst from src on (comm, tag).
// So the messages of a sending rank can be matched as soon as that rank and
// every rank it sends to are decoded; a receive whose sender never sent to
// its rank stays receive-only whenever it arrives. Locations are decoded in
// process order, so for neighbour exchanges a rank is matched a few hundred
// ranks after it was decoded, and only that window of records is held in
// memory (in small per-rank vectors that stay cache-resident) instead of
// every record of the trace.
//
// Message ids (docs/schema.md): every send in decoding order (by sending
// process, then time), then the receive-only messages by receiving process
// and receive time. The matcher numbers sends as they arrive, so ids do not
// depend on the order in which ranks become ready.
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <tuple>
#include <vector>

#include "otf2/otf2_event_decoder.h"
#include "store/records.h"

namespace weft::db {

// Takes the messages of one owner (message_owner()), ids ascending.
using MessageOwnerSink = std::function<void(std::int64_t owner, std::span<MessageRecord>)>;

class MessageMatcher {
 public:
  // `rank_process`: ProcessLayout::rank_process. Only the processes
  // first .. first+count-1 will be added, in that order.
  MessageMatcher(std::span<const ProcessIndex> rank_process, std::size_t first, std::size_t count,
                 MessageOwnerSink sink);

  // The records of the next process. Hands every rank that became ready to
  // the sink before returning.
  void add_process(ProcessIndex process, std::span<const SendRecord> sends,
                   std::span<const RecvRecord> recvs);
  // After the last process: matches the ranks still waiting (those with a
  // process outside the imported range), then hands the receive-only
  // messages, grouped by receiving process in receive-time order.
  void finish();

  std::uint64_t messages() const { return sends_seen_ + unmatched_recvs_; }
  std::uint64_t unmatched_sends() const { return unmatched_sends_; }
  std::uint64_t unmatched_recvs() const { return unmatched_recvs_; }
  TimeNs max_message_ns() const { return max_message_ns_; }

 private:
  struct IdentifiedSend {
    SendRecord send;
    std::int64_t id;  // message id
  };
  // The records of one sending rank that wait for their partners.
  struct PendingRank {
    std::vector<IdentifiedSend> sends;   // its processes' sends, in decoding order
    std::vector<RecvRecord> recvs_from;  // receives naming this rank as sender
    bool matched = false;
  };
  // One side of a channel, for the per-rank sort: (receiver, comm, tag, MPI order).
  struct ChannelEntry {
    ProcessIndex dst_rank;
    std::uint32_t comm;
    std::uint32_t tag;
    std::uint64_t order;
    std::uint32_t index;
    friend bool operator<(const ChannelEntry& a, const ChannelEntry& b) {
      return std::tie(a.dst_rank, a.comm, a.tag, a.order) <
             std::tie(b.dst_rank, b.comm, b.tag, b.order);
    }
  };
  // Vectors of matched ranks, kept for the next ranks: a rank's records are
  // gone once matched, and recycling their memory spares the allocator (and
  // the kernel's page faults) tens of thousands of allocations.
  template <class T>
  struct Spare {
    std::vector<std::vector<T>> vectors;
    void give(std::vector<T>& v);
    void prepare(std::vector<T>& v);  // before appending to a possibly empty v
  };

  void rank_complete(ProcessIndex rank, ProcessIndex process);
  void match_rank(ProcessIndex rank);
  // Sorts by (dst_rank, comm, tag, order), as std::sort would.
  void sort_by_channel(std::vector<ChannelEntry>& entries);
  void emit_sends(const PendingRank& pending, std::span<const std::int64_t> recv_of_send);

  std::span<const ProcessIndex> rank_process_;
  MessageOwnerSink sink_;
  // The last imported process of each rank (-1: none): a rank is complete
  // once that process is added.
  std::vector<ProcessIndex> last_process_of_rank_;
  std::vector<PendingRank> ranks_;  // by rank process
  // Complete ranks by the last process they wait for (smallest first).
  using Waiting = std::pair<ProcessIndex, ProcessIndex>;  // (ready after, rank)
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> waiting_;
  std::vector<RecvRecord> receive_only_;
  Spare<IdentifiedSend> spare_sends_;
  Spare<RecvRecord> spare_recvs_;

  // Scratch for match_rank and the sink.
  std::vector<ChannelEntry> send_channels_, recv_channels_;
  std::vector<ChannelEntry> channel_keys_, sorted_;  // sort_by_channel's
  std::vector<std::uint8_t> channel_of_, channel_rank_;
  std::vector<std::uint32_t> channel_first_;
  std::vector<std::int64_t> recv_of_send_;
  std::vector<std::uint8_t> recv_matched_;
  std::vector<MessageRecord> run_;

  std::uint64_t sends_seen_ = 0;
  std::uint64_t unmatched_sends_ = 0;
  std::uint64_t unmatched_recvs_ = 0;
  TimeNs max_message_ns_ = 0;
};

}  // namespace weft::db
