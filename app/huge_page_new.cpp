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
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kAdviseFrom = std::size_t{4} << 20;
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

const bool kAdvise = std::getenv("WEFT_NO_HUGEPAGE") == nullptr;

void* allocate(std::size_t size) {
  void* p = std::malloc(size ? size : 1);
  if (!p) throw std::bad_alloc();
  if (size >= kAdviseFrom && kAdvise) {
    // Only whole huge pages inside the block can be advised.
    auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
    auto end = (reinterpret_cast<std::uintptr_t>(p) + size) & ~(kHugePage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
  }
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
