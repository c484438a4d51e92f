#pragma once
// The importer's decoding. Every worker (the calling thread and threads - 1
// more, each with its own OTF2 reader) takes the next location, decodes it and
// encodes its event blocks with event ids counted from 0. The locations are
// then committed one at a time, in process order, by whichever worker
// completes the next one: event ids and receive posting numbers are shifted
// to their place in the run, the blocks are inserted, and the location's
// send, receive and collective records go to the importer's sink (message
// matching and collective grouping, which need process order).
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
// waits for its commit with its blocks encoded (~5 bytes an event) and its
// records; at most kRing locations from the next one to commit are taken.
// Without a trace length in the definitions the bucket shift is unknown until
// the end: the rows are then kept (the staged mode) and written by finish().
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
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

// In process order, on the committing worker: a location's records with
// their final event ids. May write to the database.
using LocationRecordsSink = std::function<void(ProcessIndex, LocationRecords&)>;
// Records decoded so far and locations committed so far; called by one
// worker at a time.
using LocationProgress = std::function<void(std::uint64_t records, std::size_t locations)>;

class LocationWorkers {
 public:
  static constexpr std::size_t kPieceEvents = std::size_t{1} << 19;
  static constexpr std::size_t kRing = 4;

  LocationWorkers(const Otf2Archive& archive, const ProcessLayout& layout, Database& db,
                  const LocationWorkPlan& plan, LocationRecordsSink sink, LocationProgress progress);
  ~LocationWorkers();
  LocationWorkers(const LocationWorkers&) = delete;
  LocationWorkers& operator=(const LocationWorkers&) = delete;

  // Decodes and commits every location. Rethrows the first failure in
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
  void commit_ready();
  void commit(std::size_t k, Slot& slot);
  void report_progress();

  const Otf2Archive& archive_;
  const ProcessLayout& layout_;
  Database& db_;
  LocationWorkPlan plan_;
  LocationRecordsSink sink_;
  LocationProgress progress_;
  std::vector<std::uint64_t> locations_;  // OTF2 location refs, by location index

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Slot>> slots_;  // location k in slots_[k % kRing]
  std::size_t next_claim_ = 0;
  std::size_t committed_ = 0;
  bool committing_ = false;
  bool stop_ = false;
  std::exception_ptr error_;

  std::mutex progress_mutex_;
  std::uint64_t records_decoded_ = 0;  // under progress_mutex_

  // The committing worker's (one at a time).
  std::unique_ptr<EventBlockWriter> writer_;  // null while staged
  std::vector<std::pair<ProcessIndex, std::vector<EventRecord>>> staged_rows_;
  DecodeTotals totals_;
  std::vector<LocationCounts> counts_;
  EventId next_event_ = 0;
};

}  // namespace weft::db
