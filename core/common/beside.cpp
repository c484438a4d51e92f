#include "common/beside.h"

#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <utility>

namespace weft {

struct BesideJob::Done {
  std::mutex mutex;
  std::condition_variable ended;
  bool finished = false;
  std::exception_ptr error;

  void finish() {
    const std::lock_guard lock(mutex);
    finished = true;
    ended.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex);
    ended.wait(lock, [this] { return finished; });
  }
};

namespace {

// The kept thread: waits for work, runs it, waits again. Made on first use
// and never destroyed, so that exit does not wait for it.
class KeptThread {
 public:
  KeptThread() : owner_(getpid()), thread_([this] { serve(); }) {}

  enum class Start { Started, Busy, NoThread };
  // Hands `work` and then `ended` over (moved from) unless the thread is
  // busy, or this is a forked child (its copy of this object has no thread
  // behind it). The thread is free again before `ended` runs, so that the
  // waiter it wakes can hand over its next work at once.
  Start try_start(std::function<void()>& work, std::function<void()>& ended) {
    if (getpid() != owner_) return Start::NoThread;
    const std::lock_guard lock(mutex_);
    if (busy_) return Start::Busy;
    busy_ = true;
    work_ = std::move(work);
    ended_ = std::move(ended);
    wake_.notify_one();
    return Start::Started;
  }

 private:
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return static_cast<bool>(work_); });
      std::function<void()> work = std::exchange(work_, nullptr);
      std::function<void()> ended = std::exchange(ended_, nullptr);
      lock.unlock();
      work();
      lock.lock();
      busy_ = false;
      lock.unlock();
      ended();
      lock.lock();
    }
  }

  const pid_t owner_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<void()> work_, ended_;
  bool busy_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

KeptThread& kept_thread() {
  static KeptThread* const kept = new KeptThread;  // never deleted (see above)
  return *kept;
}

// Whether a thread beside the caller and the kept one would have a core.
bool has_spare_core() {
  static const bool spare = std::thread::hardware_concurrency() > 2;
  return spare;
}

}  // namespace

BesideJob::BesideJob(std::function<void()> work, IfBusy if_busy) : done_(std::make_shared<Done>()) {
  std::function<void()> run = [done = done_, work] {
    try {
      work();
    } catch (...) {
      done->error = std::current_exception();
    }
  };
  std::function<void()> ended = [done = done_] { done->finish(); };
  const KeptThread::Start start = kept_thread().try_start(run, ended);
  if (start == KeptThread::Start::Started) return;
  if (start == KeptThread::Start::Busy && if_busy == IfBusy::CallerWithoutSpareCore && !has_spare_core()) {
    on_wait_ = std::move(work);
    done_.reset();
    return;
  }
  own_ = std::thread([run = std::move(run), ended = std::move(ended)] {
    run();
    ended();
  });
}

// Work left for wait() that wait() never ran (the caller is unwinding) is
// dropped.
BesideJob::~BesideJob() { wait_for_end(); }

void BesideJob::wait_for_end() {
  if (own_.joinable()) own_.join();
  if (done_) done_->wait();
}

void BesideJob::wait() {
  if (on_wait_) {
    std::exchange(on_wait_, nullptr)();  // throws what the work throws
    return;
  }
  wait_for_end();
  if (done_ && done_->error) std::rethrow_exception(std::exchange(done_->error, nullptr));
}

}  // namespace weft
