#pragma once
// The invariants a logical structure must satisfy (`weft check`), verified on
// stored results rather than by re-running the analysis:
//  1. step(send) < step(receive) for every matched message;
//  2. steps strictly increase along each process in time order (consecutive
//     Isends may share a step: Isend coalescing makes them one operation);
//  3. all members of a collective invocation share one step;
//  4. every (partition, step) group has minimum lateness 0;
//  5. the partition graph is acyclic.
#include <cstdint>
#include <string>
#include <vector>

#include "structure/comm_trace.h"

namespace weft::structure {

struct CheckResult {
  std::int64_t send_not_before_receive = 0;
  std::int64_t steps_not_increasing = 0;
  std::int64_t collectives_split = 0;
  std::int64_t groups_without_zero_lateness = 0;
  std::int64_t partitions_in_cycles = 0;
  std::int64_t ops_without_structure = 0;
  bool ok() const {
    return send_not_before_receive == 0 && steps_not_increasing == 0 && collectives_split == 0 &&
           groups_without_zero_lateness == 0 && partitions_in_cycles == 0 && ops_without_structure == 0;
  }
};

CheckResult check_structure(const CommTrace& trace, const std::vector<std::int32_t>& partition,
                            const std::vector<std::int64_t>& step, const std::vector<TimeNs>& lateness);

}  // namespace weft::structure
