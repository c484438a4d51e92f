#include "otf2/message_matching.h"

#include <algorithm>
#include <tuple>

namespace weft::db {
namespace {

auto send_key(const SendRecord& s) {
  return std::make_tuple(s.src_rank, s.dst_rank, s.comm, s.tag, s.seq);
}
auto recv_key(const RecvRecord& r) {
  return std::make_tuple(r.src_rank, r.dst_rank, r.comm, r.tag, r.seq);
}
auto channel(const SendRecord& s) { return std::make_tuple(s.src_rank, s.dst_rank, s.comm, s.tag); }
auto channel(const RecvRecord& r) { return std::make_tuple(r.src_rank, r.dst_rank, r.comm, r.tag); }

MessageRow from_send(const SendRecord& s) {
  return {s.src, s.dst_rank, s.comm, s.tag, s.bytes, s.send_event, s.send_done_event,
          -1,    -1,         s.send_ns, kNoTime};
}

MessageRow from_recv(const RecvRecord& r) {
  return {r.src_rank, r.dst, r.comm, r.tag, r.bytes, -1, -1, r.recv_post_event, r.recv_event,
          kNoTime,    r.recv_ns};
}

TimeNs order_time(const MessageRow& m) { return m.send_ns != kNoTime ? m.send_ns : m.recv_ns; }

}  // namespace

MatchedMessages match_messages(std::vector<SendRecord>& sends, std::vector<RecvRecord>& recvs) {
  std::sort(sends.begin(), sends.end(),
            [](const SendRecord& a, const SendRecord& b) { return send_key(a) < send_key(b); });
  std::sort(recvs.begin(), recvs.end(),
            [](const RecvRecord& a, const RecvRecord& b) { return recv_key(a) < recv_key(b); });

  MatchedMessages out;
  out.rows.reserve(std::max(sends.size(), recvs.size()));
  size_t i = 0, j = 0;
  // Merge by channel; within one channel both sides are in MPI order, so the
  // k-th of each pair up.
  while (i < sends.size() || j < recvs.size()) {
    if (j == recvs.size() || (i < sends.size() && channel(sends[i]) < channel(recvs[j]))) {
      out.rows.push_back(from_send(sends[i++]));
      ++out.unmatched_sends;
    } else if (i == sends.size() || channel(recvs[j]) < channel(sends[i])) {
      out.rows.push_back(from_recv(recvs[j++]));
      ++out.unmatched_recvs;
    } else {
      const SendRecord& s = sends[i++];
      const RecvRecord& r = recvs[j++];
      MessageRow m = from_send(s);
      m.dst = r.dst;
      m.recv_post_event = r.recv_post_event;
      m.recv_event = r.recv_event;
      m.recv_ns = r.recv_ns;
      out.max_message_ns = std::max(out.max_message_ns, m.recv_ns - m.send_ns);
      out.rows.push_back(m);
    }
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const MessageRow& a, const MessageRow& b) {
    return order_time(a) < order_time(b);
  });
  return out;
}

std::vector<CollectiveRow> group_collectives(std::vector<CollectiveMemberRecord>& members) {
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
