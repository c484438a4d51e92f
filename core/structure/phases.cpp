#include "structure/phases.h"

namespace weft::structure {
namespace {

std::int32_t find_period(const std::vector<std::uint64_t>& sig) {
  const auto n = static_cast<std::int32_t>(sig.size());
  for (std::int32_t k = 1; 2 * k <= n; ++k) {
    std::int32_t matches = 0;
    for (std::int32_t i = 0; i + k < n; ++i)
      matches += sig[static_cast<std::size_t>(i)] == sig[static_cast<std::size_t>(i + k)];
    if (matches >= kPhaseMatchRatio * (n - k)) return k;
  }
  return 0;
}

}  // namespace

Phases detect_phases(const std::vector<std::uint64_t>& sig) {
  const auto n = static_cast<std::int32_t>(sig.size());
  Phases ph;
  ph.of_partition.resize(sig.size());
  ph.period = find_period(sig);
  if (ph.period == 0) {
    for (std::int32_t i = 0; i < n; ++i) ph.of_partition[static_cast<std::size_t>(i)] = i;
    ph.count = n;
    return ph;
  }
  const std::int32_t k = ph.period;
  std::int32_t start = 0;
  while (start + k < n && sig[static_cast<std::size_t>(start)] != sig[static_cast<std::size_t>(start + k)])
    ++start;
  if (start >= k) start = start % k;  // never a prologue longer than a period
  const std::int32_t prologue = start > 0 ? 1 : 0;
  for (std::int32_t i = 0; i < n; ++i)
    ph.of_partition[static_cast<std::size_t>(i)] = i < start ? 0 : prologue + (i - start) / k;
  ph.count = n == 0 ? 0 : ph.of_partition.back() + 1;
  return ph;
}

}  // namespace weft::structure
