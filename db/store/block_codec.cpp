#include "store/block_codec.h"

#include <algorithm>

#include "common/error.h"

namespace weft::db {
namespace {

// Message flag bits (docs/schema.md).
enum : std::uint8_t {
  kHasSrc = 1,
  kHasDst = 2,
  kHasSendEvent = 4,
  kHasSendDoneEvent = 8,
  kHasRecvPostEvent = 16,
  kHasRecvEvent = 32,
  kHasSendNs = 64,
  kHasRecvNs = 128,
};

// Communication event flag byte: the optional fields, then the OpKind in the
// high bits (docs/schema.md).
enum : std::uint8_t {
  kHasCollective = 1,
  kHasMessage = 2,
  kHasSendStep = 4,
  kCommKindShift = 3,
  kCommKindLimit = 6,  // OpKind values are 0..5
};

// Differences are taken in unsigned arithmetic: they wrap instead of
// overflowing, and the decoder's wrapping sum restores the exact value.
inline std::uint64_t diff(std::int64_t value, std::int64_t previous) {
  return static_cast<std::uint64_t>(value) - static_cast<std::uint64_t>(previous);
}
inline std::uint64_t zigzag(std::uint64_t d) {
  auto v = static_cast<std::int64_t>(d);
  return (d << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }
inline std::int64_t add(std::int64_t previous, std::uint64_t d) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(previous) + d);
}

// Writes varints at a pointer the caller made room for (at most
// RecordBytes::kMaxBytes per record).
class BytesAt {
 public:
  explicit BytesAt(std::uint8_t* at) : at_(at) {}
  void byte(std::uint8_t b) { *at_++ = b; }
  void varint(std::uint64_t v) {
    std::uint8_t* p = at_;
    while (v >= 0x80) {
      *p++ = static_cast<std::uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<std::uint8_t>(v);
    at_ = p;
  }
  void delta(std::int64_t value, std::int64_t& previous) {
    varint(zigzag(diff(value, previous)));
    previous = value;
  }
  std::uint8_t* at() const { return at_; }

 private:
  std::uint8_t* at_;
};

// The bytes of one record, built in a stack buffer and appended to the blob
// at once (append()). Pushing byte by byte onto the vector made the encoders
// the importer's largest cost of its own: every uint8_t store may alias the
// vector's own pointers, so each push_back re-read and re-wrote them.
class RecordBytes : public BytesAt {
 public:
  // Up to 16 fields of at most 10 bytes each (the widest record, a
  // communication event, has 15).
  static constexpr std::size_t kMaxBytes = 16 * 10;

  RecordBytes() : BytesAt(buf_) {}
  RecordBytes(const RecordBytes&) = delete;
  RecordBytes& operator=(const RecordBytes&) = delete;
  std::span<const std::uint8_t> bytes() const { return {buf_, at()}; }
  void append(std::vector<std::uint8_t>& out) {
    out.insert(out.end(), buf_, at());
    static_cast<BytesAt&>(*this) = BytesAt(buf_);
  }

 private:
  std::uint8_t buf_[kMaxBytes];
};

// A block's leading record count.
void put_count(std::vector<std::uint8_t>& out, std::size_t count) {
  RecordBytes head;
  head.varint(count);
  head.append(out);
}

class Reader {
 public:
  Reader(std::span<const std::uint8_t> blob, const std::string& what)
      : at_(blob.data()), end_(blob.data() + blob.size()), what_(what) {}

  // Most fields are one byte: that test is inlined into the decoders and
  // the rest is a call. Whole, varint was too large to inline, so every
  // field cost a call.
  std::uint64_t varint() {
    if (at_ != end_ && *at_ < 0x80) [[likely]]
      return *at_++;
    return longer_varint();
  }
  // With ten bytes left no byte can be past the end. Both paths accept and
  // refuse exactly what the checked loop does. The first five bytes, which
  // hold every time and duration under 34 s, are unrolled: a third fewer
  // instructions and a sixth fewer mispredicted branches than the loop for
  // an event block's two- to four-byte times.
  [[gnu::noinline]] std::uint64_t longer_varint() {
    if (end_ - at_ >= 10) {
      const std::uint8_t* p = at_;
      std::uint64_t v = p[0] & 0x7f;  // p[0] has its continuation bit: varint() looked
      std::uint64_t b = p[1];
      v |= (b & 0x7f) << 7;
      if (b < 0x80) return finish_at(p + 2, v);
      b = p[2];
      v |= (b & 0x7f) << 14;
      if (b < 0x80) return finish_at(p + 3, v);
      b = p[3];
      v |= (b & 0x7f) << 21;
      if (b < 0x80) return finish_at(p + 4, v);
      b = p[4];
      v |= (b & 0x7f) << 28;
      if (b < 0x80) return finish_at(p + 5, v);
      at_ = p + 5;
      for (int shift = 35; shift < 63; shift += 7) {
        const std::uint8_t c = *at_++;
        v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
      }
      const std::uint8_t tenth = *at_++;
      if (tenth > 1) fail("varint overflows 64 bits");
      return v | static_cast<std::uint64_t>(tenth) << 63;
    }
    return checked_varint();
  }
  std::uint64_t finish_at(const std::uint8_t* next, std::uint64_t v) {
    at_ = next;
    return v;
  }
  std::uint64_t checked_varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ == end_) fail("truncated");
      std::uint8_t b = *at_++;
      // The tenth byte may carry only the 64th bit.
      if (shift == 63 && b > 1) fail("varint overflows 64 bits");
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("varint longer than 10 bytes");
  }
  std::int64_t delta(std::int64_t& previous) {
    previous = add(previous, unzigzag(varint()));
    return previous;
  }
  std::uint8_t byte() {
    if (at_ == end_) fail("truncated");
    return *at_++;
  }
  std::size_t left() const { return static_cast<std::size_t>(end_ - at_); }
  [[noreturn]] void fail(const std::string& why) const { throw Error(what_, "corrupt block: " + why); }

 private:
  const std::uint8_t* at_;
  const std::uint8_t* end_;
  const std::string& what_;
};

std::uint64_t checked_count(Reader& in, std::size_t min_record_bytes) {
  std::uint64_t count = in.varint();
  if (count > in.left() / min_record_bytes)
    in.fail("claims " + std::to_string(count) + " records in " + std::to_string(in.left()) +
            " bytes");
  return count;
}

}  // namespace

std::uint64_t block_count(std::span<const std::uint8_t> blob, std::size_t min_record_bytes,
                          const std::string& what) {
  Reader in(blob, what);
  return checked_count(in, min_record_bytes);
}

void encode_event_block(std::span<const EventRecord> events, std::vector<std::uint8_t>& out) {
  put_count(out, events.size());
  std::int64_t start = 0, id = 0, region = 0;
  RecordBytes rec;
  for (const EventRecord& e : events) {
    rec.delta(e.start_ns, start);
    rec.varint(diff(e.end_ns, e.start_ns));
    rec.delta(e.id, id);
    rec.delta(e.region, region);
    rec.varint(static_cast<std::uint32_t>(e.depth));
    rec.append(out);
  }
}

void decode_event_block(std::span<const std::uint8_t> blob, ProcessIndex process,
                        std::vector<EventRecord>& out, const std::string& what) {
  Reader in(blob, what);
  std::uint64_t count = checked_count(in, kMinEventBytes);
  out.reserve(out.size() + count);
  std::int64_t start = 0, id = 0, region = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    EventRecord e;
    e.process = process;
    e.start_ns = in.delta(start);
    // end = start + duration must stay within int64 (durations may exceed
    // INT64_MAX when start is negative).
    std::uint64_t duration = in.varint();
    std::uint64_t room = static_cast<std::uint64_t>(INT64_MAX) - static_cast<std::uint64_t>(e.start_ns);
    if (duration > room) in.fail("event end overflows");
    e.end_ns = add(e.start_ns, duration);
    e.id = in.delta(id);
    e.region = in.delta(region);
    std::uint64_t depth = in.varint();
    if (depth > static_cast<std::uint64_t>(INT32_MAX)) in.fail("depth out of range");
    e.depth = static_cast<std::int32_t>(depth);
    out.push_back(e);
  }
  if (in.left() != 0) in.fail("trailing bytes");
}

void encode_message_block(std::span<const MessageRecord> messages, std::int64_t owner,
                          std::vector<std::uint8_t>& out) {
  put_count(out, messages.size());
  std::int64_t id = 0, comm = 0, tag = 0, bytes = 0, time = 0;
  std::int64_t send = 0, send_done = 0, recv_post = 0, recv = 0;
  RecordBytes rec;
  for (const MessageRecord& m : messages) {
    std::uint8_t flags = (m.src != kNullRef ? kHasSrc : 0) | (m.dst != kNullRef ? kHasDst : 0) |
                         (m.send_event != kNullRef ? kHasSendEvent : 0) |
                         (m.send_done_event != kNullRef ? kHasSendDoneEvent : 0) |
                         (m.recv_post_event != kNullRef ? kHasRecvPostEvent : 0) |
                         (m.recv_event != kNullRef ? kHasRecvEvent : 0) |
                         (m.has_send_ns ? kHasSendNs : 0) | (m.has_recv_ns ? kHasRecvNs : 0);
    rec.byte(flags);
    rec.delta(m.id, id);
    if (flags & kHasSrc) rec.varint(zigzag(diff(m.src, owner)));
    if (flags & kHasDst) rec.varint(zigzag(diff(m.dst, owner)));
    rec.delta(m.comm, comm);
    rec.delta(m.tag, tag);
    rec.delta(m.bytes, bytes);
    if (flags & kHasSendEvent) rec.delta(m.send_event, send);
    if (flags & kHasSendDoneEvent) rec.delta(m.send_done_event, send_done);
    if (flags & kHasRecvPostEvent) rec.delta(m.recv_post_event, recv_post);
    if (flags & kHasRecvEvent) rec.delta(m.recv_event, recv);
    if (m.has_send_ns) {
      rec.delta(m.send_ns, time);
      if (m.has_recv_ns) rec.varint(zigzag(diff(m.recv_ns, m.send_ns)));
    } else if (m.has_recv_ns) {
      rec.delta(m.recv_ns, time);
    }
    rec.append(out);
  }
}

void append_rebased_event_block(std::span<const std::uint8_t> blob, EventId offset,
                                std::vector<std::uint8_t>& out) {
  const std::string what = "event block";
  Reader in(blob, what);
  if (in.varint() == 0 || offset == 0) {
    out.insert(out.end(), blob.begin(), blob.end());
    return;
  }
  in.varint();  // the first start_ns
  in.varint();  // its duration
  const std::size_t id_at = blob.size() - in.left();
  const std::int64_t id = add(0, unzigzag(in.varint()));
  const std::size_t id_end = blob.size() - in.left();
  out.insert(out.end(), blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(id_at));
  RecordBytes first_id;
  first_id.varint(zigzag(diff(add(id, static_cast<std::uint64_t>(offset)), 0)));
  first_id.append(out);
  out.insert(out.end(), blob.begin() + static_cast<std::ptrdiff_t>(id_end), blob.end());
}

void decode_message_block(std::span<const std::uint8_t> blob, std::int64_t owner,
                          std::vector<MessageRecord>& out, const std::string& what) {
  Reader in(blob, what);
  std::uint64_t count = checked_count(in, kMinMessageBytes);
  out.reserve(out.size() + count);
  std::int64_t id = 0, comm = 0, tag = 0, bytes = 0, time = 0;
  std::int64_t send = 0, send_done = 0, recv_post = 0, recv = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint8_t flags = in.byte();
    MessageRecord m{};
    m.id = in.delta(id);
    m.src = (flags & kHasSrc) ? add(owner, unzigzag(in.varint())) : kNullRef;
    m.dst = (flags & kHasDst) ? add(owner, unzigzag(in.varint())) : kNullRef;
    m.comm = in.delta(comm);
    m.tag = in.delta(tag);
    m.bytes = in.delta(bytes);
    m.send_event = (flags & kHasSendEvent) ? in.delta(send) : kNullRef;
    m.send_done_event = (flags & kHasSendDoneEvent) ? in.delta(send_done) : kNullRef;
    m.recv_post_event = (flags & kHasRecvPostEvent) ? in.delta(recv_post) : kNullRef;
    m.recv_event = (flags & kHasRecvEvent) ? in.delta(recv) : kNullRef;
    m.has_send_ns = flags & kHasSendNs;
    m.has_recv_ns = flags & kHasRecvNs;
    if (m.has_send_ns) {
      m.send_ns = in.delta(time);
      if (m.has_recv_ns) m.recv_ns = add(m.send_ns, unzigzag(in.varint()));
    } else if (m.has_recv_ns) {
      m.recv_ns = in.delta(time);
    }
    out.push_back(m);
  }
  if (in.left() != 0) in.fail("trailing bytes");
}

void encode_member_block(std::span<const PackedCollectiveMember> members,
                         std::vector<std::uint8_t>& out) {
  put_count(out, members.size());
  std::int64_t process = 0, event = 0, start = 0, sent = 0, received = 0;
  RecordBytes rec;
  for (const PackedCollectiveMember& p : members) {
    const StoredCollectiveMember& m = p.member;
    rec.delta(m.process, process);
    rec.byte(m.event != kNullRef ? 1 : 0);
    if (m.event != kNullRef) rec.delta(m.event, event);
    rec.delta(m.start_ns, start);
    rec.varint(zigzag(diff(m.end_ns, m.start_ns)));
    rec.delta(p.bytes_sent, sent);
    rec.delta(p.bytes_received, received);
    rec.append(out);
  }
}

void decode_member_block(std::span<const std::uint8_t> blob, std::int64_t collective,
                         std::vector<PackedCollectiveMember>& out, const std::string& what) {
  Reader in(blob, what);
  std::uint64_t count = checked_count(in, kMinMemberBytes);
  out.reserve(out.size() + count);
  std::int64_t process = 0, event = 0, start = 0, sent = 0, received = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    PackedCollectiveMember p{};
    StoredCollectiveMember& m = p.member;
    m.collective = collective;
    std::int64_t proc = in.delta(process);
    if (proc < INT32_MIN || proc > INT32_MAX) in.fail("process out of range");
    m.process = static_cast<ProcessIndex>(proc);
    std::uint8_t has_event = in.byte();
    if (has_event > 1) in.fail("bad member flags");
    m.event = has_event ? in.delta(event) : kNullRef;
    m.start_ns = in.delta(start);
    m.end_ns = add(m.start_ns, unzigzag(in.varint()));
    p.bytes_sent = in.delta(sent);
    p.bytes_received = in.delta(received);
    out.push_back(p);
  }
  if (in.left() != 0) in.fail("trailing bytes");
}

void CommEventBlockEncoder::add(const CommEventRecord& e) {
  if (bytes_.size() - size_ < RecordBytes::kMaxBytes)
    bytes_.resize(std::max(2 * bytes_.size(), size_ + RecordBytes::kMaxBytes));
  BytesAt rec(bytes_.data() + size_);
  auto flags = static_cast<std::uint8_t>((e.collective != kNullRef ? kHasCollective : 0) |
                                         (e.message != kNullRef ? kHasMessage : 0) |
                                         (e.send_step != kNullRef ? kHasSendStep : 0) |
                                         e.kind << kCommKindShift);
  rec.byte(flags);
  rec.delta(e.event, event_);
  rec.delta(e.region, region_);
  rec.delta(e.start_ns, start_);
  rec.varint(diff(e.end_ns, e.start_ns));
  rec.delta(e.partition, partition_);
  rec.delta(e.step, step_);
  rec.delta(e.local_step, local_step_);
  if (flags & kHasCollective) rec.delta(e.collective, collective_);
  if (flags & kHasMessage) rec.delta(e.message, message_);
  if (flags & kHasSendStep) rec.delta(e.send_step, send_step_);
  // The metrics are never negative: plain varints of their bits.
  rec.varint(static_cast<std::uint64_t>(e.lateness_ns));
  rec.varint(static_cast<std::uint64_t>(e.global_lateness_ns));
  rec.varint(static_cast<std::uint64_t>(e.diff_lateness_ns));
  rec.varint(static_cast<std::uint64_t>(e.wait_ns));
  size_ = static_cast<std::size_t>(rec.at() - bytes_.data());
  ++count_;
}

std::span<const std::uint8_t> CommEventBlockEncoder::blob() {
  RecordBytes head;
  head.varint(count_);
  const std::span<const std::uint8_t> count = head.bytes();
  std::uint8_t* first = bytes_.data() + kCountRoom - count.size();
  std::copy(count.begin(), count.end(), first);
  return {first, bytes_.data() + size_};
}

void CommEventBlockEncoder::clear() {
  size_ = kCountRoom;
  count_ = 0;
  event_ = region_ = start_ = partition_ = step_ = local_step_ = 0;
  collective_ = message_ = send_step_ = 0;
}

void encode_comm_event_block(std::span<const CommEventRecord> events,
                             std::vector<std::uint8_t>& out) {
  CommEventBlockEncoder encoder;
  for (const CommEventRecord& e : events) encoder.add(e);
  const std::span<const std::uint8_t> blob = encoder.blob();
  out.insert(out.end(), blob.begin(), blob.end());
}

void decode_comm_event_block(std::span<const std::uint8_t> blob, ProcessIndex process,
                             std::vector<CommEventRecord>& out, const std::string& what) {
  Reader in(blob, what);
  std::uint64_t count = checked_count(in, kMinCommEventBytes);
  out.reserve(out.size() + count);
  std::int64_t event = 0, region = 0, start = 0, partition = 0, step = 0, local_step = 0;
  std::int64_t collective = 0, message = 0, send_step = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint8_t flags = in.byte();
    if ((flags >> kCommKindShift) >= kCommKindLimit) in.fail("bad communication event flags");
    CommEventRecord e{};
    e.process = process;
    e.kind = flags >> kCommKindShift;
    e.event = in.delta(event);
    e.region = in.delta(region);
    e.start_ns = in.delta(start);
    e.end_ns = add(e.start_ns, in.varint());
    e.partition = in.delta(partition);
    e.step = in.delta(step);
    e.local_step = in.delta(local_step);
    e.collective = (flags & kHasCollective) ? in.delta(collective) : kNullRef;
    e.message = (flags & kHasMessage) ? in.delta(message) : kNullRef;
    e.send_step = (flags & kHasSendStep) ? in.delta(send_step) : kNullRef;
    e.lateness_ns = static_cast<TimeNs>(in.varint());
    e.global_lateness_ns = static_cast<TimeNs>(in.varint());
    e.diff_lateness_ns = static_cast<TimeNs>(in.varint());
    e.wait_ns = static_cast<TimeNs>(in.varint());
    out.push_back(e);
  }
  if (in.left() != 0) in.fail("trailing bytes");
}

void encode_message_step_block(std::span<const MessageStepRecord> lines, std::vector<std::uint8_t>& out) {
  put_count(out, lines.size());
  std::int64_t src = 0, message = 0, send_step = lines.empty() ? 0 : lines.front().send_step;
  RecordBytes rec;
  for (const MessageStepRecord& m : lines) {
    rec.delta(m.src, src);
    rec.delta(m.message, message);
    rec.varint(zigzag(diff(m.dst, m.src)));
    rec.varint(zigzag(diff(m.recv_step, send_step)));
    rec.append(out);
  }
}

void decode_message_step_block(std::span<const std::uint8_t> blob, std::int64_t send_step,
                               std::vector<MessageStepRecord>& out, const std::string& what) {
  Reader in(blob, what);
  std::uint64_t count = checked_count(in, kMinMessageStepBytes);
  out.reserve(out.size() + count);
  std::int64_t src = 0, message = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    MessageStepRecord m{};
    m.send_step = send_step;
    m.src = in.delta(src);
    m.message = in.delta(message);
    m.dst = add(m.src, unzigzag(in.varint()));
    m.recv_step = add(send_step, unzigzag(in.varint()));
    out.push_back(m);
  }
  if (in.left() != 0) in.fail("trailing bytes");
}

}  // namespace weft::db
