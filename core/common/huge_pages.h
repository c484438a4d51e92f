#pragma once
// 2 MiB pages for large blocks that are filled soon after they are made. On
// this project's machines a 4 KiB page fault costs ~8 µs, so such blocks are
// advised MADV_HUGEPAGE and the kernel faults them in 2 MiB at a time (THP
// "madvise" mode, the Debian default): HugePageAllocator, the weft
// executable's operator new (app/huge_page_new.cpp) and the analysis' heap
// reservation (app/malloc_tuning.cpp). WEFT_NO_HUGEPAGE=1 turns the advice off.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace weft {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// [first, second) addresses; empty when second <= first.
using PageRange = std::pair<std::uintptr_t, std::uintptr_t>;

// False when WEFT_NO_HUGEPAGE is set.
inline bool huge_page_advice_wanted() { return std::getenv("WEFT_NO_HUGEPAGE") == nullptr; }

// The whole huge pages inside [p, p + bytes): only those can be advised.
inline PageRange whole_huge_pages(const void* p, std::size_t bytes) {
  constexpr auto kMask = ~(std::uintptr_t{kHugePage} - 1);
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const PageRange pages{(at + kHugePage - 1) & kMask, (at + bytes) & kMask};
  return pages.second > pages.first ? pages : PageRange{};
}

// madvise(`advice`) over `pages` when it is not empty. Advice only: a failure
// changes how the pages are faulted in, not what they hold.
inline void advise_pages(PageRange pages, int advice) {
  if (pages.second > pages.first)
    madvise(reinterpret_cast<void*>(pages.first), pages.second - pages.first, advice);
}

}  // namespace weft
