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
// - Freed blocks stay in the heap for the next phase: by default glibc serves
//   blocks over 128 KiB..32 MiB with mmap and gives them back to the kernel
//   when freed, so each phase first-touched fresh pages again. On this
//   project's machines (paravirtualized page tables) page faults and zeroing
//   were a fifth of the analysis' CPU time; with blocks up to 32 MiB (the
//   largest glibc allows) taken from the heap and the heap never trimmed, a
//   16,384-process analysis first-touches ~100 MB less, for +1 MB of peak RSS.
//
// Called by the commands before they analyze; not before the import's decode
// workers, which allocate at the same time and gain from arenas of their own.
// No-op without glibc.
namespace weft::app {

void tune_malloc_for_analysis();

}  // namespace weft::app
