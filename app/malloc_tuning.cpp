#include "app/malloc_tuning.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <climits>
#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ under glibc
#include <optional>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "store/block_codec.h"
#include "store/meta.h"

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

// The run's event count as its import recorded it (meta count_events), or
// the processes' sum for a file without it. The meta fact, not the sum: this
// is a size hint, and the sum reads the whole processes table (17 ms at
// 65,536 processes, before the load reads it again for its own count).
std::int64_t stored_event_count(db::Database& run) {
  if (const std::optional<std::int64_t> events = db::find_meta_int(run, "count_events")) return *events;
  return run.query_int("SELECT COALESCE(sum(event_count), 0) FROM processes");
}

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
      stored_event_count(run), 0,
      std::max<std::int64_t>(file_bytes, 0) / static_cast<std::int64_t>(db::kMinEventBytes));
  const std::int64_t half_memory =
      static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::int64_t>(sysconf(_SC_PAGE_SIZE)) / 2;
  return static_cast<std::size_t>(std::min(events * kBytesPerEvent + kFixed, std::max<std::int64_t>(half_memory, kFixed)));
}

// The heap reserved for the analysis: the range advised MADV_HUGEPAGE, and
// the block that holds the heap from the reservation's start up to it.
struct HugePageHeap {
  PageRange advised;
  void* below = nullptr;  // freed when the analysis is done
};

// Reserves `bytes` at the top of the heap and advises its whole 2 MiB pages.
// A huge page can only be made of a 2 MiB-aligned range, and the reservation
// starts anywhere: the analysis' first blocks (SQLite's page cache, the
// loader's buffers), carved from the up to 2 MiB below the first aligned
// address, were faulted in 4 KiB at a time (~400 of a 1,024-process
// analysis' ~740 page faults, ~10 µs each). That stretch is kept allocated
// (address space, not touched) while the analysis runs, so that its blocks
// start in the advised range.
HugePageHeap reserve_huge_page_heap(std::size_t bytes) {
  if (!huge_page_advice_wanted()) return {};
  void* block = std::malloc(bytes);
  if (!block) return {};  // no room: the analysis runs in 4 KiB pages
  const PageRange pages = whole_huge_pages(block, bytes);
  // Shrunk (in place: glibc), the block gives the rest back to the top of
  // the heap, which is never trimmed; the top's chunk header then sits just
  // below the first huge page, and the next block starts on it.
  constexpr std::size_t kChunkHeader = 2 * sizeof(std::size_t);
  void* kept = nullptr;
  if (pages.second > pages.first) {
    const std::size_t below = pages.first - reinterpret_cast<std::uintptr_t>(block);
    if (below > 4 * kChunkHeader) kept = std::realloc(block, below - kChunkHeader);
  }
  if (kept != block) {  // nothing to keep, or not shrunk in place: all of it back
    std::free(kept ? kept : block);
    kept = nullptr;
  }
  advise_pages(pages, MADV_HUGEPAGE);
  return {pages, kept};
}

}  // namespace

void share_one_malloc_arena() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 1);
#endif
}

AnalysisMalloc::AnalysisMalloc(db::Database& run, Then then) : then_(then) {
#if defined(__GLIBC__)
  // What earlier stages freed (the page cache, which the analysis sizes
  // itself) goes back to the kernel first: from here on the heap is not
  // trimmed, and the analysis allocates in the main arena only.
  run.release_cache_memory();
  malloc_trim(0);
  share_one_malloc_arena();
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  const HugePageHeap heap = reserve_huge_page_heap(analysis_heap_bytes(run));
  advised_ = heap.advised;
  below_advised_ = heap.below;
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
  std::free(below_advised_);
  mallopt(M_MMAP_MAX, kGlibcMmapMax);
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  if (then_ == Then::MoreWork) malloc_trim(0);
#endif
}

}  // namespace weft::app
