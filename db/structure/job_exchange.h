#pragma once
// Pieces of work that a thread offers to another thread which may be idle:
// whichever claims a piece first runs it. The offering thread does its own
// share meanwhile, then runs each offer still unclaimed itself, or waits for
// the other thread to finish it. Several offers may be out at once; the
// helping thread claims them in the order they were made.
//
// Why: `weft analyze` builds the view tables on a helper thread while the
// main thread writes comm_event_blocks. In small runs, and in runs with
// many steps, the main thread is done first and waited for the helper (45
// ms at 1,024 processes × 20 iterations, 120-160 ms at 1,024 × 320): now the
// helper offers the message lines at once, and the step level of detail's
// coarser levels when it gets there (step_lod.cpp), and the main thread runs
// what it claims. In large runs the main thread is still writing when the
// helper is done, and the helper does all of it, as before.
//
// The offering side makes a JobExchange::Offer; the other thread calls
// help_until_closed(), which runs offers until the offering side calls
// close() (a CloseOnExit does it however that side's work ends, so the
// helping thread never waits forever).
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <utility>

namespace weft::db {

class JobExchange {
 public:
  // Whether the offering side may take back an offer still unclaimed when
  // its own share is done. Never: it waits for the helping side to claim and
  // run it (tests: which side runs each offer is then certain, where the
  // race for it depends on how fast a loaded machine wakes the helper). The
  // helping side must then be in help_until_closed().
  enum class Takeback { Allowed, Never };
  explicit JobExchange(Takeback takeback = Takeback::Allowed) : takeback_(takeback) {}
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

  // The helping side: runs each offer it claims, oldest first, until
  // close(). What a job throws goes to its run_or_wait().
  void help_until_closed();

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
  enum class State { Offered, Claimed, Done, Taken };

  void offer(Offer& offer);
  // True when `offer` was unclaimed: the caller runs it. Else waits until
  // the helping side is done with it and rethrows what it threw.
  bool take_or_wait(Offer& offer);
  // Takes an unclaimed offer back, or waits for a claimed one to finish (its
  // error dropped): the job refers to the offering side's stack.
  void withdraw(Offer& offer) noexcept;
  void remove_from_queue(const Offer& offer) {
    offered_.erase(std::find(offered_.begin(), offered_.end(), &offer));
  }

  const Takeback takeback_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool closed_ = false;
  int helped_ = 0;
  std::deque<Offer*> offered_;  // unclaimed, oldest first
};

// An offered job, on the offering side: run_or_wait() once its own share is
// done. Without an exchange (one thread) run_or_wait() just runs it. Left
// without run_or_wait() (an exception), the offer is withdrawn, waiting for
// the other thread if it is running it.
class JobExchange::Offer {
 public:
  Offer(JobExchange* exchange, std::function<void()> job) : exchange_(exchange), job_(std::move(job)) {
    if (exchange_) exchange_->offer(*this);
  }
  Offer(const Offer&) = delete;
  Offer& operator=(const Offer&) = delete;
  ~Offer() {
    if (exchange_ && !finished_) exchange_->withdraw(*this);
  }
  void run_or_wait() {
    finished_ = true;
    if (!exchange_ || exchange_->take_or_wait(*this)) job_();
  }

 private:
  friend class JobExchange;
  JobExchange* exchange_;
  std::function<void()> job_;
  bool finished_ = false;
  State state_ = State::Offered;  // guarded by the exchange's mutex
  std::exception_ptr error_;      // likewise
};

inline void JobExchange::help_until_closed() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return !offered_.empty() || closed_; });
    if (offered_.empty()) return;
    Offer& offer = *offered_.front();
    offered_.pop_front();
    offer.state_ = State::Claimed;
    lock.unlock();
    std::exception_ptr error;
    try {
      offer.job_();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    offer.error_ = error;
    ++helped_;
    offer.state_ = State::Done;
    changed_.notify_all();
  }
}

inline void JobExchange::offer(Offer& offer) {
  const std::lock_guard<std::mutex> lock(mutex_);
  offer.state_ = State::Offered;
  offered_.push_back(&offer);
  changed_.notify_all();
}

inline bool JobExchange::take_or_wait(Offer& offer) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (offer.state_ == State::Offered && takeback_ == Takeback::Allowed) {
    remove_from_queue(offer);
    offer.state_ = State::Taken;
    return true;
  }
  changed_.wait(lock, [&] { return offer.state_ == State::Done; });
  if (offer.error_) std::rethrow_exception(std::exchange(offer.error_, nullptr));
  return false;
}

inline void JobExchange::withdraw(Offer& offer) noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  if (offer.state_ == State::Offered) {
    remove_from_queue(offer);
    offer.state_ = State::Taken;
  } else if (offer.state_ == State::Claimed) {
    changed_.wait(lock, [&] { return offer.state_ == State::Done; });
  }
}

}  // namespace weft::db
