#pragma once
// glibc malloc settings for the analysis (one pass of many large arrays that
// are allocated, freed and allocated again phase after phase).
//
// - Every block comes from the heap, which is never trimmed (M_MMAP_MAX 0,
//   M_TRIM_THRESHOLD at its largest). By default glibc serves blocks over its
//   (dynamic) mmap threshold with fresh mappings and unmaps them when freed,
//   so each phase's arrays were new pages, faulted in and zeroed by the
//   kernel (~1 ms per MB on these VMs) although the phase before had just
//   freed as much. Kept in the heap, the next phase's arrays reuse those
//   pages, and the SQLite cache pages freed after loading
//   (Database::release_cache_memory) become the op columns: 35% fewer page
//   faults and ~10% less CPU and wall time at 1,024 to 65,536 processes.
//   The cost is the heap's fragmentation: freed blocks stay resident until
//   reused, up to ~4 MB at 16,384 and 65,536 processes (the growth of the
//   message-step buffer, which left ~10 MB of holes, is now sized once).
// - The heap the analysis will need is reserved up front and advised
//   MADV_HUGEPAGE (reserve_huge_page_heap): a block allocated and freed at
//   once leaves that much address space at the top of the heap, not yet
//   resident, and every later block carved from it, small ones and SQLite's
//   pages included, is faulted in 2 MiB at a time. app/huge_page_new.cpp
//   advises only blocks of 4 MiB or more, inside their bounds; 14,000 page
//   faults remained at 16,384 processes, ~1,000 now, and the CPU time fell
//   by another ~15% (as GLIBC_TUNABLES=glibc.malloc.hugetlb=1 does, which
//   only the environment can set).
// - One arena: glibc gives each thread that allocates its own malloc arena.
//   The analysis builds its view tables on a helper thread
//   (db/structure/structure_store.cpp) just after the passes have freed their
//   largest arrays into the main arena; in an arena of its own the helper took
//   fresh pages instead of reusing them, and the analysis' peak memory rose by
//   13 MB at 16,384 processes (4 bytes per communication event).
//
// `weft analyze` holds an AnalysisMalloc around the analysis of a run, and
// only there: not around the viewer's summaries it may write next (a run
// imported with --no-analyze), which now peak with glibc's settings back
// (8 MB below the build before at 4,096 processes); when it writes none, the
// process exits with the heap as the analysis left it (Then::Exit). `weft
// import` only shares one arena (share_one_malloc_arena) once its decode
// workers are done: after an import the heap settings above raised the peak
// of the summaries written next by 12-17 MB at 4,096 processes (not
// understood yet; the analysis itself was faster), so the import keeps
// glibc's. No-op without glibc.
// WEFT_NO_HUGEPAGE=1 leaves out the advice.
#include "common/huge_pages.h"
#include "store/sqlite.h"

namespace weft::app {

// The single arena of the last point above.
void share_one_malloc_arena();

class AnalysisMalloc {
 public:
  // What follows the analysis: more work (the viewer's summaries), for which
  // the freed heap goes back to the kernel, or the process's exit, which
  // frees it whole. Trimming gave the pages back by ~70 madvise calls inside
  // the heap's 2 MiB pages, each a TLB flush on the other CPU too: skipped
  // before an exit, `weft analyze` took 583.6 -> 560.1 ms at 16,384 x 20 and
  // 172.9 -> 169.6 ms at 4,096 x 20 (medians of 9 and 21 runs alternating).
  enum class Then { MoreWork, Exit };

  // Trims what earlier stages freed, then applies the three settings above
  // and reserves the heap for the analysis of `run`.
  AnalysisMalloc(db::Database& run, Then then);
  // Back to glibc's defaults for mmap and trimming, the freed heap trimmed
  // unless the process exits next (the single arena stays).
  ~AnalysisMalloc();
  AnalysisMalloc(const AnalysisMalloc&) = delete;
  AnalysisMalloc& operator=(const AnalysisMalloc&) = delete;

 private:
  Then then_;
  PageRange advised_;  // the range advised MADV_HUGEPAGE
  void* below_advised_ = nullptr;  // the heap from the reservation up to it
};

}  // namespace weft::app
