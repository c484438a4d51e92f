#pragma once
// Temporal metrics on the logical structure (ravel-logical-lateness.txt §4).
//
// lateness(op)        = exit(op) - min{ exit(x) : x in op's partition, step(x) = step(op) }
// global_lateness(op) = exit(op) - min{ exit(x) : global_step(x) = global_step(op) }
// diff_lateness(op)   = max(0, lateness(op) - max{ lateness(x) : x an immediate
//                       predecessor of op }), the immediate predecessors being the
//                       previous communication op of the same process and, for an
//                       op that completes receives, the matching sends.
// wait(op)            = time inside the call spent waiting for a partner: for an op
//                       completing receives, how long it started before the latest
//                       matching send started (late sender); for a collective
//                       member, how long it started before the last member did;
//                       clamped to [0, duration]; 0 for other ops.
//
// Only the per-group minima are stored (one int64 per partition step and per
// global step); per-op values are computed on demand, so the metrics cost a few
// bytes per op rather than 32.
#include <cstdint>
#include <vector>

#include "structure/comm_trace.h"
#include "structure/partition_graph.h"

namespace weft::structure {

// All four metrics of one op.
struct OpMetrics {
  TimeNs lateness = 0, global_lateness = 0, diff_lateness = 0, wait = 0;
};

class LatenessMetrics {
 public:
  LatenessMetrics() = default;
  // Per op of `trace`: its partition (`parts`), its raw slot on the global
  // step axis, the messages it completes (`received`) and its collective
  // (`collective_of`, kept); per partition its width and offset in raw slots.
  // Keeps pointers to all but `collective_of` (kept): they must outlive the
  // metrics. With two threads, the slots' extremes are found over two
  // halves of the ops at once.
  LatenessMetrics(const CommTrace& trace, const Partitioning& parts,
                  const std::vector<std::int32_t>& global_raw_step,
                  const std::vector<std::int32_t>& partition_width,
                  const std::vector<std::int32_t>& partition_offset,
                  const ReceivedMessages& received, CollectiveOfOps collective_of, int threads = 1);

  TimeNs lateness(OpIndex op) const;
  TimeNs global_lateness(OpIndex op) const;
  TimeNs diff_lateness(OpIndex op) const;
  TimeNs wait(OpIndex op) const;
  // The four at once, for the writers that need them for every op: one walk
  // over the op's senders serves both differential lateness and wait.
  OpMetrics all(OpIndex op) const;
  // all(op) for a walk over the ops in order: it also asks the cache for
  // what all() will read at random places kPrefetchOps ops ahead (the
  // partition, step, start and end of that op's senders), instead of
  // waiting for each miss in turn.
  OpMetrics all_in_op_order(OpIndex op) const {
    prefetch(op + kPrefetchOps);
    return all(op);
  }
  static constexpr OpIndex kPrefetchOps = 16;
  // The largest lateness and global lateness of any op (0 without ops).
  TimeNs max_lateness() const { return max_lateness_; }
  TimeNs max_global_lateness() const { return max_global_lateness_; }
  // The collective `op` is a member of, or -1.
  std::int32_t collective_of(OpIndex op) const { return coll_of_[static_cast<std::size_t>(op)]; }

 private:
  const CommTrace* t_ = nullptr;
  const Partitioning* parts_ = nullptr;
  const std::vector<std::int32_t>* global_raw_ = nullptr;
  const ReceivedMessages* received_ = nullptr;
  void prefetch(OpIndex op) const;
  // Per partition: its step 0's index in local_min_ less its offset on the
  // global axis, so that an op's (partition, step) slot is base + global raw step.
  std::vector<std::int64_t> local_base_;
  std::vector<TimeNs> local_min_;         // per (partition, step)
  std::vector<TimeNs> global_min_;        // per global raw step
  CollectiveOfOps coll_of_;  // and each collective's latest member start
  TimeNs max_lateness_ = 0, max_global_lateness_ = 0;
};

}  // namespace weft::structure
