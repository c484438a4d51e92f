#pragma once
// glibc malloc settings for the analysis (one pass of many large arrays that
// are allocated, freed and allocated again phase after phase).
//
// - One arena: glibc gives each thread that allocates its own malloc arena.
//   The analysis builds its view tables on a helper thread
//   (db/structure/structure_store.cpp) just after the passes have freed their
//   largest arrays into the main arena; in an arena of its own the helper took
//   fresh pages instead of reusing them, and the analysis' peak memory rose by
//   13 MB at 16,384 processes (4 bytes per communication event).
// - Blocks of 128 KiB..32 MiB are left to glibc's dynamic mmap threshold,
//   which gives large freed arrays back to the kernel. Keeping them in the
//   heap for the next phase instead (M_MMAP_THRESHOLD 32 MiB and no trimming)
//   saved page faults, 5% of the CPU time at 16,384 processes, but the heap's
//   fragmentation raised the peak by 8 MB at 65,536 processes (to 66 bytes
//   per communication event, over the analysis' 64); a 4 MiB threshold
//   saved nothing.
//
// Called by the commands before they analyze; not before the import's decode
// workers, which allocate at the same time and gain from arenas of their own.
// No-op without glibc.
namespace weft::app {

void tune_malloc_for_analysis();

}  // namespace weft::app
