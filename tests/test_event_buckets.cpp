#include <gtest/gtest.h>

#include <random>

#include "store/bulk_load.h"
#include "store/event_buckets.h"

using namespace weft::db;

TEST(EventBuckets, ShiftGivesAbout65536Buckets) {
  EXPECT_EQ(choose_bucket_shift(1000), 0);
  EXPECT_EQ(choose_bucket_shift(std::int64_t{1} << 16), 0);
  EXPECT_EQ(choose_bucket_shift((std::int64_t{1} << 16) + 1), 1);
  EXPECT_EQ(choose_bucket_shift(std::int64_t{1} << 30), 14);
}

TEST(EventBuckets, LevelIsSmallestWhereEventFitsInOneBucket) {
  const int s = 10;  // level-0 buckets of 1024 ns
  EXPECT_EQ(bucket_level(0, s), 0);
  EXPECT_EQ(bucket_level(1023, s), 0);
  EXPECT_EQ(bucket_level(1024, s), 1);
  EXPECT_EQ(bucket_level(4095, s), 1);
  EXPECT_EQ(bucket_level(4096, s), 2);
}

// Brute force: every event overlapping a window falls in the level's bucket range.
TEST(EventBuckets, RangesCoverEveryOverlappingEvent) {
  const int s = 6;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::int64_t start = static_cast<std::int64_t>(rng() % 100000);
    std::int64_t dur = static_cast<std::int64_t>(rng() % (1 << (rng() % 16)));
    std::int64_t end = start + dur;
    std::int64_t t0 = static_cast<std::int64_t>(rng() % 100000);
    std::int64_t t1 = t0 + static_cast<std::int64_t>(rng() % 5000);
    if (end < t0 || start > t1) continue;
    std::int64_t key = bucket_key(start, end, s);
    BucketRange r = bucket_range(bucket_level(dur, s), t0, t1, s);
    EXPECT_GE(key, r.first) << start << " " << end << " " << t0 << " " << t1;
    EXPECT_LE(key, r.last) << start << " " << end << " " << t0 << " " << t1;
  }
}

// The import's page cache holds the last leaf of every bucket run of the two
// block tables, twice over, on top of a fixed 8 MiB, at most 256 MiB:
// 8 + ceil(2 tables x (B*4/3 + 1) runs x 16 KiB x 2 / 1 MiB).
TEST(BulkLoadCache, HoldsTheLastLeafOfEveryBucketRun) {
  EXPECT_EQ(bulk_load_cache_mib(0), 9);     // 2 runs: 128 KiB, rounded up to 1 MiB
  EXPECT_EQ(bulk_load_cache_mib(10), 9);    // 14 runs: 896 KiB
  EXPECT_EQ(bulk_load_cache_mib(104), 17);  // 139 runs: 8.7 MiB (64 processes, 1,601 stencil iterations)
  EXPECT_EQ(bulk_load_cache_mib(std::int64_t{1} << 16), kBulkLoadMaxCacheMib);
  EXPECT_EQ(load_cache_mib(0), kBulkLoadBaseCacheMib);
  EXPECT_EQ(load_cache_mib(40), 40);
}
