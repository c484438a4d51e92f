#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace weft {

// Gives a container's memory back to the allocator. `v = {}` does not: for
// std::vector it picks operator=(initializer_list), which empties the vector
// but keeps its capacity.
template <class Container>
void release_memory(Container& c) {
  Container().swap(c);
}

// Shortens v to n elements and gives the whole pages past them back to the
// kernel, keeping the block. shrink_to_fit would copy the kept elements into
// a new block: on these machines first-touching a new block (page faults and
// zeroing) costs more than the copy. The pages past the end hold no objects
// (T is trivially destructible); if v grows again they come back zeroed.
template <class T>
void shrink_in_place(std::vector<T>& v, std::size_t n) {
  static_assert(std::is_trivially_destructible_v<T>);
  if (v.size() <= n) return;
  v.resize(n);
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data() + n) + page - 1) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity()) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);  // advice only
}

}  // namespace weft
