#pragma once
// One streaming pass over a location's OTF2 events: Enter/Leave pairs become
// intervals (event rows), MPI point-to-point records become send and receive
// records for matching, MPI collective records become member records.
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
#include "otf2/otf2_archive.h"
#include "otf2/otf2_process_layout.h"
#include "store/records.h"

namespace weft::db {

// GCC/Clang's 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef __int128 Int128;

// Exact conversion from trace ticks to ns from the global offset: the value
// of ticks * 1e9 / resolution in 128-bit arithmetic (ticks * 1e9 overflows 64
// bits for ordinary clock values). It runs once per record, and a 128-bit
// division is a library call, so the common cases take 64-bit shortcuts
// that give the same result.
struct TickConverter {
  std::uint64_t resolution = 1;
  std::uint64_t offset = 0;
  TimeNs to_ns(std::uint64_t ticks) const {
    if (resolution == kNsPerSecond) return static_cast<TimeNs>(ticks - offset);
    // ticks - offset = q * resolution + r, so the quotient is q * 1e9 +
    // r * 1e9 / resolution, and r * 1e9 fits 64 bits below this resolution.
    if (ticks >= offset && resolution <= kMaxSplitResolution) {
      std::uint64_t delta = ticks - offset;
      std::uint64_t q = delta / resolution, r = delta % resolution;
      return static_cast<TimeNs>(q * kNsPerSecond + r * kNsPerSecond / resolution);
    }
    Int128 delta = static_cast<Int128>(ticks) - static_cast<Int128>(offset);
    return static_cast<TimeNs>(delta * kNsPerSecond / static_cast<Int128>(resolution));
  }

 private:
  static constexpr std::uint64_t kNsPerSecond = 1'000'000'000;
  static constexpr std::uint64_t kMaxSplitResolution = UINT64_MAX / kNsPerSecond;
};

// Event rows are the store's records (db/store/records.h).
using EventRow = EventRecord;

// A send of one location. Its message id and its MPI order among the
// sender's sends are its position in decoding order (message_matching.h), and
// its matching rank is layout.rank_process[src]: neither is stored.
struct SendRecord {
  ProcessIndex src;           // the process that sent
  ProcessIndex dst_rank;      // matching key: translated receiver (rank process), -1: unknown
  std::uint32_t comm;
  std::uint32_t tag;
  std::uint64_t bytes;
  EventId send_event;         // -1: none
  EventId send_done_event;    // -1: none (blocking send, or Isend never completed)
  TimeNs send_ns;
};

// A receive of one location; its matching rank is layout.rank_process[dst].
struct RecvRecord {
  std::uint64_t seq;          // posting order at the receiver (Irecv: the request's)
  ProcessIndex src_rank;      // matching key: translated sender (rank process), -1: unknown
  ProcessIndex dst;           // the process that received
  std::uint32_t comm;
  std::uint32_t tag;
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

// The send, receive and collective records of one location, in record
// order. They stay small (one location's worth, cache-resident) and are
// handed on when the location is done; the importer reuses the vectors.
struct LocationRecords {
  std::vector<SendRecord> sends;
  std::vector<RecvRecord> recvs;
  std::vector<CollectiveMemberRecord> collective_members;
  void clear() {
    sends.clear();
    recvs.clear();
    collective_members.clear();
  }
};

// What the whole pass counts.
struct DecodeTotals {
  std::uint64_t records = 0;          // every OTF2 event record read
  std::uint64_t handled_records = 0;  // records weft used
  std::uint64_t unclosed_regions = 0;
  std::uint64_t unmatched_leaves = 0;
  TimeNs trace_end_ns = 0;
};

// Takes a batch of event rows (order: by Leave within a location) and leaves
// `rows` empty; it may swap the vector for another one instead of copying.
using EventRowSink = std::function<void(std::vector<EventRow>& rows)>;

// Collects event rows and hands them to the sink 64K at a time, so the sink
// (a worker's piece of rows to encode) is called per batch, never per event.
class EventRowBuffer {
 public:
  static constexpr std::size_t kBatchRows = 65536;
  explicit EventRowBuffer(EventRowSink sink, size_t capacity = kBatchRows)
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
    rows_.reserve(capacity_);
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

// Decodes one location: event rows go to `rows`, the other records are
// appended to `records`. Throws weft::Error naming the location and its .evt
// file for a damaged file or timestamps that go backwards.
LocationSummary decode_location(const Otf2Archive& archive, const ProcessLayout& layout,
                                ProcessIndex process, EventId first_event,
                                const TickConverter& ticks, DecodeTotals& totals,
                                LocationRecords& records, EventRowBuffer& rows,
                                const ChunkProgress& progress);

}  // namespace weft::db
