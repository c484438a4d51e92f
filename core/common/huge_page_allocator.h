#pragma once
// An allocator for large arrays that are filled soon after they are made:
// the importer's send, receive and collective records (hundreds of MB at 10^4
// processes) and the viewer's level-of-detail grids and cell images (a few MB
// per window read). Blocks of 4 MiB and more are mapped directly and marked
// MADV_HUGEPAGE, so the kernel backs them with 2 MiB pages: on this project's
// machines a 4 KiB page fault costs ~8 µs, and faulting a 300 MB array page
// by page took a third of the import (a 4 MB grid, 8 ms of a 16 ms read).
// Smaller blocks come from the ordinary heap.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "common/huge_pages.h"

namespace weft {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kMinMappedBytes = std::size_t{4} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  static std::size_t mapped_size(std::size_t n) {
    return (n * sizeof(T) + kHugePage - 1) / kHugePage * kHugePage;
  }
  T* allocate(std::size_t n) {
    if (n * sizeof(T) < kMinMappedBytes) return std::allocator<T>().allocate(n);
    void* p = mmap(nullptr, mapped_size(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // The whole mapping: advising only its whole huge pages would split it in three.
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    if (huge_page_advice_wanted()) advise_pages({at, at + mapped_size(n)}, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kMinMappedBytes)
      std::allocator<T>().deallocate(p, n);
    else
      munmap(p, mapped_size(n));
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

template <class T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace weft
