#pragma once
// The totals behind the summary tables of an analysis (docs/schema.md:
// step_metrics, process_metrics, partitions), gathered in one walk over the
// stored records.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/types.h"

namespace weft::db {

// max and sum of the metrics over a group of events (a step or a row).
struct MetricTotals {
  std::int64_t ops = 0;
  TimeNs max_lateness = 0, sum_lateness = 0, max_diff = 0, sum_diff = 0, sum_wait = 0, comm = 0;
  void add(TimeNs late, TimeNs diff, TimeNs wait, TimeNs duration) {
    ++ops;
    max_lateness = std::max(max_lateness, late);
    sum_lateness += late;
    max_diff = std::max(max_diff, diff);
    sum_diff += diff;
    sum_wait += wait;
    comm += duration;
  }
  void merge(const MetricTotals& o) {
    ops += o.ops;
    max_lateness = std::max(max_lateness, o.max_lateness);
    sum_lateness += o.sum_lateness;
    max_diff = std::max(max_diff, o.max_diff);
    sum_diff += o.sum_diff;
    sum_wait += o.sum_wait;
    comm += o.comm;
  }
};

// A partition's events and extent in time.
struct PartitionTotals {
  std::int64_t ops = 0;
  TimeNs begin = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
  TimeNs max_lateness = 0;
  void merge(const PartitionTotals& o) {
    ops += o.ops;
    begin = std::min(begin, o.begin);
    end = std::max(end, o.end);
    max_lateness = std::max(max_lateness, o.max_lateness);
  }
};

// Per global step, per process and per partition, of an MPI analysis.
struct SummaryTotals {
  SummaryTotals() = default;
  SummaryTotals(std::int64_t steps, ProcessIndex processes, std::int32_t partitions)
      : per_step(static_cast<std::size_t>(std::max<std::int64_t>(steps, 0))),
        per_process(static_cast<std::size_t>(std::max<ProcessIndex>(processes, 0))),
        per_partition(static_cast<std::size_t>(std::max(partitions, 0))) {}
  // One stored record; its process's totals go to `per_process`, this
  // one's or another's (see RecordTotals).
  void add(std::vector<MetricTotals>& per_process_totals, std::int32_t step, ProcessIndex process,
           std::int32_t partition, TimeNs start, TimeNs end, TimeNs late, TimeNs diff, TimeNs wait) {
    per_step[static_cast<std::size_t>(step)].add(late, diff, wait, end - start);
    per_process_totals[static_cast<std::size_t>(process)].add(late, diff, wait, end - start);
    PartitionTotals& pt = per_partition[static_cast<std::size_t>(partition)];
    ++pt.ops;
    pt.begin = std::min(pt.begin, start);
    pt.end = std::max(pt.end, end);
    pt.max_lateness = std::max(pt.max_lateness, late);
  }

  // Adds totals gathered over other records (another thread's) of the same
  // run: per step and partition sizes are equal; `o` may have no per-process
  // totals of its own.
  void merge(const SummaryTotals& o) {
    for (std::size_t i = 0; i < per_step.size(); ++i) per_step[i].merge(o.per_step[i]);
    for (std::size_t i = 0; i < o.per_process.size(); ++i) per_process[i].merge(o.per_process[i]);
    for (std::size_t i = 0; i < per_partition.size(); ++i) per_partition[i].merge(o.per_partition[i]);
  }

  std::vector<MetricTotals> per_step;
  std::vector<MetricTotals> per_process;
  std::vector<PartitionTotals> per_partition;
};

// Where one thread adds the totals of the records it walks: per step and
// partition to its own SummaryTotals, per process to the one shared
// per-process table (the writer's), when every process's records are walked
// by one thread at a time, in order (CommEventRecordWalk's tasks). A helper's
// own per-process table would be 56 bytes per process at the write's peak
// memory (3.7 MB at 65,536 processes).
struct RecordTotals {
  SummaryTotals& own;
  std::vector<MetricTotals>& per_process;
  void add(std::int32_t step, ProcessIndex process, std::int32_t partition, TimeNs start, TimeNs end, TimeNs late,
           TimeNs diff, TimeNs wait) {
    own.add(per_process, step, process, partition, start, end, late, diff, wait);
  }
};

}  // namespace weft::db
