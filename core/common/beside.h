#pragma once
// Work run beside the calling thread, on a thread kept for the whole process:
// the analysis' second parts (run_in_two_parts, two_parts.h) and its side
// tasks (run_beside).
//
// Why: an analysis starts ~17 of them, and on these VMs a thread of its own
// cost 70-160 µs each to start and join (clone3 alone took 138 µs on average
// in a 1,024-process `weft analyze`, on the thread that then waits for the
// part), and every exiting thread gave its stack back with a madvise whose
// TLB flush interrupts the other CPU. Handing work to a waiting thread takes
// ~25 µs.
//
// The kept thread runs one piece of work at a time. Work started while it is
// busy (a part that starts parts of its own, or two at once) gets a thread of
// its own, as all work did before; so does work started in a forked child,
// which has no copy of the kept thread. A pass's second part
// (run_in_two_parts) started while the kept thread is busy runs instead on
// the calling thread after the first, unless the machine has a third core: on
// two cores a thread of its own only shared them with the kept thread's work
// (the partition merges beside the op indexes at 4,096 processes: three
// thread starts, and their parts waited for a core), and cost a start.
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

namespace weft {

// Work running beside the caller. wait() waits for it and rethrows what it
// threw; the destructor waits too (and drops the error: it runs while
// another error unwinds), so that the work never outlives what it refers to.
class BesideJob {
 public:
  // Where the work runs when the kept thread is busy.
  enum class IfBusy {
    OwnThread,
    // On the calling thread, in wait(), unless the machine has a third core
    // (then on a thread of its own). Only for work that waits for nothing
    // the caller does before wait().
    CallerWithoutSpareCore,
  };
  explicit BesideJob(std::function<void()> work, IfBusy if_busy = IfBusy::OwnThread);  // starts it
  BesideJob(const BesideJob&) = delete;
  BesideJob& operator=(const BesideJob&) = delete;
  ~BesideJob();

  void wait();

 private:
  struct Done;
  void wait_for_end();

  std::shared_ptr<Done> done_;
  std::thread own_;  // when the kept thread was busy
  std::function<void()> on_wait_;  // IfBusy::CallerWithoutSpareCore, the kept thread busy
};

// A task's result, as std::async's future: get() returns it (waiting for the
// task or, deferred, running it then on the calling thread) and rethrows its
// exception; the destructor waits for a started task.
template <class R>
class Beside {
 public:
  Beside(bool on_second_thread, std::packaged_task<R()> task)
      : task_(std::make_shared<std::packaged_task<R()>>(std::move(task))), result_(task_->get_future()) {
    if (on_second_thread) job_ = std::make_unique<BesideJob>([task = task_] { (*task)(); });
  }

  R get() {
    if (job_)
      job_->wait();
    else
      (*task_)();
    return result_.get();
  }

 private:
  std::shared_ptr<std::packaged_task<R()>> task_;
  std::future<R> result_;
  std::unique_ptr<BesideJob> job_;  // last: destroyed (waited for) first
};

// std::async(policy, f) for the analysis: on the second thread when
// `on_second_thread` (launch::async), else deferred to get().
template <class F>
Beside<std::invoke_result_t<F>> run_beside(bool on_second_thread, F f) {
  return Beside<std::invoke_result_t<F>>(on_second_thread, std::packaged_task<std::invoke_result_t<F>()>(std::move(f)));
}

}  // namespace weft
