#include "otf2/message_matching.h"

#include <algorithm>
#include <tuple>

#include "common/error.h"

namespace weft::db {
namespace {

// Positions of `records` grouped by key(record) in 0..keys-1 (a stable
// counting sort); records with a negative key are left out.
template <class Records, class Key>
std::vector<std::uint32_t> group_by(const Records& records, std::size_t keys, Key key,
                                    std::vector<std::size_t>& first) {
  first.assign(keys + 1, 0);
  for (const auto& r : records)
    if (key(r) >= 0) ++first[static_cast<std::size_t>(key(r)) + 1];
  for (std::size_t k = 1; k <= keys; ++k) first[k] += first[k - 1];
  std::vector<std::uint32_t> order(first[keys]);
  std::vector<std::size_t> at(first.begin(), first.end() - 1);
  for (std::size_t i = 0; i < records.size(); ++i)
    if (key(records[i]) >= 0) order[at[static_cast<std::size_t>(key(records[i]))]++] = static_cast<std::uint32_t>(i);
  return order;
}

// One side of a channel, for the per-rank sort: (receiver, comm, tag, MPI order).
struct ChannelEntry {
  ProcessIndex dst_rank;
  std::uint32_t comm;
  std::uint32_t tag;
  std::uint64_t seq;
  std::uint32_t index;
  auto channel() const { return std::make_tuple(dst_rank, comm, tag); }
  bool operator<(const ChannelEntry& o) const {
    return std::tie(dst_rank, comm, tag, seq) < std::tie(o.dst_rank, o.comm, o.tag, o.seq);
  }
};

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

}  // namespace

MatchedMessages match_messages(const BigVector<SendRecord>& sends,
                               const BigVector<RecvRecord>& recvs) {
  if (sends.size() >= UINT32_MAX || recvs.size() >= UINT32_MAX)
    throw Error("more than 2^32 messages: not supported");
  MatchedMessages out;
  out.recv_of_send.assign(sends.size(), -1);
  std::vector<std::uint8_t> recv_matched(recvs.size(), 0);

  std::size_t ranks = 0;
  for (const SendRecord& s : sends) ranks = std::max(ranks, static_cast<std::size_t>(s.src_rank + 1));
  for (const RecvRecord& r : recvs) ranks = std::max(ranks, static_cast<std::size_t>(std::max(r.src_rank, 0) + 1));
  std::vector<std::size_t> send_first, recv_first;
  std::vector<std::uint32_t> send_order =
      group_by(sends, ranks, [](const SendRecord& s) { return s.src_rank; }, send_first);
  std::vector<std::uint32_t> recv_order =
      group_by(recvs, ranks, [](const RecvRecord& r) { return r.src_rank; }, recv_first);

  // Per sending rank: sort both sides by channel and MPI order, pair the k-th.
  // Sends of one rank are in record order already (seq grows through the import).
  std::vector<ChannelEntry> local_sends, local_recvs;
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    local_sends.clear();
    local_recvs.clear();
    for (std::size_t k = send_first[rank]; k < send_first[rank + 1]; ++k) {
      const SendRecord& s = sends[send_order[k]];
      local_sends.push_back({s.dst_rank, s.comm, s.tag, s.seq, send_order[k]});
    }
    for (std::size_t k = recv_first[rank]; k < recv_first[rank + 1]; ++k) {
      const RecvRecord& r = recvs[recv_order[k]];
      local_recvs.push_back({r.dst_rank, r.comm, r.tag, r.seq, recv_order[k]});
    }
    std::sort(local_sends.begin(), local_sends.end());
    std::sort(local_recvs.begin(), local_recvs.end());
    std::size_t i = 0, j = 0;
    while (i < local_sends.size() && j < local_recvs.size()) {
      auto cs = local_sends[i].channel(), cr = local_recvs[j].channel();
      if (cs < cr) {
        ++i;
      } else if (cr < cs) {
        ++j;
      } else {
        const SendRecord& s = sends[local_sends[i].index];
        const RecvRecord& r = recvs[local_recvs[j].index];
        out.recv_of_send[local_sends[i].index] = local_recvs[j].index;
        recv_matched[local_recvs[j].index] = 1;
        out.max_message_ns = std::max(out.max_message_ns, r.recv_ns - s.send_ns);
        ++i;
        ++j;
      }
    }
  }
  for (std::int64_t r : out.recv_of_send) out.unmatched_sends += r < 0;
  for (std::size_t j = 0; j < recvs.size(); ++j)
    if (!recv_matched[j]) out.receive_only.push_back(static_cast<std::int64_t>(j));
  out.unmatched_recvs = out.receive_only.size();
  // Receive-only messages are owned by their receiver, in receive-time order.
  std::stable_sort(out.receive_only.begin(), out.receive_only.end(),
                   [&recvs](std::int64_t a, std::int64_t b) {
                     const RecvRecord& x = recvs[static_cast<std::size_t>(a)];
                     const RecvRecord& y = recvs[static_cast<std::size_t>(b)];
                     return x.dst != y.dst ? x.dst < y.dst : x.recv_ns < y.recv_ns;
                   });
  return out;
}

void for_each_owner_messages(const BigVector<SendRecord>& sends, const BigVector<RecvRecord>& recvs,
                             const MatchedMessages& matched, const MessageOwnerSink& sink) {
  std::vector<MessageRecord> run;
  auto flush = [&](std::int64_t owner) {
    if (!run.empty()) sink(owner, run);
    run.clear();
  };
  std::int64_t owner = -2;
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const SendRecord& s = sends[i];
    if (s.src != owner) {
      flush(owner);
      owner = s.src;
    }
    MessageRecord m = from_send(s, static_cast<std::int64_t>(i));
    std::int64_t r = matched.recv_of_send[i];
    if (r >= 0) {
      const RecvRecord& recv = recvs[static_cast<std::size_t>(r)];
      m.dst = recv.dst;
      m.recv_post_event = recv.recv_post_event < 0 ? kNullRef : recv.recv_post_event;
      m.recv_event = recv.recv_event < 0 ? kNullRef : recv.recv_event;
      m.recv_ns = recv.recv_ns;
      m.has_recv_ns = true;
    }
    run.push_back(m);
  }
  flush(owner);
  owner = -2;
  auto id = static_cast<std::int64_t>(sends.size());
  for (std::int64_t j : matched.receive_only) {
    const RecvRecord& r = recvs[static_cast<std::size_t>(j)];
    if (r.dst != owner) {
      flush(owner);
      owner = r.dst;
    }
    run.push_back(from_recv(r, id++));
  }
  flush(owner);
}

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
