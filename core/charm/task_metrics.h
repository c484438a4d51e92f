#pragma once
// Metrics of task-based traces: idle experienced, sub-blocks, differential
// duration and imbalance over the logical structure
// (charm-logical-structure.txt §4), and the Projections utilization numbers
// of ampi-projections.txt §2–3: busy time, idle time, busy % per PE and the
// percent imbalance λ over PE busy times, for the run and for each interval
// between load-balancing steps; plus per entry method count/total/mean/max.
#include <cstdint>
#include <vector>

#include "charm/task_trace.h"

namespace weft::charm {

// §4 Idle experienced, per serial block. For each idle on a PE (recorded
// idle intervals with no block between them count as one, their lengths
// added), the first block after it experiences the idle's length; walking on
// along the PE, each next block whose triggering message was created before
// the idle ended experiences it too (it waited through the idle); a block
// with no recorded dependency (no traced sink: an SDAG serial) gets nothing
// but does not stop the walk; the walk stops at the first block that depends
// on something created after the idle ended, or at the next idle (Figure 11).
std::vector<TimeNs> idle_experienced(const TaskTrace& trace, const std::vector<EventIndex>& block_first);

// Per event, from idle_experienced's per-block values: the first event of
// each block carries its block's value, every other event 0 (§4: the metric
// is at "the event occurring directly after" the idle and at "the first
// event of each subsequent serial block").
std::vector<TimeNs> idle_experienced_of_events(const TaskTrace& trace, const std::vector<EventIndex>& block_first,
                                               const std::vector<TimeNs>& idle_of_block);

// §4 Sub-blocks (Figure 13), per event: the time from the previous event of
// its block (or the block start) to the event; the rest of the block after
// its last event goes to the block's sink when it has one, else to its last
// event.
std::vector<TimeNs> sub_block_durations(const TaskTrace& trace, const std::vector<EventIndex>& block_first);

// §4 Differential duration, per event: its sub-block duration minus the
// shortest one among the events of the same phase at the same step.
std::vector<TimeNs> differential_durations(const std::vector<TimeNs>& sub_block,
                                           const std::vector<std::int32_t>& phase_of_event,
                                           const std::vector<std::int32_t>& step_of_event);

// §4 Imbalance: per phase, each PE's summed sub-block duration in the phase;
// the phase's imbalance is max - min over the PEs that take part, and each
// PE's imbalance is its total minus the least loaded PE's.
struct PhaseImbalance {
  std::vector<TimeNs> phase;      // per phase
  std::vector<TimeNs> pe_of_event;  // per event: its PE's imbalance in its phase
};
PhaseImbalance phase_imbalance(const TaskTrace& trace, const std::vector<TimeNs>& sub_block,
                               const std::vector<std::int32_t>& phase_of_event, std::int32_t phase_count);

// ampi-projections.txt §2.2: busy = time in entry methods, idle = recorded
// idle intervals, busy % = busy / (run end - run start) x 100, where the run
// spans every block and idle interval.
struct PeUtilization {
  TimeNs run_begin = 0, run_end = 0;
  std::vector<TimeNs> busy, idle;
  std::vector<double> busy_percent;
};
PeUtilization pe_utilization(const TaskTrace& trace);

// ampi-projections.txt Eq. (1): λ = (max(L) / avg(L) - 1) x 100 % over the
// PE busy times L; 0 when nothing was busy.
double percent_imbalance(const std::vector<TimeNs>& busy);

// λ for each interval between load-balancing steps: [run_begin, lb_0),
// [lb_0, lb_1), ..., [lb_last, run_end]; busy time clipped to each interval.
// Only LB times strictly inside the run and after the previous one bound an
// interval; each result carries the bounds it was computed over.
struct IntervalImbalance {
  TimeNs begin = 0, end = 0;
  double lambda_percent = 0;
};
std::vector<IntervalImbalance> interval_percent_imbalance(const TaskTrace& trace, const PeUtilization& util);

// A per-event (or per-block) metric aggregated by a key of each item: its
// chare, its PE or its step (the per-chare, per-PE and per-step views).
struct MetricByKey {
  std::vector<TimeNs> sum, max;
};
MetricByKey aggregate_metric(const std::vector<TimeNs>& value, const std::vector<std::int32_t>& key,
                             std::int32_t key_count);

struct EntryStats {
  std::vector<std::int64_t> count;
  std::vector<TimeNs> total, max;
  std::vector<double> mean;
};
EntryStats entry_method_stats(const TaskTrace& trace);

}  // namespace weft::charm
