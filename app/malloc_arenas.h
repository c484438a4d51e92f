#pragma once
// glibc gives each thread that allocates its own malloc arena. The analysis
// builds its view tables on a helper thread (db/structure/structure_store.cpp)
// just after the passes have freed their largest arrays into the main arena;
// in an arena of its own the helper took fresh pages instead of reusing them,
// and the analysis' peak memory rose by 13 MB at 16,384 processes (4 bytes
// per communication event). share_one_malloc_arena() makes threads started
// from then on allocate from the existing arenas. Called by the commands
// before they analyze; not before the import's decode workers, which allocate
// at the same time and gain from arenas of their own. No-op without glibc.
namespace weft::app {

void share_one_malloc_arena();

}  // namespace weft::app
