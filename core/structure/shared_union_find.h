#pragma once
// Disjoint sets over dense indices that two threads can unite at once: the
// mandatory partitions' merges (ravel-logical-lateness.txt §3.1), a union
// per message and per collective member, split between the threads.
//
// Each set's root is its smallest member: a union links the larger root
// under the smaller one, with a compare-and-swap that fails (and retries
// from the new roots) when the other thread has just linked that root. A
// parent is never larger than its child, so no cycle can form, and a
// find halves the path it walks (a relaxed store of the grandparent: every
// parent an element ever has is one of its ancestors, so a stale one is
// still correct). Linking by index with path halving keeps finds at
// O(log n) amortized (Tarjan and van Leeuwen).
//
// Why not UnionFind (union_find.h), linked by size: its size array (4 bytes
// per op) and its labels' root map are not needed when the root is the
// smallest member, and its unions cannot run on two threads. The mandatory
// partitions were 4% of the analysis' time on one thread (27 ms at 16,384
// processes x 20 iterations, 0.35 s at x 200).
#include <atomic>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace weft::structure {

class SharedUnionFind {
 public:
  explicit SharedUnionFind(std::int32_t n) : parent_(static_cast<std::size_t>(n)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }

  std::int32_t find(std::int32_t x) {
    for (;;) {
      const std::int32_t p = load(x);
      if (p == x) return x;
      const std::int32_t grandparent = load(p);
      if (grandparent != p) store(x, grandparent);
      x = grandparent;
    }
  }

  // A hint to the cache for x's parent (a caller uniting pairs at random
  // places asks a few pairs ahead).
  void prefetch(std::int32_t x) const { __builtin_prefetch(&parent_[static_cast<std::size_t>(x)]); }

  // Safe to call from two threads at once.
  void unite(std::int32_t a, std::int32_t b) {
    for (;;) {
      a = find(a);
      b = find(b);
      if (a == b) return;
      if (a > b) std::swap(a, b);
      // Link root b under a, unless the other thread has linked b meanwhile.
      std::int32_t expected = b;
      if (std::atomic_ref<std::int32_t>(parent_[static_cast<std::size_t>(b)])
              .compare_exchange_weak(expected, a, std::memory_order_relaxed))
        return;
    }
  }

  // Dense labels 0..k-1 of the sets, numbered in order of their smallest
  // member, written over the parents in one pass up the indices (once no
  // thread unites any more): an element's parent is a smaller member of its
  // set, already given the set's label, or itself when it is the root.
  std::vector<std::int32_t> labels(std::int32_t* count) && {
    std::int32_t next = 0;
    for (std::size_t i = 0; i < parent_.size(); ++i) {
      const auto parent = static_cast<std::size_t>(parent_[i]);
      parent_[i] = parent == i ? next++ : parent_[parent];
    }
    *count = next;
    return std::move(parent_);
  }

 private:
  std::int32_t load(std::int32_t x) {
    return std::atomic_ref<std::int32_t>(parent_[static_cast<std::size_t>(x)]).load(std::memory_order_relaxed);
  }
  void store(std::int32_t x, std::int32_t parent) {
    std::atomic_ref<std::int32_t>(parent_[static_cast<std::size_t>(x)]).store(parent, std::memory_order_relaxed);
  }

  std::vector<std::int32_t> parent_;
};

}  // namespace weft::structure
