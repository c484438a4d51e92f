#pragma once
// Integer helpers for bin layouts sized from values read from files: a
// damaged run may hold times near 2^63, where `(a + b - 1) / b` overflows.
#include <cstdint>

namespace weft {

// ceil(a / b) for a >= 0 and b > 0, without overflow.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// a + b, clamped to the int64 range instead of overflowing (sums of times
// read from a damaged file).
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

}  // namespace weft
