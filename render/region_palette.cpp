#include "region_palette.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "store/window_query.h"

namespace weft::render {

namespace {

struct NamedColor {
  std::string_view name;
  Rgba8 color;
};

// The calls seen in nearly every MPI trace get hand-picked, well separated
// shades of their kind's hue.
constexpr std::array kNamedColors = {
    NamedColor{"MPI_Send", rgba8(52, 101, 200)},      NamedColor{"MPI_Isend", rgba8(92, 154, 240)},
    NamedColor{"MPI_Ssend", rgba8(40, 80, 170)},      NamedColor{"MPI_Recv", rgba8(40, 150, 80)},
    NamedColor{"MPI_Irecv", rgba8(110, 200, 120)},    NamedColor{"MPI_Wait", rgba8(235, 140, 50)},
    NamedColor{"MPI_Waitall", rgba8(220, 80, 60)},    NamedColor{"MPI_Waitany", rgba8(240, 175, 70)},
    NamedColor{"MPI_Waitsome", rgba8(200, 100, 40)},  NamedColor{"MPI_Barrier", rgba8(110, 60, 170)},
    NamedColor{"MPI_Allreduce", rgba8(160, 100, 220)}, NamedColor{"MPI_Reduce", rgba8(130, 80, 190)},
    NamedColor{"MPI_Bcast", rgba8(190, 140, 235)},    NamedColor{"MPI_Alltoall", rgba8(140, 60, 140)},
    NamedColor{"MPI_Allgather", rgba8(175, 85, 175)}, NamedColor{"MPI_Init", rgba8(120, 140, 160)},
    NamedColor{"MPI_Finalize", rgba8(95, 110, 130)},  NamedColor{"compute", rgba8(150, 150, 150)},
};

// Endpoints of each kind's shade range; names without a hand-picked color get a
// stable point between them from a hash of the name.
struct ShadeRange {
  Rgba8 from;
  Rgba8 to;
};

ShadeRange kind_range(RegionKind kind) {
  switch (kind) {
    case RegionKind::Send:
    case RegionKind::Isend: return {rgba8(40, 80, 170), rgba8(110, 170, 245)};
    case RegionKind::Recv:
    case RegionKind::Irecv: return {rgba8(35, 130, 70), rgba8(130, 210, 130)};
    case RegionKind::Wait: return {rgba8(200, 70, 50), rgba8(245, 180, 80)};
    case RegionKind::Collective: return {rgba8(100, 55, 160), rgba8(200, 150, 240)};
    case RegionKind::MpiOther: return {rgba8(90, 105, 125), rgba8(150, 165, 185)};
    case RegionKind::OtherParadigm: return {rgba8(30, 130, 125), rgba8(90, 200, 190)};
    case RegionKind::Compute: break;
  }
  return {rgba8(95, 95, 95), rgba8(185, 185, 185)};
}

std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

std::uint8_t channel(Rgba8 c, int shift) { return static_cast<std::uint8_t>((c >> shift) & 0xff); }

Rgba8 mix(Rgba8 a, Rgba8 b, float t) {
  auto lerp = [t](std::uint8_t x, std::uint8_t y) {
    return static_cast<std::uint8_t>(static_cast<float>(x) + (static_cast<float>(y) - x) * t + 0.5f);
  };
  return rgba8(lerp(channel(a, 0), channel(b, 0)), lerp(channel(a, 8), channel(b, 8)),
               lerp(channel(a, 16), channel(b, 16)), 255);
}

}  // namespace

Rgba8 categorical_color(std::size_t i) {
  // Ten well separated hues (Tableau 10); past ten, each round is lighter.
  constexpr Rgba8 kHues[] = {rgba8(78, 121, 167),  rgba8(242, 142, 43), rgba8(225, 87, 89),
                             rgba8(118, 183, 178), rgba8(89, 161, 79),  rgba8(237, 201, 72),
                             rgba8(176, 122, 161), rgba8(255, 157, 167), rgba8(156, 117, 95),
                             rgba8(186, 176, 172)};
  const Rgba8 hue = kHues[i % std::size(kHues)];
  const float lighter = static_cast<float>((i / std::size(kHues)) % 4) * 0.2f;
  return mix(hue, rgba8(255, 255, 255), lighter);
}

Rgba8 region_color(RegionKind kind, std::string_view name) {
  for (const NamedColor& named : kNamedColors)
    if (named.name == name) return named.color;
  ShadeRange range = kind_range(kind);
  float t = static_cast<float>(fnv1a(name) % 1000) / 999.0f;
  return mix(range.from, range.to, t);
}

std::vector<Rgba8> region_colors(const db::RegionTable& regions) {
  // User regions nest (main > solver > compute), so the greys of one trace must
  // differ: they are dealt out in name order from a fixed list, skipping the
  // grey of "compute" itself; only beyond the list do they repeat.
  constexpr std::uint8_t kGreys[] = {96, 196, 120, 216, 80, 176, 108, 232};
  std::vector<std::size_t> user;
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (regions.kind[i] == RegionKind::Compute && regions.name[i] != "compute") user.push_back(i);
  std::sort(user.begin(), user.end(),
            [&regions](std::size_t a, std::size_t b) { return regions.name[a] < regions.name[b]; });
  std::vector<Rgba8> colors(regions.size());
  for (std::size_t i = 0; i < regions.size(); ++i)
    colors[i] = region_color(regions.kind[i], regions.name[i]);
  for (std::size_t k = 0; k < user.size(); ++k) {
    std::uint8_t g = kGreys[k % std::size(kGreys)];
    colors[user[k]] = rgba8(g, g, g);
  }
  // Charm++ runs (paradigm "charm"): as in Projections, each entry method has
  // its own color, dealt out in region order (the .sts entry order), and
  // idle time is black.
  std::size_t entry = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    if (regions.paradigm[i] != "charm") continue;
    if (regions.kind[i] == RegionKind::OtherParadigm && regions.name[i] == "Idle")
      colors[i] = rgba8(0, 0, 0);
    else if (regions.kind[i] == RegionKind::Compute)
      colors[i] = categorical_color(entry++);
  }
  return colors;
}

}  // namespace weft::render
