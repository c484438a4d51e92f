#include "structure/step_assignment.h"

#include <algorithm>
#include <limits>

#include "common/two_parts.h"

namespace weft::structure {
namespace {

// Where the ops of partitions [0, split) end and those of [split, count)
// begin for two threads: the first partition past half of the ops (count when
// one thread does all).
std::int32_t split_partitions_by_ops(const PartitionRuns& runs, int threads) {
  const auto partitions = static_cast<std::int32_t>(runs.first.size()) - 1;
  if (threads <= 1 || partitions <= 1) return partitions;
  std::int64_t total = 0;
  for (std::size_t r = 0; r < runs.process.size(); ++r) total += runs.last_op[r] - runs.first_op[r] + 1;
  std::int64_t seen = 0;
  std::int32_t split = 0;
  while (split < partitions && 2 * seen < total) {
    for (auto r = runs.first[static_cast<std::size_t>(split)]; r < runs.first[static_cast<std::size_t>(split) + 1]; ++r)
      seen += runs.last_op[static_cast<std::size_t>(r)] - runs.first_op[static_cast<std::size_t>(r)] + 1;
    ++split;
  }
  return split;
}

// The strides, one partition at a time. Messages and collectives never leave
// their partition (mandatory_partitions), so partitions are independent and
// two threads can sweep one half of them each, writing disjoint entries.
// Within a partition this is Kahn's algorithm over processes rather than ops:
// each process advances through its run of ops (read in sequence) until a
// receive waits for a send that is not done yet (the process is parked on
// that send and woken when it is done), or it arrives at a collective (parked
// until every member has arrived, then all members take one stride). When
// every process of the partition is parked, which only a happened-before
// cycle in bad input causes (e.g. a collective that one process enters after
// receiving what another sent after it), the process whose current op started
// earliest is forced through. The strides do not depend on the order in
// which ready processes go (each is the largest over its happened-before
// predecessors, and the parked state where forcing starts is the same): the
// ready list is first in, first out, the runs in process order and then the
// processes woken meanwhile, so the sweep reads the ops at mostly increasing
// places (last in, first out jumped to each woken process: 14% slower).
constexpr OpIndex kStridePrefetchOps = 8;

class StrideSweep {
 public:
  StrideSweep(const CommTrace& t, const PartitionRuns& runs, const ReceivedMessages& received,
              const CollectiveOfOps& coll_of)
      : t_(t), runs_(runs), received_(received), coll_of_(coll_of) {
    const auto n = static_cast<std::size_t>(t.op_count());
    stride_.assign(n, 0);
    first_waiter_.assign(n, kNoProcess);
    coll_waiting_.assign(static_cast<std::size_t>(t.collective_count()), 0);
    coll_size_.resize(static_cast<std::size_t>(t.collective_count()));
    for (std::int32_t c = 0; c < t.collective_count(); ++c)
      coll_size_[static_cast<std::size_t>(c)] =
          t.coll_first[static_cast<std::size_t>(c) + 1] - t.coll_first[static_cast<std::size_t>(c)];
  }

  StrideResult run(int threads) {
    const auto partitions = static_cast<std::int32_t>(runs_.first.size()) - 1;
    Scratch halves[2];
    run_in_two_parts(split_partitions_by_ops(runs_, threads), partitions,
                        [&](int half, std::int32_t first, std::int32_t end) {
                          Scratch& s = halves[half];
                          s.size(t_.process_count);
                          for (std::int32_t part = first; part < end; ++part) sweep_partition(part, s);
                        });
    StrideResult result;
    for (const Scratch& s : halves) {
      result.forced_orderings += s.forced_orderings;
      result.split_collectives += s.split_collectives;
    }
    // The strides are the last strides of the ops that define one.
    for (std::size_t i = 0; i < stride_.size(); ++i)
      if (!defines_stride(t_.kind[i])) stride_[i] = 0;
    result.stride = std::move(stride_);
    return result;
  }

 private:
  static constexpr ProcessIndex kNoProcess = -1;

  // One thread's state, indexed by process (valid for the processes of the
  // partition being swept).
  struct Scratch {
    std::vector<OpIndex> cursor, run_end;  // the next op to take; the end of the run
    std::vector<std::int32_t> last;        // the largest stride so far on the process
    std::vector<OpIndex> parked_on;        // the send it waits for, or kNoOp
    std::vector<ProcessIndex> next_waiter;  // the list of processes parked on one send
    std::vector<ProcessIndex> ready;
    std::vector<OpIndex> detached;  // collective members stepped alone, sorted
    OpIndex forced = kNoOp;         // an op that goes ahead of its unfinished sends
    std::int32_t forced_orderings = 0, split_collectives = 0;
    void size(std::int32_t processes) {
      const auto n = static_cast<std::size_t>(processes);
      cursor.assign(n, 0);
      run_end.assign(n, 0);
      last.assign(n, 0);
      parked_on.assign(n, kNoOp);
      next_waiter.assign(n, kNoProcess);
    }
    bool is_detached(OpIndex op) const { return std::binary_search(detached.begin(), detached.end(), op); }
  };

  void sweep_partition(std::int32_t part, Scratch& s) {
    const auto r0 = runs_.first[static_cast<std::size_t>(part)];
    const auto r1 = runs_.first[static_cast<std::size_t>(part) + 1];
    for (auto r = r0; r < r1; ++r) {
      const ProcessIndex p = runs_.process[static_cast<std::size_t>(r)];
      const auto up = static_cast<std::size_t>(p);
      s.cursor[up] = runs_.first_op[static_cast<std::size_t>(r)];
      s.run_end[up] = runs_.last_op[static_cast<std::size_t>(r)] + 1;
      s.last[up] = 0;
      s.parked_on[up] = kNoOp;
      s.ready.push_back(p);
    }
    for (;;) {
      // First in, first out (see above); advance() appends as it wakes.
      for (std::size_t next = 0; next < s.ready.size(); ++next) advance(s.ready[next], s);
      s.ready.clear();
      if (!force_progress(r0, r1, s)) break;
    }
  }

  bool done(OpIndex op, const Scratch& s) const {
    return op < s.cursor[static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)])];
  }

  // Takes p's ops in order until it is parked or its run ends.
  void advance(ProcessIndex p, Scratch& s) {
    const auto up = static_cast<std::size_t>(p);
    while (s.cursor[up] < s.run_end[up]) {
      const OpIndex op = s.cursor[up];
      // The senders' strides are at random places: asked for a few ops
      // ahead, they arrive while this op and the next are stepped.
      if (op + kStridePrefetchOps < s.run_end[up])
        for (const OpIndex send : received_.senders(op + kStridePrefetchOps))
          if (send != kNoOp) __builtin_prefetch(&stride_[static_cast<std::size_t>(send)]);
      std::int32_t in = 0;
      if (!incoming_stride(op, s, &in)) return;  // parked on a send
      const std::int32_t c = coll_of_[static_cast<std::size_t>(op)];
      if (c >= 0 && !s.is_detached(op)) {
        ++coll_waiting_[static_cast<std::size_t>(c)];
        complete_collective_if_ready(c, s);
        return;  // the collective's completion puts p back in the ready list
      }
      finish(op, in, s);
    }
  }

  // The largest stride that happened before `op` within its partition, in
  // *in; false (with the process parked) while one of its sends is not done.
  bool incoming_stride(OpIndex op, Scratch& s, std::int32_t* in) {
    const auto up = static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)]);
    *in = s.last[up];
    for (const OpIndex send : received_.senders(op)) {
      if (send == kNoOp) continue;  // in this partition: messages never leave theirs
      // An op with a stride so far is done (sends take at least 1); the
      // process cursor answers for the others.
      const std::int32_t sent = stride_[static_cast<std::size_t>(send)];
      if (sent > 0 || done(send, s)) {
        *in = std::max(*in, sent);
      } else if (op != s.forced) {
        s.parked_on[up] = send;
        s.next_waiter[up] = first_waiter_[static_cast<std::size_t>(send)];
        first_waiter_[static_cast<std::size_t>(send)] = static_cast<ProcessIndex>(up);
        return false;
      }
    }
    return true;
  }

  // `op` takes its stride; the processes parked on it go back to the ready list.
  void finish(OpIndex op, std::int32_t in, Scratch& s) {
    const auto i = static_cast<std::size_t>(op);
    const auto up = static_cast<std::size_t>(t_.process[i]);
    const std::int32_t last = defines_stride(t_.kind[i]) ? in + 1 : in;
    stride_[i] = last;  // what a receive of a message it sent comes after
    s.last[up] = last;
    s.cursor[up] = op + 1;
    for (ProcessIndex w = first_waiter_[i]; w != kNoProcess; w = s.next_waiter[static_cast<std::size_t>(w)]) {
      s.parked_on[static_cast<std::size_t>(w)] = kNoOp;
      s.ready.push_back(w);
    }
    first_waiter_[i] = kNoProcess;
  }

  template <class F>
  void for_waiting_members(std::int32_t c, const Scratch& s, F f) const {
    for (auto k = t_.coll_first[static_cast<std::size_t>(c)]; k < t_.coll_first[static_cast<std::size_t>(c) + 1]; ++k) {
      const OpIndex m = t_.coll_members[static_cast<std::size_t>(k)];
      if (!done(m, s) && !s.is_detached(m)) f(m);
    }
  }

  // When every (remaining) member of collective c has arrived, they all take
  // one stride, after the largest incoming stride of any of them.
  void complete_collective_if_ready(std::int32_t c, Scratch& s) {
    const auto uc = static_cast<std::size_t>(c);
    if (coll_size_[uc] == 0 || coll_waiting_[uc] < coll_size_[uc]) return;
    coll_size_[uc] = 0;  // completed; a later detach must not complete it again
    std::int32_t in = 0;
    for_waiting_members(c, s, [&](OpIndex m) {
      std::int32_t member_in = 0;
      const OpIndex forced = s.forced;
      s.forced = m;  // its sends were waited for (or forced) before it arrived
      incoming_stride(m, s, &member_in);
      s.forced = forced;
      in = std::max(in, member_in);
    });
    for_waiting_members(c, s, [&](OpIndex m) {
      finish(m, in, s);
      s.ready.push_back(t_.process[static_cast<std::size_t>(m)]);
    });
  }

  // Breaks a happened-before cycle: the unfinished process of the partition
  // whose current op started earliest goes next, ignoring its unfinished
  // sends; a collective member that cannot wait for the rest is stepped alone.
  // False when every process of the partition has finished.
  bool force_progress(std::int32_t r0, std::int32_t r1, Scratch& s) {
    ProcessIndex best = kNoProcess;
    for (auto r = r0; r < r1; ++r) {
      const ProcessIndex p = runs_.process[static_cast<std::size_t>(r)];
      const auto up = static_cast<std::size_t>(p);
      if (s.cursor[up] >= s.run_end[up]) continue;
      if (best == kNoProcess ||
          t_.start[static_cast<std::size_t>(s.cursor[up])] <
              t_.start[static_cast<std::size_t>(s.cursor[static_cast<std::size_t>(best)])])
        best = p;
    }
    if (best == kNoProcess) return false;
    const auto ub = static_cast<std::size_t>(best);
    const OpIndex op = s.cursor[ub];
    if (s.parked_on[ub] == kNoOp) {
      // Arrived at its collective: detach it.
      const std::int32_t c = coll_of_[static_cast<std::size_t>(op)];
      s.detached.insert(std::upper_bound(s.detached.begin(), s.detached.end(), op), op);
      --coll_waiting_[static_cast<std::size_t>(c)];
      --coll_size_[static_cast<std::size_t>(c)];
      ++s.split_collectives;
      std::int32_t in = 0;
      s.forced = op;
      incoming_stride(op, s, &in);
      s.forced = kNoOp;
      finish(op, in, s);
      complete_collective_if_ready(c, s);
      s.ready.push_back(best);
    } else {
      ++s.forced_orderings;
      unpark(best, s);
      s.forced = op;
      advance(best, s);
      s.forced = kNoOp;
    }
    return true;
  }

  // Takes parked process p off the list of the send it waits for.
  void unpark(ProcessIndex p, Scratch& s) {
    const auto up = static_cast<std::size_t>(p);
    ProcessIndex* link = &first_waiter_[static_cast<std::size_t>(s.parked_on[up])];
    while (*link != p) link = &s.next_waiter[static_cast<std::size_t>(*link)];
    *link = s.next_waiter[up];
    s.parked_on[up] = kNoOp;
  }

  const CommTrace& t_;
  const PartitionRuns& runs_;
  const ReceivedMessages& received_;
  const CollectiveOfOps& coll_of_;
  std::vector<std::int32_t> stride_;            // per op done: the largest stride before or at it
  std::vector<ProcessIndex> first_waiter_;      // per op: the processes parked on it
  std::vector<std::int32_t> coll_waiting_, coll_size_;
};

// Steps within one partition at a time, with per-process cursors and last
// steps kept in arrays indexed by process and reset per partition.
// Partitions are independent here (a message never leaves its partition, and
// each op belongs to one), so two threads can step two sets of partitions,
// each with cursors of its own, writing disjoint entries of the result.
class LocalStepper {
 public:
  LocalStepper(const CommTrace& t, const Partitioning& parts, const PartitionRuns& runs,
               const ReceivedMessages& received, const StrideResult& strides)
      : t_(t), runs_(runs), received_(received), strides_(strides) {
    out_.raw.assign(static_cast<std::size_t>(t.op_count()), -1);
    out_.partition_width.assign(static_cast<std::size_t>(parts.count), 0);
  }

  LocalSteps run(int threads) {
    const auto partitions = static_cast<std::int32_t>(runs_.first.size()) - 1;
    run_in_two_parts(split_partitions_by_ops(runs_, threads), partitions,
                        [&](int, std::int32_t first, std::int32_t end) { step_partitions(first, end); });
    return std::move(out_);
  }

 private:
  // One thread's scratch, indexed by process.
  struct Cursors {
    std::vector<OpIndex> cursor, run_end;
    std::vector<std::int32_t> last;
    // The partition's ops that define a stride, by stride and then op: the
    // ops of stride s are by_stride[stride_first[s] .. stride_first[s + 1]).
    std::vector<OpIndex> by_stride;
    std::vector<std::int32_t> stride_first;
  };

  void step_partitions(std::int32_t first, std::int32_t end) {
    Cursors c;
    c.cursor.assign(static_cast<std::size_t>(t_.process_count), 0);
    c.run_end.assign(static_cast<std::size_t>(t_.process_count), 0);
    c.last.assign(static_cast<std::size_t>(t_.process_count), -1);
    for (std::int32_t p = first; p < end; ++p) step_partition(p, c);
  }

  void step_partition(std::int32_t part, Cursors& c) {
    auto r0 = runs_.first[static_cast<std::size_t>(part)];
    auto r1 = runs_.first[static_cast<std::size_t>(part) + 1];
    for (auto r = r0; r < r1; ++r) {
      auto p = static_cast<std::size_t>(runs_.process[static_cast<std::size_t>(r)]);
      c.cursor[p] = runs_.first_op[static_cast<std::size_t>(r)];
      c.run_end[p] = runs_.last_op[static_cast<std::size_t>(r)] + 1;
      c.last[p] = -1;
    }
    sort_ops_by_stride(r0, r1, c);
    std::int32_t width = 0, stride_step = -1;
    for (std::size_t s = 1; s + 1 < c.stride_first.size(); ++s) {
      const auto k = static_cast<std::size_t>(c.stride_first[s]), k_end = static_cast<std::size_t>(c.stride_first[s + 1]);
      if (k == k_end) continue;
      // Receives before this stride's ops go first, as early as they can.
      std::int32_t step = stride_step + 1;
      for (std::size_t j = k; j < k_end; ++j) {
        OpIndex op = c.by_stride[j];
        auto p = static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)]);
        while (c.cursor[p] < op) place_asap(c.cursor[p]++, c);
        step = std::max(step, c.last[p] + 1);
      }
      for (std::size_t j = k; j < k_end; ++j) {
        OpIndex op = c.by_stride[j];
        auto p = static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)]);
        out_.raw[static_cast<std::size_t>(op)] = step;
        c.last[p] = step;
        c.cursor[p] = std::max(c.cursor[p], op + 1);
      }
      stride_step = step;
      width = std::max(width, step + 1);
    }
    for (auto r = r0; r < r1; ++r) {
      auto p = static_cast<std::size_t>(runs_.process[static_cast<std::size_t>(r)]);
      while (c.cursor[p] < c.run_end[p]) place_asap(c.cursor[p]++, c);
      width = std::max(width, c.last[p] + 1);
    }
    out_.partition_width[static_cast<std::size_t>(part)] = width;
  }

  // The ops of runs [r0, r1) with a stride, by stride and then op: a
  // counting sort, since strides are small (at most the ops of a run). The
  // runs come in process order and their ops in op order, so each stride's
  // ops come out in op order with no comparison (std::sort of (stride, op)
  // pairs was a fifth of the local steps at 16,384 processes).
  void sort_ops_by_stride(std::int32_t r0, std::int32_t r1, Cursors& c) const {
    c.stride_first.assign(1, 0);
    auto for_each_stride_op = [&](auto f) {
      for (auto r = r0; r < r1; ++r)
        for (OpIndex op = runs_.first_op[static_cast<std::size_t>(r)]; op <= runs_.last_op[static_cast<std::size_t>(r)]; ++op)
          if (const std::int32_t s = strides_.stride[static_cast<std::size_t>(op)]; s > 0) f(s, op);
    };
    for_each_stride_op([&](std::int32_t s, OpIndex) {
      if (static_cast<std::size_t>(s) + 2 > c.stride_first.size()) c.stride_first.resize(static_cast<std::size_t>(s) + 2, 0);
      ++c.stride_first[static_cast<std::size_t>(s) + 1];
    });
    for (std::size_t s = 1; s < c.stride_first.size(); ++s) c.stride_first[s] += c.stride_first[s - 1];
    c.by_stride.resize(static_cast<std::size_t>(c.stride_first.back()));
    for_each_stride_op([&](std::int32_t s, OpIndex op) { c.by_stride[static_cast<std::size_t>(c.stride_first[static_cast<std::size_t>(s)]++)] = op; });
    // The scatter advanced each start to the next stride's: shift them back.
    for (std::size_t s = c.stride_first.size() - 1; s > 0; --s) c.stride_first[s] = c.stride_first[s - 1];
    c.stride_first[0] = 0;
  }

  void place_asap(OpIndex op, Cursors& c) {
    auto p = static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)]);
    std::int32_t step = c.last[p] + 1;
    for (const OpIndex s : received_.senders(op))
      if (s != kNoOp) step = std::max(step, out_.raw[static_cast<std::size_t>(s)] + 1);
    out_.raw[static_cast<std::size_t>(op)] = step;
    c.last[p] = step;
  }

  const CommTrace& t_;
  const PartitionRuns& runs_;
  const ReceivedMessages& received_;
  const StrideResult& strides_;
  LocalSteps out_;
};

}  // namespace

StrideResult assign_strides(const CommTrace& trace, const PartitionRuns& runs, const ReceivedMessages& received,
                            const CollectiveOfOps& collective_of_op, int threads) {
  return StrideSweep(trace, runs, received, collective_of_op).run(threads);
}

LocalSteps assign_local_steps(const CommTrace& trace, const Partitioning& parts,
                              const PartitionRuns& runs, const ReceivedMessages& received,
                              const StrideResult& strides, int threads) {
  return LocalStepper(trace, parts, runs, received, strides).run(threads);
}

std::vector<std::int32_t> assign_global_steps(const PartitionGraph& graph,
                                              const std::vector<std::int32_t>& width) {
  std::vector<std::int32_t> offset(width.size(), 0);
  for (std::size_t p = 0; p < width.size(); ++p)
    for (std::int32_t q : graph.predecessors(static_cast<std::int32_t>(p)))
      offset[p] = std::max(offset[p], offset[static_cast<std::size_t>(q)] + width[static_cast<std::size_t>(q)]);
  return offset;
}

}  // namespace weft::structure
