#pragma once
// The time-bucket rule of the event and message blocks (docs/schema.md, "Time buckets").
//
// An event of duration d sits at the smallest level L with d < 2^(S + 2L), so it
// is shorter than one bucket of its level and overlaps at most two of them. Its
// key is L * 2^40 + (start >> (S + 2L)). A window [t0, t1] is then read with one
// bucket range per level, each an index range scan.
#include <algorithm>
#include <cstdint>

namespace weft::db {

constexpr int kMaxBucketLevel = 15;
constexpr std::int64_t kBucketLevelStride = std::int64_t{1} << 40;

// Chooses S so that [0, trace_end_ns] spans at most `max_buckets` (at most
// 2^16) level-0 buckets.
inline int choose_bucket_shift(std::int64_t trace_end_ns,
                               std::int64_t max_buckets = std::int64_t{1} << 16) {
  max_buckets = std::clamp<std::int64_t>(max_buckets, 1, std::int64_t{1} << 16);
  int shift = 0;
  while (shift < 40 && (trace_end_ns >> shift) > max_buckets) ++shift;
  return shift;
}

// Events per (bucket, process) block the importer aims at: large enough that
// a block row costs little next to its events, small enough that a window
// decodes few events outside itself.
constexpr std::int64_t kTargetEventsPerBlock = 256;

// S for packed blocks: level-0 buckets hold about kTargetEventsPerBlock events
// of a process with `events_per_process` events spread over the trace.
inline int choose_block_shift(std::int64_t trace_end_ns, std::int64_t events_per_process) {
  return choose_bucket_shift(trace_end_ns, events_per_process / kTargetEventsPerBlock);
}

inline int bucket_level(std::int64_t duration_ns, int shift) {
  int level = 0;
  while (level < kMaxBucketLevel && shift + 2 * level < 62 &&
         duration_ns >= (std::int64_t{1} << (shift + 2 * level)))
    ++level;
  return level;
}

inline std::int64_t bucket_key(std::int64_t start_ns, std::int64_t end_ns, int shift) {
  int level = bucket_level(end_ns - start_ns, shift);
  return level * kBucketLevelStride + (std::max<std::int64_t>(start_ns, 0) >> (shift + 2 * level));
}

struct BucketRange {
  std::int64_t first;
  std::int64_t last;
};

// The bucket keys at `level` that can hold an event overlapping [t0, t1].
inline BucketRange bucket_range(int level, std::int64_t t0, std::int64_t t1, int shift) {
  int s = shift + 2 * level;
  std::int64_t lo = std::max<std::int64_t>(0, (std::max<std::int64_t>(t0, 0) >> s) - 1);
  std::int64_t hi = std::max<std::int64_t>(t1, 0) >> s;
  return {level * kBucketLevelStride + lo, level * kBucketLevelStride + hi};
}

}  // namespace weft::db
