#include "otf2/message_matching.h"

#include <algorithm>
#include <tuple>

#include "common/error.h"

namespace weft::db {
namespace {

MessageRecord from_send(const SendRecord& s, std::int64_t id) {
  return {id, s.src, s.dst_rank < 0 ? kNullRef : s.dst_rank, s.comm, s.tag,
          static_cast<std::int64_t>(s.bytes), s.send_event,
          s.send_done_event < 0 ? kNullRef : s.send_done_event, kNullRef, kNullRef,
          s.send_ns, 0, true, false};
}

MessageRecord from_recv(const RecvRecord& r, std::int64_t id) {
  return {id, r.src_rank < 0 ? kNullRef : r.src_rank, r.dst, r.comm, r.tag,
          static_cast<std::int64_t>(r.bytes), kNullRef, kNullRef,
          r.recv_post_event < 0 ? kNullRef : r.recv_post_event,
          r.recv_event < 0 ? kNullRef : r.recv_event, 0, r.recv_ns, false, true};
}

// The receiving side completes a matched send's message.
void add_receive(MessageRecord& m, const RecvRecord& recv) {
  m.dst = recv.dst;
  m.recv_post_event = recv.recv_post_event < 0 ? kNullRef : recv.recv_post_event;
  m.recv_event = recv.recv_event < 0 ? kNullRef : recv.recv_event;
  m.recv_ns = recv.recv_ns;
  m.has_recv_ns = true;
}

// Hands the messages make(i) builds from `records` to `sink`, one call per
// owner; the records come grouped by owner.
template <class Records, class Owner, class Make>
void emit_by_owner(const Records& records, Owner owner_of, Make make,
                   std::vector<MessageRecord>& run, const MessageOwnerSink& sink) {
  for (std::size_t i = 0; i < records.size();) {
    std::int64_t owner = owner_of(records[i]);
    run.clear();
    for (; i < records.size() && owner_of(records[i]) == owner; ++i) run.push_back(make(i));
    sink(owner, run);
  }
}

}  // namespace

// A rank's sends and the receives from it use a few channels (a stencil rank:
// its neighbours), and each channel's entries come in MPI order already (a
// rank's sends always; its receives when each receiving rank is one
// process). Then a counting sort by channel gives std::sort's order in linear
// time; otherwise (many channels, or an entry out of order) std::sort does.
void MessageMatcher::sort_by_channel(std::vector<ChannelEntry>& entries) {
  constexpr std::size_t kMaxChannels = 64;
  channel_keys_.clear();
  channel_of_.resize(entries.size());
  std::size_t last = 0;
  bool grouped = true;
  for (std::size_t i = 0; i < entries.size() && grouped; ++i) {
    const ChannelEntry& e = entries[i];
    auto same = [&](const ChannelEntry& k) { return k.dst_rank == e.dst_rank && k.comm == e.comm && k.tag == e.tag; };
    if (channel_keys_.empty() || !same(channel_keys_[last])) {
      last = 0;
      while (last < channel_keys_.size() && !same(channel_keys_[last])) ++last;
      if (last == channel_keys_.size()) {
        if (channel_keys_.size() == kMaxChannels) {
          grouped = false;
          break;
        }
        channel_keys_.push_back(e);  // its `order` is the last seen, its `index` the count
        channel_keys_.back().index = 0;
      } else if (e.order <= channel_keys_[last].order) {
        grouped = false;
        break;
      }
    } else if (e.order <= channel_keys_[last].order) {
      grouped = false;
      break;
    }
    channel_keys_[last].order = e.order;
    ++channel_keys_[last].index;
    channel_of_[i] = static_cast<std::uint8_t>(last);
  }
  if (!grouped) {
    std::sort(entries.begin(), entries.end());
    return;
  }
  // Channels in key order; each one's first slot.
  channel_rank_.resize(channel_keys_.size());
  for (std::size_t c = 0; c < channel_rank_.size(); ++c) channel_rank_[c] = static_cast<std::uint8_t>(c);
  std::sort(channel_rank_.begin(), channel_rank_.end(), [&](std::uint8_t a, std::uint8_t b) {
    const ChannelEntry& x = channel_keys_[a];
    const ChannelEntry& y = channel_keys_[b];
    return std::tie(x.dst_rank, x.comm, x.tag) < std::tie(y.dst_rank, y.comm, y.tag);
  });
  channel_first_.resize(channel_keys_.size());
  std::uint32_t at = 0;
  for (std::uint8_t c : channel_rank_) {
    channel_first_[c] = at;
    at += channel_keys_[c].index;
  }
  sorted_.resize(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) sorted_[channel_first_[channel_of_[i]]++] = entries[i];
  entries.swap(sorted_);
}

template <class T>
void MessageMatcher::Spare<T>::give(std::vector<T>& v) {
  if (v.capacity() == 0) return;
  v.clear();
  vectors.push_back(std::move(v));
  v = {};
}

template <class T>
void MessageMatcher::Spare<T>::prepare(std::vector<T>& v) {
  if (v.capacity() != 0 || vectors.empty()) return;
  v = std::move(vectors.back());
  vectors.pop_back();
}

MessageMatcher::MessageMatcher(std::span<const ProcessIndex> rank_process, std::size_t first,
                               std::size_t count, MessageOwnerSink sink)
    : rank_process_(rank_process),
      sink_(std::move(sink)),
      last_process_of_rank_(rank_process.size(), -1),
      ranks_(rank_process.size()) {
  for (std::size_t p = first; p < first + count; ++p)
    last_process_of_rank_[static_cast<std::size_t>(rank_process[p])] = static_cast<ProcessIndex>(p);
}

void MessageMatcher::add_process(ProcessIndex process, std::span<const SendRecord> sends,
                                 std::span<const RecvRecord> recvs) {
  const ProcessIndex rank = rank_process_[static_cast<std::size_t>(process)];
  PendingRank& own = ranks_[static_cast<std::size_t>(rank)];
  if (!sends.empty()) spare_sends_.prepare(own.sends);
  for (const SendRecord& s : sends) own.sends.push_back({s, static_cast<std::int64_t>(sends_seen_++)});

  for (const RecvRecord& r : recvs) {
    // No sender, or the sender was matched already: it never sent to this
    // rank (it was matched only after all its receivers were complete).
    if (r.src_rank < 0 || ranks_[static_cast<std::size_t>(r.src_rank)].matched) {
      receive_only_.push_back(r);
      continue;
    }
    std::vector<RecvRecord>& from = ranks_[static_cast<std::size_t>(r.src_rank)].recvs_from;
    spare_recvs_.prepare(from);
    from.push_back(r);
  }

  if (last_process_of_rank_[static_cast<std::size_t>(rank)] == process) rank_complete(rank, process);
  while (!waiting_.empty() && waiting_.top().first <= process) {
    ProcessIndex ready = waiting_.top().second;
    waiting_.pop();
    match_rank(ready);
  }
}

// A rank's own sends are all known: it waits for the last of its receivers.
void MessageMatcher::rank_complete(ProcessIndex rank, ProcessIndex process) {
  ProcessIndex ready_after = process;
  for (const IdentifiedSend& s : ranks_[static_cast<std::size_t>(rank)].sends)
    if (s.send.dst_rank >= 0)
      ready_after =
          std::max(ready_after, last_process_of_rank_[static_cast<std::size_t>(s.send.dst_rank)]);
  waiting_.push({ready_after, rank});
}

void MessageMatcher::match_rank(ProcessIndex rank) {
  PendingRank& pending = ranks_[static_cast<std::size_t>(rank)];
  pending.matched = true;
  if (pending.sends.size() >= UINT32_MAX || pending.recvs_from.size() >= UINT32_MAX)
    throw Error("more than 2^32 messages from one rank: not supported");
  // Sort both sides by channel and MPI order, pair the k-th. A rank's sends
  // are in MPI order already (decoding order), so their position is the order.
  send_channels_.clear();
  for (std::size_t i = 0; i < pending.sends.size(); ++i) {
    const SendRecord& s = pending.sends[i].send;
    send_channels_.push_back({s.dst_rank, s.comm, s.tag, i, static_cast<std::uint32_t>(i)});
  }
  recv_channels_.clear();
  for (std::size_t j = 0; j < pending.recvs_from.size(); ++j) {
    const RecvRecord& r = pending.recvs_from[j];
    recv_channels_.push_back({rank_process_[static_cast<std::size_t>(r.dst)], r.comm, r.tag, r.seq,
                              static_cast<std::uint32_t>(j)});
  }
  sort_by_channel(send_channels_);
  sort_by_channel(recv_channels_);

  recv_of_send_.assign(pending.sends.size(), -1);
  recv_matched_.assign(pending.recvs_from.size(), 0);
  auto channel = [](const ChannelEntry& e) { return std::tie(e.dst_rank, e.comm, e.tag); };
  for (std::size_t i = 0, j = 0; i < send_channels_.size() && j < recv_channels_.size();) {
    const ChannelEntry& s = send_channels_[i];
    const ChannelEntry& r = recv_channels_[j];
    if (channel(s) < channel(r)) {
      ++i;
    } else if (channel(r) < channel(s)) {
      ++j;
    } else {
      recv_of_send_[s.index] = r.index;
      recv_matched_[r.index] = 1;
      ++i;
      ++j;
    }
  }

  emit_sends(pending, recv_of_send_);
  for (std::size_t j = 0; j < pending.recvs_from.size(); ++j)
    if (!recv_matched_[j]) receive_only_.push_back(pending.recvs_from[j]);
  spare_sends_.give(pending.sends);
  spare_recvs_.give(pending.recvs_from);
}

// The rank's sends as messages, one sink call per sending process (a rank's
// processes were added one after the other, so each owner's sends are contiguous).
void MessageMatcher::emit_sends(const PendingRank& pending,
                                std::span<const std::int64_t> recv_of_send) {
  emit_by_owner(
      pending.sends, [](const IdentifiedSend& s) { return static_cast<std::int64_t>(s.send.src); },
      [&](std::size_t i) {
        const SendRecord& s = pending.sends[i].send;
        MessageRecord m = from_send(s, pending.sends[i].id);
        std::int64_t r = recv_of_send[i];
        if (r < 0) {
          ++unmatched_sends_;
          return m;
        }
        const RecvRecord& recv = pending.recvs_from[static_cast<std::size_t>(r)];
        add_receive(m, recv);
        max_message_ns_ = std::max(max_message_ns_, recv.recv_ns - s.send_ns);
        return m;
      },
      run_, sink_);
}

void MessageMatcher::finish() {
  for (std::size_t rank = 0; rank < ranks_.size(); ++rank)
    if (!ranks_[rank].matched) match_rank(static_cast<ProcessIndex>(rank));
  while (!waiting_.empty()) waiting_.pop();

  // Receive-only messages are owned by their receiver, in receive-time order
  // (the posting order breaks ties: it is unique per receiver).
  std::sort(receive_only_.begin(), receive_only_.end(), [](const RecvRecord& a, const RecvRecord& b) {
    return std::tie(a.dst, a.recv_ns, a.seq) < std::tie(b.dst, b.recv_ns, b.seq);
  });
  unmatched_recvs_ = receive_only_.size();
  const auto first_id = static_cast<std::int64_t>(sends_seen_);
  emit_by_owner(
      receive_only_, [](const RecvRecord& r) { return static_cast<std::int64_t>(r.dst); },
      [&](std::size_t j) { return from_recv(receive_only_[j], first_id + static_cast<std::int64_t>(j)); },
      run_, sink_);
  receive_only_.clear();
}

}  // namespace weft::db
