#pragma once
// One streaming pass over a location's OTF2 events: Enter/Leave pairs become
// intervals (event rows), MPI point-to-point records become send and receive
// records for later matching, MPI collective records become member records.
//
// Everything is plain fixed-size structs in vectors; event rows leave through
// a buffer that is handed to a sink in large batches. No per-event heap
// objects; the only maps are the small per-location tables of open
// Isend/Irecv requests and collective counters per communicator.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/types.h"
#include "otf2/huge_page_allocator.h"
#include "otf2/otf2_archive.h"
#include "otf2/otf2_process_layout.h"
#include "store/records.h"

namespace weft::db {

// GCC/Clang's 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef __int128 Int128;

// Exact conversion from trace ticks to ns from the global offset (128-bit:
// ticks * 1e9 overflows 64 bits for ordinary clock values).
struct TickConverter {
  std::uint64_t resolution = 1;
  std::uint64_t offset = 0;
  TimeNs to_ns(std::uint64_t ticks) const {
    Int128 delta = static_cast<Int128>(ticks) - static_cast<Int128>(offset);
    return static_cast<TimeNs>(delta * 1000000000 / static_cast<Int128>(resolution));
  }
};

// Event rows are the store's records (db/store/records.h).
using EventRow = EventRecord;

struct SendRecord {
  std::uint64_t seq;          // record position at the sender: the MPI send order
  ProcessIndex src_rank;      // matching key: rank process of the sender
  ProcessIndex dst_rank;      // matching key: translated receiver
  std::uint32_t comm;
  std::uint32_t tag;
  ProcessIndex src;           // the process that sent
  std::uint64_t bytes;
  EventId send_event;         // -1: none
  EventId send_done_event;    // -1: none (blocking send, or Isend never completed)
  TimeNs send_ns;
};

struct RecvRecord {
  std::uint64_t seq;          // posting order at the receiver (Irecv: the request's)
  ProcessIndex src_rank;      // matching key: translated sender
  ProcessIndex dst_rank;      // matching key: rank process of the receiver
  std::uint32_t comm;
  std::uint32_t tag;
  ProcessIndex dst;           // the process that received
  std::uint64_t bytes;
  EventId recv_post_event;    // -1: blocking receive
  EventId recv_event;
  TimeNs recv_ns;
};

struct CollectiveMemberRecord {
  std::uint32_t comm;
  ProcessIndex owner;          // self-like communicators: the process; else -1
  std::uint64_t instance;      // k-th collective on comm at this member
  ProcessIndex process;
  std::uint32_t region;
  ProcessIndex root;           // -1: none
  EventId event;               // -1: the record was outside any region
  TimeNs start_ns;
  TimeNs end_ns;
  std::uint64_t bytes_sent;
  std::uint64_t bytes_received;
};

// What the whole pass accumulates besides event rows.
struct DecodedRecords {
  BigVector<SendRecord> sends;  // by sending process, then time
  BigVector<RecvRecord> recvs;  // by receiving process, then completion time
  BigVector<CollectiveMemberRecord> collective_members;
  std::uint64_t records = 0;          // every OTF2 event record read
  std::uint64_t handled_records = 0;  // records weft used
  std::uint64_t unclosed_regions = 0;
  std::uint64_t unmatched_leaves = 0;
  TimeNs trace_end_ns = 0;
};

// Receives event rows in batches (order: by Leave within a location).
using EventRowSink = std::function<void(std::span<const EventRow>)>;

// Collects event rows and hands them to the sink 64K at a time, so the sink
// (a database insert, a queue to a writer thread) is called per batch, never per event.
class EventRowBuffer {
 public:
  explicit EventRowBuffer(EventRowSink sink, size_t capacity = 65536)
      : sink_(std::move(sink)), capacity_(capacity) {
    rows_.reserve(capacity);
  }
  void push(const EventRow& row) {
    rows_.push_back(row);
    if (rows_.size() >= capacity_) flush();
  }
  void flush() {
    if (rows_.empty()) return;
    sink_(rows_);
    rows_.clear();
  }

 private:
  EventRowSink sink_;
  size_t capacity_;
  std::vector<EventRow> rows_;
};
// Called after every chunk of records; argument: records read in this location so far.
using ChunkProgress = std::function<void(std::uint64_t)>;

struct LocationSummary {
  std::uint64_t records = 0;
  std::int64_t events = 0;  // event rows; ids first_event .. first_event+events-1
};

// Decodes one location. Throws weft::Error naming the location and its .evt
// file for a damaged file or timestamps that go backwards.
LocationSummary decode_location(const Otf2Archive& archive, const ProcessLayout& layout,
                                ProcessIndex process, EventId first_event,
                                const TickConverter& ticks, DecodedRecords& out,
                                EventRowBuffer& rows, const ChunkProgress& progress);

}  // namespace weft::db
