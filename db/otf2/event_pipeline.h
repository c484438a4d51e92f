#pragma once
// The importer's second thread: the decoding thread hands event rows over in
// batches through a bounded queue; this thread orders them, encodes them into
// packed blocks and writes them into SQLite (EventBlockWriter), while the
// decoder goes on with the next location. At the end of each location the
// decoder also hands over its send, receive and collective records, which
// this thread gives to the importer's `ProcessRecordsSink` (message matching
// and message blocks run here, not after the decoding).
//
// Memory stays bounded: at most about kQueueRecords records (event rows and
// the other records; ~12 MB) wait in the queue, and a process's rows are
// written in pieces of at most kFlushEvents (each piece
// becomes its own block parts). Batch vectors are recycled, except those that
// grew to hold a long process's rows.
// The exception is the staged mode (the trace length was not in the
// definitions, so the bucket shift is unknown until the end): rows are kept
// until finish().
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "otf2/otf2_event_decoder.h"
#include "store/block_writer.h"
#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

class EventPipeline {
 public:
  // Deep enough that neither thread waits for the other's next time slice
  // on a busy machine: a location is typically one or two small batches, and
  // a queue of 8 batches made the two threads run in lockstep. 1M records
  // was no faster and held ~70 MB more on long locations (every page of it
  // first-touched: ~8 us a fault on these VMs).
  static constexpr std::size_t kQueueRecords = std::size_t{1} << 18;
  static constexpr std::size_t kFlushEvents = std::size_t{1} << 20;
  // Batch vectors that grew beyond a decoder batch are freed, not recycled.
  static constexpr std::size_t kRecycledRowCapacity = EventRowBuffer::kBatchRows;

  // Runs on the writer thread for each process, after its event rows.
  using ProcessRecordsSink = std::function<void(ProcessIndex, LocationRecords&)>;

  // `shift` >= 0: write blocks as processes complete; < 0: staged (see above).
  // `threaded` false: no writer thread; every batch is written on the calling
  // thread as it arrives (weft import --threads 1).
  EventPipeline(Database& db, int shift, ProcessRecordsSink process_records, bool threaded = true);
  ~EventPipeline();
  EventPipeline(const EventPipeline&) = delete;
  EventPipeline& operator=(const EventPipeline&) = delete;

  // Decoding thread: rows of `process` (any number of calls per process, the
  // processes one after the other). Takes the rows and leaves `rows` empty
  // (a recycled vector). Blocks while the queue is full; rethrows the
  // writer's error if it failed.
  void add(ProcessIndex process, std::vector<EventRecord>& rows);
  // Decoding thread: no more rows of `process`; takes its other records and
  // leaves `records` empty (recycled vectors).
  void end_process(ProcessIndex process, LocationRecords& records);

  // Waits until everything is written (in staged mode: writes it now with
  // `shift`); rethrows the writer's error. Returns the largest bucket level.
  int finish(int shift);
  std::int64_t blocks_written() const { return writer_ ? writer_->blocks_written() : 0; }

 private:
  struct Batch {
    ProcessIndex process = 0;
    bool end_of_process = false;
    bool end_of_input = false;
    std::vector<EventRecord> rows;
    LocationRecords records;  // with end_of_process
    std::size_t size() const {
      return rows.size() + records.sends.size() + records.recvs.size() +
             records.collective_members.size();
    }
  };
  void push(Batch&& batch);
  void run();
  // Writes one batch; false at the end of the input.
  bool handle(Batch& batch);
  void flush_pending(ProcessIndex process);
  void write_in_id_order(ProcessIndex process, std::vector<EventRecord>& rows);
  void rethrow_if_failed();

  Database& db_;
  bool staged_;
  bool threaded_;
  ProcessRecordsSink process_records_;
  std::unique_ptr<EventBlockWriter> writer_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> queue_;
  std::size_t queued_records_ = 0;
  std::vector<std::vector<EventRecord>> free_rows_;  // recycled batch vectors
  std::vector<LocationRecords> free_records_;
  std::exception_ptr error_;
  bool stop_ = false;

  // Writer thread only.
  std::vector<EventRecord> pending_;
  std::vector<EventRecord> ordered_;
  std::vector<std::pair<ProcessIndex, std::vector<EventRecord>>> staged_rows_;
  std::thread thread_;
};

}  // namespace weft::db
