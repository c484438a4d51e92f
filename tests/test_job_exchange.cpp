// JobExchange (db/structure/job_exchange.h): an offer is run exactly once, by
// the helping thread when it claims it first, else by the offering thread;
// errors reach the offering side; an offer left by an exception is withdrawn,
// and waits for the helping thread if it is running it (the job refers to the
// offering side's stack); closing lets the helping thread go. Without
// takeback (tests) the helping thread runs every offer.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "structure/job_exchange.h"

using weft::db::JobExchange;

namespace {

void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load()) std::this_thread::yield();
}

}  // namespace

TEST(JobExchange, HelperRunsTheOfferWhileTheOffererDoesItsShare) {
  JobExchange exchange;
  std::future<void> helper = std::async(std::launch::async, [&] { exchange.help_until_closed(); });
  std::atomic<bool> started{false};
  std::thread::id ran_on;
  int runs = 0;
  {
    JobExchange::Offer offer(&exchange, [&] {
      ran_on = std::this_thread::get_id();
      ++runs;
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    });
    wait_for(started);  // the offerer's own share ends only once the helper has the job
    offer.run_or_wait();  // waits for the helper to finish it
  }
  EXPECT_EQ(runs, 1);
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_EQ(exchange.helped(), 1);
  exchange.close();
  helper.get();
}

TEST(JobExchange, OffererRunsAnUnclaimedOfferItself) {
  JobExchange exchange;
  std::thread::id ran_on;
  int runs = 0;
  {
    JobExchange::Offer offer(&exchange, [&] {
      ran_on = std::this_thread::get_id();
      ++runs;
    });
    offer.run_or_wait();
  }
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  // Closed, a helper arriving late finds nothing and returns.
  exchange.close();
  exchange.help_until_closed();
  EXPECT_EQ(exchange.helped(), 0);
  EXPECT_EQ(runs, 1);
}

// Takeback::Never (for tests): the offerer waits for a helper that comes
// only after its own share is done, rather than run the offer itself.
TEST(JobExchange, WithoutTakebackTheHelperRunsAnOfferItClaimsLate) {
  JobExchange exchange(JobExchange::Takeback::Never);
  std::thread::id ran_on;
  int runs = 0;
  std::thread helper;
  {
    JobExchange::Offer offer(&exchange, [&] {
      ran_on = std::this_thread::get_id();
      ++runs;
    });
    helper = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      exchange.help_until_closed();
    });
    offer.run_or_wait();
  }
  const std::thread::id helper_id = helper.get_id();
  exchange.close();
  helper.join();
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(ran_on, helper_id);
  EXPECT_EQ(exchange.helped(), 1);
}

TEST(JobExchange, WithoutAnExchangeTheOfferRunsInRunOrWait) {
  int runs = 0;
  JobExchange::Offer offer(nullptr, [&] { ++runs; });
  EXPECT_EQ(runs, 0);
  offer.run_or_wait();
  EXPECT_EQ(runs, 1);
}

TEST(JobExchange, TheHelpersErrorReachesTheOfferer) {
  JobExchange exchange;
  std::future<void> helper = std::async(std::launch::async, [&] { exchange.help_until_closed(); });
  std::atomic<bool> started{false};
  JobExchange::Offer offer(&exchange, [&] {
    started = true;
    throw std::runtime_error("compression failed");
  });
  wait_for(started);
  EXPECT_THROW(offer.run_or_wait(), std::runtime_error);
  // The exchange is usable again: a second offer runs normally.
  int runs = 0;
  {
    JobExchange::Offer second(&exchange, [&] { ++runs; });
    second.run_or_wait();
  }
  EXPECT_EQ(runs, 1);
  exchange.close();
  helper.get();  // the helper caught the error: it does not throw
}

TEST(JobExchange, AnOfferLeftByAnExceptionWaitsForTheHelpersRun) {
  JobExchange exchange;
  std::future<void> helper = std::async(std::launch::async, [&] { exchange.help_until_closed(); });
  std::atomic<bool> started{false}, finished{false};
  try {
    JobExchange::Offer offer(&exchange, [&] {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      finished = true;
    });
    wait_for(started);
    throw std::runtime_error("the offerer's own share failed");
  } catch (const std::runtime_error&) {
    // Unwound past the offer only once the helper was done with it.
    EXPECT_TRUE(finished.load());
  }
  exchange.close();
  helper.get();
  EXPECT_EQ(exchange.helped(), 1);
}

TEST(JobExchange, AnUnclaimedOfferLeftByAnExceptionIsNeverRun) {
  JobExchange exchange;
  int runs = 0;
  try {
    JobExchange::Offer offer(&exchange, [&] { ++runs; });
    throw std::runtime_error("the offerer's own share failed");
  } catch (const std::runtime_error&) {
  }
  {
    const JobExchange::CloseOnExit closing(&exchange);
  }
  exchange.help_until_closed();  // withdrawn and closed: returns at once
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(exchange.helped(), 0);
}

// Several offers out at once (`weft analyze` offers the message lines, then
// the step level of detail's coarser levels): the helper claims them oldest
// first, and the offerer runs itself the ones still unclaimed.
TEST(JobExchange, SeveralOffersAreClaimedOldestFirst) {
  JobExchange exchange;
  std::atomic<bool> first_started{false}, release_first{false};
  std::thread::id first_on, second_on, third_on;
  JobExchange::Offer first(&exchange, [&] {
    first_on = std::this_thread::get_id();
    first_started = true;
    wait_for(release_first);
  });
  JobExchange::Offer second(&exchange, [&] { second_on = std::this_thread::get_id(); });
  std::future<void> helper = std::async(std::launch::async, [&] { exchange.help_until_closed(); });
  wait_for(first_started);  // the helper took the oldest; the second waits
  second.run_or_wait();     // unclaimed: run here
  EXPECT_EQ(second_on, std::this_thread::get_id());
  JobExchange::Offer third(&exchange, [&] { third_on = std::this_thread::get_id(); });
  release_first = true;
  first.run_or_wait();  // the helper's: waits for it
  EXPECT_NE(first_on, std::this_thread::get_id());
  third.run_or_wait();  // the helper's once it was free, or this thread's
  EXPECT_NE(third_on, std::thread::id());
  const int helped = exchange.helped();
  EXPECT_EQ(helped, third_on == std::this_thread::get_id() ? 1 : 2);
  exchange.close();
  helper.get();
}

// An offer withdrawn from the middle of the queue leaves the others claimable.
TEST(JobExchange, AWithdrawnOfferLeavesTheOthersQueued) {
  JobExchange exchange;
  int runs_a = 0, runs_b = 0, runs_c = 0;
  JobExchange::Offer a(&exchange, [&] { ++runs_a; });
  {
    JobExchange::Offer b(&exchange, [&] { ++runs_b; });
  }  // withdrawn unclaimed
  JobExchange::Offer c(&exchange, [&] { ++runs_c; });
  std::future<void> helper = std::async(std::launch::async, [&] { exchange.help_until_closed(); });
  a.run_or_wait();
  c.run_or_wait();
  exchange.close();
  helper.get();
  EXPECT_EQ(runs_a, 1);
  EXPECT_EQ(runs_b, 0);
  EXPECT_EQ(runs_c, 1);
}
