#pragma once
// The importer's second thread: the decoding thread hands event rows over in
// batches through a bounded queue; this thread orders them, encodes them into
// packed blocks and writes them into SQLite (EventBlockWriter), while the
// decoder goes on with the next location.
//
// Memory stays bounded: at most kQueueBatches batches wait in the queue, and
// a process's rows are written in pieces of at most kFlushEvents (each piece
// becomes its own block parts). Batch vectors are recycled, not freed.
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

#include "store/block_writer.h"
#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

class EventPipeline {
 public:
  static constexpr std::size_t kQueueBatches = 8;
  static constexpr std::size_t kFlushEvents = std::size_t{1} << 20;

  // `shift` >= 0: write blocks as processes complete; < 0: staged (see above).
  // `idle_work`, if set, runs on the writer thread after every batch.
  // `threaded` false: no writer thread; every batch is written on the calling
  // thread as it arrives (weft import --threads 1).
  EventPipeline(Database& db, int shift, std::function<void()> idle_work = {}, bool threaded = true);
  ~EventPipeline();
  EventPipeline(const EventPipeline&) = delete;
  EventPipeline& operator=(const EventPipeline&) = delete;

  // Decoding thread: rows of `process` (any number of calls per process, the
  // processes one after the other). Blocks while the queue is full; rethrows
  // the writer's error if it failed.
  void add(ProcessIndex process, std::span<const EventRecord> rows);
  // Decoding thread: no more rows of `process`.
  void end_process(ProcessIndex process);

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
  std::function<void()> idle_work_;
  std::unique_ptr<EventBlockWriter> writer_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> queue_;
  std::vector<std::vector<EventRecord>> free_;  // recycled batch vectors
  std::exception_ptr error_;
  bool stop_ = false;

  // Writer thread only.
  std::vector<EventRecord> pending_;
  std::vector<EventRecord> ordered_;
  std::vector<std::pair<ProcessIndex, std::vector<EventRecord>>> staged_rows_;
  std::thread thread_;
};

}  // namespace weft::db
