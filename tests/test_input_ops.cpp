// The compact maps over ops that keep the analysis' memory down: RankBits
// (rank over a subset of indices), InputOps (what the store writes
// back per input op once Isends are coalesced in place) and CollectiveOfOps.
// Each is checked against the plain per-op arrays it replaces.
#include <gtest/gtest.h>

#include <random>

#include "common/error.h"
#include "comm_trace_builder.h"
#include "structure/analysis.h"
#include "structure/input_ops.h"
#include "structure/rank_bits.h"

using namespace weft;
using namespace weft::structure;

TEST(RankBits, RankAgreesWithCounting) {
  std::mt19937 rng(7);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65},
                        std::size_t{1000}, std::size_t{70000}}) {
    for (double density : {0.0, 0.01, 0.5, 1.0}) {
      RankBits bits(n);
      std::vector<std::size_t> members;
      std::bernoulli_distribution pick(density);
      for (std::size_t i = 0; i < n; ++i)
        if (pick(rng)) {
          bits.set(i);
          members.push_back(i);
        }
      bits.count_members();
      ASSERT_EQ(bits.members(), static_cast<std::int32_t>(members.size())) << n << " " << density;
      std::int32_t before = 0;
      for (std::size_t i = 0; i <= n; ++i) {
        ASSERT_EQ(bits.rank(i), before) << "n " << n << " i " << i;
        if (i < n) {
          ASSERT_EQ(bits.test(i), before < static_cast<std::int32_t>(members.size()) &&
                                      members[static_cast<std::size_t>(before)] == i);
          if (bits.test(i)) ++before;
        }
      }
    }
  }
}

namespace {

// Process 0: three Isends in a run (one op once coalesced), a Waitall, and a
// lone Isend after a receive. Process 1: a split Sendrecv (two ops, one event
// id), then receives. Event ids have gaps, as in a store where compute events
// sit between the communication events.
struct IsendRuns {
  CommTrace trace;
  OpIndex isend[3], wait, recv0, lone;
  OpIndex sr_send, sr_recv, recv1[4];
};

IsendRuns isend_runs() {
  IsendRuns t;
  TraceBuilder b(2);
  t.isend[0] = b.op(0, 0, 2, OpKind::Isend, 10);
  t.isend[1] = b.op(0, 3, 5, OpKind::Isend, 12);
  t.isend[2] = b.op(0, 6, 9, OpKind::Isend, 13);
  t.wait = b.op(0, 10, 20, OpKind::Wait, 15);
  t.recv0 = b.op(0, 21, 30, OpKind::Recv, 16);
  t.lone = b.op(0, 31, 33, OpKind::Isend, 20);
  t.sr_send = b.op(1, 0, 4, OpKind::Send, 30);
  t.sr_recv = b.op(1, 0, 4, OpKind::Recv, 30);
  for (int k = 0; k < 4; ++k) t.recv1[k] = b.op(1, 10 + 10 * k, 15 + 10 * k, OpKind::Recv, 31 + k);
  for (int k = 0; k < 3; ++k) b.message(t.isend[k], t.recv1[k], kNoOp, t.wait);
  b.message(t.sr_send, t.recv0);
  b.message(t.lone, t.recv1[3]);
  b.message(kNoOp, t.sr_recv);  // one-sided
  t.trace = b.build();
  return t;
}

}  // namespace

TEST(InputOps, EveryInputOpKeepsItsOwnTimesKindEventAndAnalyzedOp) {
  const IsendRuns t = isend_runs();
  auto r = analyze_structure(t.trace, {});
  const InputOps& in = r->input;
  ASSERT_EQ(in.count(), t.trace.op_count());
  EXPECT_EQ(r->trace.op_count(), t.trace.op_count() - 2);  // the run of three is one op
  EXPECT_EQ(r->report.coalesced_isends, 2);
  // The input's event ids were taken over, not copied: the analyzed trace has none.
  EXPECT_TRUE(r->trace.event_id.empty());

  std::vector<InputOp> seen;
  in.for_each(r->trace, [&](const InputOp& op) { seen.push_back(op); });
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(t.trace.op_count()));
  for (OpIndex i = 0; i < t.trace.op_count(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    const InputOp& op = seen[u];
    EXPECT_EQ(op.index, i);
    EXPECT_EQ(op.process, t.trace.process[u]) << i;
    EXPECT_EQ(op.kind, t.trace.kind[u]) << i;
    EXPECT_EQ(op.start, t.trace.start[u]) << i;
    EXPECT_EQ(op.end, t.trace.end[u]) << i;
    EXPECT_EQ(op.event_id, t.trace.event_id[u]) << i;
    EXPECT_EQ(op.analyzed, in.analyzed_op(i)) << i;
    EXPECT_EQ(op.shares_event_with_next, i == t.sr_send) << i;
  }
  // The run maps to one analyzed op spanning it; every other op to its own.
  const OpIndex run = in.analyzed_op(t.isend[0]);
  EXPECT_EQ(in.analyzed_op(t.isend[1]), run);
  EXPECT_EQ(in.analyzed_op(t.isend[2]), run);
  EXPECT_EQ(r->trace.start[static_cast<std::size_t>(run)], 0);
  EXPECT_EQ(r->trace.end[static_cast<std::size_t>(run)], 9);
  EXPECT_EQ(in.analyzed_op(t.wait), run + 1);
  EXPECT_EQ(in.analyzed_op(t.recv1[3]), r->trace.op_count() - 1);
  // The longest input op is the wait (10 ns); the run spans 9 ns.
  EXPECT_EQ(in.max_duration(), 10);

  // Messages name the input ops that sent them; a receiving input op is the
  // first (and only) input op of the analyzed op that completes the message
  // (the writer finds an op's completed messages through the analyzed op).
  ASSERT_EQ(in.message_count(), t.trace.message_count());
  for (std::int32_t m = 0; m < in.message_count(); ++m) {
    const auto um = static_cast<std::size_t>(m);
    EXPECT_EQ(in.message_send_op(m), t.trace.msg_send_op[um]) << m;
    const OpIndex recv_input = t.trace.msg_recv_op[um];
    if (recv_input == kNoOp) {
      EXPECT_EQ(r->trace.msg_recv_op[um], kNoOp) << m;
      continue;
    }
    EXPECT_EQ(in.analyzed_op(recv_input), r->trace.msg_recv_op[um]) << m;
    EXPECT_TRUE(recv_input == 0 || in.analyzed_op(recv_input - 1) != in.analyzed_op(recv_input)) << m;
    EXPECT_TRUE(recv_input + 1 == in.count() || in.analyzed_op(recv_input + 1) != in.analyzed_op(recv_input)) << m;
  }
}

// The comm_event_blocks writer walks each process in pieces, one step block
// at a time: a walk resumed where the last one stopped, even inside a
// coalesced run, sees what for_each sees.
TEST(InputOps, AWalkResumedWhereItStoppedSeesTheOpsOfForEach) {
  const IsendRuns t = isend_runs();
  auto r = analyze_structure(t.trace, {});
  const InputOps& in = r->input;
  std::vector<InputOp> all;
  in.for_each(r->trace, [&](const InputOp& op) { all.push_back(op); });

  for (int piece : {1, 2, 3}) {
    std::vector<InputOp> seen;
    for (ProcessIndex p = 0; p < r->trace.process_count; ++p) {
      InputOps::Position at = in.process_start(p);
      EXPECT_EQ(at.op, t.trace.first_op(p));
      EXPECT_EQ(in.process_end(p), t.trace.end_op(p));
      int calls = 0;
      while (at.op < in.process_end(p)) {
        int taken = 0;
        const InputOps::Position next = in.for_each_while(r->trace, at, in.process_end(p), [&](const InputOp& op) {
          if (taken == piece) return false;
          ++taken;
          seen.push_back(op);
          return true;
        });
        EXPECT_EQ(next.op, std::min(at.op + piece, in.process_end(p)));
        at = next;
        ASSERT_LT(++calls, 100);
      }
    }
    ASSERT_EQ(seen.size(), all.size()) << piece;
    for (std::size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(seen[i].index, all[i].index) << piece << " " << i;
      EXPECT_EQ(seen[i].analyzed, all[i].analyzed) << piece << " " << i;
      EXPECT_EQ(seen[i].process, all[i].process) << piece << " " << i;
      EXPECT_EQ(seen[i].start, all[i].start) << piece << " " << i;  // a run member's own times
      EXPECT_EQ(seen[i].end, all[i].end) << piece << " " << i;
      EXPECT_EQ(seen[i].event_id, all[i].event_id) << piece << " " << i;
      EXPECT_EQ(seen[i].shares_event_with_next, all[i].shares_event_with_next) << piece << " " << i;
    }
  }
}

TEST(InputOps, WithoutCoalescingEveryOpIsItsOwn) {
  const IsendRuns t = isend_runs();
  AnalysisOptions no_coalescing;
  no_coalescing.isend_coalescing = false;
  auto r = analyze_structure(t.trace, no_coalescing);
  EXPECT_EQ(r->trace.op_count(), t.trace.op_count());
  std::int32_t visited = 0;
  r->input.for_each(r->trace, [&](const InputOp& op) {
    const auto u = static_cast<std::size_t>(op.index);
    EXPECT_EQ(op.analyzed, op.index);
    EXPECT_EQ(op.start, t.trace.start[u]);
    EXPECT_EQ(op.end, t.trace.end[u]);
    EXPECT_EQ(op.event_id, t.trace.event_id[u]);
    ++visited;
  });
  EXPECT_EQ(visited, t.trace.op_count());
}

// A coalesced run's members keep their times as 4-byte offsets from the
// run's start and 4-byte durations; one that waited longer than 2^32 ns
// (4.3 s) in its Isend, or started that long after the run began, is kept
// aside whole: every member's times come back as they were, on one thread
// or two, on either process.
TEST(InputOps, MembersPastFourSecondsKeepTheirTimes) {
  constexpr TimeNs kLong = TimeNs{5} << 30;  // past 2^32 ns
  for (const int threads : {1, 2}) {
    TraceBuilder b(2);
    std::vector<OpIndex> sends, recvs;
    for (ProcessIndex p = 0; p < 2; ++p) {
      const TimeNs base = p * 3 * kLong;
      sends.push_back(b.op(p, base + 0, base + 2, OpKind::Isend, 100 * p + 1));
      sends.push_back(b.op(p, base + 3, base + 3 + kLong, OpKind::Isend, 100 * p + 2));  // long duration
      sends.push_back(b.op(p, base + kLong + 10, base + kLong + 12, OpKind::Isend, 100 * p + 3));  // late start
      sends.push_back(b.op(p, base + kLong + 20, base + kLong + 21, OpKind::Isend, 100 * p + 4));
      b.op(p, base + kLong + 30, base + kLong + 40, OpKind::Wait, 100 * p + 5);
      for (int k = 0; k < 4; ++k)
        recvs.push_back(b.op(p, base + kLong + 50 + 10 * k, base + kLong + 55 + 10 * k, OpKind::Recv, 100 * p + 6 + k));
    }
    for (std::size_t k = 0; k < 4; ++k) {
      b.message(sends[k], recvs[4 + k]);
      b.message(sends[4 + k], recvs[k]);
    }
    const CommTrace trace = b.build();
    AnalysisOptions options;
    options.threads = threads;
    auto r = analyze_structure(trace, options);
    EXPECT_EQ(r->report.coalesced_isends, 6) << threads;  // each process's four Isends are one op
    std::int32_t visited = 0;
    r->input.for_each(r->trace, [&](const InputOp& op) {
      const auto u = static_cast<std::size_t>(op.index);
      EXPECT_EQ(op.start, trace.start[u]) << op.index << " threads " << threads;
      EXPECT_EQ(op.end, trace.end[u]) << op.index << " threads " << threads;
      ++visited;
    });
    EXPECT_EQ(visited, trace.op_count());
    EXPECT_EQ(r->input.max_duration(), kLong) << threads;  // the member kept aside
  }
}

// The event ids are kept as differences from the op before's (1 byte each
// where most are small, 2 where gaps of hundreds are common), the gaps that
// do not fit kept aside: every op's id and the split Sendrecv's shared id
// come back, through for_each and through walks resumed at each op, on one
// thread or two. `gap` sets the ids' spacing.
TEST(InputOps, EventIdsWithLongGapsComeBack) {
  for (const StoredEventId gap : {1, 300, 70000}) {
    for (const int threads : {1, 2}) {
      TraceBuilder b(3);
      std::vector<OpIndex> sends, recvs;
      StoredEventId id = 5;
      for (ProcessIndex p = 0; p < 3; ++p) {
        id += 100000;  // each process's first op far from the last process's
        for (int k = 0; k < 200; ++k, id += (k % 50 == 7 ? 70000 : gap)) {
          sends.push_back(b.op(p, 10 * k, 10 * k + 2, OpKind::Isend, id));
          id += gap;
          recvs.push_back(b.op(p, 10 * k + 5, 10 * k + 7, OpKind::Recv, id));
        }
        const OpIndex split_send = b.op(p, 3000, 3010, OpKind::Send, id);  // a Sendrecv: one event, two ops
        const OpIndex split_recv = b.op(p, 3000, 3010, OpKind::Recv, id);
        b.message(split_send, kNoOp);
        b.message(kNoOp, split_recv);
      }
      for (std::size_t k = 0; k < sends.size(); ++k) b.message(sends[k], recvs[(k + 200) % recvs.size()]);
      const CommTrace trace = b.build();
      AnalysisOptions options;
      options.threads = threads;
      auto r = analyze_structure(trace, options);
      const InputOps& in = r->input;
      // Bytes per op: those that take the fewest, with 16 per difference kept aside.
      EXPECT_EQ(in.event_id_width(), gap == 1 ? 1u : gap == 300 ? 2u : 4u) << gap;
      std::vector<InputOp> all;
      in.for_each(r->trace, [&](const InputOp& op) { all.push_back(op); });
      ASSERT_EQ(all.size(), trace.event_id.size());
      for (std::size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(all[i].event_id, trace.event_id[i]) << "gap " << gap << " op " << i;
        EXPECT_EQ(all[i].shares_event_with_next, i + 1 < all.size() && trace.event_id[i + 1] == trace.event_id[i])
            << "gap " << gap << " op " << i;
      }
      // One op at a time from each process's start.
      for (ProcessIndex p = 0; p < 3; ++p) {
        InputOps::Position at = in.process_start(p);
        while (at.op < in.process_end(p)) {
          bool took = false;
          at = in.for_each_while(r->trace, at, in.process_end(p), [&](const InputOp& op) {
            if (took) return false;
            took = true;
            EXPECT_EQ(op.event_id, trace.event_id[static_cast<std::size_t>(op.index)]) << "gap " << gap;
            return true;
          });
        }
      }
    }
  }
}

TEST(CollectiveOfOps, MembersHaveTheirCollectiveAndOthersNone) {
  TraceBuilder b(3);
  std::vector<OpIndex> c0, c1;
  OpIndex send = b.op(0, 0, 1, OpKind::Send);
  c0.push_back(b.op(0, 2, 3, OpKind::Collective));
  c1.push_back(b.op(0, 4, 5, OpKind::Collective));
  OpIndex recv = b.op(1, 0, 2, OpKind::Recv);
  c0.push_back(b.op(1, 3, 4, OpKind::Collective));
  c1.push_back(b.op(1, 5, 6, OpKind::Collective));
  c0.push_back(b.op(2, 2, 3, OpKind::Collective));
  c1.push_back(b.op(2, 4, 6, OpKind::Collective));
  b.message(send, recv);
  b.collective({c0[0], c0[1], c0[2]});
  b.collective({c1[0], c1[1], c1[2]});
  const CommTrace t = b.build();
  const CollectiveOfOps of(t);
  EXPECT_EQ(of[static_cast<std::size_t>(send)], -1);
  EXPECT_EQ(of[static_cast<std::size_t>(recv)], -1);
  for (OpIndex op : c0) EXPECT_EQ(of[static_cast<std::size_t>(op)], 0);
  for (OpIndex op : c1) EXPECT_EQ(of[static_cast<std::size_t>(op)], 1);
}
