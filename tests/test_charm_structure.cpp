// The task-based logical structure (charm-logical-structure.txt §3) on
// hand-built traces. Every expected partition, edge and step is derived by
// hand from the paper's rules in the comments next to the assertions.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "charm/jacobi_task_trace.h"
#include "charm/task_structure.h"
#include "charm/task_trace_builder.h"
#include "charm_test_support.h"
#include "common/error.h"

using namespace weft;
using namespace weft::charm;
using weft::charm::test::event_in;
using weft::charm::test::find_block;

namespace {

// §3.1.1 initial partitions followed by Algorithm 1.
TaskPartitions after_dependency_merge(const TaskTrace& t, TaskEdges& edges) {
  TaskPartitions parts = initial_partitions(t, index_task_trace(t), edges);
  dependency_merge(t, parts, edges);
  return parts;
}

bool has_edge(const structure::PartitionGraph& g, std::int32_t from, std::int32_t to) {
  auto s = g.successors(from);
  return std::find(s.begin(), s.end(), to) != s.end();
}

// --- Jacobi 2D, 2x2 chares on 2 PEs, 2 iterations (jacobi_task_trace.h) ---
//
// Chares 0,1 on PE 0 and 2,3 on PE 1; chare 4 / 5 is the CkReductionMgr of
// PE 0 / 1. Neighbors in send order: 0:{1,2} 1:{0,3} 2:{0,3} 3:{1,2}.
// PE 0 runs, per iteration: start(0) start(1) ghost(0<-2) ghost(1<-0)
// ghost(0<-1)+contribute ghost(1<-3)+contribute, then mgr 4: local(0)
// local(1) partial(<-5)+broadcast. PE 1 mirrors it for chares 2,3 and mgr 5,
// whose second local block forwards the partial to mgr 4.
//
// Phases: the ghost exchange of an iteration is one application phase (the
// ghost messages connect 0-1-3-2-0, Algorithm 1). The contributes are
// runtime dependencies (their receiver is a runtime chare), so the last
// recvGhost of each chare splits (§3.1.1) and the contribute starts the
// runtime phase: contributions, the partial, the broadcast and the next
// startIteration sinks (the runtime pieces meet on chares 4 and 5 on one leap,
// Algorithm 4). Application and runtime phases alternate: 4 phases.
class JacobiStructure : public ::testing::Test {
 protected:
  void SetUp() override { trace = jacobi_task_trace(JacobiShape{}); }
  std::int32_t step(ChareIndex c, const char* entry, int k, int i) {
    return s.global_step(event_in(trace, find_block(trace, c, entry, k), i));
  }
  TaskTrace trace;
  TaskStructure s;
};

TEST_F(JacobiStructure, PhasesAlternateAndStepsAreTheHandDerivedOnes) {
  s = analyze_task_structure(trace, {.reorder = true, .infer_dependencies = true});
  ASSERT_EQ(s.phases.count, 4);
  EXPECT_EQ(s.phases.runtime, (std::vector<std::uint8_t>{0, 1, 0, 1}));
  // Phase 0 (local steps): the two sends of each startIteration at 0, 1
  // (w 0, 1). A chare's two ghosts come from sends with equal w (both the
  // first or both the second send of their senders: chare 0 gets chare 1's
  // and chare 2's first sends), so both have the same w and the sender's
  // chare id orders them: steps 2 and 3 (the first after the chare's own
  // second send at 1).
  // Phase 1: contributes 0; contributeLocal sinks 1, 2 (after the chare's
  // previous event); mgr 5's forward 3; mgr 4's recvPartial sink 4 and
  // broadcast 5; startIteration sinks 6. Phase 2 mirrors 0, phase 3 mirrors 1.
  EXPECT_EQ(s.steps.phase_width, (std::vector<std::int32_t>{4, 7, 4, 7}));
  // Offsets: the longest path of the predecessors' widths: 0, 4, 4+7, 11+4.
  EXPECT_EQ(s.steps.phase_offset, (std::vector<std::int32_t>{0, 4, 11, 15}));
  EXPECT_EQ(s.report.global_steps, 22);

  EXPECT_EQ(step(0, "startIteration", 0, 0), 0);  // send to chare 1
  EXPECT_EQ(step(0, "startIteration", 0, 1), 1);  // send to chare 2
  // Chare 0 gets its ghost from chare 2 first in physical time (recvGhost #0)
  // but the one from chare 1 (#1) first in w order: both have w = 1, chare 1 < 2.
  EXPECT_EQ(step(0, "recvGhost", 1, 0), 2);
  EXPECT_EQ(step(0, "recvGhost", 0, 0), 3);
  EXPECT_EQ(step(0, "recvGhost", 1, 1), 4);  // contribute: phase 1, local 0
  EXPECT_EQ(step(4, "CkReductionMgr::contributeLocal", 0, 0), 5);
  EXPECT_EQ(step(4, "CkReductionMgr::contributeLocal", 1, 0), 6);
  EXPECT_EQ(step(5, "CkReductionMgr::contributeLocal", 1, 1), 7);  // partial to mgr 4
  EXPECT_EQ(step(4, "CkReductionMgr::recvPartial", 0, 0), 8);
  EXPECT_EQ(step(4, "CkReductionMgr::recvPartial", 0, 1), 9);  // broadcast
  EXPECT_EQ(step(0, "startIteration", 1, 0), 10);             // broadcast sink
  EXPECT_EQ(step(3, "startIteration", 1, 0), 10);
  EXPECT_EQ(step(0, "startIteration", 1, 1), 11);  // iteration 1 sends: phase 2, offset 11
  EXPECT_EQ(step(3, "startIteration", 1, 2), 12);
  EXPECT_EQ(step(4, "CkReductionMgr::recvPartial", 1, 1), 20);
  EXPECT_EQ(step(3, "done", 0, 0), 21);
}

TEST_F(JacobiStructure, WithoutReorderingChareEventsFollowPhysicalTime) {
  s = analyze_task_structure(trace, {.reorder = false, .infer_dependencies = true});
  ASSERT_EQ(s.phases.count, 4);
  EXPECT_EQ(s.steps.phase_width, (std::vector<std::int32_t>{4, 7, 4, 7}));
  // Chare 0 now takes its ghosts in recorded order: from chare 2 (#0) at 2,
  // from chare 1 (#1) at 3; chare 3 likewise: #0 (from chare 2) at 2.
  EXPECT_EQ(step(0, "recvGhost", 0, 0), 2);
  EXPECT_EQ(step(0, "recvGhost", 1, 0), 3);
  EXPECT_EQ(step(3, "recvGhost", 0, 0), 2);
  EXPECT_EQ(step(3, "recvGhost", 1, 0), 3);
}

TEST_F(JacobiStructure, RuntimeCharesGoToTheBottomByPe) {
  // 4 application chares on top by id, then mgr 4 (PE 0) and mgr 5 (PE 1).
  EXPECT_EQ(chare_row_order(trace), (std::vector<ChareIndex>{0, 1, 2, 3, 4, 5}));
  TaskTraceBuilder b(2);
  b.chare(true);   // 0: runtime on PE 1
  b.chare(false);  // 1
  b.chare(true);   // 2: runtime on PE 0
  b.chare(false);  // 3
  const EntryIndex e = b.entry("m");
  b.block(0, 1, e, 0, 1);
  b.block(1, 0, e, 0, 1);
  b.block(2, 0, e, 2, 3);
  b.block(3, 1, e, 2, 3);
  EXPECT_EQ(chare_row_order(b.build()), (std::vector<ChareIndex>{1, 3, 2, 0}));
}

// --- Each algorithm on its own minimal case ---

// Figure 3: chares A (0) and B (1) each run _serial_0, which invokes
// recvResult on the other; each recvResult is followed directly by _serial_1
// of the same chare, which absorbs it (§2.1). Initial partitions: {A.s0}
// {B.s0} {A.recv} {B.recv}; SDAG edges A.s0 -> A.recv, B.s0 -> B.recv.
// Algorithm 1 merges P = {A.s0, B.recv} and Q = {B.s0, A.recv}; the SDAG
// edges now run P -> Q and Q -> P: a cycle, merged into one partition.
TEST(CharmAlgorithms, DependencyMergeThenCycleMerge) {
  TaskTraceBuilder b(2);
  const ChareIndex a = b.chare(false), bb = b.chare(false);
  const EntryIndex s0 = b.entry("_serial_0"), recv = b.entry("recvResult"), s1 = b.entry("_serial_1");
  const auto a0 = b.block(a, 0, s0, 0, 10), b0 = b.block(bb, 1, s0, 0, 10);
  const auto from_a = b.source(a0, 5), from_b = b.source(b0, 5);
  b.sink(b.block(a, 0, recv, 12, 14), from_b);
  b.block(a, 0, s1, 14, 20);
  b.sink(b.block(bb, 1, recv, 12, 14), from_a);
  b.block(bb, 1, s1, 14, 20);
  const TaskTrace t = b.build();
  const TaskIndex ix = index_task_trace(t);
  TaskEdges edges;
  TaskPartitions parts = initial_partitions(t, ix, edges);
  EXPECT_EQ(parts.count, 4);
  EXPECT_EQ(edges.from.size(), 4u);  // 2 messages + 2 SDAG edges
  EXPECT_EQ(dependency_merge(t, parts, edges), 3);  // 4 -> 2 by messages -> 1 by the cycle
  EXPECT_EQ(parts.count, 1);

  // Without SDAG names there is no cycle: two partitions stay.
  TaskTrace plain = t;
  plain.entry_name = {"first", "recvResult", "second"};
  TaskEdges plain_edges;
  TaskPartitions plain_parts = initial_partitions(plain, index_task_trace(plain), plain_edges);
  dependency_merge(plain, plain_parts, plain_edges);
  EXPECT_EQ(plain_parts.count, 2);
}

// Figure 2 / 4: one block of application chare 0 sends to chare 1 (app), then
// to runtime chare 2, then to chare 3 (app): three initial parts A1 | R | A2
// with edges A1 -> R -> A2. Algorithm 1 gives {A1, k1}, {R, k2}, {A2, k3}.
// Algorithm 2 joins A2 to A1 (the nearest earlier application event of the
// block); that closes the cycle A1A2 -> R -> A1A2, so the cycle merge leaves
// one (runtime) partition.
TEST(CharmAlgorithms, RepairMergeRestoresASplitBlock) {
  TaskTraceBuilder b(1);
  const ChareIndex c0 = b.chare(false), c1 = b.chare(false), rt = b.chare(true), c3 = b.chare(false);
  const EntryIndex m = b.entry("work"), r = b.entry("recv");
  const auto blk = b.block(c0, 0, m, 0, 10);
  const auto x1 = b.source(blk, 1), x2 = b.source(blk, 2), x3 = b.source(blk, 3);
  b.sink(b.block(c1, 0, r, 10, 11), x1);
  b.sink(b.block(rt, 0, r, 11, 12), x2);
  b.sink(b.block(c3, 0, r, 12, 13), x3);
  const TaskTrace t = b.build();
  TaskEdges edges;
  TaskPartitions parts = initial_partitions(t, index_task_trace(t), edges);
  EXPECT_EQ(parts.count, 6);  // A1, R, A2 and the three receiving blocks
  const EventIndex e1 = b.event_id(x1), e3 = b.event_id(x3);
  EXPECT_NE(parts.of_event[static_cast<std::size_t>(e1)], parts.of_event[static_cast<std::size_t>(e3)]);
  dependency_merge(t, parts, edges);
  EXPECT_EQ(parts.count, 3);
  EXPECT_EQ(repair_merge(t, parts, edges), 2);  // A2 into A1, then R by the cycle
  EXPECT_EQ(parts.count, 1);
  EXPECT_EQ(parts.runtime[0], 1);
}

// Algorithm 3: chare 0 invokes chare 1 at t = 1 and chare 2 at t = 21 from
// two executions; nothing links the two partitions {s1, k1} and {s2, k2}.
// The next source of chare 0 after s1 is s2: edge P1 -> P2, so P2 moves to
// leap 1 and the leaps no longer overlap on chare 0.
TEST(CharmAlgorithms, InferDependenciesFromPartitionSources) {
  TaskTraceBuilder b(1);
  const ChareIndex c0 = b.chare(false), c1 = b.chare(false), c2 = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto s1 = b.source(b.block(c0, 0, m, 0, 5), 1);
  b.sink(b.block(c1, 0, m, 5, 10), s1);
  const auto s2 = b.source(b.block(c0, 0, m, 20, 25), 21);
  b.sink(b.block(c2, 0, m, 25, 30), s2);
  const TaskTrace t = b.build();
  TaskEdges edges;
  TaskPartitions parts = after_dependency_merge(t, edges);
  ASSERT_EQ(parts.count, 2);
  EXPECT_EQ(infer_dependencies(t, parts, edges), 1);
  const structure::PartitionGraph g = order_partitions(t, parts, edges);
  const std::int32_t p1 = parts.of_event[static_cast<std::size_t>(b.event_id(s1))];
  const std::int32_t p2 = parts.of_event[static_cast<std::size_t>(b.event_id(s2))];
  EXPECT_TRUE(has_edge(g, p1, p2));
  EXPECT_EQ(merge_by_leap(t, parts, edges), 0);  // leaps 0 and 1: nothing to merge
  EXPECT_EQ(parts.count, 2);
}

// Algorithm 4: chares 1 and 2 each invoke chare 0, which only receives. The
// partitions {s1, k1} and {s2, k2} get no inferred edge (each sender has one
// source), both sit on leap 0 and share chare 0: they merge.
TEST(CharmAlgorithms, MergeByLeapJoinsOverlappingPartitions) {
  TaskTraceBuilder b(2);
  const ChareIndex c0 = b.chare(false), c1 = b.chare(false), c2 = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto s1 = b.source(b.block(c1, 0, m, 0, 5), 1);
  const auto s2 = b.source(b.block(c2, 1, m, 0, 5), 1);
  b.sink(b.block(c0, 0, m, 10, 12), s1);
  b.sink(b.block(c0, 0, m, 12, 14), s2);
  const TaskTrace t = b.build();
  TaskEdges edges;
  TaskPartitions parts = after_dependency_merge(t, edges);
  ASSERT_EQ(parts.count, 2);
  EXPECT_EQ(infer_dependencies(t, parts, edges), 0);
  EXPECT_EQ(merge_by_leap(t, parts, edges), 1);
  EXPECT_EQ(parts.count, 1);
}

// Algorithm 5 (Figure 6). Chares a, b, c. Phases (after Algorithm 1):
// X = {a: xa -> b: xb} and W = {c: wc} on leap 0; Y = {a: ya} after X and
// S = {b: sb -> c: sc} after W, both on leap 1 (edges X -> Y, W -> S given).
// X's only successor Y lacks chare b; the nearest later leap holding b is
// leap 1, in S: edge X -> S. Without it S would start at W's width 1 and sb
// would share step 1 with xb; with it S starts after X (width 2): sb at 2.
TEST(CharmAlgorithms, EnforceCharePathsAddsTheFigure6Edge) {
  TaskTraceBuilder b(3);
  const ChareIndex a = b.chare(false), bc = b.chare(false), c = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto xa = b.source(b.block(a, 0, m, 0, 2), 1);
  const auto xb = b.sink(b.block(bc, 1, m, 5, 6), xa);
  const auto wc = b.source(b.block(c, 2, m, 0, 2), 1);
  const auto ya = b.source(b.block(a, 0, m, 10, 12), 11);
  const auto sb = b.source(b.block(bc, 1, m, 10, 12), 11);
  const auto sc = b.sink(b.block(c, 2, m, 15, 16), sb);
  const TaskTrace t = b.build();
  const TaskIndex ix = index_task_trace(t);
  TaskEdges edges;
  TaskPartitions parts = initial_partitions(t, ix, edges);
  dependency_merge(t, parts, edges);
  ASSERT_EQ(parts.count, 4);
  edges.add(b.event_id(xa), b.event_id(ya));  // X -> Y
  edges.add(b.event_id(wc), b.event_id(sc));  // W -> S
  EXPECT_EQ(enforce_chare_paths(t, parts, edges), 1);
  const structure::PartitionGraph g = order_partitions(t, parts, edges);
  auto part = [&](std::int32_t provisional) { return parts.of_event[static_cast<std::size_t>(b.event_id(provisional))]; };
  EXPECT_TRUE(has_edge(g, part(xa), part(sb)));
  const TaskSteps steps = assign_task_steps(t, ix, parts, g, false);
  EXPECT_EQ(steps.global_step(b.event_id(xb), parts), 1);
  EXPECT_EQ(steps.global_step(b.event_id(sb), parts), 2);
}

// §3.1.4, ordering an application and a runtime phase that share a chare on
// one leap. Application phase A: chare Y's source at 1 invokes chare X,
// whose execution [10, 60] invokes W at 50. Runtime phase R: X's execution
// [0, 5] invokes the runtime chare Z at 2. Both are on leap 0 and share X
// (Algorithm 4 does not merge an application with a runtime phase). A's
// earliest source anywhere (1) is before R's (2), but on the shared chare X,
// R's source (2) is before A's (50): the paper compares per chare, so R -> A.
TEST(CharmAlgorithms, OverlappingApplicationAndRuntimePhasesOrderedBySharedChareSources) {
  TaskTraceBuilder b(3);
  const ChareIndex x = b.chare(false), y = b.chare(false), w = b.chare(false), z = b.chare(true);
  const EntryIndex m = b.entry("m");
  const auto to_z = b.source(b.block(x, 0, m, 0, 5), 2);
  b.sink(b.block(z, 2, m, 20, 21), to_z);
  const auto from_y = b.source(b.block(y, 1, m, 0, 2), 1);
  const auto x_blk = b.block(x, 0, m, 10, 60);
  b.sink(x_blk, from_y);
  const auto to_w = b.source(x_blk, 50);
  b.sink(b.block(w, 1, m, 55, 56), to_w);
  const TaskTrace t = b.build();
  TaskEdges edges;
  TaskPartitions parts = after_dependency_merge(t, edges);
  ASSERT_EQ(parts.count, 2);
  EXPECT_EQ(order_overlapping_phases(t, parts, edges), 1);
  const structure::PartitionGraph g = order_partitions(t, parts, edges);
  const std::int32_t r = parts.of_event[static_cast<std::size_t>(b.event_id(to_z))];
  const std::int32_t a = parts.of_event[static_cast<std::size_t>(b.event_id(from_y))];
  EXPECT_EQ(parts.runtime[static_cast<std::size_t>(r)], 1);
  EXPECT_EQ(parts.runtime[static_cast<std::size_t>(a)], 0);
  EXPECT_TRUE(has_edge(g, r, a));
  EXPECT_FALSE(has_edge(g, a, r));
}

// The clocks and global steps of gray's executions invoked by blue and by
// white (provisional ids of `b`), reordered and in physical order; both
// analyses must find one phase.
struct GraySteps {
  std::pair<std::int32_t, std::int32_t> w, reordered, physical;  // (blue's, white's)
};
GraySteps gray_steps(TaskTraceBuilder& b, std::int32_t k_blue, std::int32_t k_white) {
  const TaskTrace t = b.build();
  const EventIndex eb = b.event_id(k_blue), ew = b.event_id(k_white);
  const TaskStructure re = analyze_task_structure(t, {.reorder = true, .infer_dependencies = true});
  const TaskStructure phys = analyze_task_structure(t, {.reorder = false, .infer_dependencies = true});
  EXPECT_EQ(re.phases.count, 1);
  EXPECT_EQ(phys.phases.count, 1);
  return {{re.steps.w[static_cast<std::size_t>(eb)], re.steps.w[static_cast<std::size_t>(ew)]},
          {re.global_step(eb), re.global_step(ew)},
          {phys.global_step(eb), phys.global_step(ew)}};
}

// --- Reordering (§3.2.1, Figure 7) ---
// Blue (chare 0) and white (chare 1) each invoke gray (chare 2) with their
// first send (w = 0), so both gray executions have w = 1. White's arrives
// first in physical time. Reordered, the tie goes to the smaller invoking
// chare: blue's execution at step 1, white's at 2; in physical order white's
// is at 1 and blue's at 2. (The two partitions share chare 2 on leap 0 and
// merge by Algorithm 4 into one phase.)
TEST(CharmReordering, EqualClocksTieBreakByInvokingChare) {
  TaskTraceBuilder b(3);
  const ChareIndex blue = b.chare(false), white = b.chare(false), gray = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto from_blue = b.source(b.block(blue, 0, m, 0, 5), 1);
  const auto from_white = b.source(b.block(white, 1, m, 0, 5), 1);
  const auto k_white = b.sink(b.block(gray, 2, m, 10, 12), from_white);
  const auto k_blue = b.sink(b.block(gray, 2, m, 20, 22), from_blue);
  const GraySteps steps = gray_steps(b, k_blue, k_white);
  EXPECT_EQ(steps.reordered, std::make_pair(1, 2));
  EXPECT_EQ(steps.physical, std::make_pair(2, 1));
}

// A smaller clock wins over physical time: gray first runs an execution
// invoked by blue's second send (w = 1 -> 2), then one invoked by white's
// first send (w = 0 -> 1). Reordered: white's (w 1) at step 1, blue's (w 2)
// at step 2. Physical: blue's at 2 (after its source at 1), white's at 3.
TEST(CharmReordering, SmallerClockFirst) {
  TaskTraceBuilder b(3);
  const ChareIndex blue = b.chare(false), white = b.chare(false), gray = b.chare(false), other = b.chare(false);
  const EntryIndex m = b.entry("m");
  const auto blk = b.block(blue, 0, m, 0, 5);
  const auto first = b.source(blk, 1), second = b.source(blk, 2);
  b.sink(b.block(other, 0, m, 5, 6), first);
  const auto from_white = b.source(b.block(white, 1, m, 0, 5), 4);
  const auto k_blue = b.sink(b.block(gray, 2, m, 10, 12), second);
  const auto k_white = b.sink(b.block(gray, 2, m, 20, 22), from_white);
  const GraySteps steps = gray_steps(b, k_blue, k_white);
  EXPECT_EQ(steps.w, std::make_pair(2, 1));
  EXPECT_EQ(steps.reordered, std::make_pair(2, 1));
  EXPECT_EQ(steps.physical, std::make_pair(2, 3));
}

// §2.1 / §3.2.1, an absorbed entry method. Chare d (PE 1) runs m [0, 10]
// whose first send (at 1) invokes recvResult on chare c (PE 0) at [12, 14];
// directly after it c runs _serial_1 [14, 20], which sends back to d at 15
// (d's m [25, 30]). recvResult "occurs right before a serial", so it is
// absorbed into that serial's entry method (§2.1): one serial block whose
// events "maintain their order" (§3.2.1). All four events are one phase.
// Clocks (§3.2.1): d's send is an initial send, w = 0; its receive on c is
// w_send + 1 = 1; c's send "count[s] up from the w of that receive": 2; the
// receive on d: 3. Steps (§3.2): d's send 0; c's receive 1 (after its
// source); c's send 2 (after the receive, its chare predecessor); d's
// receive 3 (after its source at 2).
TEST(CharmReordering, AbsorbedEntryMethodStaysBeforeItsSerial) {
  TaskTraceBuilder b(2);
  const ChareIndex c = b.chare(false), d = b.chare(false);
  const EntryIndex m = b.entry("m"), recv = b.entry("recvResult"), s1 = b.entry("_serial_1");
  const auto to_c = b.source(b.block(d, 1, m, 0, 10), 1);
  const auto k_c = b.sink(b.block(c, 0, recv, 12, 14), to_c);
  const auto to_d = b.source(b.block(c, 0, s1, 14, 20), 15);
  const auto k_d = b.sink(b.block(d, 1, m, 25, 30), to_d);
  const TaskTrace t = b.build();
  const TaskStructure s = analyze_task_structure(t, {.reorder = true, .infer_dependencies = true});
  ASSERT_EQ(s.phases.count, 1);
  auto w = [&](std::int32_t k) { return s.steps.w[static_cast<std::size_t>(b.event_id(k))]; };
  auto step = [&](std::int32_t k) { return s.global_step(b.event_id(k)); };
  EXPECT_EQ(w(to_c), 0);
  EXPECT_EQ(w(k_c), 1);
  EXPECT_EQ(w(to_d), 2);
  EXPECT_EQ(w(k_d), 3);
  EXPECT_EQ(step(to_c), 0);
  EXPECT_EQ(step(k_c), 1);
  EXPECT_EQ(step(to_d), 2);
  EXPECT_EQ(step(k_d), 3);
}

// --- Properties on a larger generated trace ---
// 8x8 chares on 4 PEs, 6 iterations, one slow compute: no two events of one
// chare share a global step (§3.1.4 properties (1) and (2)), and every sink is
// stepped after its source (§3.2): reordered, in physical order, and without
// the inference of Algorithms 3 and 4 (the DAG properties are still enforced).
TEST(CharmProperties, ChareStepsDistinctAndSinksAfterSources) {
  JacobiShape shape{.nx = 8, .ny = 8, .pes = 4, .iterations = 6, .delay_chare = 13, .delay_iteration = 2,
                    .delay_ns = 500};
  const TaskTrace t = jacobi_task_trace(shape);
  for (int variant = 0; variant < 3; ++variant) {
    const bool reorder = variant != 1, infer = variant != 2;  // reordered, physical, reordered without Alg. 3/4
    const TaskStructure s = analyze_task_structure(t, {.reorder = reorder, .infer_dependencies = infer});
    EXPECT_EQ(s.report.forced_orderings, 0);
    EXPECT_GE(s.phases.count, 2 * shape.iterations);
    std::map<std::pair<ChareIndex, std::int32_t>, EventIndex> seen;
    for (EventIndex e = 0; e < t.event_count(); ++e) {
      auto [it, fresh] = seen.emplace(std::make_pair(t.chare_of_event(e), s.global_step(e)), e);
      EXPECT_TRUE(fresh) << "chare " << t.chare_of_event(e) << " has events " << it->second << " and " << e
                         << " at step " << s.global_step(e) << " (variant " << variant << ")";
      const EventIndex src = t.event_partner[static_cast<std::size_t>(e)];
      if (t.is_sink(e) && src != kNone) {
        EXPECT_GT(s.global_step(e), s.global_step(src)) << "sink " << e;
      }
    }
  }
}

TEST(CharmTrace, BadInputIsAnError) {
  TaskTrace t = jacobi_task_trace(JacobiShape{});
  t.block_pe[3] = 7;  // only 2 PEs
  EXPECT_THROW(validate_task_trace(t), Error);
  t = jacobi_task_trace(JacobiShape{});
  std::swap(t.event_block[0], t.event_block[t.event_count() - 1]);  // unsorted events
  EXPECT_THROW(analyze_task_structure(t, {}), Error);
  EXPECT_THROW(jacobi_task_trace(JacobiShape{.nx = 3, .ny = 1, .pes = 2}), Error);
  EXPECT_EQ(sdag_serial_number("_serial_12"), 12);
  EXPECT_EQ(sdag_serial_number("_serial_3(void)"), 3);
  EXPECT_EQ(sdag_serial_number("_atomic_0"), 0);
  EXPECT_EQ(sdag_serial_number("_serial_x"), -1);
  EXPECT_EQ(sdag_serial_number("recvGhost"), -1);
  EXPECT_EQ(sdag_serial_number("_sdag_fnc_run"), -1);  // charmxi's body of SDAG entry `run`, not a serial
}

}  // namespace
