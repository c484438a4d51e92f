#include "otf2/event_pipeline.h"

#include <algorithm>

namespace weft::db {

EventPipeline::EventPipeline(Database& db, int shift, std::function<void()> idle_work, bool threaded)
    : db_(db), staged_(shift < 0), threaded_(threaded), idle_work_(std::move(idle_work)) {
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
  changed_.wait(lock, [this] { return queue_.size() < kQueueBatches || error_; });
  rethrow_if_failed();
  queue_.push_back(std::move(batch));
  lock.unlock();
  changed_.notify_all();
}

void EventPipeline::add(ProcessIndex process, std::span<const EventRecord> rows) {
  if (rows.empty()) return;
  Batch batch;
  batch.process = process;
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      batch.rows = std::move(free_.back());
      free_.pop_back();
    }
  }
  batch.rows.assign(rows.begin(), rows.end());
  push(std::move(batch));
}

void EventPipeline::end_process(ProcessIndex process) {
  Batch batch;
  batch.process = process;
  batch.end_of_process = true;
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
    pending_ = {};
    return;
  }
  write_in_id_order(process, pending_);
  pending_.clear();
}

bool EventPipeline::handle(Batch& batch) {
  if (batch.end_of_input) return false;
  if (!batch.rows.empty()) {
    pending_.insert(pending_.end(), batch.rows.begin(), batch.rows.end());
    batch.rows.clear();
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(batch.rows));
  }
  if (batch.end_of_process || (!staged_ && pending_.size() >= kFlushEvents))
    flush_pending(batch.process);
  if (idle_work_) idle_work_();
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
