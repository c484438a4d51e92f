// The packed block format (docs/schema.md, "Block format"): random records
// round-trip exactly, extreme values included; damaged blobs throw
// weft::Error and never read out of bounds or allocate what they claim.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "common/error.h"
#include "store/block_codec.h"

using namespace weft;
using namespace weft::db;

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::int64_t random_value(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return kMin + static_cast<std::int64_t>(rng() % 3);
    case 1: return kMax - static_cast<std::int64_t>(rng() % 3);
    case 2: return 0;
    case 3: return static_cast<std::int64_t>(rng());
    default: return static_cast<std::int64_t>(rng() % 2000) - 1000;
  }
}

std::vector<EventRecord> random_events(std::mt19937_64& rng, std::size_t n) {
  std::vector<EventRecord> events;
  for (std::size_t i = 0; i < n; ++i) {
    EventRecord e{};
    e.process = 7;
    e.start_ns = random_value(rng);
    // end >= start without overflow: a duration up to what is left.
    auto room = static_cast<std::uint64_t>(kMax) - static_cast<std::uint64_t>(e.start_ns);
    std::uint64_t duration = rng() % 3 == 0 ? room : rng() % (room < 1000000 ? room + 1 : 1000000);
    e.end_ns = static_cast<std::int64_t>(static_cast<std::uint64_t>(e.start_ns) + duration);
    e.id = random_value(rng);
    e.region = random_value(rng);
    e.depth = rng() % 4 == 0 ? std::numeric_limits<std::int32_t>::max() : static_cast<std::int32_t>(rng() % 50);
    events.push_back(e);
  }
  return events;
}

std::vector<MessageRecord> random_messages(std::mt19937_64& rng, std::size_t n) {
  std::vector<MessageRecord> messages;
  auto maybe = [&rng](std::int64_t v) { return rng() % 4 == 0 ? kNullRef : v; };
  for (std::size_t i = 0; i < n; ++i) {
    MessageRecord m{};
    m.id = random_value(rng);
    m.src = maybe(static_cast<std::int64_t>(rng() % 100000));
    m.dst = maybe(random_value(rng) == 0 ? 0 : static_cast<std::int64_t>(rng() % 100000));
    m.comm = random_value(rng);
    m.tag = random_value(rng);
    m.bytes = random_value(rng);
    m.send_event = maybe(random_value(rng) & kMax);
    m.send_done_event = maybe(random_value(rng) & kMax);
    m.recv_post_event = maybe(random_value(rng) & kMax);
    m.recv_event = maybe(random_value(rng) & kMax);
    m.has_send_ns = rng() % 5 != 0;
    m.has_recv_ns = rng() % 5 != 0;
    m.send_ns = m.has_send_ns ? random_value(rng) : 0;
    m.recv_ns = m.has_recv_ns ? random_value(rng) : 0;
    messages.push_back(m);
  }
  return messages;
}

bool same(const EventRecord& a, const EventRecord& b) {
  return a.id == b.id && a.process == b.process && a.start_ns == b.start_ns &&
         a.end_ns == b.end_ns && a.region == b.region && a.depth == b.depth;
}

bool same(const MessageRecord& a, const MessageRecord& b) {
  return a.id == b.id && a.src == b.src && a.dst == b.dst && a.comm == b.comm && a.tag == b.tag &&
         a.bytes == b.bytes && a.send_event == b.send_event &&
         a.send_done_event == b.send_done_event && a.recv_post_event == b.recv_post_event &&
         a.recv_event == b.recv_event && a.has_send_ns == b.has_send_ns &&
         a.has_recv_ns == b.has_recv_ns && (!a.has_send_ns || a.send_ns == b.send_ns) &&
         (!a.has_recv_ns || a.recv_ns == b.recv_ns);
}

bool same(const CommEventRecord& a, const CommEventRecord& b) {
  return a.event == b.event && a.process == b.process && a.region == b.region && a.kind == b.kind &&
         a.start_ns == b.start_ns && a.end_ns == b.end_ns && a.partition == b.partition &&
         a.step == b.step && a.local_step == b.local_step && a.collective == b.collective &&
         a.message == b.message && a.send_step == b.send_step && a.lateness_ns == b.lateness_ns &&
         a.global_lateness_ns == b.global_lateness_ns && a.diff_lateness_ns == b.diff_lateness_ns &&
         a.wait_ns == b.wait_ns;
}

// Every prefix, every single-byte change and a huge count must fail cleanly
// (or, for a byte change that happens to stay valid, decode to something).
template <class Decode>
void check_damage(const std::vector<std::uint8_t>& blob, Decode decode) {
  for (std::size_t n = 0; n < blob.size(); ++n) {
    std::vector<std::uint8_t> prefix(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW(decode(prefix), Error) << "prefix of " << n << " bytes";
  }
  std::vector<std::uint8_t> longer = blob;
  longer.push_back(0);
  EXPECT_THROW(decode(longer), Error);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 300; ++i) {
    std::vector<std::uint8_t> damaged = blob;
    damaged[rng() % damaged.size()] = static_cast<std::uint8_t>(rng());
    try {
      decode(damaged);
    } catch (const Error&) {
    }
  }
  // A count of 2^62 records in a few bytes is rejected before any allocation.
  std::vector<std::uint8_t> huge = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 1, 2, 3};
  EXPECT_THROW(decode(huge), Error);
  // Varints longer than 64 bits.
  std::vector<std::uint8_t> overlong(11, 0xff);
  EXPECT_THROW(decode(overlong), Error);
}

}  // namespace

TEST(BlockCodec, EventsRoundTripIncludingExtremes) {
  std::mt19937_64 rng(1);
  for (std::size_t n : {0u, 1u, 2u, 17u, 1000u}) {
    std::vector<EventRecord> events = random_events(rng, n);
    std::vector<std::uint8_t> blob;
    encode_event_block(events, blob);
    std::vector<EventRecord> back;
    decode_event_block(blob, 7, back);
    ASSERT_EQ(back.size(), events.size());
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same(events[i], back[i])) << i;
    EXPECT_EQ(block_count(blob, kMinEventBytes, "x"), n);
  }
}

TEST(BlockCodec, SortedEventsAreSmall) {
  std::vector<EventRecord> events;
  for (int i = 0; i < 1000; ++i)
    events.push_back({1000 + i, 3, 1'000'000'000 + i * 900, 1'000'000'000 + i * 900 + 500, i % 4, i % 3});
  std::vector<std::uint8_t> blob;
  encode_event_block(events, blob);
  EXPECT_LE(blob.size(), 7u * events.size() + 16);
}

TEST(BlockCodec, MessagesRoundTripIncludingExtremes) {
  std::mt19937_64 rng(2);
  for (std::size_t n : {0u, 1u, 5u, 1000u}) {
    std::vector<MessageRecord> messages = random_messages(rng, n);
    for (std::int64_t owner : {std::int64_t{0}, std::int64_t{99999}, kNullRef}) {
      std::vector<std::uint8_t> blob;
      encode_message_block(messages, owner, blob);
      std::vector<MessageRecord> back;
      decode_message_block(blob, owner, back);
      ASSERT_EQ(back.size(), messages.size());
      for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same(messages[i], back[i])) << i;
    }
  }
}

TEST(BlockCodec, CollectiveMembersRoundTrip) {
  std::mt19937_64 rng(4);
  std::vector<PackedCollectiveMember> members;
  for (int i = 0; i < 500; ++i)
    members.push_back({{42, static_cast<ProcessIndex>(rng() % 5000), rng() % 3 ? random_value(rng) : kNullRef,
                        random_value(rng), random_value(rng)},
                       random_value(rng), random_value(rng)});
  std::vector<std::uint8_t> blob;
  encode_member_block(members, blob);
  std::vector<PackedCollectiveMember> back;
  decode_member_block(blob, 42, back);
  ASSERT_EQ(back.size(), members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto& a = members[i].member;
    const auto& b = back[i].member;
    EXPECT_EQ(b.collective, 42);
    EXPECT_EQ(a.process, b.process);
    EXPECT_EQ(a.event, b.event);
    EXPECT_EQ(a.start_ns, b.start_ns);
    EXPECT_EQ(a.end_ns, b.end_ns);
    EXPECT_EQ(members[i].bytes_sent, back[i].bytes_sent);
    EXPECT_EQ(members[i].bytes_received, back[i].bytes_received);
  }
}

TEST(BlockCodec, DamagedEventBlocksThrow) {
  std::mt19937_64 rng(5);
  std::vector<EventRecord> events = random_events(rng, 40);
  std::vector<std::uint8_t> blob;
  encode_event_block(events, blob);
  check_damage(blob, [](const std::vector<std::uint8_t>& b) {
    std::vector<EventRecord> out;
    decode_event_block(b, 0, out);
  });
  // An event whose end would overflow int64.
  std::vector<std::uint8_t> overflow;
  encode_event_block(std::vector<EventRecord>{{0, 0, kMax - 5, kMax, 0, 0}}, overflow);
  overflow[1 + 10] = 0x07;  // duration 6 (start takes 10 bytes after the count)
  EXPECT_THROW(
      {
        std::vector<EventRecord> out;
        decode_event_block(overflow, 0, out);
      },
      Error);
}

TEST(BlockCodec, DamagedMessageAndMemberBlocksThrow) {
  std::mt19937_64 rng(6);
  std::vector<MessageRecord> messages = random_messages(rng, 30);
  std::vector<std::uint8_t> blob;
  encode_message_block(messages, 5, blob);
  check_damage(blob, [](const std::vector<std::uint8_t>& b) {
    std::vector<MessageRecord> out;
    decode_message_block(b, 5, out);
  });
  std::vector<PackedCollectiveMember> members;
  for (int i = 0; i < 20; ++i) members.push_back({{1, i, i, i * 10, i * 10 + 5}, 8, 8});
  blob.clear();
  encode_member_block(members, blob);
  check_damage(blob, [](const std::vector<std::uint8_t>& b) {
    std::vector<PackedCollectiveMember> out;
    decode_member_block(b, 1, out);
  });
}

TEST(BlockCodec, CommEventsRoundTripIncludingExtremes) {
  std::mt19937_64 rng(7);
  auto maybe = [&rng](std::int64_t v) { return rng() % 3 == 0 ? kNullRef : v; };
  for (std::size_t n : {0u, 1u, 5u, 1000u}) {
    std::vector<CommEventRecord> events;
    for (std::size_t i = 0; i < n; ++i)
      events.push_back({random_value(rng), 3, random_value(rng), static_cast<std::int32_t>(rng() % 6),
                        random_value(rng), random_value(rng), random_value(rng), random_value(rng),
                        random_value(rng), maybe(random_value(rng)), maybe(random_value(rng)),
                        maybe(random_value(rng)), random_value(rng), random_value(rng),
                        random_value(rng), random_value(rng)});
    std::vector<std::uint8_t> blob;
    encode_comm_event_block(events, blob);
    std::vector<CommEventRecord> back;
    decode_comm_event_block(blob, 3, back);
    ASSERT_EQ(back.size(), events.size());
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_TRUE(same(events[i], back[i])) << i;
  }
}

TEST(BlockCodec, DamagedCommEventBlocksThrow) {
  std::vector<CommEventRecord> events;
  for (int i = 0; i < 20; ++i)
    events.push_back({100 + i, 2, 4, i % 6, i * 10, i * 10 + 5, 1, 2 * i + 1, 2 * i + 1,
                      i % 2 ? 7 : kNullRef, i % 3 ? 40 + i : kNullRef, kNullRef, i, i, 0, 1});
  std::vector<std::uint8_t> blob;
  encode_comm_event_block(events, blob);
  check_damage(blob, [](const std::vector<std::uint8_t>& b) {
    std::vector<CommEventRecord> out;
    decode_comm_event_block(b, 2, out);
  });
  blob[1] = 6 << 3;  // the first record's kind out of range
  EXPECT_THROW(
      {
        std::vector<CommEventRecord> out;
        decode_comm_event_block(blob, 2, out);
      },
      Error);
}

TEST(BlockCodec, MessageStepsRoundTripIncludingExtremes) {
  std::mt19937_64 rng(11);
  for (std::size_t n : {0u, 1u, 5u, 1000u}) {
    const std::int64_t send_step = random_value(rng);
    std::vector<MessageStepRecord> lines;
    for (std::size_t i = 0; i < n; ++i)
      lines.push_back({random_value(rng), random_value(rng), random_value(rng), send_step, random_value(rng)});
    std::vector<std::uint8_t> blob;
    encode_message_step_block(lines, blob);
    std::vector<MessageStepRecord> back;
    decode_message_step_block(blob, send_step, back);
    ASSERT_EQ(back.size(), lines.size());
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(back[i].message, lines[i].message) << i;
      EXPECT_EQ(back[i].src, lines[i].src) << i;
      EXPECT_EQ(back[i].dst, lines[i].dst) << i;
      EXPECT_EQ(back[i].send_step, send_step) << i;
      EXPECT_EQ(back[i].recv_step, lines[i].recv_step) << i;
    }
  }
  // Sorted lines of a stencil step (near rows, ids and steps) take 4 bytes each.
  std::vector<MessageStepRecord> near;
  for (std::int64_t i = 0; i < 1000; ++i) near.push_back({5000 + 2 * i, i / 2, i / 2 + 1, 41, 43});
  std::vector<std::uint8_t> blob;
  encode_message_step_block(near, blob);
  EXPECT_LE(blob.size(), 4u * near.size() + 6);  // + the count and the first record's absolute values
}

TEST(BlockCodec, DamagedMessageStepBlocksThrow) {
  std::vector<MessageStepRecord> lines;
  for (std::int64_t i = 0; i < 20; ++i) lines.push_back({100 + i, i, i + 3, 7, 9 + i % 2});
  std::vector<std::uint8_t> blob;
  encode_message_step_block(lines, blob);
  check_damage(blob, [](const std::vector<std::uint8_t>& b) {
    std::vector<MessageStepRecord> out;
    decode_message_step_block(b, 7, out);
  });
}

// Varints of every length decode to the same value whether ten bytes or more
// are left after them (the decoder's unchecked path) or fewer (the checked
// one), and both refuse a tenth byte above 1 and an eleventh byte. The varint
// under test is the message field of a message step record; padding records
// after it move it away from the blob's end.
TEST(BlockCodec, VarintsDecodeTheSameNearTheEndOfABlob) {
  auto blob_with = [](const std::vector<std::uint8_t>& varint, int padding_records) {
    std::vector<std::uint8_t> b;
    b.push_back(static_cast<std::uint8_t>(1 + padding_records));  // count
    b.push_back(0x00);                                              // src
    for (std::uint8_t x : varint) b.push_back(x);                   // message
    for (std::uint8_t x : {0x90, 0x03, 0x00}) b.push_back(x);  // dst = src + 200, recv = send
    for (int r = 0; r < padding_records; ++r)
      for (std::uint8_t x : {0x00, 0x00, 0x90, 0x03, 0x00}) b.push_back(x);
    return b;
  };
  auto decoded_message = [&](const std::vector<std::uint8_t>& varint, int padding_records) {
    std::vector<MessageStepRecord> out;
    decode_message_step_block(blob_with(varint, padding_records), 7, out);
    return out.at(0).message;
  };
  auto unzigzag = [](std::uint64_t z) { return static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1)); };
  for (int length = 1; length <= 10; ++length) {
    // The value 2^(7 (length - 1)): 0x80 continuation bytes, then its top byte.
    std::vector<std::uint8_t> varint(static_cast<std::size_t>(length - 1), 0x80);
    varint.push_back(0x01);
    const std::uint64_t z = std::uint64_t{1} << (7 * (length - 1));
    // Every payload bit set: 0xff continuation bytes, then 0x7f (0x01 as a tenth byte).
    std::vector<std::uint8_t> ones(static_cast<std::size_t>(length - 1), 0xff);
    ones.push_back(length == 10 ? 0x01 : 0x7f);
    const std::uint64_t all = length == 10 ? ~std::uint64_t{0} : (std::uint64_t{1} << (7 * length)) - 1;
    // 0, 5 and 10 bytes of padding records after it.
    for (int padding : {0, 1, 2}) {
      EXPECT_EQ(decoded_message(varint, padding), unzigzag(z)) << length << " bytes, padding " << padding;
      EXPECT_EQ(decoded_message(ones, padding), unzigzag(all)) << length << " bytes of ones, padding " << padding;
    }
  }
  for (int padding : {0, 2}) {
    std::vector<std::uint8_t> tenth_too_big(9, 0x80);
    tenth_too_big.push_back(0x02);
    EXPECT_THROW(decoded_message(tenth_too_big, padding), Error) << padding;
    std::vector<std::uint8_t> eleven_bytes(10, 0x80);
    eleven_bytes.push_back(0x00);
    EXPECT_THROW(decoded_message(eleven_bytes, padding), Error) << padding;
  }
  // Cut inside a multi-byte varint (its continuation bit promises more).
  std::vector<std::uint8_t> cut{0x01, 0x00, 0x80, 0x80};
  std::vector<MessageStepRecord> out;
  EXPECT_THROW(decode_message_step_block(cut, 7, out), Error);
}

// The importer encodes a location's blocks with ids from 0 and shifts them at
// commit: the shifted blob decodes to the same events with ids + offset, and
// is the blob the shifted events encode to.
TEST(BlockCodec, RebasedEventBlockEqualsTheShiftedEncoding) {
  std::vector<weft::db::EventRecord> events = {
      {0, 3, 100, 900, 7, 0}, {1, 3, 120, 300, 9, 1}, {2, 3, 310, 320, 11, 2}, {5, 3, 400, 880, 7, 1}};
  for (std::int64_t offset : {std::int64_t{0}, std::int64_t{1}, std::int64_t{63}, std::int64_t{64},
                              std::int64_t{1} << 40}) {
    SCOPED_TRACE(offset);
    std::vector<std::uint8_t> local, rebased, expected;
    weft::db::encode_event_block(events, local);
    weft::db::append_rebased_event_block(local, offset, rebased);
    std::vector<weft::db::EventRecord> shifted = events;
    for (auto& e : shifted) e.id += offset;
    weft::db::encode_event_block(shifted, expected);
    EXPECT_EQ(rebased, expected);
    std::vector<weft::db::EventRecord> decoded;
    weft::db::decode_event_block(rebased, 3, decoded);
    ASSERT_EQ(decoded.size(), events.size());
    for (std::size_t k = 0; k < events.size(); ++k) EXPECT_EQ(decoded[k].id, events[k].id + offset);
  }
  std::vector<std::uint8_t> empty, out;
  weft::db::encode_event_block({}, empty);
  weft::db::append_rebased_event_block(empty, 99, out);
  EXPECT_EQ(out, empty);
}
