#include "structure/step_assignment.h"

#include <algorithm>
#include <limits>
#include <thread>

namespace weft::structure {
namespace {

// Kahn's algorithm over ops with the happened-before edges (process order,
// send -> receive), collectives processed as one node once all members are
// ready. When the graph has a cycle (only bad input can make one: e.g. a
// collective that one process enters after receiving what another sent after
// it), the process head that started earliest is forced through.
class StrideSweep {
 public:
  StrideSweep(const CommTrace& t, const Partitioning& parts, const ReceivedMessages& received,
              const CollectiveOfOps& coll_of)
      : t_(t), parts_(parts), received_(received), coll_of_(coll_of) {
    const auto n = static_cast<std::size_t>(t.op_count());
    last_stride_.assign(n, kNotDone);
    pending_.assign(n, 0);
    for (OpIndex op = 0; op < t.op_count(); ++op) {
      auto i = static_cast<std::size_t>(op);
      pending_[i] = (t.prev_on_process(op) != kNoOp ? 1 : 0);
      for (std::int32_t m : received.of(op))
        if (t.msg_send_op[static_cast<std::size_t>(m)] != kNoOp) ++pending_[i];
    }
    // Sends feed the receives that complete their messages.
    sends_first_.assign(n + 1, 0);
    for (std::int32_t m = 0; m < t.message_count(); ++m) {
      OpIndex s = t.msg_send_op[static_cast<std::size_t>(m)];
      if (s != kNoOp && t.msg_recv_op[static_cast<std::size_t>(m)] != kNoOp)
        ++sends_first_[static_cast<std::size_t>(s) + 1];
    }
    for (std::size_t i = 0; i < n; ++i) sends_first_[i + 1] += sends_first_[i];
    sent_to_.resize(static_cast<std::size_t>(sends_first_[n]));
    std::vector<std::int32_t> fill(sends_first_.begin(), sends_first_.end() - 1);
    for (std::int32_t m = 0; m < t.message_count(); ++m) {
      OpIndex s = t.msg_send_op[static_cast<std::size_t>(m)];
      OpIndex r = t.msg_recv_op[static_cast<std::size_t>(m)];
      if (s != kNoOp && r != kNoOp) sent_to_[static_cast<std::size_t>(fill[static_cast<std::size_t>(s)]++)] = r;
    }
    coll_waiting_.assign(static_cast<std::size_t>(t.collective_count()), 0);
    coll_size_.resize(static_cast<std::size_t>(t.collective_count()));
    for (std::int32_t c = 0; c < t.collective_count(); ++c)
      coll_size_[static_cast<std::size_t>(c)] =
          t.coll_first[static_cast<std::size_t>(c) + 1] - t.coll_first[static_cast<std::size_t>(c)];
    head_.assign(t.process_first_op.begin(), t.process_first_op.end() - 1);
  }

  StrideResult run() {
    for (OpIndex op = 0; op < t_.op_count(); ++op)
      if (pending_[static_cast<std::size_t>(op)] == 0) ready_.push_back(op);
    std::int32_t remaining = t_.op_count();
    while (remaining > 0) {
      if (ready_.empty()) force_progress();
      if (ready_.empty()) break;
      OpIndex op = ready_.back();
      ready_.pop_back();
      remaining -= take(op);
    }
    // The strides are the last strides of the ops that define one (ops left
    // undone, which only a broken sweep would leave, get 0).
    for (std::size_t i = 0; i < last_stride_.size(); ++i)
      if (!defines_stride(t_.kind[i]) || last_stride_[i] < 0) last_stride_[i] = 0;
    result_.stride = std::move(last_stride_);
    return std::move(result_);
  }

 private:
  // Handles a ready op; returns how many ops were completed.
  std::int32_t take(OpIndex op) {
    std::int32_t c = coll_of_[static_cast<std::size_t>(op)];
    if (c < 0 || detached_(op)) {
      finish(op, incoming_stride(op));
      return 1 + (c >= 0 ? complete_collective_if_ready(c) : 0);
    }
    ++coll_waiting_[static_cast<std::size_t>(c)];
    return complete_collective_if_ready(c);
  }

  // When every (remaining) member of collective c is ready, they all take one
  // stride; returns how many ops that completed.
  std::int32_t complete_collective_if_ready(std::int32_t c) {
    auto uc = static_cast<std::size_t>(c);
    if (coll_size_[uc] == 0 || coll_waiting_[uc] < coll_size_[uc]) return 0;
    coll_size_[uc] = 0;  // completed; a later detach must not complete it again
    std::int32_t in = 0;
    for_members(c, [&](OpIndex m) { in = std::max(in, incoming_stride(m)); });
    std::int32_t completed = 0;
    for_members(c, [&](OpIndex m) {
      finish(m, in);
      ++completed;
    });
    return completed;
  }

  bool detached_(OpIndex op) const {
    return std::binary_search(detached_ops_.begin(), detached_ops_.end(), op);
  }

  template <class F>
  void for_members(std::int32_t c, F f) {
    for (auto k = t_.coll_first[static_cast<std::size_t>(c)];
         k < t_.coll_first[static_cast<std::size_t>(c) + 1]; ++k) {
      OpIndex m = t_.coll_members[static_cast<std::size_t>(k)];
      if (!done(m) && !detached_(m)) f(m);
    }
  }

  // The largest stride that happened before `op` within its partition.
  std::int32_t incoming_stride(OpIndex op) const {
    std::int32_t in = 0;
    OpIndex prev = t_.prev_on_process(op);
    auto part = parts_.of_op[static_cast<std::size_t>(op)];
    if (prev != kNoOp && parts_.of_op[static_cast<std::size_t>(prev)] == part)
      in = std::max(in, last_stride_[static_cast<std::size_t>(prev)]);  // kNotDone adds nothing
    for (std::int32_t m : received_.of(op)) {
      OpIndex s = t_.msg_send_op[static_cast<std::size_t>(m)];
      if (s != kNoOp && done(s) &&
          parts_.of_op[static_cast<std::size_t>(s)] == part)
        in = std::max(in, last_stride_[static_cast<std::size_t>(s)]);
    }
    return in;
  }

  void finish(OpIndex op, std::int32_t in) {
    auto i = static_cast<std::size_t>(op);
    last_stride_[i] = defines_stride(t_.kind[i]) ? in + 1 : in;
    auto p = static_cast<std::size_t>(t_.process[i]);
    while (head_[p] < t_.end_op(t_.process[i]) && done(head_[p])) ++head_[p];
    release(t_.next_on_process(op));
    for (auto k = sends_first_[i]; k < sends_first_[i + 1]; ++k)
      release(sent_to_[static_cast<std::size_t>(k)]);
  }

  void release(OpIndex op) {
    if (op == kNoOp) return;
    auto i = static_cast<std::size_t>(op);
    if (pending_[i] > 0 && --pending_[i] == 0) ready_.push_back(op);
  }

  // Breaks a happened-before cycle: the earliest-starting process head whose
  // own process predecessor is done goes next, ignoring its unfinished sends;
  // a collective member that cannot wait for the rest is stepped alone.
  void force_progress() {
    OpIndex best = kNoOp;
    for (ProcessIndex p = 0; p < t_.process_count; ++p) {
      OpIndex h = head_[static_cast<std::size_t>(p)];
      if (h >= t_.end_op(p) || done(h)) continue;
      OpIndex prev = t_.prev_on_process(h);
      if (prev != kNoOp && !done(prev)) continue;
      if (best == kNoOp || t_.start[static_cast<std::size_t>(h)] < t_.start[static_cast<std::size_t>(best)])
        best = h;
    }
    if (best == kNoOp) return;  // unreachable: some head is always startable
    auto i = static_cast<std::size_t>(best);
    std::int32_t c = coll_of_[i];
    if (c >= 0 && pending_[i] == 0) {
      // Already counted as waiting in its collective: detach it.
      detached_ops_.insert(std::upper_bound(detached_ops_.begin(), detached_ops_.end(), best), best);
      --coll_waiting_[static_cast<std::size_t>(c)];
      --coll_size_[static_cast<std::size_t>(c)];
      ++result_.split_collectives;
    } else {
      ++result_.forced_orderings;
    }
    pending_[i] = 0;
    ready_.push_back(best);
  }

  // An op is done once it has its last stride: the largest stride that
  // happened before it or at it (kNotDone until then).
  static constexpr std::int32_t kNotDone = -1;
  bool done(OpIndex op) const { return last_stride_[static_cast<std::size_t>(op)] != kNotDone; }

  const CommTrace& t_;
  const Partitioning& parts_;
  const ReceivedMessages& received_;
  const CollectiveOfOps& coll_of_;
  StrideResult result_;
  std::vector<std::int32_t> last_stride_, pending_;
  std::vector<std::int32_t> sends_first_;
  std::vector<OpIndex> sent_to_;
  std::vector<std::int32_t> coll_waiting_, coll_size_;
  std::vector<OpIndex> head_, ready_, detached_ops_;
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
    std::int32_t split = partitions;
    if (threads > 1 && partitions > 1) {
      // The first partition past half of the ops starts the second set.
      std::int64_t total = 0;
      for (std::size_t r = 0; r < runs_.process.size(); ++r) total += runs_.last_op[r] - runs_.first_op[r] + 1;
      std::int64_t seen = 0;
      split = 0;
      while (split < partitions && 2 * seen < total) {
        for (auto r = runs_.first[static_cast<std::size_t>(split)]; r < runs_.first[static_cast<std::size_t>(split) + 1]; ++r)
          seen += runs_.last_op[static_cast<std::size_t>(r)] - runs_.first_op[static_cast<std::size_t>(r)] + 1;
        ++split;
      }
    }
    if (split < partitions) {
      std::thread second([&] { step_partitions(split, partitions); });
      try {
        step_partitions(0, split);
      } catch (...) {
        second.join();
        throw;
      }
      second.join();
    } else {
      step_partitions(0, partitions);
    }
    return std::move(out_);
  }

 private:
  // One thread's scratch, indexed by process.
  struct Cursors {
    std::vector<OpIndex> cursor, run_end;
    std::vector<std::int32_t> last;
    std::vector<std::pair<std::int32_t, OpIndex>> by_stride;
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
    c.by_stride.clear();
    for (auto r = r0; r < r1; ++r) {
      auto p = static_cast<std::size_t>(runs_.process[static_cast<std::size_t>(r)]);
      c.cursor[p] = runs_.first_op[static_cast<std::size_t>(r)];
      c.run_end[p] = runs_.last_op[static_cast<std::size_t>(r)] + 1;
      c.last[p] = -1;
      for (OpIndex op = c.cursor[p]; op < c.run_end[p]; ++op) {
        std::int32_t s = strides_.stride[static_cast<std::size_t>(op)];
        if (s > 0) c.by_stride.push_back({s, op});
      }
    }
    std::sort(c.by_stride.begin(), c.by_stride.end());
    std::int32_t width = 0, stride_step = -1;
    for (std::size_t k = 0; k < c.by_stride.size();) {
      std::size_t k_end = k;
      while (k_end < c.by_stride.size() && c.by_stride[k_end].first == c.by_stride[k].first) ++k_end;
      // Receives before this stride's ops go first, as early as they can.
      std::int32_t step = stride_step + 1;
      for (std::size_t j = k; j < k_end; ++j) {
        OpIndex op = c.by_stride[j].second;
        auto p = static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)]);
        while (c.cursor[p] < op) place_asap(c.cursor[p]++, c);
        step = std::max(step, c.last[p] + 1);
      }
      for (std::size_t j = k; j < k_end; ++j) {
        OpIndex op = c.by_stride[j].second;
        auto p = static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)]);
        out_.raw[static_cast<std::size_t>(op)] = step;
        c.last[p] = step;
        c.cursor[p] = std::max(c.cursor[p], op + 1);
      }
      stride_step = step;
      width = std::max(width, step + 1);
      k = k_end;
    }
    for (auto r = r0; r < r1; ++r) {
      auto p = static_cast<std::size_t>(runs_.process[static_cast<std::size_t>(r)]);
      while (c.cursor[p] < c.run_end[p]) place_asap(c.cursor[p]++, c);
      width = std::max(width, c.last[p] + 1);
    }
    out_.partition_width[static_cast<std::size_t>(part)] = width;
  }

  void place_asap(OpIndex op, Cursors& c) {
    auto p = static_cast<std::size_t>(t_.process[static_cast<std::size_t>(op)]);
    std::int32_t step = c.last[p] + 1;
    for (std::int32_t m : received_.of(op)) {
      OpIndex s = t_.msg_send_op[static_cast<std::size_t>(m)];
      if (s != kNoOp) step = std::max(step, out_.raw[static_cast<std::size_t>(s)] + 1);
    }
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

StrideResult assign_strides(const CommTrace& trace, const Partitioning& parts,
                            const ReceivedMessages& received,
                            const CollectiveOfOps& collective_of_op) {
  return StrideSweep(trace, parts, received, collective_of_op).run();
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
