#pragma once
// The importer's decoding. Every worker (the calling thread and threads - 1
// more, each with its own OTF2 reader) takes the next location, decodes it and
// encodes its event blocks with event ids counted from 0. Each location then
// passes two serial stages, each taking the locations one at a time in process
// order, on whichever worker is free:
// - ordering: event ids and receive posting numbers are shifted to their
//   place in the run, and the location's send, receive and collective records
//   go to the importer's sink (message matching and collective grouping, which
//   need process order); the messages this completes wait with the location;
// - storing: its event blocks and those messages are inserted (SQLite has one
//   writer).
// Two stages rather than one commit, because one serial commit was the bound
// at few processes: at 64 processes it took longer than decoding, and the
// inserts ran up to 1.8 times slower beside a decoding CPU than alone. Now one
// worker can match location k+1 while another inserts location k.
//
// Why this shape: the work goes to whichever CPU is free, and only compact
// blocks and the records to match pass between CPUs. The previous design, a
// decoding thread handing every event row (~300 MB at 4,096 processes) to a
// writer thread, ran half as fast in the hours when the host placed the two
// virtual CPUs far apart (README, Limits), and its fixed split left one CPU
// idle whenever the other side was the slower.
//
// Memory: a worker holds at most kPieceEvents event rows before it encodes
// them (a longer location becomes several block parts); a decoded location
// waits for its stages with its blocks encoded (~5 bytes an event) and its
// records; at most kRing locations from the next one to store are taken.
// Without a trace length in the definitions the bucket shift is unknown until
// the end: the rows are then kept (the staged mode) and written by finish().
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "otf2/otf2_archive.h"
#include "otf2/otf2_event_decoder.h"
#include "otf2/otf2_process_layout.h"
#include "store/block_writer.h"
#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

struct LocationCounts {
  EventId first_event = 0;
  std::int64_t events = 0;
  std::uint64_t records = 0;
};

struct LocationWorkPlan {
  std::size_t first = 0;  // the processes first .. first + count - 1
  std::size_t count = 0;
  TickConverter ticks;
  int shift = -1;  // meta.bucket_shift; < 0: unknown until the end (staged)
  int threads = 2;
  std::size_t piece_events = 0;  // rows a worker holds before encoding; 0: kPieceEvents
};

// The messages that ordering a location completed, encoded as blocks there,
// waiting to be stored (a few bytes a message instead of a MessageRecord).
struct MatchedMessages {
  EncodedMessageBlocks blocks;
  void clear() { blocks.clear(); }
};

// In process order, on the worker ordering the location: its records with
// their final event ids; what they complete goes to `matched`. Must not
// write to the database (another worker may be storing).
using LocationRecordsSink = std::function<void(ProcessIndex, LocationRecords&, MatchedMessages& matched)>;
// In process order, on the worker storing the location, after its event
// blocks: stores what ordering it matched.
using MatchedMessagesSink = std::function<void(MatchedMessages&)>;
// Records decoded so far and locations stored so far; called by one
// worker at a time.
using LocationProgress = std::function<void(std::uint64_t records, std::size_t locations)>;

class LocationWorkers {
 public:
  static constexpr std::size_t kPieceEvents = std::size_t{1} << 19;
  static constexpr std::size_t kRing = 4;

  LocationWorkers(const Otf2Archive& archive, const ProcessLayout& layout, Database& db,
                  const LocationWorkPlan& plan, LocationRecordsSink order_sink,
                  MatchedMessagesSink store_sink, LocationProgress progress);
  ~LocationWorkers();
  LocationWorkers(const LocationWorkers&) = delete;
  LocationWorkers& operator=(const LocationWorkers&) = delete;

  // Decodes, orders and stores every location. Rethrows the first failure in
  // process order (a damaged location, or the sink's).
  void run();
  // Staged mode: writes the kept rows with `shift`. Returns the largest
  // bucket level of all event blocks.
  int finish(int shift);

  const DecodeTotals& totals() const { return totals_; }
  const std::vector<LocationCounts>& counts() const { return counts_; }
  EventId events() const { return next_event_; }

 private:
  struct Slot;
  class Worker;

  void work(const Otf2Archive& archive);
  // Under mutex_: whether a stage can take its next location, whether a
  // worker can claim one to decode.
  bool can_order() const;
  bool can_store() const;
  bool can_claim() const;
  // Runs the serial stages while either has a location ready and is free.
  void run_serial_stages();
  void order(std::size_t k, Slot& slot);
  void store(std::size_t k, Slot& slot);
  void report_progress();

  const Otf2Archive& archive_;
  const ProcessLayout& layout_;
  Database& db_;
  LocationWorkPlan plan_;
  LocationRecordsSink order_sink_;
  MatchedMessagesSink store_sink_;
  LocationProgress progress_;
  std::vector<std::uint64_t> locations_;  // OTF2 location refs, by location index

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Slot>> slots_;  // location k in slots_[k % kRing]
  std::size_t next_claim_ = 0;
  std::size_t ordered_ = 0;  // locations through the ordering stage
  std::size_t stored_ = 0;   // and through the storing stage; a slot is free after it
  bool ordering_ = false;
  bool storing_ = false;
  bool stop_ = false;
  std::exception_ptr error_;

  std::mutex progress_mutex_;
  std::uint64_t records_decoded_ = 0;  // under progress_mutex_

  // The storing worker's (one at a time).
  std::unique_ptr<EventBlockWriter> writer_;  // null while staged
  std::vector<std::pair<ProcessIndex, std::vector<EventRecord>>> staged_rows_;
  // The ordering worker's (one at a time).
  DecodeTotals totals_;
  std::vector<LocationCounts> counts_;
  EventId next_event_ = 0;
};

}  // namespace weft::db
