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
//   reused, +1.3 MB at 16,384 processes and +3 MB at 65,536 (the growth of
//   the message-step buffer, which left ~10 MB of holes, is now sized once).
// - One arena: glibc gives each thread that allocates its own malloc arena.
//   The analysis builds its view tables on a helper thread
//   (db/structure/structure_store.cpp) just after the passes have freed their
//   largest arrays into the main arena; in an arena of its own the helper took
//   fresh pages instead of reusing them, and the analysis' peak memory rose by
//   13 MB at 16,384 processes (4 bytes per communication event).
//
// Called by the commands before they analyze; not before the import's decode
// workers, which allocate at the same time and gain from arenas of their own.
// No-op without glibc.
namespace weft::app {

void tune_malloc_for_analysis();

}  // namespace weft::app
