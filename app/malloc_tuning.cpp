#include "app/malloc_tuning.h"

#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ under glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace weft::app {
namespace {

// What the analysis of `events` events may take: its target, 64 bytes per
// communication event (there are fewer of those than events), and room for
// the SQLite cache, the view tables and the process's fixed part. Address
// space only: what is not touched is not resident.
std::size_t analysis_heap_bytes(std::int64_t events) {
  constexpr std::int64_t kBytesPerEvent = 64, kFixed = std::int64_t{64} << 20;
  const std::int64_t most = std::int64_t{1} << 40;  // a damaged count sizes nothing absurd
  return static_cast<std::size_t>(std::clamp<std::int64_t>(events, 0, most / kBytesPerEvent) * kBytesPerEvent + kFixed);
}

void reserve_huge_page_heap(std::size_t bytes) {
  if (std::getenv("WEFT_NO_HUGEPAGE")) return;
  void* block = std::malloc(bytes);
  if (!block) return;  // no room: the analysis runs in 4 KiB pages
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(block) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(block) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
  std::free(block);  // back to the top of the heap, which is never trimmed
}

}  // namespace

void tune_malloc_for_analysis(db::Database& run) {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  reserve_huge_page_heap(analysis_heap_bytes(run.query_int("SELECT COALESCE(sum(event_count), 0) FROM processes")));
#else
  (void)run;
#endif
}

}  // namespace weft::app
