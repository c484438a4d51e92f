#pragma once
// Stable counting sorts of dense int32 ids by a small integer key (a chare, a
// phase): linear, so the passes can group by key and sort only within groups.
#include <cstdint>
#include <numeric>
#include <vector>

namespace weft::charm {

// Stable counting sort of `items` by key(item) in [0, keys).
template <class Key>
inline std::vector<std::int32_t> counting_sort_of(const std::vector<std::int32_t>& items, std::int32_t keys, Key key) {
  std::vector<std::int32_t> first(static_cast<std::size_t>(keys) + 1, 0);
  for (std::int32_t x : items) ++first[static_cast<std::size_t>(key(x)) + 1];
  for (std::size_t k = 0; k + 1 < first.size(); ++k) first[k + 1] += first[k];
  std::vector<std::int32_t> out(items.size());
  for (std::int32_t x : items) out[static_cast<std::size_t>(first[static_cast<std::size_t>(key(x))]++)] = x;
  return out;
}

template <class Key>
inline std::vector<std::int32_t> counting_sort(std::size_t n, std::int32_t keys, Key key) {
  std::vector<std::int32_t> items(n);
  std::iota(items.begin(), items.end(), 0);
  return counting_sort_of(items, keys, key);
}

}  // namespace weft::charm
