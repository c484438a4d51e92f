// Work run beside the calling thread (core/common/beside.h): the analysis'
// second parts and side tasks run on one kept thread, or on a thread of their
// own when it is busy or in a forked child (a pass's second part: on the
// caller, unless a third core is there); results and errors come back to the
// caller, and nothing outlives its job.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/beside.h"
#include "common/two_parts.h"

namespace {

std::thread::id thread_of_job() {
  std::thread::id id;
  weft::BesideJob job([&] { id = std::this_thread::get_id(); });
  job.wait();
  return id;
}

}  // namespace

TEST(Beside, JobsOneAfterAnotherRunOnOneKeptThread) {
  std::set<std::thread::id> threads;
  for (int i = 0; i < 20; ++i) threads.insert(thread_of_job());
  EXPECT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(Beside, AJobStartedWhileTheKeptThreadIsBusyGetsAThreadOfItsOwn) {
  std::thread::id outer, inner;
  weft::BesideJob job([&] {
    outer = std::this_thread::get_id();
    inner = thread_of_job();  // the kept thread is running this very job
  });
  job.wait();
  EXPECT_NE(outer, inner);
  EXPECT_NE(inner, std::this_thread::get_id());
  EXPECT_NE(inner, std::thread::id());
}

TEST(Beside, WaitRethrowsWhatTheJobThrew) {
  weft::BesideJob job([] { throw std::runtime_error("part 1 failed"); });
  EXPECT_THROW(job.wait(), std::runtime_error);
  EXPECT_NO_THROW(thread_of_job());  // the kept thread serves on
}

TEST(Beside, TheDestructorWaitsForTheJob) {
  std::atomic<bool> done{false};
  {
    weft::BesideJob job([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      done = true;
    });
  }
  EXPECT_TRUE(done.load());
}

TEST(Beside, RunBesideReturnsTheResultFromAnotherThreadOrDeferred) {
  const std::thread::id caller = std::this_thread::get_id();
  weft::Beside<std::thread::id> async = weft::run_beside(true, [] { return std::this_thread::get_id(); });
  EXPECT_NE(async.get(), caller);
  int runs = 0;
  weft::Beside<std::thread::id> deferred = weft::run_beside(false, [&] {
    ++runs;
    return std::this_thread::get_id();
  });
  EXPECT_EQ(runs, 0);  // deferred: nothing runs before get()
  EXPECT_EQ(deferred.get(), caller);
  EXPECT_EQ(runs, 1);
  weft::Beside<void> failing = weft::run_beside(true, [] { throw std::runtime_error("side task failed"); });
  EXPECT_THROW(failing.get(), std::runtime_error);
}

TEST(Beside, RunInTwoPartsCoversTheRangeAndRethrowsTheSecondPartsError) {
  std::vector<int> seen(1000, 0);
  weft::run_in_two_parts(400, 1000, [&](int part, int begin, int end) {
    for (int i = begin; i < end; ++i) seen[static_cast<std::size_t>(i)] += part + 1;
  });
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], i < 400 ? 1 : 2) << i;
  EXPECT_THROW(weft::run_in_two_parts(1, 2,
                                      [](int part, int, int) {
                                        if (part == 1) throw std::runtime_error("second part failed");
                                      }),
               std::runtime_error);
}

// On a two-core machine a third thread would only share the cores with the
// kept thread's work: a second part started while that thread is busy runs
// on the caller, after the first, and its error still comes back.
TEST(Beside, ASecondPartStartedWhileTheKeptThreadIsBusyRunsOnTheCallerWithoutASpareCore) {
  std::thread::id caller, part_thread[2];
  std::vector<int> order;
  bool rethrown = false;
  weft::BesideJob busy([&] {  // on the kept thread, which is then busy
    caller = std::this_thread::get_id();
    weft::run_in_two_parts(1, 2, [&](int part, int, int) {
      part_thread[part] = std::this_thread::get_id();
      order.push_back(part);
    });
    try {
      weft::run_in_two_parts(1, 2, [](int part, int, int) {
        if (part == 1) throw std::runtime_error("second part failed");
      });
    } catch (const std::runtime_error&) {
      rethrown = true;
    }
  });
  busy.wait();
  EXPECT_EQ(part_thread[0], caller);
  EXPECT_TRUE(rethrown);
  if (std::thread::hardware_concurrency() > 2) {
    EXPECT_NE(part_thread[1], caller);  // a thread of its own uses the third core
  } else {
    EXPECT_EQ(part_thread[1], caller);
    EXPECT_EQ(order, (std::vector<int>{0, 1}));
  }
}

// A forked child has the parent's memory but not its kept thread: its jobs
// must still run (on threads of their own) rather than wait for nothing.
TEST(Beside, JobsRunInAForkedChild) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer cannot start threads in the child of a multi-threaded fork";
#endif
  thread_of_job();  // the kept thread exists in this process
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    bool ran = false;
    weft::BesideJob job([&] { ran = true; });
    job.wait();
    _exit(ran ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
