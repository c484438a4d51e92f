// Metrics of task-based traces (charm-logical-structure.txt §4,
// ampi-projections.txt §3) on hand-built traces, expected values worked out
// by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>

#include "charm/jacobi_task_trace.h"
#include "charm/task_metrics.h"
#include "charm/task_structure.h"
#include "charm/task_trace_builder.h"
#include "charm_test_support.h"
#include "structure/structure_store.h"

using namespace weft;
using namespace weft::charm;
using weft::charm::test::event_in;
using weft::charm::test::find_block;

namespace {

std::vector<std::int32_t> global_steps(const TaskTrace& t, const TaskStructure& s) {
  std::vector<std::int32_t> step(static_cast<std::size_t>(t.event_count()));
  for (EventIndex e = 0; e < t.event_count(); ++e) step[static_cast<std::size_t>(e)] = s.global_step(e);
  return step;
}

// Jacobi 2x2 on 2 PEs (layout in test_charm_structure.cpp), chare 3's compute
// in iteration 1 taking 100 ns longer. The compute sits between the sink and
// the contribute of the chare's last recvGhost, so it is the contribute's
// sub-block: 4 + 20 - 1 = 23 ns for every chare, 123 ns for chare 3 in
// iteration 1. All contributes of an iteration are at local step 0 of their
// runtime phase, so that event's differential duration is 123 - 23 = 100,
// the largest of the trace.
TEST(CharmMetrics, DelayedEntryHasTheLargestDifferentialDuration) {
  const TaskTrace t = jacobi_task_trace(JacobiShape{.delay_chare = 3, .delay_iteration = 1, .delay_ns = 100});
  const TaskStructure s = analyze_task_structure(t, {});
  ASSERT_EQ(s.phases.count, 4);
  const std::vector<TimeNs> sub = sub_block_durations(t, s.index.block_first);
  const std::vector<TimeNs> diff = differential_durations(sub, s.phases.of_event, global_steps(t, s));
  const EventIndex delayed = event_in(t, find_block(t, 3, "recvGhost", 3), 1);
  EXPECT_EQ(sub[static_cast<std::size_t>(delayed)], 123);
  EXPECT_EQ(diff[static_cast<std::size_t>(delayed)], 100);
  const auto top = std::max_element(diff.begin(), diff.end()) - diff.begin();
  EXPECT_EQ(top, delayed);
  // The same contribute in iteration 0 is at par with its peers.
  EXPECT_EQ(diff[static_cast<std::size_t>(event_in(t, find_block(t, 3, "recvGhost", 1), 1))], 0);

  // Imbalance of the last runtime phase (phase 3), per PE summed sub-blocks:
  // PE 0: contributes 23 + 23, contributeLocal sinks 3 + 3, recvPartial sink
  //       1 (the rest of its block after the broadcast at end - 1) and
  //       broadcast 2, done sinks 1 + 1 = 57;
  // PE 1: contributes 23 + 123, contributeLocal 3, the second one's sink 1
  //       and forward 2, done 1 + 1 = 154.
  // Imbalance 154 - 57 = 97; PE imbalance 0 on PE 0 and 97 on PE 1.
  const PhaseImbalance imb = phase_imbalance(t, sub, s.phases.of_event, s.phases.count);
  EXPECT_EQ(imb.phase[3], 97);
  EXPECT_EQ(imb.pe_of_event[static_cast<std::size_t>(delayed)], 97);
  EXPECT_EQ(imb.pe_of_event[static_cast<std::size_t>(event_in(t, find_block(t, 0, "recvGhost", 3), 1))], 0);
  // Phase 1, the same runtime phase without the delay: 57 vs 54.
  EXPECT_EQ(imb.phase[1], 3);

  // Per-chare and per-PE views. Every block has an event, so the sub-blocks
  // of a PE add up to its busy time; chare 3's largest differential duration
  // is the delayed contribute's 100.
  std::vector<std::int32_t> pe(static_cast<std::size_t>(t.event_count())), chare(pe.size());
  for (EventIndex e = 0; e < t.event_count(); ++e) {
    pe[static_cast<std::size_t>(e)] = t.pe_of_event(e);
    chare[static_cast<std::size_t>(e)] = t.chare_of_event(e);
  }
  EXPECT_EQ(aggregate_metric(sub, pe, t.pe_count).sum, pe_utilization(t).busy);
  EXPECT_EQ(aggregate_metric(diff, chare, t.chare_count()).max[3], 100);
}

// Figure 13: a block [0, 10] with a sink at 0 and sources at 3 and 7: the
// sources' sub-blocks are 3 and 4, the rest (10 - 7 = 3) goes to the sink.
// Without a sink the rest goes to the last event: [20, 30] with sources at 22
// and 25: 2, 3 + 5 = 8.
TEST(CharmMetrics, SubBlocks) {
  TaskTraceBuilder b(1);
  const ChareIndex c = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto first = b.block(c, 0, m, 0, 10);
  const auto k = b.sink(first, b.source(b.block(c, 0, m, -5, -1), -2));
  const auto s1 = b.source(first, 3), s2 = b.source(first, 7);
  const auto second = b.block(c, 0, m, 20, 30);
  const auto s3 = b.source(second, 22), s4 = b.source(second, 25);
  const TaskTrace t = b.build();
  const std::vector<TimeNs> sub = sub_block_durations(t, index_block_events(t));
  auto at = [&](std::int32_t provisional) { return sub[static_cast<std::size_t>(b.event_id(provisional))]; };
  EXPECT_EQ(at(k), 3);
  EXPECT_EQ(at(s1), 3);
  EXPECT_EQ(at(s2), 4);
  EXPECT_EQ(at(s3), 2);
  EXPECT_EQ(at(s4), 8);
}

// Figure 11, PE 1 idles over [10, 20]. Its next blocks: B1 [20, 25] waits on
// a message created at 5, B2 [25, 30] on one created at 15: both were waiting
// during the idle and experience its 10 ns. B3 [30, 35] depends on a message
// created at 22, after the idle: the walk stops there, so B4 [35, 40] gets
// nothing although its message is old (created at 3). A second idle [40, 50]
// goes to the block after it, B5, which has no recorded dependency.
TEST(CharmMetrics, IdleExperiencedFollowsTheFigure11Rule) {
  TaskTraceBuilder b(3);
  const ChareIndex c0 = b.chare(false), c1 = b.chare(false), c2 = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto a5 = b.source(b.block(c0, 0, m, 0, 6), 5);
  const auto a22 = b.source(b.block(c0, 0, m, 20, 23), 22);
  const auto c3 = b.source(b.block(c2, 2, m, 0, 4), 3);
  const auto c15 = b.source(b.block(c2, 2, m, 14, 16), 15);
  const auto b0 = b.block(c1, 1, m, 0, 10);
  b.idle(1, 10, 20);
  const auto b1 = b.block(c1, 1, m, 20, 25);
  b.sink(b1, a5);
  const auto b2 = b.block(c1, 1, m, 25, 30);
  b.sink(b2, c15);
  const auto b3 = b.block(c1, 1, m, 30, 35);
  b.sink(b3, a22);
  const auto b4 = b.block(c1, 1, m, 35, 40);
  b.sink(b4, c3);
  b.idle(1, 40, 50);
  const auto b5 = b.block(c1, 1, m, 50, 55);
  const TaskTrace t = b.build();
  const std::vector<TimeNs> idle = idle_experienced(t, index_block_events(t));
  auto at = [&](std::int32_t provisional) { return idle[static_cast<std::size_t>(b.block_id(provisional))]; };
  EXPECT_EQ(at(b0), 0);
  EXPECT_EQ(at(b1), 10);
  EXPECT_EQ(at(b2), 10);
  EXPECT_EQ(at(b3), 0);
  EXPECT_EQ(at(b4), 0);
  EXPECT_EQ(at(b5), 10);
  TimeNs others = 0;
  for (BlockIndex blk = 0; blk < t.block_count(); ++blk)
    if (t.block_pe[static_cast<std::size_t>(blk)] != 1) others += idle[static_cast<std::size_t>(blk)];
  EXPECT_EQ(others, 0);
}

// §4, the walk goes past a block with no dependency: PE 0 idles over
// [0, 10]; X [10, 12] waits on a message created at 5, then _serial_2
// [12, 15] (no sink: an SDAG serial is started by the runtime, not by a
// traced message; its only event is a send at 13), then Y [15, 20] waits on
// a message created at 3. X is "directly after recorded idle time": 10. The
// serial "[is not] dependent on an event that happened after the recorded
// idle time", so the search does not stop there; it does not wait on a
// dependency either, so it gets nothing. Y's message is from 3 < 10: Y
// waited through the idle and experiences 10.
TEST(CharmMetrics, IdleExperiencedWalksPastABlockWithoutASink) {
  TaskTraceBuilder b(2);
  const ChareIndex c0 = b.chare(false), c1 = b.chare(false);
  const EntryIndex m = b.entry("m"), serial = b.entry("_serial_2");
  const auto blk = b.block(c1, 1, m, 0, 6);
  const auto from3 = b.source(blk, 3), from5 = b.source(blk, 5);
  b.idle(0, 0, 10);
  const auto x = b.block(c0, 0, m, 10, 12);
  b.sink(x, from5);
  const auto s = b.block(c0, 0, serial, 12, 15);
  b.source(s, 13);
  const auto y = b.block(c0, 0, m, 15, 20);
  b.sink(y, from3);
  const TaskTrace t = b.build();
  const std::vector<TimeNs> idle = idle_experienced(t, index_block_events(t));
  auto at = [&](std::int32_t provisional) { return idle[static_cast<std::size_t>(b.block_id(provisional))]; };
  EXPECT_EQ(at(x), 10);
  EXPECT_EQ(at(s), 0);
  EXPECT_EQ(at(y), 10);
}

// §4, two recorded idle intervals back to back, [10, 20] and [20, 30] on PE
// 0, then a block [30, 35]: it is "the event occurring directly after
// recorded idle time", and the idle before it is both intervals: 10 + 10 =
// 20. A block [0, 10] before them gets nothing.
TEST(CharmMetrics, ConsecutiveIdleIntervalsCountTogether) {
  TaskTraceBuilder b(1);
  const ChareIndex c = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto before = b.block(c, 0, m, 0, 10);
  b.idle(0, 10, 20);
  b.idle(0, 20, 30);
  const auto after = b.block(c, 0, m, 30, 35);
  const TaskTrace t = b.build();
  const std::vector<TimeNs> idle = idle_experienced(t, index_block_events(t));
  EXPECT_EQ(idle[static_cast<std::size_t>(b.block_id(before))], 0);
  EXPECT_EQ(idle[static_cast<std::size_t>(b.block_id(after))], 20);
}

// §4, idle experienced belongs to "the event occurring directly after" the
// idle (and to the first event of each later serial block that waited
// through it), not to every event of the block. PE 0 idles over [0, 10];
// the block [10, 20] starts with a sink (message created at 5 on PE 1) and
// sends at 12 and 15. Per event: the sink 10, the sends 0. Summed per step
// or per row (MetricTotals), the block's idle counts once: 10, not 30.
TEST(CharmMetrics, IdleExperiencedIsCarriedByTheFirstEventOfTheBlock) {
  TaskTraceBuilder b(2);
  const ChareIndex c0 = b.chare(false), c1 = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto from = b.source(b.block(c1, 1, m, 0, 6), 5);
  b.idle(0, 0, 10);
  const auto blk = b.block(c0, 0, m, 10, 20);
  const auto k = b.sink(blk, from);
  const auto s12 = b.source(blk, 12), s15 = b.source(blk, 15);
  const TaskTrace t = b.build();
  const std::vector<EventIndex> first = index_block_events(t);
  const std::vector<TimeNs> per_event = idle_experienced_of_events(t, first, idle_experienced(t, first));
  auto at = [&](std::int32_t provisional) { return per_event[static_cast<std::size_t>(b.event_id(provisional))]; };
  EXPECT_EQ(at(k), 10);
  EXPECT_EQ(at(s12), 0);
  EXPECT_EQ(at(s15), 0);
  db::MetricTotals totals;
  for (std::int32_t e : {k, s12, s15}) totals.add(at(e), 0, 0, 0);
  EXPECT_EQ(totals.sum_lateness, 10);
  EXPECT_EQ(totals.max_lateness, 10);
}

// Interval bounds of λ: 2 PEs, the run spans [0, 200] (PE 1's last block
// ends at 200), load-balancing steps recorded at 0 (the run's start), 100
// and 250 (past the run's end). Only 100 divides the run: two intervals,
// [0, 100) and [100, 200].
//   PE 0: [0, 60], [100, 150]    60 | 50
//   PE 1: [0, 40], [100, 200]    40 | 100
// λ [0, 100) = (60 / 50 - 1) x 100 = 20 %; λ [100, 200] = (100 / 75 - 1) x 100
// = 33.33 %. Each λ comes with the bounds it was computed over.
TEST(CharmMetrics, IntervalImbalanceCarriesItsBounds) {
  TaskTraceBuilder b(2);
  const ChareIndex c = b.chare(false);
  const EntryIndex m = b.entry("m");
  b.block(c, 0, m, 0, 60);
  b.block(c, 0, m, 100, 150);
  b.block(c, 1, m, 0, 40);
  b.block(c, 1, m, 100, 200);
  b.lb_step(0);
  b.lb_step(100);
  b.lb_step(250);
  const TaskTrace t = b.build();
  const PeUtilization u = pe_utilization(t);
  ASSERT_EQ(u.run_begin, 0);
  ASSERT_EQ(u.run_end, 200);
  const std::vector<IntervalImbalance> iv = interval_percent_imbalance(t, u);
  ASSERT_EQ(iv.size(), 2u);
  EXPECT_EQ(iv[0].begin, 0);
  EXPECT_EQ(iv[0].end, 100);
  EXPECT_DOUBLE_EQ(iv[0].lambda_percent, 20.0);
  EXPECT_EQ(iv[1].begin, 100);
  EXPECT_EQ(iv[1].end, 200);
  EXPECT_DOUBLE_EQ(iv[1].lambda_percent, 100.0 / 3.0);
}

// 4 PEs, a load-balancing step at t = 100, the run spans [0, 200] (PE 1's
// idle ends at 200). Busy time before / after the step:
//   PE 0: [0,80] | [100,150]                   80 | 50   total 130
//   PE 1: [0,40] | [100,150]                   40 | 50   total  90
//   PE 2: [10,50] | [120,165]                  40 | 45   total  85
//   PE 3: [0,30], [90,130] split 10/30, [170,195]  40 | 55   total  95
// λ before = (80 / 50 - 1) x 100 = 60 %, after = (55 / 50 - 1) x 100 = 10 %,
// whole run = (130 / 100 - 1) x 100 = 30 %. Busy % = busy / 200.
TEST(CharmMetrics, PercentImbalanceBeforeAndAfterBalancing) {
  TaskTraceBuilder b(4);
  const ChareIndex c = b.chare(false);
  const EntryIndex m = b.entry("m");
  b.block(c, 0, m, 0, 80);
  b.block(c, 0, m, 100, 150);
  b.block(c, 1, m, 0, 40);
  b.block(c, 1, m, 100, 150);
  b.idle(1, 150, 200);
  b.block(c, 2, m, 10, 50);
  b.block(c, 2, m, 120, 165);
  b.block(c, 3, m, 0, 30);
  b.block(c, 3, m, 90, 130);
  b.block(c, 3, m, 170, 195);
  b.lb_step(100);
  const TaskTrace t = b.build();
  const PeUtilization u = pe_utilization(t);
  EXPECT_EQ(u.run_begin, 0);
  EXPECT_EQ(u.run_end, 200);
  EXPECT_EQ(u.busy, (std::vector<TimeNs>{130, 90, 85, 95}));
  EXPECT_EQ(u.idle, (std::vector<TimeNs>{0, 50, 0, 0}));
  EXPECT_DOUBLE_EQ(u.busy_percent[0], 65.0);
  EXPECT_DOUBLE_EQ(u.busy_percent[1], 45.0);
  EXPECT_DOUBLE_EQ(u.busy_percent[2], 42.5);
  EXPECT_DOUBLE_EQ(u.busy_percent[3], 47.5);
  EXPECT_DOUBLE_EQ(percent_imbalance(u.busy), 30.0);
  const std::vector<IntervalImbalance> lambda = interval_percent_imbalance(t, u);
  ASSERT_EQ(lambda.size(), 2u);
  EXPECT_DOUBLE_EQ(lambda[0].lambda_percent, 60.0);
  EXPECT_DOUBLE_EQ(lambda[1].lambda_percent, 10.0);
  EXPECT_DOUBLE_EQ(percent_imbalance({0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(percent_imbalance({5, 5, 5}), 0.0);
}

// Jacobi 2x2, 2 iterations: per chare and iteration one startIteration of
// 2 x (2 neighbors + 1) = 6 ns and two recvGhost, 4 ns and 4 + 20 = 24 ns;
// one done of 1 ns per chare.
TEST(CharmMetrics, EntryMethodStats) {
  const TaskTrace t = jacobi_task_trace(JacobiShape{});
  const EntryStats s = entry_method_stats(t);
  auto entry = [&](const char* name) {
    return static_cast<std::size_t>(std::find(t.entry_name.begin(), t.entry_name.end(), name) - t.entry_name.begin());
  };
  EXPECT_EQ(s.count[entry("startIteration")], 8);
  EXPECT_EQ(s.total[entry("startIteration")], 48);
  EXPECT_EQ(s.max[entry("startIteration")], 6);
  EXPECT_EQ(s.count[entry("recvGhost")], 16);
  EXPECT_EQ(s.total[entry("recvGhost")], 8 * 4 + 8 * 24);
  EXPECT_EQ(s.max[entry("recvGhost")], 24);
  EXPECT_DOUBLE_EQ(s.mean[entry("recvGhost")], 14.0);
  EXPECT_EQ(s.count[entry("done")], 4);
  EXPECT_EQ(s.total[entry("done")], 4);
}

}  // namespace
