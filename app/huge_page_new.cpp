// Large C++ allocations of the weft executable are backed by 2 MiB pages.
//
// On this project's machines (VMs with paravirtualized page tables) a 4 KiB
// page fault costs about 8 µs: first-touching the analysis arrays of a
// 16,384-process trace (a few hundred MB) one 4 KiB page at a time took more
// time than the passes themselves. glibc serves blocks this large with fresh
// mmap'd chunks; advising them MADV_HUGEPAGE before anything touches them lets
// the kernel fault them in 2 MiB at a time (THP "madvise" mode, the Debian
// default). Nothing else changes: memory still comes from and returns to
// malloc/free. WEFT_NO_HUGEPAGE=1 turns the advice off (as for the importer's
// HugePageAllocator).
#include <cstdlib>
#include <new>

#include "common/huge_pages.h"

namespace {

constexpr std::size_t kAdviseFrom = std::size_t{4} << 20;

const bool kAdvise = weft::huge_page_advice_wanted();

void* allocate(std::size_t size) {
  void* p = std::malloc(size ? size : 1);
  if (!p) throw std::bad_alloc();
  if (size >= kAdviseFrom && kAdvise) weft::advise_pages(weft::whole_huge_pages(p, size), MADV_HUGEPAGE);
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
