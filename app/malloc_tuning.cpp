#include "app/malloc_tuning.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <climits>
#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ under glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "store/block_codec.h"

namespace weft::app {
namespace {

// After the analysis: glibc's default mmap count (malloc/malloc.c:
// DEFAULT_MMAP_MAX), and the mmap and trim thresholds where its dynamic rule
// leaves them once a phase has freed arrays of 32 MiB or more (the largest
// mmap threshold it sets, and twice that), as they were after an analysis
// with glibc's own settings.
constexpr int kGlibcMmapMax = 65536;
constexpr int kMmapThreshold = 32 << 20;
constexpr int kTrimThreshold = 2 * kMmapThreshold;

// What the analysis of `run` may take: its target, 64 bytes per
// communication event (there are fewer of those than events), and room for
// the SQLite cache, the view tables and the process's fixed part. Address
// space only: what is not touched is not resident. The stored event count is
// bounded by what the file can hold (a damaged count must not size an
// allocation: AddressSanitizer aborted on a hostile store's 2^40), and the
// whole by half the physical memory.
std::size_t analysis_heap_bytes(db::Database& run) {
  constexpr std::int64_t kBytesPerEvent = 64, kFixed = std::int64_t{64} << 20;
  const std::int64_t file_bytes = run.query_int("PRAGMA page_count") * run.query_int("PRAGMA page_size");
  const std::int64_t events = std::clamp<std::int64_t>(
      run.query_int("SELECT COALESCE(sum(event_count), 0) FROM processes"), 0,
      std::max<std::int64_t>(file_bytes, 0) / static_cast<std::int64_t>(db::kMinEventBytes));
  const std::int64_t half_memory =
      static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::int64_t>(sysconf(_SC_PAGE_SIZE)) / 2;
  return static_cast<std::size_t>(std::min(events * kBytesPerEvent + kFixed, std::max<std::int64_t>(half_memory, kFixed)));
}

// Returns the advised range, empty when nothing was advised.
PageRange reserve_huge_page_heap(std::size_t bytes) {
  if (!huge_page_advice_wanted()) return {};
  void* block = std::malloc(bytes);
  if (!block) return {};  // no room: the analysis runs in 4 KiB pages
  const PageRange pages = whole_huge_pages(block, bytes);
  std::free(block);  // back to the top of the heap, which is never trimmed
  advise_pages(pages, MADV_HUGEPAGE);
  return pages;
}

}  // namespace

void share_one_malloc_arena() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 1);
#endif
}

AnalysisMalloc::AnalysisMalloc(db::Database& run) {
#if defined(__GLIBC__)
  // What earlier stages freed (the page cache, which the analysis sizes
  // itself) goes back to the kernel first: from here on the heap is not
  // trimmed, and the analysis allocates in the main arena only.
  run.release_cache_memory();
  malloc_trim(0);
  share_one_malloc_arena();
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  advised_ = reserve_huge_page_heap(analysis_heap_bytes(run));
#else
  (void)run;
#endif
}

AnalysisMalloc::~AnalysisMalloc() {
#if defined(__GLIBC__)
  // Blocks allocated later (the summaries') are not made resident 2 MiB at a
  // time (app/huge_page_new.cpp still advises those of 4 MiB or more), and
  // the freed heap goes back to the kernel.
  advise_pages(advised_, MADV_NOHUGEPAGE);
  mallopt(M_MMAP_MAX, kGlibcMmapMax);
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  malloc_trim(0);
#endif
}

}  // namespace weft::app
