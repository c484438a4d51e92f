// MessageMatcher (db/otf2/message_matching.h) on hand-built records: the
// k-th send of a channel pairs with the k-th posted receive, a rank is matched
// only once it and all its receivers are decoded, message ids follow decoding
// order whatever order ranks become ready in, and receives nobody sent
// become receive-only messages numbered after the sends.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "otf2/message_matching.h"

using namespace weft;
using namespace weft::db;

namespace {

SendRecord send(ProcessIndex src, ProcessIndex dst_rank, TimeNs at, std::uint32_t tag = 0) {
  return {src, dst_rank, 0, tag, 8, at * 10, -1, at};
}

RecvRecord recv(ProcessIndex dst, ProcessIndex src_rank, TimeNs at, std::uint64_t posted,
                std::uint32_t tag = 0) {
  return {posted, src_rank, dst, 0, tag, 8, -1, at * 10, at};
}

// Collects what the matcher hands out, and when (after which add_process).
struct Collected {
  std::vector<MessageRecord> messages;
  std::vector<std::int64_t> owners;
  MessageOwnerSink sink() {
    return [this](std::int64_t owner, std::span<MessageRecord> run) {
      for (const MessageRecord& m : run) {
        messages.push_back(m);
        owners.push_back(owner);
      }
    };
  }
  const MessageRecord& id(std::int64_t id) const {
    for (const MessageRecord& m : messages)
      if (m.id == id) return m;
    throw std::runtime_error("no message " + std::to_string(id));
  }
};

}  // namespace

TEST(MessageMatching, PairsTheKthSendWithTheKthPostedReceivePerChannel) {
  std::vector<ProcessIndex> ranks{0, 1};
  Collected out;
  MessageMatcher matcher(ranks, 0, 2, out.sink());
  // Rank 0 sends tag 1, tag 2, tag 1; rank 1 posts tag 1 twice, the second
  // one first (an Irecv posted earlier completes later), and tag 2.
  std::vector<SendRecord> sends{send(0, 1, 100, 1), send(0, 1, 200, 2), send(0, 1, 300, 1)};
  matcher.add_process(0, sends, {});
  EXPECT_TRUE(out.messages.empty()) << "rank 0 must wait for its receiver";
  std::vector<RecvRecord> recvs{recv(1, 0, 350, /*posted*/ 20, 1), recv(1, 0, 400, 10, 1),
                                recv(1, 0, 450, 30, 2)};
  matcher.add_process(1, {}, recvs);
  ASSERT_EQ(out.messages.size(), 3u);
  EXPECT_EQ(out.id(0).recv_ns, 400);  // first send, first posted receive
  EXPECT_EQ(out.id(1).recv_ns, 450);
  EXPECT_EQ(out.id(2).recv_ns, 350);
  for (const MessageRecord& m : out.messages) {
    EXPECT_EQ(m.src, 0);
    EXPECT_EQ(m.dst, 1);
    EXPECT_TRUE(m.has_send_ns && m.has_recv_ns);
  }
  matcher.finish();
  EXPECT_EQ(out.messages.size(), 3u);
  EXPECT_EQ(matcher.messages(), 3u);
  EXPECT_EQ(matcher.unmatched_sends(), 0u);
  EXPECT_EQ(matcher.unmatched_recvs(), 0u);
  EXPECT_EQ(matcher.max_message_ns(), 400 - 100);
}

TEST(MessageMatching, IdsFollowDecodingOrderWhenALaterRankIsReadyFirst) {
  // Rank 0 sends to rank 2, rank 1 sends to rank 0: rank 1 becomes ready
  // (after process 1) before rank 0 (after process 2), yet rank 0's send
  // keeps id 0.
  std::vector<ProcessIndex> ranks{0, 1, 2};
  Collected out;
  MessageMatcher matcher(ranks, 0, 3, out.sink());
  std::vector<SendRecord> s0{send(0, 2, 10)};
  std::vector<RecvRecord> r0{recv(0, 1, 30, 5)};
  matcher.add_process(0, s0, r0);
  std::vector<SendRecord> s1{send(1, 0, 20)};
  matcher.add_process(1, s1, {});
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.messages[0].id, 1);
  EXPECT_EQ(out.messages[0].src, 1);
  std::vector<RecvRecord> r2{recv(2, 0, 40, 7)};
  matcher.add_process(2, {}, r2);
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.messages[1].id, 0);
  EXPECT_EQ(out.messages[1].dst, 2);
}

TEST(MessageMatching, ReceivesNobodySentBecomeReceiveOnlyAfterTheSends) {
  std::vector<ProcessIndex> ranks{0, 1, 2};
  Collected out;
  MessageMatcher matcher(ranks, 0, 3, out.sink());
  // Rank 0 sends to 1 (matched) and to an unknown rank (unmatched send).
  std::vector<SendRecord> s0{send(0, 1, 10), send(0, -1, 11)};
  matcher.add_process(0, s0, {});
  std::vector<RecvRecord> r1{recv(1, 0, 20, 3)};
  matcher.add_process(1, {}, r1);
  EXPECT_EQ(out.messages.size(), 2u) << "rank 0 is matched once rank 1 is decoded";
  // Rank 2 receives from rank 0, which never sent to it and is matched
  // already, and from an unknown sender.
  std::vector<RecvRecord> r2{recv(2, 0, 50, 9), recv(2, -1, 40, 8)};
  matcher.add_process(2, {}, r2);
  matcher.finish();
  ASSERT_EQ(out.messages.size(), 4u);
  EXPECT_EQ(matcher.unmatched_sends(), 1u);
  EXPECT_EQ(matcher.unmatched_recvs(), 2u);
  EXPECT_EQ(matcher.messages(), 4u);
  EXPECT_EQ(out.id(1).dst, kNullRef);
  EXPECT_FALSE(out.id(1).has_recv_ns);
  // Receive-only: ids after the 2 sends, by receiver and receive time.
  EXPECT_EQ(out.id(2).recv_ns, 40);
  EXPECT_EQ(out.id(2).src, kNullRef);
  EXPECT_EQ(out.id(3).recv_ns, 50);
  EXPECT_EQ(out.id(3).src, 0);
  EXPECT_FALSE(out.id(3).has_send_ns);
  EXPECT_EQ(out.owners.back(), 2);
}

TEST(MessageMatching, ARankWaitsForAllItsProcesses) {
  // Process 2 is a thread of rank 0 (display order puts threads last): rank
  // 0's sends from it still pair, and rank 0 is matched only after it.
  std::vector<ProcessIndex> ranks{0, 1, 0};
  Collected out;
  MessageMatcher matcher(ranks, 0, 3, out.sink());
  std::vector<SendRecord> s0{send(0, 1, 10)};
  matcher.add_process(0, s0, {});
  std::vector<RecvRecord> r1{recv(1, 0, 30, 4), recv(1, 0, 40, 6)};
  matcher.add_process(1, {}, r1);
  EXPECT_TRUE(out.messages.empty());
  std::vector<SendRecord> s2{send(2, 1, 20)};
  matcher.add_process(2, s2, {});
  matcher.finish();
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.id(0).src, 0);
  EXPECT_EQ(out.id(0).recv_ns, 30);
  EXPECT_EQ(out.id(1).src, 2);
  EXPECT_EQ(out.id(1).recv_ns, 40);
  EXPECT_EQ(matcher.unmatched_recvs(), 0u);
}

TEST(MessageMatching, RanksOutsideTheImportedRangeAreMatchedAtTheEnd) {
  // Only processes 1 and 2 are imported; rank 1 sends to rank 0 (never
  // decoded) and to rank 2.
  std::vector<ProcessIndex> ranks{0, 1, 2};
  Collected out;
  MessageMatcher matcher(ranks, 1, 2, out.sink());
  std::vector<SendRecord> s1{send(1, 0, 10), send(1, 2, 11)};
  matcher.add_process(1, s1, {});
  std::vector<RecvRecord> r2{recv(2, 1, 20, 2)};
  matcher.add_process(2, {}, r2);
  EXPECT_EQ(out.messages.size(), 2u);
  matcher.finish();
  EXPECT_EQ(matcher.unmatched_sends(), 1u);
  EXPECT_EQ(out.id(1).recv_ns, 20);
}

// The k-th send and the k-th posted receive of each channel pair, whether a
// rank uses a few channels (the matcher groups them by channel in linear
// time) or more than it groups that way (64; then it sorts), and when the
// sends of different channels interleave in any order.
TEST(MessageMatching, ManyChannelsPairPerChannelWhetherGroupedOrSorted) {
  for (const std::uint32_t tags : {10u, 100u}) {
    std::vector<ProcessIndex> ranks{0, 1};
    Collected out;
    MessageMatcher matcher(ranks, 0, 2, out.sink());
    // Round 0 with the tags in the order 7t mod tags, round 1 in descending
    // order; send time 1000 * round + tag, so that each message tells which
    // send it was.
    std::vector<SendRecord> sends;
    for (std::uint32_t k = 0; k < tags; ++k) sends.push_back(send(0, 1, (7 * k) % tags, (7 * k) % tags));
    for (std::uint32_t t = tags; t-- > 0;) sends.push_back(send(0, 1, 1000 + t, t));
    matcher.add_process(0, sends, {});
    // Posted round by round, the tags in the order 3t mod tags; received at
    // 100000 + the same number as the send it must pair with.
    std::vector<RecvRecord> recvs;
    std::uint64_t posted = 0;
    for (TimeNs round : {0, 1})
      for (std::uint32_t k = 0; k < tags; ++k) {
        const std::uint32_t t = (3 * k) % tags;
        recvs.push_back(recv(1, 0, 100000 + 1000 * round + t, posted++, t));
      }
    matcher.add_process(1, {}, recvs);
    matcher.finish();
    ASSERT_EQ(out.messages.size(), 2u * tags) << tags;
    for (const MessageRecord& m : out.messages) {
      ASSERT_TRUE(m.has_recv_ns) << tags;
      EXPECT_EQ(m.recv_ns, 100000 + m.send_ns) << "tag " << m.tag << ", " << tags << " tags";
    }
    EXPECT_EQ(matcher.unmatched_sends(), 0u);
    EXPECT_EQ(matcher.unmatched_recvs(), 0u);
  }
}
