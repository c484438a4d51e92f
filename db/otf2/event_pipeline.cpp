#include "otf2/event_pipeline.h"

#include <algorithm>
#include "common/release_memory.h"


namespace weft::db {

EventPipeline::EventPipeline(Database& db, int shift, ProcessRecordsSink process_records, bool threaded)
    : db_(db), staged_(shift < 0), threaded_(threaded), process_records_(std::move(process_records)) {
  if (!staged_) writer_ = std::make_unique<EventBlockWriter>(db, shift);
  if (threaded_) thread_ = std::thread([this] { run(); });
}

EventPipeline::~EventPipeline() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventPipeline::rethrow_if_failed() {
  if (error_) std::rethrow_exception(error_);
}

void EventPipeline::push(Batch&& batch) {
  if (!threaded_) {
    handle(batch);
    return;
  }
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queued_records_ < kQueueRecords || error_; });
  rethrow_if_failed();
  queued_records_ += batch.size();
  queue_.push_back(std::move(batch));
  lock.unlock();
  changed_.notify_all();
}

namespace {

// Swaps `taken` with a vector from `free` (or an empty one).
template <class T>
void take_swapping(T& taken, T& into, std::vector<T>& free) {
  if (!free.empty()) {
    into = std::move(free.back());
    free.pop_back();
  }
  std::swap(taken, into);
}

}  // namespace

void EventPipeline::add(ProcessIndex process, std::vector<EventRecord>& rows) {
  if (rows.empty()) return;
  Batch batch;
  batch.process = process;
  {
    std::lock_guard lock(mutex_);
    take_swapping(rows, batch.rows, free_rows_);
  }
  push(std::move(batch));
}

void EventPipeline::end_process(ProcessIndex process, LocationRecords& records) {
  Batch batch;
  batch.process = process;
  batch.end_of_process = true;
  {
    std::lock_guard lock(mutex_);
    take_swapping(records, batch.records, free_records_);
  }
  push(std::move(batch));
}

int EventPipeline::finish(int shift) {
  Batch batch;
  batch.end_of_input = true;
  push(std::move(batch));
  if (thread_.joinable()) thread_.join();
  rethrow_if_failed();
  if (staged_) {
    writer_ = std::make_unique<EventBlockWriter>(db_, shift);
    for (auto& [process, rows] : staged_rows_) write_in_id_order(process, rows);
    staged_rows_.clear();
  }
  return writer_->max_level();
}

// Rows arrive in Leave order; ids follow Enter order, which is start order
// within a process. When the rows are exactly the ids lo..hi (a whole process,
// or a piece without a pending region), placing each at id - lo sorts them in
// one pass; otherwise the writer sorts.
void EventPipeline::write_in_id_order(ProcessIndex process, std::vector<EventRecord>& rows) {
  if (rows.empty()) return;
  auto [lo, hi] = std::minmax_element(rows.begin(), rows.end(),
                                      [](const EventRecord& a, const EventRecord& b) { return a.id < b.id; });
  EventId first = lo->id;
  if (hi->id - first + 1 == static_cast<EventId>(rows.size())) {
    ordered_.resize(rows.size());
    for (const EventRecord& e : rows) ordered_[static_cast<std::size_t>(e.id - first)] = e;
    writer_->write(process, ordered_);
  } else {
    writer_->write(process, rows);
  }
}

void EventPipeline::flush_pending(ProcessIndex process) {
  if (staged_) {
    if (!pending_.empty()) staged_rows_.emplace_back(process, std::move(pending_));
    release_memory(pending_);
    return;
  }
  write_in_id_order(process, pending_);
  pending_.clear();
}

bool EventPipeline::handle(Batch& batch) {
  if (batch.end_of_input) return false;
  if (!batch.rows.empty()) {
    // Most processes fit one batch: take it whole instead of copying.
    if (pending_.empty())
      std::swap(pending_, batch.rows);
    else
      pending_.insert(pending_.end(), batch.rows.begin(), batch.rows.end());
    batch.rows.clear();
    // pending_ grows to a whole process's rows; once swapped out it would go
    // round as a batch vector, and the queue's worth of such vectors was
    // most of the import's memory on long locations.
    if (batch.rows.capacity() > kRecycledRowCapacity) release_memory(batch.rows);
    std::lock_guard lock(mutex_);
    free_rows_.push_back(std::move(batch.rows));
  }
  if (batch.end_of_process || (!staged_ && pending_.size() >= kFlushEvents))
    flush_pending(batch.process);
  if (batch.end_of_process) {
    process_records_(batch.process, batch.records);
    batch.records.clear();
    std::lock_guard lock(mutex_);
    free_records_.push_back(std::move(batch.records));
  }
  return true;
}

void EventPipeline::run() {
  try {
    for (;;) {
      Batch batch;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return !queue_.empty() || stop_; });
        if (queue_.empty()) return;  // stopped
        batch = std::move(queue_.front());
        queue_.pop_front();
        queued_records_ -= batch.size();
      }
      changed_.notify_all();
      if (!handle(batch)) return;
    }
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    changed_.notify_all();
  }
}

}  // namespace weft::db
