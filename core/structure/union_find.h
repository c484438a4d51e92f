#pragma once
// Disjoint sets over dense indices with path halving and union by size; the
// partition merges of ravel-logical-lateness.txt §3.1 are all unions here.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>
#include "common/release_memory.h"


namespace weft::structure {

class UnionFind {
 public:
  explicit UnionFind(std::int32_t n) : parent_(static_cast<std::size_t>(n)), size_(static_cast<std::size_t>(n), 1) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }

  std::int32_t find(std::int32_t x) {
    while (parent_[static_cast<std::size_t>(x)] != x) {
      auto& p = parent_[static_cast<std::size_t>(x)];
      p = parent_[static_cast<std::size_t>(p)];
      x = p;
    }
    return x;
  }

  // Asks the cache for x's parent: a caller uniting pairs at random places
  // asks a few pairs ahead (a hint: it changes nothing).
  void prefetch(std::int32_t x) const { __builtin_prefetch(&parent_[static_cast<std::size_t>(x)]); }

  // Returns true when a and b were in different sets.
  bool unite(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (size_[static_cast<std::size_t>(a)] < size_[static_cast<std::size_t>(b)]) std::swap(a, b);
    parent_[static_cast<std::size_t>(b)] = a;
    size_[static_cast<std::size_t>(a)] += size_[static_cast<std::size_t>(b)];
    return true;
  }

  // Dense labels 0..k-1 of the sets, numbered in order of their smallest
  // member. Consumes the sets: the labels are written over the parents (each
  // op's parent first made its root), so no array beyond the two held is made.
  std::vector<std::int32_t> labels(std::int32_t* count) && {
    for (std::size_t i = 0; i < parent_.size(); ++i) parent_[i] = find(static_cast<std::int32_t>(i));
    std::vector<std::int32_t>& of_root = size_;
    std::fill(of_root.begin(), of_root.end(), -1);
    std::int32_t next = 0;
    for (std::size_t i = 0; i < parent_.size(); ++i) {
      // Only parent_[i] is read from here on, so it can take i's label.
      auto& l = of_root[static_cast<std::size_t>(parent_[i])];
      if (l < 0) l = next++;
      parent_[i] = l;
    }
    *count = next;
    release_memory(size_);
    return std::move(parent_);
  }

 private:
  std::vector<std::int32_t> parent_;
  std::vector<std::int32_t> size_;
};

}  // namespace weft::structure
