#pragma once
// Faults in the pages of a growing array ahead of the thread that fills it,
// from another thread.
//
// The decoding thread appends hundreds of MB of send, receive and collective
// records; on this project's machines touching fresh memory costs about as
// much as decoding it (the kernel zeroes each page on first touch, ~1 ms per
// MB). The writer thread has time to spare during decoding, so after each
// batch it asks the kernel to populate the next pages of each array
// (MADV_POPULATE_WRITE: allocates and maps, never changes contents, so it is
// safe while the decoder writes nearby). Purely an optimization: where the
// kernel lacks it (before Linux 5.14) nothing happens.
#include <sys/mman.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace weft::db {

class Prefaulter {
 public:
  static constexpr std::size_t kSlots = 4;
  static constexpr std::size_t kAhead = std::size_t{16} << 20;  // bytes populated beyond use
  static constexpr std::size_t kStep = std::size_t{2} << 20;

  // Filling thread: `data` holds `used` bytes of a `capacity`-byte block.
  void publish(std::size_t slot, const void* data, std::size_t used, std::size_t capacity) {
    std::lock_guard lock(mutex_);
    Region& r = regions_[slot];
    auto base = reinterpret_cast<std::uintptr_t>(data);
    if (base != r.base) {  // a new block (the array was reallocated)
      r.base = base;
      r.populated = 0;
    }
    r.used = used;
    r.capacity = capacity;
  }

  // Other thread: populates up to kAhead past each array's use.
  void populate_ahead() {
#ifdef MADV_POPULATE_WRITE
    for (std::size_t slot = 0; slot < kSlots; ++slot) {
      std::uintptr_t base, from, to;
      {
        std::lock_guard lock(mutex_);
        Region& r = regions_[slot];
        if (!r.base) continue;
        std::size_t target = std::min(r.capacity, (r.used + kAhead) / kStep * kStep);
        // Only whole pages inside the block.
        std::uintptr_t first = (r.base + r.populated + 4095) / 4096 * 4096;
        std::uintptr_t last = (r.base + target) / 4096 * 4096;
        if (target <= r.populated || last <= first) continue;
        base = r.base;
        from = first;
        to = last;
        r.populated = target;
      }
      (void)base;
      madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
    }
#endif
  }

 private:
  struct Region {
    std::uintptr_t base = 0;
    std::size_t used = 0;
    std::size_t capacity = 0;
    std::size_t populated = 0;
  };
  std::mutex mutex_;
  std::array<Region, kSlots> regions_{};
};

}  // namespace weft::db
