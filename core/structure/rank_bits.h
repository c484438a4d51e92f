#pragma once
// A subset of dense indices 0..n-1 as one bit each, with the number of
// members before each 64-bit word, so that rank (members before i) takes
// O(1): about 1.5 bits per index.
// For maps that are sparse or monotone over the ops (which input op starts
// an analyzed op, which ops are collective members), where an int32 per op
// would cost 32 bits.
#include <bit>
#include <cstdint>
#include <vector>

namespace weft::structure {

class RankBits {
 public:
  RankBits() = default;
  explicit RankBits(std::size_t n) : size_(n), bits_((n + 63) / 64, 0) {}

  // Call count_members() after the last set(), before rank().
  void set(std::size_t i) { bits_[i / 64] |= std::uint64_t{1} << (i % 64); }
  void count_members() {
    before_.assign(bits_.size(), 0);
    for (std::size_t w = 1; w < bits_.size(); ++w)
      before_[w] = before_[w - 1] + static_cast<std::int32_t>(std::popcount(bits_[w - 1]));
  }

  std::size_t size() const { return size_; }
  bool test(std::size_t i) const { return (bits_[i / 64] >> (i % 64)) & 1; }
  // Members in [0, i).
  std::int32_t rank(std::size_t i) const {
    const std::uint64_t below = (std::uint64_t{1} << (i % 64)) - 1;
    if (i / 64 == bits_.size()) return members();
    return before_[i / 64] + static_cast<std::int32_t>(std::popcount(bits_[i / 64] & below));
  }
  std::int32_t members() const {
    return bits_.empty() ? 0 : before_.back() + static_cast<std::int32_t>(std::popcount(bits_.back()));
  }

 private:
  std::size_t size_ = 0;
  std::vector<std::uint64_t> bits_;
  std::vector<std::int32_t> before_;
};

}  // namespace weft::structure
