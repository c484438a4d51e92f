#pragma once
// Phases: consecutive partitions grouped into the unit that repeats (one
// iteration of the main loop), so the viewer can jump phase by phase.
//
// Partitions are taken in topological order (their ids), each summarized by a
// signature of its shape (step width, op count, process count). The period is
// the smallest k for which at least 90% of partitions have the signature of
// the partition k later; phases then start at the first partition from which
// the pattern repeats, the partitions before it forming a prologue phase.
// Without a period every partition is its own phase.
#include <cstdint>
#include <vector>

namespace weft::structure {

struct Phases {
  std::vector<std::int32_t> of_partition;
  std::int32_t count = 0;
  std::int32_t period = 0;  // partitions per phase (0: no repetition found)
};

constexpr double kPhaseMatchRatio = 0.9;

Phases detect_phases(const std::vector<std::uint64_t>& partition_signature);

}  // namespace weft::structure
