#pragma once
// Colors of regions in every timeline view. Related calls share a hue so that a
// picture reads at a glance: sends blue, receives green, waits orange to red,
// collectives purple, other MPI calls slate, user code and compute greys,
// other paradigms (OpenMP, CUDA, ...) teal. Colors depend only on a region's
// kind and name, so the same call has the same color in every trace.
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/types.h"

namespace weft::db {
struct RegionTable;
}

namespace weft::render {

// RGBA8 packed as 0xAABBGGRR (the byte order GL reads as R, G, B, A).
using Rgba8 = std::uint32_t;

constexpr Rgba8 rgba8(std::uint8_t r, std::uint8_t g, std::uint8_t b, std::uint8_t a = 255) {
  return static_cast<Rgba8>(r) | static_cast<Rgba8>(g) << 8 | static_cast<Rgba8>(b) << 16 |
         static_cast<Rgba8>(a) << 24;
}

Rgba8 region_color(RegionKind kind, std::string_view name);

// The i-th of a list of well separated colors, for categories with no kind:
// Charm++ entry methods, PEs of the virtual-rank view.
Rgba8 categorical_color(std::size_t i);

// One color per row of `regions`, in table order.
std::vector<Rgba8> region_colors(const db::RegionTable& regions);

}  // namespace weft::render
