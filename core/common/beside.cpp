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

  // Hands `work` and then `ended` over (moved from) unless the thread is
  // busy, or this is a forked child (its copy of this object has no thread
  // behind it). The thread is free again before `ended` runs, so that the
  // waiter it wakes can hand over its next work at once.
  bool try_start(std::function<void()>& work, std::function<void()>& ended) {
    if (getpid() != owner_) return false;
    const std::lock_guard lock(mutex_);
    if (busy_) return false;
    busy_ = true;
    work_ = std::move(work);
    ended_ = std::move(ended);
    wake_.notify_one();
    return true;
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

}  // namespace

BesideJob::BesideJob(std::function<void()> work) : done_(std::make_shared<Done>()) {
  std::function<void()> run = [done = done_, work = std::move(work)] {
    try {
      work();
    } catch (...) {
      done->error = std::current_exception();
    }
  };
  std::function<void()> ended = [done = done_] { done->finish(); };
  if (!kept_thread().try_start(run, ended))
    own_ = std::thread([run = std::move(run), ended = std::move(ended)] {
      run();
      ended();
    });
}

BesideJob::~BesideJob() { wait_for_end(); }

void BesideJob::wait_for_end() {
  if (own_.joinable()) own_.join();
  if (done_) done_->wait();
}

void BesideJob::wait() {
  wait_for_end();
  if (done_ && done_->error) std::rethrow_exception(std::exchange(done_->error, nullptr));
}

}  // namespace weft
