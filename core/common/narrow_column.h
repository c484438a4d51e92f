#pragma once
// A column of 32-bit integers most of which are small, in 1, 2 or 4 bytes
// each: the loaded ops' region references (a synthetic trace has ~10
// regions, Score-P's hundreds) and the input ops' event ids as differences
// from the op before (a few events apart). Such columns live from the load to
// the end of the analysis' write, and on this project's VMs every MB first
// touched costs ~1.5-2 ms: 4 bytes per op were 13 MB each of a 16,384-process
// analysis' 183 MB peak.
//
// A value that does not fit the width (past the regions table: a damaged
// store's reference; a difference of thousands of events) is stored as the
// width's largest value, the escape, and kept aside with its value as given,
// so that every value reads back as it was set.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace weft {

class NarrowColumn {
 public:
  // A value set() could not store, for keep_aside: (index, value).
  using Misfit = std::pair<std::size_t, std::int32_t>;

  // The smallest width that holds every value below `value_end` (the escape
  // excluded): 1 up to 255, 2 up to 65,535, else 4.
  static std::size_t width_below(std::int64_t value_end);

  // Sized (zeroed) for `n` values of `width` bytes (1, 2 or 4).
  void resize(std::size_t n, std::size_t width);
  std::size_t size() const { return width_ == 0 ? 0 : bytes_.size() / width_; }
  // 1, 2 or 4 (0 before resize): bytes per value.
  std::size_t width() const { return width_; }

  // Stores value i; false, storing the escape, when it does not fit (4
  // bytes hold any 32-bit value): the caller gathers those for keep_aside.
  // Distinct indexes may be set from different threads at once.
  bool set(std::size_t i, std::int64_t value) {
    switch (width_) {
      case 1: return put<std::uint8_t>(i, value);
      case 2: return put<std::uint16_t>(i, value);
      default: {
        const auto v = static_cast<std::int32_t>(value);
        std::memcpy(&bytes_[i * 4], &v, 4);
        return true;
      }
    }
  }
  // The values set() refused (any order; each index once).
  void keep_aside(std::vector<Misfit> misfits);

  std::int32_t operator[](std::size_t i) const {
    switch (width_) {
      case 1: return get<std::uint8_t>(i);
      case 2: return get<std::uint16_t>(i);
      default: {
        std::int32_t v;
        std::memcpy(&v, &bytes_[i * 4], 4);
        return v;
      }
    }
  }

  void swap(NarrowColumn& other) noexcept {
    std::swap(width_, other.width_);
    bytes_.swap(other.bytes_);
    aside_.swap(other.aside_);
  }

 private:
  template <class T>
  static constexpr T kEscape = static_cast<T>(~T{0});

  template <class T>
  bool put(std::size_t i, std::int64_t value) {
    const bool fits = value >= 0 && value < kEscape<T>;
    const T v = fits ? static_cast<T>(value) : kEscape<T>;
    std::memcpy(&bytes_[i * sizeof(T)], &v, sizeof(T));
    return fits;
  }
  template <class T>
  std::int32_t get(std::size_t i) const {
    T v;
    std::memcpy(&v, &bytes_[i * sizeof(T)], sizeof(T));
    return v != kEscape<T> ? static_cast<std::int32_t>(v) : aside(i);
  }
  // The value kept aside for index i (the escape itself if none was).
  std::int32_t aside(std::size_t i) const;

  std::size_t width_ = 0;
  std::vector<std::uint8_t> bytes_;
  std::vector<Misfit> aside_;  // sorted by index
};

}  // namespace weft
