#pragma once
// Ground truth for `weft synth` archives, shared by test_synth.cpp (checked
// against otf2-print) and test_import_roundtrip.cpp (checked against the
// imported .weft database): the hand-derived counts stated at the top of each
// core/synth/patterns/*.cpp, computed here from n and i only.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "synth/synth_options.h"

namespace weft::synth_test {

using weft::synth::Pattern;
using weft::synth::SynthOptions;

// ---------------------------------------------------------------------------
// Hand-derived ground truth for n ranks and i iterations. Each rank's stream
// is Enter(main) … Leave(main): 2n records and one region instance per rank.
// ---------------------------------------------------------------------------
struct Expected {
  std::uint64_t records = 0;               // OTF2 event records, all locations
  std::uint64_t messages = 0;              // point-to-point messages (sends)
  std::uint64_t collective_instances = 0;
  std::uint64_t collective_members = 0;    // MpiCollectiveEnd records
  std::vector<std::uint64_t> regions;      // Enter/Leave pairs per rank
};

// children of r in the binomial tree: levels k with r mod 2^(k+1) = 0, r + 2^k < n
inline std::uint64_t tree_children(std::uint64_t r, std::uint64_t n) {
  std::uint64_t c = 0;
  for (std::uint64_t m = 1; m < n; m <<= 1)
    if (r % (2 * m) == 0 && r + m < n) ++c;
  return c;
}

inline std::uint64_t ceil_log2(std::uint64_t v) {
  std::uint64_t k = 0;
  while ((std::uint64_t{1} << k) < v) ++k;
  return k;
}

// stencil2d: grid px × py (px = largest divisor ≤ √n), D = 4n − 2px − 2py;
// records 2n + i(10n + 8D), messages iD, i world collectives, regions 1 + i(4 + 2d(r)).
inline Expected expected_stencil2d(std::uint64_t n, std::uint64_t i) {
  std::uint64_t px = 1;
  for (std::uint64_t p = 1; p * p <= n; ++p)
    if (n % p == 0) px = p;
  const std::uint64_t py = n / px;
  const std::uint64_t D = 4 * n - 2 * px - 2 * py;
  Expected e;
  e.records = 2 * n + i * (10 * n + 8 * D);
  e.messages = i * D;
  e.collective_instances = i;
  e.collective_members = i * n;
  for (std::uint64_t r = 0; r < n; ++r) {
    const std::uint64_t col = r % px, row = r / px;
    const std::uint64_t d = (col > 0) + (col + 1 < px) + (row > 0) + (row + 1 < py);
    e.regions.push_back(1 + i * (4 + 2 * d));
  }
  return e;
}

// ring: records 2n + 8ni, messages ni, regions 1 + 3i.
inline Expected expected_ring(std::uint64_t n, std::uint64_t i) {
  Expected e;
  e.records = 2 * n + 8 * n * i;
  e.messages = n * i;
  e.regions.assign(n, 1 + 3 * i);
  return e;
}

// pingpong: records 2n + i(2n + 12), messages 2i, regions 1 + 3i (ranks 0, 1), 1 + i (others).
inline Expected expected_pingpong(std::uint64_t n, std::uint64_t i) {
  Expected e;
  e.records = 2 * n + i * (2 * n + 12);
  e.messages = 2 * i;
  for (std::uint64_t r = 0; r < n; ++r) e.regions.push_back(r < 2 ? 1 + 3 * i : 1 + i);
  return e;
}

// allreduce-binomial: records 2n + i(2n + 12(n−1)), messages 2i(n−1),
// regions 1 + i(1 + 2(c(r) + [r ≠ 0])).
inline Expected expected_allreduce_binomial(std::uint64_t n, std::uint64_t i) {
  Expected e;
  e.records = 2 * n + i * (2 * n + 12 * (n - 1));
  e.messages = 2 * i * (n - 1);
  for (std::uint64_t r = 0; r < n; ++r)
    e.regions.push_back(1 + i * (1 + 2 * (tree_children(r, n) + (r != 0))));
  return e;
}

// merge-tree: records 2n + i(2n + 8(n−1)), messages i(n−1),
// regions 1 + i(1 + [r ≠ 0] + 2c(r)).
inline Expected expected_merge_tree(std::uint64_t n, std::uint64_t i) {
  Expected e;
  e.records = 2 * n + i * (2 * n + 8 * (n - 1));
  e.messages = i * (n - 1);
  for (std::uint64_t r = 0; r < n; ++r)
    e.regions.push_back(1 + i * (1 + (r != 0) + 2 * tree_children(r, n)));
  return e;
}

// allreduce-collective: records 2n + 10ni, i(1 + h) collectives (h = 2, or 1 at n = 1)
// with 2ni members, regions 1 + 3i.
inline Expected expected_allreduce_collective(std::uint64_t n, std::uint64_t i) {
  Expected e;
  e.records = 2 * n + 10 * n * i;
  e.collective_instances = i * (1 + (n >= 2 ? 2 : 1));
  e.collective_members = 2 * n * i;
  e.regions.assign(n, 1 + 3 * i);
  return e;
}

// amg-like: s_t = 2^(t mod K), K = max(1, ⌈log2 n⌉), M_t = 2 max(0, n − s_t);
// records 2n + 14ni + 8ΣM_t, messages ΣM_t, i(1 + h) collectives with 2ni members,
// regions 1 + Σ_t (5 + 2 d_t(r)).
inline Expected expected_amg_like(std::uint64_t n, std::uint64_t i) {
  const std::uint64_t K = std::max<std::uint64_t>(1, ceil_log2(n));
  Expected e;
  e.regions.assign(n, 1);
  std::uint64_t sum_m = 0;
  for (std::uint64_t t = 0; t < i; ++t) {
    const std::uint64_t s = std::uint64_t{1} << (t % K);
    sum_m += s < n ? 2 * (n - s) : 0;
    for (std::uint64_t r = 0; r < n; ++r) e.regions[r] += 5 + 2 * ((r >= s) + (r + s < n));
  }
  e.records = 2 * n + 14 * n * i + 8 * sum_m;
  e.messages = sum_m;
  e.collective_instances = i * (1 + (n >= 2 ? 2 : 1));
  e.collective_members = 2 * n * i;
  return e;
}


inline SynthOptions make_options(Pattern pattern, std::int32_t n, std::int32_t i) {
  SynthOptions o;
  o.pattern = pattern;
  o.procs = n;
  o.iterations = i;
  return o;
}

// The ground truth of any pattern.
inline Expected expected_for(Pattern pattern, std::uint64_t n, std::uint64_t i) {
  switch (pattern) {
    case Pattern::Stencil2d: return expected_stencil2d(n, i);
    case Pattern::Ring: return expected_ring(n, i);
    case Pattern::AllreduceBinomial: return expected_allreduce_binomial(n, i);
    case Pattern::AllreduceCollective: return expected_allreduce_collective(n, i);
    case Pattern::MergeTree: return expected_merge_tree(n, i);
    case Pattern::AmgLike: return expected_amg_like(n, i);
    case Pattern::Pingpong: return expected_pingpong(n, i);
  }
  return {};
}

}  // namespace weft::synth_test
