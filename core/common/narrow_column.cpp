#include "common/narrow_column.h"

#include <algorithm>

namespace weft {

std::size_t NarrowColumn::width_below(std::int64_t value_end) {
  return value_end <= kEscape<std::uint8_t> ? 1 : value_end <= kEscape<std::uint16_t> ? 2 : 4;
}

void NarrowColumn::resize(std::size_t n, std::size_t width) {
  width_ = width;
  bytes_.resize(n * width_);
}

void NarrowColumn::keep_aside(std::vector<Misfit> misfits) {
  aside_.insert(aside_.end(), misfits.begin(), misfits.end());
  std::sort(aside_.begin(), aside_.end());
}

std::int32_t NarrowColumn::aside(std::size_t i) const {
  const auto it = std::lower_bound(aside_.begin(), aside_.end(), Misfit{i, INT32_MIN});
  if (it != aside_.end() && it->first == i) return it->second;
  return width_ == 1 ? kEscape<std::uint8_t> : kEscape<std::uint16_t>;  // stored as such
}

}  // namespace weft
