#pragma once
// The region reference of each op of a loaded trace (LoadedCommTrace::region)
// in as few bytes as the run's references need: 1 byte per op when the
// regions table's references are all under 255, 2 under 65,535, else 4.
// References are dense and few (a synthetic trace has ~10, Score-P's
// hundreds), and the column lives from the load to the end of the write:
// 4 bytes per op were 13 MB of a 16,384-process analysis' 183 MB peak, and
// every MB first touched costs ~1.5-2 ms on this project's VMs.
//
// An op whose reference does not fit (one past the regions table: a damaged
// store's) is stored as the width's largest value and kept aside, with its
// reference as it was read, so that nothing is changed on the way through.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace weft::db {

class OpRegions {
 public:
  // An op's region that set() could not store: passed to keep_aside.
  using Misfit = std::pair<std::size_t, std::int32_t>;

  // Sized (zeroed) for `ops` ops whose references are mostly below
  // `region_end`, the regions table's largest reference plus one.
  void resize(std::size_t ops, std::int64_t region_end);
  std::size_t size() const { return width_ == 0 ? 0 : bytes_.size() / width_; }
  // 1, 2 or 4 (0 before resize): bytes per op.
  std::size_t width() const { return width_; }

  // Stores op's region; false, storing the width's escape, when it does not
  // fit: the caller gathers those for keep_aside. Distinct ops may be set
  // from different threads at once.
  bool set(std::size_t op, std::int64_t region) {
    switch (width_) {
      case 1: return put<std::uint8_t>(op, region);
      case 2: return put<std::uint16_t>(op, region);
      default: {
        const auto value = static_cast<std::int32_t>(region);  // 4 bytes: as the column always was
        std::memcpy(&bytes_[op * 4], &value, 4);
        return true;
      }
    }
  }
  // The ops set() refused, with their references (any order; each op once).
  void keep_aside(std::vector<Misfit> misfits);

  std::int32_t operator[](std::size_t op) const {
    switch (width_) {
      case 1: return get<std::uint8_t>(op);
      case 2: return get<std::uint16_t>(op);
      default: {
        std::int32_t value;
        std::memcpy(&value, &bytes_[op * 4], 4);
        return value;
      }
    }
  }

  void swap(OpRegions& other) noexcept {
    std::swap(width_, other.width_);
    bytes_.swap(other.bytes_);
    aside_.swap(other.aside_);
  }

 private:
  template <class T>
  static constexpr T kEscape = static_cast<T>(~T{0});

  template <class T>
  bool put(std::size_t op, std::int64_t region) {
    const bool fits = region >= 0 && region < kEscape<T>;
    const T value = fits ? static_cast<T>(region) : kEscape<T>;
    std::memcpy(&bytes_[op * sizeof(T)], &value, sizeof(T));
    return fits;
  }
  template <class T>
  std::int32_t get(std::size_t op) const {
    T value;
    std::memcpy(&value, &bytes_[op * sizeof(T)], sizeof(T));
    return value != kEscape<T> ? static_cast<std::int32_t>(value) : aside(op);
  }
  // The reference kept aside for `op` (the escape itself if none was).
  std::int32_t aside(std::size_t op) const;

  std::size_t width_ = 0;
  std::vector<std::uint8_t> bytes_;
  std::vector<Misfit> aside_;  // sorted by op
};

}  // namespace weft::db
