#include "structure/op_regions.h"

#include <algorithm>

namespace weft::db {

void OpRegions::resize(std::size_t ops, std::int64_t region_end) {
  // The escape (all ones) is no reference: the widths hold references below it.
  width_ = region_end <= kEscape<std::uint8_t> ? 1 : region_end <= kEscape<std::uint16_t> ? 2 : 4;
  bytes_.resize(ops * width_);
}

void OpRegions::keep_aside(std::vector<Misfit> misfits) {
  aside_.insert(aside_.end(), misfits.begin(), misfits.end());
  std::sort(aside_.begin(), aside_.end());
}

std::int32_t OpRegions::aside(std::size_t op) const {
  const auto it = std::lower_bound(aside_.begin(), aside_.end(), Misfit{op, INT32_MIN});
  if (it != aside_.end() && it->first == op) return it->second;
  return width_ == 1 ? kEscape<std::uint8_t> : kEscape<std::uint16_t>;  // stored as such
}

}  // namespace weft::db
