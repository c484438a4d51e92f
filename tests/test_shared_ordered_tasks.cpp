// SharedOrderedTasks (db/structure/shared_ordered_tasks.h): a writer thread
// and a helper share tasks 0 .. n - 1; every task is done once, by one of
// them, and the writer sees every result in task order. The ordering
// guarantee the comm_event_blocks walk relies on holds: two tasks
// kMaxPending + 1 apart never overlap. Errors on either side stop both.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "structure/shared_ordered_tasks.h"

using weft::db::SharedOrderedTasks;

namespace {

constexpr std::int64_t kTasks = 400;
constexpr std::int64_t kApart = SharedOrderedTasks<int>::kMaxPending + 1;

// Spins a little, so that the two threads interleave: the writer's tasks
// and the helper's take different times.
void work(std::int64_t t, int scale) {
  volatile std::int64_t x = 0;
  for (std::int64_t i = 0; i < (t % 7 + 1) * scale; ++i) x = x + i;
}

// Records, for every task, when it started and ended (a global tick), to
// check that tasks kApart apart never overlap.
struct Ticks {
  std::atomic<std::int64_t> clock{0};
  std::vector<std::int64_t> start = std::vector<std::int64_t>(kTasks, -1), end = std::vector<std::int64_t>(kTasks, -1);
  void begin(std::int64_t t) { start[static_cast<std::size_t>(t)] = clock++; }
  void finish(std::int64_t t) { end[static_cast<std::size_t>(t)] = clock++; }
};

}  // namespace

TEST(SharedOrderedTasks, EveryTaskOnceAndTheWriterSeesThemInOrder) {
  for (int writer_scale : {200, 2000, 20000}) {
    SharedOrderedTasks<std::int64_t> tasks(kTasks);
    Ticks ticks;
    std::vector<std::int64_t> seen;  // task numbers, as the writer meets them
    std::atomic<std::int64_t> helper_did{0};
    std::future<void> helper = std::async(std::launch::async, [&] {
      tasks.run_helper([&](std::int64_t t) {
        ticks.begin(t);
        work(t, 2000);
        ticks.finish(t);
        ++helper_did;
        return t;
      });
    });
    tasks.run_writer(
        [&](std::int64_t t) {
          ticks.begin(t);
          // The writer's first task lasts until the helper has done one: the
          // helper takes tasks while the writer is busy.
          while (t == 0 && helper_did.load() == 0) std::this_thread::yield();
          work(t, writer_scale);
          ticks.finish(t);
          seen.push_back(t);
        },
        [&](std::int64_t helper_result) { seen.push_back(helper_result); });
    helper.get();
    ASSERT_EQ(static_cast<std::int64_t>(seen.size()), kTasks) << writer_scale;
    for (std::int64_t t = 0; t < kTasks; ++t) EXPECT_EQ(seen[static_cast<std::size_t>(t)], t) << writer_scale;
    EXPECT_GE(helper_did.load(), 1) << writer_scale;
    for (std::int64_t t = 0; t + kApart < kTasks; ++t) {
      const auto a = static_cast<std::size_t>(t), b = static_cast<std::size_t>(t + kApart);
      EXPECT_LT(ticks.end[a], ticks.start[b]) << "tasks " << t << " and " << t + kApart << " overlapped";
    }
  }
}

TEST(SharedOrderedTasks, WithoutAHelperTheWriterDoesEverything) {
  SharedOrderedTasks<int> tasks(10);
  std::vector<std::int64_t> done;
  tasks.run_writer([&](std::int64_t t) { done.push_back(t); }, [](int) { FAIL() << "no helper ran"; });
  EXPECT_EQ(done.size(), 10u);
  // A helper that comes after finds nothing left.
  bool called = false;
  tasks.run_helper([&](std::int64_t) {
    called = true;
    return 0;
  });
  EXPECT_FALSE(called);
}

TEST(SharedOrderedTasks, AHelperErrorReachesTheWriter) {
  SharedOrderedTasks<int> tasks(kTasks);
  std::future<void> helper = std::async(std::launch::async, [&] {
    tasks.run_helper([&](std::int64_t t) -> int {
      if (t >= 5) throw std::runtime_error("helper failed");
      return 0;
    });
  });
  EXPECT_THROW(tasks.run_writer([&](std::int64_t t) { work(t, 20000); }, [](int) {}), std::runtime_error);
  helper.get();
}

TEST(SharedOrderedTasks, AWriterErrorStopsTheHelper) {
  SharedOrderedTasks<int> tasks(kTasks);
  std::atomic<std::int64_t> helper_did{0};
  std::future<void> helper = std::async(std::launch::async, [&] {
    tasks.run_helper([&](std::int64_t) {
      ++helper_did;
      return 0;
    });
  });
  EXPECT_THROW(tasks.run_writer(
                   [&](std::int64_t t) {
                     // Long enough for the helper to fill its pending results and wait.
                     std::this_thread::sleep_for(std::chrono::milliseconds(20));
                     if (t >= 3) throw std::runtime_error("writer failed");
                   },
                   [](int) {}),
               std::runtime_error);
  helper.get();  // returns: the helper stopped rather than waiting for the writer
  EXPECT_LT(helper_did.load(), kTasks);
}
