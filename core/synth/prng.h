#pragma once
// Counter-based noise: every random number is a pure function of
// (seed, rank, iteration, slot), so any block of ranks can be simulated
// alone, in any order, and still see exactly the numbers a full run sees.
#include <cstdint>

namespace weft::synth {

// splitmix64's finalizer (Steele, Lea, Flood 2014): a fast bijective mixer.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [-1, 1), from the top 53 bits of the key's hash.
constexpr double symmetric_noise(std::uint64_t seed, std::uint32_t rank, std::uint32_t iteration,
                                 std::uint32_t slot) {
  std::uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ rank);
  h = splitmix64(h ^ iteration);
  h = splitmix64(h ^ slot);
  const double unit = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  return 2.0 * unit - 1.0;
}

}  // namespace weft::synth
