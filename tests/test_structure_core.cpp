// The logical structure pipeline on hand-built communication traces, with
// every expected partition, step and metric derived by hand from the rules of
// ravel-logical-lateness.txt (§3.1 partitions, §3.2 steps, §3.3 coalescing,
// §4 lateness). Steps are the global steps of analysis.h: an op in raw slot r
// sits at step 2r + 1.
#include <gtest/gtest.h>

#include <initializer_list>

#include "structure/analysis.h"
#include "structure/isend_coalescing.h"
#include "structure/leap_merge.h"
#include "structure/mandatory_partitions.h"
#include "structure/message_passing_reorder.h"
#include "structure/step_assignment.h"
#include "structure/structure_check.h"
#include "comm_trace_builder.h"

using namespace weft;
using namespace weft::structure;

namespace {

// A blocking ring on 3 processes: each sends right, then receives from the left.
CommTrace ring3() {
  TraceBuilder b(3);
  OpIndex s0 = b.op(0, 0, 10, OpKind::Send), r0 = b.op(0, 10, 40, OpKind::Recv);
  OpIndex s1 = b.op(1, 0, 30, OpKind::Send), r1 = b.op(1, 30, 35, OpKind::Recv);
  OpIndex s2 = b.op(2, 0, 12, OpKind::Send), r2 = b.op(2, 12, 50, OpKind::Recv);
  b.message(s0, r1);
  b.message(s1, r2);
  b.message(s2, r0);
  return b.build();
}

// p0: collective c0, then send s to p1; p1: receive r of s, then the
// collective's other member c1. No real MPI run can do this (p1 never
// reaches the collective): a happened-before cycle, bad input. r starts at
// `recv_start`.
struct CollectiveCycle {
  CommTrace trace;
  OpIndex c0, s, r, c1;
};
CollectiveCycle collective_cycle(TimeNs recv_start) {
  TraceBuilder b(2);
  CollectiveCycle c;
  c.c0 = b.op(0, 0, 1, OpKind::Collective);
  c.s = b.op(0, 2, 3, OpKind::Send);
  c.r = b.op(1, recv_start, 4, OpKind::Recv);
  c.c1 = b.op(1, 5, 6, OpKind::Collective);
  b.message(c.s, c.r);
  b.collective({c.c0, c.c1});
  c.trace = b.build();
  return c;
}

CheckResult check(const StructureResult& r) {
  std::vector<std::int32_t> part(r.parts.of_op);
  std::vector<std::int64_t> step;
  std::vector<TimeNs> late;
  for (OpIndex op = 0; op < r.trace.op_count(); ++op) {
    step.push_back(r.global_step(op));
    late.push_back(r.metrics.lateness(op));
  }
  return check_structure(r.trace, part, step, late);
}

}  // namespace

TEST(Structure, RingCycleMergesIntoOnePartitionWithSendsThenReceives) {
  auto r = analyze_structure(ring3(), {});
  // Mandatory partitions {s0,r1}, {s1,r2}, {s2,r0}: s0 -> r0 puts an edge from
  // the first to the third, and so on around the ring: one SCC.
  EXPECT_EQ(r->report.mandatory_partitions, 3);
  EXPECT_EQ(r->report.cycle_merged_partitions, 2);
  EXPECT_EQ(r->report.partitions, 1);
  for (OpIndex op : {0, 2, 4}) EXPECT_EQ(r->global_step(op), 1) << op;  // sends: stride 1
  for (OpIndex op : {1, 3, 5}) EXPECT_EQ(r->global_step(op), 3) << op;  // receives right after
  EXPECT_EQ(r->report.global_steps, 5);
  EXPECT_TRUE(check(*r).ok());
}

TEST(Structure, LatenessAndDifferentialLatenessFollowTheirDefinitions) {
  for (int threads : {1, 2}) {  // two: the slots' extremes over two halves of the ops
  SCOPED_TRACE(threads);
  AnalysisOptions options;
  options.threads = threads;
  auto r = analyze_structure(ring3(), options);
  const LatenessMetrics& m = r->metrics;
  // Step 1 exits: 10, 30, 12 -> lateness 0, 20, 2.
  EXPECT_EQ(m.lateness(0), 0);
  EXPECT_EQ(m.lateness(2), 20);
  EXPECT_EQ(m.lateness(4), 2);
  // Step 3 exits: 40, 35, 50 -> lateness 5, 0, 15.
  EXPECT_EQ(m.lateness(1), 5);
  EXPECT_EQ(m.lateness(3), 0);
  EXPECT_EQ(m.lateness(5), 15);
  // Differential: a send's only predecessor here is nothing (first op) -> its lateness.
  EXPECT_EQ(m.diff_lateness(2), 20);
  // r0 (lateness 5): predecessors s0 (0) and s2 (2) -> 3.
  EXPECT_EQ(m.diff_lateness(1), 3);
  // r1 (0): nothing to add.
  EXPECT_EQ(m.diff_lateness(3), 0);
  // r2 (15): predecessors s2 (2) and s1 (20) -> max(0, 15 - 20) = 0: propagated, not caused.
  EXPECT_EQ(m.diff_lateness(5), 0);
  // One partition: global lateness equals lateness.
  for (OpIndex op = 0; op < 6; ++op) EXPECT_EQ(m.global_lateness(op), m.lateness(op));
  // Late sender: r2 started at 12, its sender s1 at 0 -> it did not wait.
  EXPECT_EQ(m.wait(5), 0);
  // The largest of each, known without walking the ops: 20 (s1 on step 1).
  EXPECT_EQ(m.max_lateness(), 20);
  EXPECT_EQ(m.max_global_lateness(), 20);
  }
}

// A ring of 64 processes, 3 iterations, with times that differ by process,
// and an allreduce after each iteration: many ops for few step slots, so
// that with two threads the passes over the ops run in two parts (the
// lateness slots, the partitions' runs, graph and order). Every op's
// metrics and step are the one thread's.
TEST(Structure, TwoThreadsGiveOneThreadsStepsAndMetricsOpForOp) {
  constexpr int kProcesses = 64, kIterations = 3;
  TraceBuilder b(kProcesses);
  std::vector<std::vector<OpIndex>> send(kProcesses), recv(kProcesses), coll(kIterations);
  for (int p = 0; p < kProcesses; ++p)
    for (int it = 0; it < kIterations; ++it) {
      // The earliest of each slot on a process of the upper half (40 + it),
      // the latest receive there too (50): each part's extremes count.
      const TimeNs at = 1000 * it + (p == 40 + it ? 0 : 10 + p % 5);
      send[static_cast<std::size_t>(p)].push_back(b.op(p, at, at + 5 + p % 7, OpKind::Send));
      recv[static_cast<std::size_t>(p)].push_back(b.op(p, at + 20, at + 200 + (p == 50 ? 300 : (p * 13) % 50), OpKind::Recv));
      coll[static_cast<std::size_t>(it)].push_back(b.op(p, at + 600, at + 700 + p % 11, OpKind::Collective));
    }
  for (int p = 0; p < kProcesses; ++p)
    for (std::size_t it = 0; it < kIterations; ++it)
      b.message(send[static_cast<std::size_t>(p)][it], recv[static_cast<std::size_t>((p + 1) % kProcesses)][it]);
  for (const std::vector<OpIndex>& members : coll) b.collective(members);
  const CommTrace t = b.build();
  AnalysisOptions one, two;
  two.threads = 2;
  auto a = analyze_structure(t, one), c = analyze_structure(t, two);
  ASSERT_EQ(a->report.partitions, c->report.partitions);
  EXPECT_EQ(a->report.partitions, kIterations * 2);  // each ring iteration, each allreduce
  EXPECT_EQ(a->parts.of_op, c->parts.of_op);
  EXPECT_EQ(a->metrics.max_lateness(), c->metrics.max_lateness());
  EXPECT_EQ(a->metrics.max_global_lateness(), c->metrics.max_global_lateness());
  EXPECT_GT(a->metrics.max_lateness(), 0);
  for (OpIndex op = 0; op < t.op_count(); ++op) {
    EXPECT_EQ(a->global_step(op), c->global_step(op)) << op;
    const OpMetrics x = a->metrics.all(op), y = c->metrics.all(op);
    EXPECT_EQ(x.lateness, y.lateness) << op;
    EXPECT_EQ(x.global_lateness, y.global_lateness) << op;
    EXPECT_EQ(x.diff_lateness, y.diff_lateness) << op;
    EXPECT_EQ(x.wait, y.wait) << op;
  }
}

TEST(Structure, AnOpListedByTwoCollectivesBelongsToTheLaterOneAndWaitsForItsLastMember) {
  // A damaged trace: a1 is listed by both collectives. It is the second's
  // member, so the first's last member start is a0's (0), the second's a2's.
  TraceBuilder b(3);
  OpIndex a0 = b.op(0, 0, 50, OpKind::Collective), a1 = b.op(1, 10, 50, OpKind::Collective);
  OpIndex a2 = b.op(2, 20, 50, OpKind::Collective);
  b.collective({a0, a1});
  b.collective({a1, a2});
  const CommTrace t = b.build();
  const CollectiveOfOps coll_of(t);
  EXPECT_EQ(coll_of[static_cast<std::size_t>(a0)], 0);
  EXPECT_EQ(coll_of[static_cast<std::size_t>(a1)], 1);
  EXPECT_EQ(coll_of[static_cast<std::size_t>(a2)], 1);
  EXPECT_EQ(coll_of.last_start(0), 0);
  EXPECT_EQ(coll_of.last_start(1), 20);
  auto r = analyze_structure(t, {});
  EXPECT_EQ(r->metrics.wait(a0), 0);   // the last member of its collective
  EXPECT_EQ(r->metrics.wait(a1), 10);  // entered at 10, a2 at 20
  EXPECT_EQ(r->metrics.wait(a2), 0);
}

TEST(Structure, WaitTimeIsTheLateSenderGapClampedToTheCall) {
  TraceBuilder b(2);
  OpIndex s = b.op(0, 100, 110, OpKind::Send);
  OpIndex r = b.op(1, 20, 130, OpKind::Recv);
  b.message(s, r);
  auto res = analyze_structure(b.build(), {});
  EXPECT_EQ(res->metrics.wait(r), 80);  // entered at 20, the send started at 100
  EXPECT_EQ(res->metrics.wait(s), 0);
}

// Process 0 posts three Isends (to 1, 2, 3) and a Waitall; each other process
// posts an Irecv and waits for it.
CommTrace fan_out_isends() {
  TraceBuilder b(4);
  OpIndex i1 = b.op(0, 0, 1, OpKind::Isend), i2 = b.op(0, 1, 2, OpKind::Isend);
  OpIndex i3 = b.op(0, 2, 3, OpKind::Isend), w0 = b.op(0, 3, 9, OpKind::Wait);
  OpIndex isends[] = {i1, i2, i3};
  for (ProcessIndex p = 1; p <= 3; ++p) {
    OpIndex post = b.op(p, 0, 1, OpKind::Irecv);
    OpIndex wait = b.op(p, 1, 8, OpKind::Wait);
    b.message(isends[p - 1], wait, post, w0);
  }
  return b.build();
}

TEST(Structure, IsendCoalescingPutsARunOfIsendsInOneStep) {
  AnalysisOptions opts;
  auto r = analyze_structure(fan_out_isends(), opts);
  EXPECT_EQ(r->report.coalesced_isends, 2);
  EXPECT_EQ(r->report.partitions, 1);  // the Waitall merge joins everything
  // Coalesced: the three Isends are one op at step 1, the Waitall at step 3;
  // the receivers' Irecv at 1 and their wait right after the send, at 3.
  for (OpIndex in : {0, 1, 2}) EXPECT_EQ(r->global_step(r->input.analyzed_op(in)), 1);
  EXPECT_EQ(r->global_step(r->input.analyzed_op(3)), 3);
  for (OpIndex in : {4, 6, 8}) EXPECT_EQ(r->global_step(r->input.analyzed_op(in)), 1);
  for (OpIndex in : {5, 7, 9}) EXPECT_EQ(r->global_step(r->input.analyzed_op(in)), 3);
}

// Coalescing renumbers each process's stretch of ops without recounting them
// (isend_coalescing.cpp): runs at a process's start and end, a process with
// no ops between, and a lone Isend.
TEST(Structure, IsendCoalescingKeepsEveryProcessesOpsTogether) {
  TraceBuilder b(4);
  OpIndex a0 = b.op(0, 0, 1, OpKind::Isend), a1 = b.op(0, 1, 2, OpKind::Isend), a2 = b.op(0, 2, 3, OpKind::Isend);
  OpIndex wait = b.op(0, 3, 9, OpKind::Wait);
  // p1 has no ops.
  OpIndex recv = b.op(2, 0, 4, OpKind::Recv);
  OpIndex c0 = b.op(2, 4, 5, OpKind::Isend), c1 = b.op(2, 5, 7, OpKind::Isend);
  OpIndex lone = b.op(3, 0, 2, OpKind::Isend);
  OpIndex r1 = b.op(3, 2, 8, OpKind::Recv), r2 = b.op(3, 8, 9, OpKind::Recv);
  b.message(a0, recv, kNoOp, wait);
  b.message(a1, r1, kNoOp, wait);
  b.message(a2, r2, kNoOp, wait);
  b.message(c0, kNoOp);
  b.message(c1, kNoOp);
  b.message(lone, kNoOp);
  CommTrace t = b.build();
  const RankBits starts = isend_run_starts(t, /*coalesce=*/true);
  EXPECT_EQ(coalesce_isends(t, starts), 3);
  // p0: the run (0-3), the wait; p2: the receive, the run (4-7); p3: the
  // lone Isend and its two receives.
  EXPECT_EQ(t.process_first_op, (std::vector<OpIndex>{0, 2, 2, 4, 7}));
  EXPECT_EQ(t.process, (std::vector<ProcessIndex>{0, 0, 2, 2, 3, 3, 3}));
  EXPECT_EQ(t.start, (std::vector<TimeNs>{0, 3, 0, 4, 0, 2, 8}));
  EXPECT_EQ(t.end, (std::vector<TimeNs>{3, 9, 4, 7, 2, 8, 9}));
  EXPECT_EQ(t.msg_send_op, (std::vector<OpIndex>{0, 0, 0, 3, 3, 4}));
  EXPECT_EQ(t.msg_recv_op, (std::vector<OpIndex>{2, 5, 6, kNoOp, kNoOp, kNoOp}));
  EXPECT_EQ(t.msg_send_done_op, (std::vector<OpIndex>{1, 1, 1, kNoOp, kNoOp, kNoOp}));
}

TEST(Structure, WithoutCoalescingEachIsendIsItsOwnStride) {
  AnalysisOptions opts;
  opts.isend_coalescing = false;
  auto r = analyze_structure(fan_out_isends(), opts);
  // Isends: strides 1, 2, 3 -> raw 0, 1, 2; Waitall raw 3.
  EXPECT_EQ(r->global_step(0), 1);
  EXPECT_EQ(r->global_step(1), 3);
  EXPECT_EQ(r->global_step(2), 5);
  EXPECT_EQ(r->global_step(3), 7);
  // Receiver p waits at the step after its Isend: raw p.
  EXPECT_EQ(r->global_step(5), 3);
  EXPECT_EQ(r->global_step(7), 5);
  EXPECT_EQ(r->global_step(9), 7);
  EXPECT_TRUE(check(*r).ok());
}

TEST(Structure, WaitallMergeJoinsThePostsWithTheWaitThatCompletesThem) {
  // p0 posts Irecvs from 1 and 2 and completes both in one Waitall.
  TraceBuilder b(3);
  OpIndex post1 = b.op(0, 0, 1, OpKind::Irecv), post2 = b.op(0, 1, 2, OpKind::Irecv);
  OpIndex waitall = b.op(0, 2, 20, OpKind::Wait);
  OpIndex s1 = b.op(1, 5, 6, OpKind::Send), s2 = b.op(2, 7, 8, OpKind::Send);
  b.message(s1, waitall, post1);
  b.message(s2, waitall, post2);
  auto r = analyze_structure(b.build(), {});
  EXPECT_EQ(r->report.mandatory_partitions, 1);
  // Sends at stride 1 (step 1); the posts precede no send on p0 and go ASAP
  // (steps 1, 3); the Waitall after both the posts and the sends (step 5).
  EXPECT_EQ(r->global_step(s1), 1);
  EXPECT_EQ(r->global_step(s2), 1);
  EXPECT_EQ(r->global_step(post1), 1);
  EXPECT_EQ(r->global_step(post2), 3);
  EXPECT_EQ(r->global_step(waitall), 5);
}

TEST(Structure, SubCommunicatorCollectivesShareALeapThenTheWorldCollectiveFollows) {
  TraceBuilder b(4);
  OpIndex a0 = b.op(0, 0, 5, OpKind::Collective), c0 = b.op(0, 10, 15, OpKind::Collective);
  OpIndex a1 = b.op(1, 0, 6, OpKind::Collective), c1 = b.op(1, 10, 16, OpKind::Collective);
  OpIndex b2 = b.op(2, 0, 7, OpKind::Collective), c2 = b.op(2, 10, 17, OpKind::Collective);
  OpIndex b3 = b.op(3, 0, 8, OpKind::Collective), c3 = b.op(3, 10, 18, OpKind::Collective);
  b.collective({a0, a1});
  b.collective({b2, b3});
  b.collective({c0, c1, c2, c3});
  auto r = analyze_structure(b.build(), {});
  EXPECT_EQ(r->report.partitions, 3);
  EXPECT_EQ(r->report.leaps.incomplete_leaps, 0);  // {a, b} covers all four processes
  for (OpIndex op : {a0, a1, b2, b3}) EXPECT_EQ(r->global_step(op), 1);
  for (OpIndex op : {c0, c1, c2, c3}) EXPECT_EQ(r->global_step(op), 3);
  EXPECT_EQ(r->metrics.lateness(a1), 1);  // exits 5, 6 in partition a
  EXPECT_EQ(r->metrics.lateness(b3), 1);  // exits 7, 8 in partition b
  EXPECT_EQ(r->metrics.global_lateness(b3), 3);  // against a0's 5 on global step 1
  // Largest: 1 in partitions a and b, 3 in c (c3's 18 against c0's 15);
  // globally 3 as well (b3's 8 against a0's 5, and c3 again).
  EXPECT_EQ(r->metrics.max_lateness(), 3);
  EXPECT_EQ(r->metrics.max_global_lateness(), 3);
  EXPECT_EQ(r->metrics.wait(c0), 0);
  EXPECT_EQ(r->metrics.wait(a0), 0);
  EXPECT_TRUE(check(*r).ok());
}

TEST(Structure, ALoneProcessWithoutCommunicationIsReportedNotFatal) {
  TraceBuilder b(3);
  OpIndex s = b.op(0, 0, 1, OpKind::Send), r = b.op(1, 0, 2, OpKind::Recv);
  b.message(s, r);
  auto res = analyze_structure(b.build(), {});
  EXPECT_EQ(res->report.silent_processes, 1);
  EXPECT_EQ(res->report.partitions, 1);
  EXPECT_EQ(res->global_step(r), 3);
}

TEST(Structure, AMessageReceivedBeforeItWasSentIsCountedAndStillOrderedLogically) {
  TraceBuilder b(2);
  OpIndex s = b.op(0, 100, 110, OpKind::Send), r = b.op(1, 10, 20, OpKind::Recv);
  b.message(s, r);
  auto res = analyze_structure(b.build(), {});
  EXPECT_EQ(res->report.messages_back_in_time, 1);
  EXPECT_LT(res->global_step(s), res->global_step(r));
}

TEST(Structure, AHappenedBeforeCycleThroughACollectiveIsBrokenAndReported) {
  auto res = analyze_structure(collective_cycle(0).trace, {});
  EXPECT_EQ(res->report.partitions, 1);  // the cycle between the two partitions is merged
  EXPECT_GT(res->report.forced_orderings + res->report.split_collectives, 0);
  EXPECT_FALSE(check(*res).ok());  // and `weft check` says so
}

TEST(Structure, UserPartitionsFollowTheSegmentsOfThePartitionFunction) {
  // Two iterations of the ring; segment = iteration.
  TraceBuilder b(2);
  OpIndex ops[2][4];
  for (ProcessIndex p = 0; p < 2; ++p)
    for (int it = 0; it < 2; ++it) {
      ops[p][2 * it] = b.op(p, 100 * it, 100 * it + 10, OpKind::Send);
      ops[p][2 * it + 1] = b.op(p, 100 * it + 10, 100 * it + 20, OpKind::Recv);
    }
  for (int it = 0; it < 2; ++it) {
    b.message(ops[0][2 * it], ops[1][2 * it + 1]);
    b.message(ops[1][2 * it], ops[0][2 * it + 1]);
  }
  CommTrace t = b.build();
  t.segment = {0, 0, 1, 1, 0, 0, 1, 1};
  AnalysisOptions opts;
  opts.leap_merge = false;
  auto r = analyze_structure(t, opts);
  EXPECT_EQ(r->report.partitions, 2);
  EXPECT_EQ(r->global_step(ops[1][2]), 5);
  EXPECT_EQ(r->global_step(ops[1][3]), 7);
}

TEST(Structure, LeapMergeAbsorbsChildrenUntilTheLeapCoversEveryProcess) {
  // p0 -> p1 at t=0; then p1 -> p2 right after; p2 -> p3 right after that.
  // Each message is a partition on a path; leap 0 = {m01} covers {0, 1} only.
  // Backward merges cannot happen at leap 0, so it absorbs m12 (adds p2),
  // then m23 (adds p3): one partition.
  TraceBuilder b(4);
  OpIndex s01 = b.op(0, 0, 1, OpKind::Send);
  OpIndex r01 = b.op(1, 0, 2, OpKind::Recv), s12 = b.op(1, 3, 4, OpKind::Send);
  OpIndex r12 = b.op(2, 0, 5, OpKind::Recv), s23 = b.op(2, 6, 7, OpKind::Send);
  OpIndex r23 = b.op(3, 0, 8, OpKind::Recv);
  b.message(s01, r01);
  b.message(s12, r12);
  b.message(s23, r23);
  auto merged = analyze_structure(b.build(), {});
  EXPECT_EQ(merged->report.mandatory_partitions, 3);
  EXPECT_EQ(merged->report.partitions, 1);
  EXPECT_EQ(merged->report.leaps.forward_absorbs, 2);
  // In one partition: strides 1, 2, 3 for the sends -> steps 1, 5, 9; receives right after.
  EXPECT_EQ(merged->global_step(s01), 1);
  EXPECT_EQ(merged->global_step(r01), 3);
  EXPECT_EQ(merged->global_step(s12), 5);
  EXPECT_EQ(merged->global_step(r23), 11);

  AnalysisOptions no_leap;
  no_leap.leap_merge = false;
  auto apart = analyze_structure(b.build(), no_leap);
  EXPECT_EQ(apart->report.partitions, 3);
  EXPECT_EQ(apart->global_step(r23), 11);  // same steps, offset by the DAG
}

// --- Reordering for message-passing models (charm-logical-structure.txt §3.2.1) ---

// A merge tree on 4 processes: leaves p1 and p3 send to p0 and p2, then p2
// forwards to p0. p1 is slow, so p0 receives p2's second-round message
// before p1's first-round one. The leap merge joins the three messages into
// one partition (leap 0 {p2,p3} absorbs {p0,p2}, then {p0,p1}).
//  - Strides (no reordering): s1, s3 stride 1 (raw 0); r23 raw 1; s2 stride 2
//    raw 2; r02 raw 3; r01 after r02 on p0: raw 4. Steps 2r+1: the first-round
//    receives r23 and r01 land at 3 and 9.
//  - Reordered: w(s1) = w(s3) = 0, w(r23) = 1, w(s2) = 1 + 1 = 2, w(r02) = 3,
//    w(r01) = 1, so p0 takes r01 before r02: r01 raw 1 (after s1), r02
//    raw max(1 + 1, 2 + 1) = 3. Both first-round receives at step 3.
TEST(StructureReorder, MergeTreeReceivesAlignWhenReordered) {
  TraceBuilder b(4);
  OpIndex r02 = b.op(0, 0, 20, OpKind::Recv), r01 = b.op(0, 20, 60, OpKind::Recv);
  OpIndex s1 = b.op(1, 50, 51, OpKind::Send);
  OpIndex r23 = b.op(2, 0, 10, OpKind::Recv), s2 = b.op(2, 12, 14, OpKind::Send);
  OpIndex s3 = b.op(3, 0, 1, OpKind::Send);
  b.message(s1, r01);
  b.message(s2, r02);
  b.message(s3, r23);
  auto plain = analyze_structure(b.build(), {});
  ASSERT_EQ(plain->report.partitions, 1);
  EXPECT_EQ(plain->global_step(s3), 1);
  EXPECT_EQ(plain->global_step(r23), 3);
  EXPECT_EQ(plain->global_step(s2), 5);
  EXPECT_EQ(plain->global_step(r02), 7);
  EXPECT_EQ(plain->global_step(r01), 9);

  AnalysisOptions reorder;
  reorder.reorder = true;
  auto re = analyze_structure(b.build(), reorder);
  ASSERT_EQ(re->report.partitions, 1);
  EXPECT_EQ(re->report.forced_orderings, 0);
  EXPECT_EQ(re->global_step(s1), 1);
  EXPECT_EQ(re->global_step(s3), 1);
  EXPECT_EQ(re->global_step(r23), 3);
  EXPECT_EQ(re->global_step(r01), 3);
  EXPECT_EQ(re->global_step(s2), 5);
  EXPECT_EQ(re->global_step(r02), 7);
}

// Figure 9: sends keep their position, a receive recorded after a send moves
// before it when its clock is smaller. p0 receives from p1 (w 1), sends to p3
// (w = 1 + 1 = 2), then receives from p2 (w 1 < 2): reordered p0 runs
// ra, rc, s0. Steps: ra raw 1, rc raw 2 (after ra), s0 raw 3, r3 raw 4.
// Unreordered: ra raw 1, s0 raw 2 (stride 2), rc and r3 raw 3.
TEST(StructureReorder, AReceiveAfterASendMovesBeforeItByClock) {
  TraceBuilder b(4);
  OpIndex ra = b.op(0, 0, 5, OpKind::Recv), s0 = b.op(0, 6, 7, OpKind::Send), rc = b.op(0, 8, 10, OpKind::Recv);
  OpIndex s1 = b.op(1, 0, 1, OpKind::Send);
  OpIndex s2 = b.op(2, 0, 1, OpKind::Send);
  OpIndex r3 = b.op(3, 0, 12, OpKind::Recv);
  b.message(s1, ra);
  b.message(s0, r3);
  b.message(s2, rc);
  const CommTrace t = b.build();
  auto plain = analyze_structure(t, {});
  ASSERT_EQ(plain->report.partitions, 1);
  EXPECT_EQ(plain->global_step(ra), 3);
  EXPECT_EQ(plain->global_step(s0), 5);
  EXPECT_EQ(plain->global_step(rc), 7);
  EXPECT_EQ(plain->global_step(r3), 7);

  AnalysisOptions reorder;
  reorder.reorder = true;
  auto re = analyze_structure(t, reorder);
  ASSERT_EQ(re->report.partitions, 1);
  EXPECT_EQ(re->global_step(ra), 3);
  EXPECT_EQ(re->global_step(rc), 5);
  EXPECT_EQ(re->global_step(s0), 7);
  EXPECT_EQ(re->global_step(r3), 9);
  // The clocks themselves (§3.2.1): w(send) = 1 + max w of the receives before it.
  const std::vector<std::int32_t> w = message_passing_clocks(re->trace, re->parts, re->received);
  EXPECT_EQ(w[static_cast<std::size_t>(ra)], 1);
  EXPECT_EQ(w[static_cast<std::size_t>(s0)], 2);
  EXPECT_EQ(w[static_cast<std::size_t>(rc)], 1);
  EXPECT_EQ(w[static_cast<std::size_t>(r3)], 3);
}

// --- The stride sweep on bad input (step_assignment.cpp) ---
// Each trace below is one partition with a happened-before cycle: every
// process waits (a receive for a send after a receive on the other side, or a
// collective), so the sweep must force the process whose current op started
// earliest. The strides are derived by hand from §3.2: a send or collective
// takes one more than the largest stride before it in its partition.

namespace {

StrideResult sweep_as_one_partition(const CommTrace& t, int threads) {
  Partitioning parts;
  parts.count = 1;
  parts.of_op.assign(static_cast<std::size_t>(t.op_count()), 0);
  return assign_strides(t, collect_runs(t, parts), index_received_messages(t), CollectiveOfOps(t), threads);
}

}  // namespace

TEST(StrideSweep, AForcedProcessThatWaitsAgainIsWokenByItsNewSend) {
  // p0: r0a (from s1a), s0 (to r1), r0b (from s2)
  // p1: r1 (from s0), s1b (to r2), s1a (to r0a)
  // p2: r2 (from s1b), s2 (to r0b)
  // All three wait at first; p0's head starts earliest and is forced: r0a
  // passes with nothing before it, s0 takes stride 1 and wakes p1, and p0
  // waits again at r0b, now for s2. p1: r1 after s0 (1), s1b 2 wakes p2,
  // s1a 3 (p0 no longer waits for it); p2: r2 after s1b (2), s2 3 wakes p0:
  // r0b after s2 (3). One forced ordering.
  TraceBuilder b(3);
  OpIndex r0a = b.op(0, 0, 1, OpKind::Recv), s0 = b.op(0, 2, 3, OpKind::Send), r0b = b.op(0, 4, 5, OpKind::Recv);
  OpIndex r1 = b.op(1, 1, 2, OpKind::Recv), s1b = b.op(1, 3, 4, OpKind::Send), s1a = b.op(1, 5, 6, OpKind::Send);
  OpIndex r2 = b.op(2, 2, 3, OpKind::Recv), s2 = b.op(2, 7, 8, OpKind::Send);
  b.message(s1a, r0a);
  b.message(s0, r1);
  b.message(s1b, r2);
  b.message(s2, r0b);
  const CommTrace t = b.build();
  for (int threads : {1, 2}) {
    const StrideResult s = sweep_as_one_partition(t, threads);
    EXPECT_EQ(s.forced_orderings, 1);
    EXPECT_EQ(s.split_collectives, 0);
    EXPECT_EQ(s.stride[static_cast<std::size_t>(s0)], 1);
    EXPECT_EQ(s.stride[static_cast<std::size_t>(s1b)], 2);
    EXPECT_EQ(s.stride[static_cast<std::size_t>(s1a)], 3);
    EXPECT_EQ(s.stride[static_cast<std::size_t>(s2)], 3);
    for (OpIndex r : {r0a, r0b, r1, r2}) EXPECT_EQ(s.stride[static_cast<std::size_t>(r)], 0) << r;
  }
}

TEST(StrideSweep, ACollectiveMemberThatCannotWaitIsSteppedAlone) {
  // p0 arrives at the collective, p1 waits for s: p0's c0 started first, so
  // it is detached and steps alone (stride 1); s 2; r after s; c1, the last
  // member left, completes the collective alone: 3.
  const auto [trace, c0, s, r, c1] = collective_cycle(1);
  const StrideResult res = sweep_as_one_partition(trace, 1);
  EXPECT_EQ(res.forced_orderings, 0);
  EXPECT_EQ(res.split_collectives, 1);
  EXPECT_EQ(res.stride[static_cast<std::size_t>(c0)], 1);
  EXPECT_EQ(res.stride[static_cast<std::size_t>(s)], 2);
  EXPECT_EQ(res.stride[static_cast<std::size_t>(r)], 0);
  EXPECT_EQ(res.stride[static_cast<std::size_t>(c1)], 3);
}

TEST(StrideSweep, MembersOfACollectiveShareTheLargestIncomingStride) {
  // p0: s (to r), c0; p1: r (from s), c1; p2: c2. s takes stride 1 and r
  // passes it on; the members come after 1 (p0), 1 (p1) and 0 (p2): all 2.
  TraceBuilder b(3);
  OpIndex s = b.op(0, 0, 1, OpKind::Send), c0 = b.op(0, 2, 3, OpKind::Collective);
  OpIndex r = b.op(1, 0, 2, OpKind::Recv), c1 = b.op(1, 3, 4, OpKind::Collective);
  OpIndex c2 = b.op(2, 0, 4, OpKind::Collective);
  b.message(s, r);
  b.collective({c0, c1, c2});
  for (int threads : {1, 2}) {
    const StrideResult res = sweep_as_one_partition(b.build(), threads);
    EXPECT_EQ(res.forced_orderings + res.split_collectives, 0);
    EXPECT_EQ(res.stride[static_cast<std::size_t>(s)], 1);
    for (OpIndex c : {c0, c1, c2}) EXPECT_EQ(res.stride[static_cast<std::size_t>(c)], 2) << c;
  }
}

TEST(StrideSweep, AMessageSentFromAWaitPassesOnTheStrideBeforeTheWait) {
  // A send recorded inside a wait (odd, but traces have them): the wait
  // defines no stride, so its receive comes after the wait's predecessors'.
  // p0: s0 (to r2), w0 (a wait that sends to r1); p1: r1, s1 (to r2b);
  // p2: r2, r2b. s0 1; w0 passes 1 on; r1 after it (1); s1 2.
  TraceBuilder b(3);
  OpIndex s0 = b.op(0, 0, 1, OpKind::Send), w0 = b.op(0, 2, 3, OpKind::Wait);
  OpIndex r1 = b.op(1, 0, 4, OpKind::Recv), s1 = b.op(1, 5, 6, OpKind::Send);
  OpIndex r2 = b.op(2, 0, 2, OpKind::Recv), r2b = b.op(2, 3, 7, OpKind::Recv);
  b.message(s0, r2);
  b.message(w0, r1);
  b.message(s1, r2b);
  const StrideResult res = sweep_as_one_partition(b.build(), 1);
  EXPECT_EQ(res.forced_orderings + res.split_collectives, 0);
  EXPECT_EQ(res.stride[static_cast<std::size_t>(s0)], 1);
  EXPECT_EQ(res.stride[static_cast<std::size_t>(w0)], 0);
  EXPECT_EQ(res.stride[static_cast<std::size_t>(s1)], 2);
}

// --- The partition graph carried through merges and renumberings ---

namespace {

// `processes` processes of `ops` ops each, starting at random times, and a
// random partition of each op among `count` (cycles between partitions are
// likely: the process orders disagree).
struct RandomPartitions {
  CommTrace trace;
  Partitioning parts;
};
RandomPartitions random_partitions(std::uint32_t seed, std::int32_t processes, std::int32_t ops, std::int32_t count) {
  std::uint64_t x = seed * 2654435761u + 1;
  auto next = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(x >> 33);
  };
  TraceBuilder b(processes);
  RandomPartitions r;
  for (ProcessIndex p = 0; p < processes; ++p) {
    TimeNs t = next() % 50;
    for (std::int32_t i = 0; i < ops; ++i, t += 1 + next() % 7) {
      b.op(p, t, t + 1, OpKind::Send);
      r.parts.of_op.push_back(static_cast<std::int32_t>(next() % static_cast<std::uint32_t>(count)));
    }
  }
  r.trace = b.build();
  r.parts.count = count;
  return r;
}

void expect_same_graph(const PartitionGraph& a, const PartitionGraph& b, const char* when) {
  EXPECT_EQ(a.succ_first, b.succ_first) << when;
  EXPECT_EQ(a.succ, b.succ) << when;
  EXPECT_EQ(a.pred_first, b.pred_first) << when;
  EXPECT_EQ(a.pred, b.pred) << when;
}

}  // namespace

// Each pass keeps `graph` equal to what build_partition_graph gives for the
// partitions it leaves, and numbers them as the passes working from the ops
// do (merge_strongly_connected(trace, parts), then a topological order).
TEST(PartitionGraph, MergesAndRenumberingsCarryTheGraphTheOpsWouldGive) {
  int with_cycles = 0;
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    RandomPartitions r = random_partitions(seed, 2 + static_cast<std::int32_t>(seed % 5), 12, 4 + static_cast<std::int32_t>(seed % 9));
    const CommTrace& t = r.trace;
    Partitioning from_ops = r.parts;
    const std::int32_t merged_from_ops = merge_strongly_connected(t, from_ops);
    if (merged_from_ops > 0) ++with_cycles;

    Partitioning parts = r.parts;
    PartitionGraph graph = build_partition_graph(t, parts);
    EXPECT_EQ(merge_strongly_connected(parts, graph), merged_from_ops) << seed;
    EXPECT_EQ(parts.count, from_ops.count) << seed;
    EXPECT_EQ(parts.of_op, from_ops.of_op) << seed;
    expect_same_graph(graph, build_partition_graph(t, parts), "after the cycle merge");

    order_partitions_topologically(t, parts, graph);
    expect_same_graph(graph, build_partition_graph(t, parts), "after the order");
    for (std::int32_t p = 0; p < parts.count; ++p)
      for (std::int32_t s : graph.successors(p)) EXPECT_LT(p, s) << seed;
    // Ordering again changes nothing.
    const std::vector<std::int32_t> ordered = parts.of_op;
    order_partitions_topologically(t, parts, graph);
    EXPECT_EQ(parts.of_op, ordered) << seed;

    // Both at once, as the leap merge recomputes, from the original partitions.
    Partitioning both = r.parts;
    PartitionGraph both_graph = build_partition_graph(t, both);
    Partitioning apart = r.parts;
    PartitionGraph apart_graph = build_partition_graph(t, apart);
    EXPECT_EQ(merge_cycles_and_order(t, both, both_graph), merged_from_ops) << seed;
    merge_strongly_connected(apart, apart_graph);
    order_partitions_topologically(t, apart, apart_graph);
    EXPECT_EQ(both.of_op, apart.of_op) << seed;
    expect_same_graph(both_graph, build_partition_graph(t, both), "after both");

    // Any merging relabel, as a leap merge's union of partitions.
    std::vector<std::int32_t> label(static_cast<std::size_t>(parts.count));
    for (std::size_t p = 0; p < label.size(); ++p) label[p] = static_cast<std::int32_t>(p / 2);
    const std::int32_t halves = (parts.count + 1) / 2;
    const PartitionGraph halved = relabeled_graph(graph, label, halves);
    relabel_partitions(parts, label, halves);
    expect_same_graph(halved, build_partition_graph(t, parts), "after a merging relabel");
  }
  EXPECT_GT(with_cycles, 10);  // the cycle merge had work to do
}

bool same_runs(const PartitionRuns& a, const PartitionRuns& b) {
  return a.first == b.first && a.process == b.process && a.first_op == b.first_op && a.last_op == b.last_op;
}

// The passes over the ops in two parts (split at a process) give what one
// thread gives: the graph, the runs, the topological order.
TEST(PartitionGraph, PassesInTwoPartsGiveWhatOneThreadGives) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    RandomPartitions r = random_partitions(seed, 1 + static_cast<std::int32_t>(seed % 6), 10, 3 + static_cast<std::int32_t>(seed % 7));
    const CommTrace& t = r.trace;
    expect_same_graph(build_partition_graph(t, r.parts, 2), build_partition_graph(t, r.parts, 1), "graph");
    EXPECT_TRUE(same_runs(collect_runs(t, r.parts, 2), collect_runs(t, r.parts, 1))) << seed;

    Partitioning one = r.parts, two = r.parts;
    PartitionGraph one_graph = build_partition_graph(t, one), two_graph = build_partition_graph(t, two);
    EXPECT_EQ(merge_cycles_and_order(t, two, two_graph, 2), merge_cycles_and_order(t, one, one_graph, 1)) << seed;
    EXPECT_EQ(two.of_op, one.of_op) << seed;
    expect_same_graph(two_graph, one_graph, "after the order");
  }
}

// §3.1's mandatory partitions by hand: p0 sends a to p1 (received by b), p1
// posts an Irecv c whose message d (sent by p2's Isend e, completed by its
// wait f) a Waitall g completes; p2's h and p1's i are a collective; p0's j
// is alone. The ops are numbered process by process (a j b c g i e f h), and
// the sets in order of their smallest op: {a, b}, {j}, {c, g, e, f} (the post
// joins the wait, the Isend its completing wait), {i, h}.
// With two threads the unions are split (messages in halves, collectives on
// the second) and the labels are the same.
TEST(MandatoryPartitions, MessagesWaitallsAndCollectivesMergeTheirOpsOnOneThreadOrTwo) {
  TraceBuilder b(3);
  const OpIndex a = b.op(0, 0, 1, OpKind::Send), j = b.op(0, 5, 6, OpKind::Send);
  const OpIndex bb = b.op(1, 2, 3, OpKind::Recv), c = b.op(1, 4, 5, OpKind::Irecv);
  const OpIndex g = b.op(1, 6, 9, OpKind::Wait), i = b.op(1, 10, 11, OpKind::Collective);
  const OpIndex e = b.op(2, 0, 1, OpKind::Isend), f = b.op(2, 2, 3, OpKind::Wait);
  const OpIndex h = b.op(2, 10, 12, OpKind::Collective);
  b.message(a, bb);
  b.message(e, g, c, f);
  b.message(kNoOp, bb);  // one-sided: unites nothing
  b.collective({h, i});
  const CommTrace t = b.build();
  std::vector<std::int32_t> expected(static_cast<std::size_t>(t.op_count()));
  auto label = [&](OpIndex op, std::int32_t l) { expected[static_cast<std::size_t>(op)] = l; };
  label(a, 0), label(bb, 0), label(j, 1), label(c, 2), label(g, 2), label(e, 2), label(f, 2), label(i, 3), label(h, 3);
  for (int threads : {1, 2}) {
    const Partitioning parts = mandatory_partitions(t, threads);
    EXPECT_EQ(parts.count, 4) << threads;
    EXPECT_EQ(parts.of_op, expected) << threads;
  }
}

// Random messages among many ops, so that the two threads' unions meet in
// the same sets: the labels are one thread's, and those of a plain
// flood fill numbered by smallest op.
TEST(MandatoryPartitions, TwoThreadsGiveWhatAFloodFillGives) {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    std::uint64_t x = seed * 2654435761u + 7;
    auto next = [&](std::uint32_t n) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<OpIndex>((x >> 33) % n);
    };
    constexpr std::int32_t kProcesses = 8, kOpsEach = 500;
    TraceBuilder b(kProcesses);
    for (ProcessIndex p = 0; p < kProcesses; ++p)
      for (std::int32_t k = 0; k < kOpsEach; ++k) b.op(p, 2 * k, 2 * k + 1, OpKind::Send);
    const auto ops = static_cast<std::uint32_t>(kProcesses * kOpsEach);
    const std::uint32_t messages = 800 + 100 * (seed % 10);  // ~1 op in 4-7 left alone
    for (std::uint32_t m = 0; m < messages; ++m)
      b.message(next(ops), next(ops), m % 3 == 0 ? next(ops) : kNoOp, m % 5 == 0 ? next(ops) : kNoOp);
    b.collective({next(ops), next(ops), next(ops)});
    const CommTrace t = b.build();

    // The flood fill over the same edges.
    std::vector<std::vector<OpIndex>> edges(ops);
    auto edge = [&](OpIndex u, OpIndex v) {
      if (u == kNoOp || v == kNoOp) return;
      edges[static_cast<std::size_t>(u)].push_back(v);
      edges[static_cast<std::size_t>(v)].push_back(u);
    };
    for (std::size_t m = 0; m < t.msg_send_op.size(); ++m) {
      edge(t.msg_send_op[m], t.msg_recv_op[m]);
      edge(t.msg_post_op[m], t.msg_recv_op[m]);
      edge(t.msg_send_op[m], t.msg_send_done_op[m]);
    }
    for (std::size_t k = 1; k < t.coll_members.size(); ++k) edge(t.coll_members[0], t.coll_members[k]);
    std::vector<std::int32_t> flood(ops, -1);
    std::int32_t sets = 0;
    for (OpIndex start = 0; start < static_cast<OpIndex>(ops); ++start) {
      if (flood[static_cast<std::size_t>(start)] >= 0) continue;
      std::vector<OpIndex> stack{start};
      flood[static_cast<std::size_t>(start)] = sets;
      while (!stack.empty()) {
        const OpIndex u = stack.back();
        stack.pop_back();
        for (OpIndex v : edges[static_cast<std::size_t>(u)])
          if (flood[static_cast<std::size_t>(v)] < 0) {
            flood[static_cast<std::size_t>(v)] = sets;
            stack.push_back(v);
          }
      }
      ++sets;
    }
    const Partitioning one = mandatory_partitions(t, 1), two = mandatory_partitions(t, 2);
    EXPECT_EQ(one.count, sets) << seed;
    EXPECT_EQ(one.of_op, flood) << seed;
    EXPECT_EQ(two.count, sets) << seed;
    EXPECT_EQ(two.of_op, flood) << seed;
  }
}

// The leap merge leaves its partitions in topological order (ordering them
// again changes nothing) and hands over their runs, with one thread or two.
TEST(LeapMerge, LeavesTheTopologicalOrderAndItsRuns) {
  int merged = 0;
  for (std::uint32_t seed = 1; seed <= 100; ++seed) {
    RandomPartitions r = random_partitions(seed, 2 + static_cast<std::int32_t>(seed % 5), 8, 4 + static_cast<std::int32_t>(seed % 9));
    const CommTrace& t = r.trace;
    std::vector<std::int32_t> of_op_with_one_thread;
    for (int threads : {1, 2}) {
      Partitioning parts = r.parts;
      PartitionGraph graph = build_partition_graph(t, parts, threads);
      merge_strongly_connected(parts, graph);
      const std::int32_t before = parts.count;
      PartitionRuns runs;
      merge_by_leap(t, parts, graph, seed % 2 == 0, threads, &runs);
      if (threads == 1 && parts.count < before) ++merged;
      EXPECT_TRUE(same_runs(runs, collect_runs(t, parts))) << seed << " " << threads;
      expect_same_graph(graph, build_partition_graph(t, parts), "after the leap merge");
      const std::vector<std::int32_t> left = parts.of_op;
      order_partitions_topologically(t, parts, graph);
      EXPECT_EQ(parts.of_op, left) << seed << " " << threads;
      if (threads == 1)
        of_op_with_one_thread = parts.of_op;
      else
        EXPECT_EQ(parts.of_op, of_op_with_one_thread) << seed;
    }
  }
  EXPECT_GT(merged, 10);  // the leap merge had work to do
}

// Invariant 4 of `weft check`: every (partition, step) group's least lateness
// is 0. Groups by hand: (0, 1) = {0, 5} passes; (0, 3) = {3, 7} has no 0;
// (1, 1) = {0, -2} has a 0 but its least is -2; (1, 5) = {0} passes.
TEST(StructureCheck, CountsTheGroupsWhoseLeastLatenessIsNotZero) {
  TraceBuilder b(1);
  for (int i = 0; i < 7; ++i) b.op(0, 10 * i, 10 * i + 5, OpKind::Send);
  const CommTrace t = b.build();
  const std::vector<std::int32_t> partition{0, 0, 0, 0, 1, 1, 1};
  std::vector<std::int64_t> step{1, 1, 3, 3, 1, 1, 5};
  const std::vector<TimeNs> lateness{0, 5, 3, 7, 0, -2, 0};
  EXPECT_EQ(check_structure(t, partition, step, lateness).groups_without_zero_lateness, 2);
  // A step too large to number the groups in one key (a damaged file):
  // counted by sorting the triples, with the same answer.
  step[6] = std::int64_t{1} << 61;
  EXPECT_EQ(check_structure(t, partition, step, lateness).groups_without_zero_lateness, 2);
  step[6] = 5;
  step[5] = -1;  // (1, -1) = {-2} fails on its own, (1, 1) = {0} passes
  EXPECT_EQ(check_structure(t, partition, step, lateness).groups_without_zero_lateness, 2);
}
