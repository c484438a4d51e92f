#pragma once
// Tasks 0 .. count - 1 whose results must be consumed in task order by one
// thread (the writer, which holds the SQLite connection), shared with a
// helper thread that has finished its own work: each thread claims the next
// unclaimed task. The writer does the tasks it claims itself, in place, and
// consumes the helper's results, in task order, before claiming another;
// the helper makes results into memory, at most kMaxPending ahead of the
// writer.
//
// Why: `weft analyze` writes comm_event_blocks on the main thread while the
// helper builds the viewer's tables; whichever finishes first takes over part
// of the other's work. The helper finished first, and the main thread then
// wrote the last tasks, the view tables and the commit alone.
//
// Ordering guarantee (what a task may rely on): while the writer does task t,
// the helper claims at most t + kMaxPending; a task the helper claimed is done
// before the writer claims any later task. So two tasks at least
// kMaxPending + 1 apart never run at the same time, and the later one starts
// after the earlier one is done.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <utility>

namespace weft::db {

template <class Result>
class SharedOrderedTasks {
 public:
  // Enough for the helper to go on while the writer spends ~15 ms on other
  // work between two tasks (the view tables' inserts at 16,384 processes);
  // each result is a few hundred KB.
  static constexpr int kMaxPending = 8;

  explicit SharedOrderedTasks(std::int64_t count) : count_(count) {}
  SharedOrderedTasks(const SharedOrderedTasks&) = delete;
  SharedOrderedTasks& operator=(const SharedOrderedTasks&) = delete;

  std::int64_t count() const { return count_; }

  // The writer's side: do(t) for each task it claims, consume(result) for
  // each of the helper's, all in task order, and between() before claiming
  // each task (other work of the writer's, done while the helper makes
  // results ahead). Rethrows the helper's exception. If do, consume or
  // between throws, the helper stops at its next task.
  template <class Do, class Consume, class Between>
  void run_writer(Do&& do_task, Consume&& consume, Between&& between) {
    try {
      std::int64_t consumed = 0;
      for (;;) {
        between();
        const std::int64_t t = next_.fetch_add(1);
        const std::int64_t helper_until = std::min(t, count_);
        for (; consumed < helper_until; ++consumed) consume(take(consumed));
        if (t >= count_) break;
        do_task(t);
        consumed = t + 1;
      }
    } catch (...) {
      abandon();
      throw;
    }
  }

  template <class Do, class Consume>
  void run_writer(Do&& do_task, Consume&& consume) {
    run_writer(std::forward<Do>(do_task), std::forward<Consume>(consume), [] {});
  }

  // The helper's side: make(t) -> Result for each task it claims, until
  // none is left or the writer has stopped.
  template <class Make>
  void run_helper(Make&& make) {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return pending_ < kMaxPending || abandoned_; });
        if (abandoned_) return;
      }
      const std::int64_t t = next_.fetch_add(1);
      if (t >= count_) return;
      try {
        Result r = make(t);
        const std::lock_guard<std::mutex> lock(mutex_);
        done_.emplace(t, std::move(r));
        ++pending_;
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
        done_.clear();
        changed_.notify_all();
        return;
      }
      changed_.notify_all();
    }
  }

  // The share of the tasks claimed so far (for a progress display).
  double claimed_share() const {
    return count_ > 0 ? static_cast<double>(std::min(next_.load(), count_)) / static_cast<double>(count_) : 1.0;
  }

  // The writer has stopped (an error): a helper waiting to claim returns.
  void abandon() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      abandoned_ = true;
    }
    changed_.notify_all();
  }

 private:
  // The helper's result of task t, waited for.
  Result take(std::int64_t t) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ || done_.count(t) != 0; });
    if (error_) std::rethrow_exception(error_);
    auto it = done_.find(t);
    Result r = std::move(it->second);
    done_.erase(it);
    --pending_;
    lock.unlock();
    changed_.notify_all();
    return r;
  }

  const std::int64_t count_;
  std::atomic<std::int64_t> next_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::int64_t, Result> done_;  // made by the helper, not yet consumed
  int pending_ = 0;                      // done_.size()
  bool abandoned_ = false;
  std::exception_ptr error_;
};

}  // namespace weft::db
