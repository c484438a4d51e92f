#pragma once
// One piece of work that a thread offers to another thread which may be idle:
// whichever claims it first runs it. The offering thread does its own share
// meanwhile, then runs the offer itself if it is still unclaimed, or waits
// for the other thread to finish it.
//
// Why: `weft analyze` builds the view tables on a helper thread while the
// main thread writes comm_event_blocks. In small runs the main thread is done
// first and waited ~45 ms for the step level of detail's compression (at
// 1,024 processes); now it compresses half of the levels (step_lod.cpp).
// In large runs the main thread is still writing when the offer comes, and
// the helper does all of it, as before.
//
// The offering side makes a JobExchange::Offer; the other thread calls
// help_until_closed(), which runs offers until the offering side calls
// close() (a CloseOnExit does it however that side's work ends, so the
// helping thread never waits forever).
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <utility>

namespace weft::db {

class JobExchange {
 public:
  JobExchange() = default;
  JobExchange(const JobExchange&) = delete;
  JobExchange& operator=(const JobExchange&) = delete;

  class Offer;

  // How many offers the helping side has run (for tests).
  int helped() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return helped_;
  }

  // The offering side will offer nothing more.
  void close() {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

  // The helping side: runs each offer it claims, until close(). What a job
  // throws goes to run_or_wait().
  void help_until_closed() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return state_ == State::Offered || closed_; });
      if (state_ != State::Offered) return;
      std::function<void()> job = std::move(job_);
      state_ = State::Claimed;
      lock.unlock();
      std::exception_ptr error;
      try {
        job();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      error_ = error;
      ++helped_;
      state_ = State::Done;
      changed_.notify_all();
    }
  }

  // Closes the exchange when the offering side's scope ends, however it ends.
  class CloseOnExit {
   public:
    explicit CloseOnExit(JobExchange* exchange) : exchange_(exchange) {}
    CloseOnExit(const CloseOnExit&) = delete;
    CloseOnExit& operator=(const CloseOnExit&) = delete;
    ~CloseOnExit() {
      if (exchange_) exchange_->close();
    }

   private:
    JobExchange* exchange_;
  };

 private:
  enum class State { Idle, Offered, Claimed, Done };

  void offer(std::function<void()> job) {
    const std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
    state_ = State::Offered;
    changed_.notify_all();
  }
  // Runs the offer here unless it was claimed, else waits until it is done
  // and rethrows what it threw.
  void run_or_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (state_ == State::Offered) {
      std::function<void()> job = std::move(job_);
      state_ = State::Idle;
      lock.unlock();
      job();
      return;
    }
    changed_.wait(lock, [this] { return state_ == State::Done; });
    state_ = State::Idle;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  // Takes an unclaimed offer back, or waits for a claimed one to finish (its
  // error dropped): the job refers to the offering side's stack.
  void withdraw() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    if (state_ == State::Claimed) changed_.wait(lock, [this] { return state_ == State::Done; });
    job_ = nullptr;
    error_ = nullptr;
    state_ = State::Idle;
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::Idle;
  bool closed_ = false;
  int helped_ = 0;
  std::function<void()> job_;
  std::exception_ptr error_;
};

// An offered job, on the offering side: run_or_wait() once its own share is
// done. Without an exchange (one thread) run_or_wait() just runs it. Left
// without run_or_wait() (an exception), the offer is withdrawn, waiting for
// the other thread if it is running it.
class JobExchange::Offer {
 public:
  Offer(JobExchange* exchange, std::function<void()> job) : exchange_(exchange) {
    if (exchange_)
      exchange_->offer(std::move(job));
    else
      job_ = std::move(job);
  }
  Offer(const Offer&) = delete;
  Offer& operator=(const Offer&) = delete;
  ~Offer() {
    if (exchange_ && !finished_) exchange_->withdraw();
  }
  void run_or_wait() {
    finished_ = true;
    if (exchange_)
      exchange_->run_or_wait();
    else
      job_();
  }

 private:
  JobExchange* exchange_;
  std::function<void()> job_;
  bool finished_ = false;
};

}  // namespace weft::db
