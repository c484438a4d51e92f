#include "structure/message_passing_reorder.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace weft::structure {
namespace {

bool is_receive(const CommTrace& t, const ReceivedMessages& received, OpIndex op) {
  const OpKind k = t.kind[static_cast<std::size_t>(op)];
  return (k == OpKind::Recv || k == OpKind::Wait) && !received.of(op).empty();
}

// CSR from each send op to the ops that receive its messages.
struct SentTo {
  std::vector<std::int32_t> first;
  std::vector<OpIndex> recv;
};
SentTo index_sent_to(const CommTrace& t) {
  SentTo s;
  const auto n = static_cast<std::size_t>(t.op_count());
  s.first.assign(n + 1, 0);
  for (std::int32_t m = 0; m < t.message_count(); ++m)
    if (t.msg_send_op[static_cast<std::size_t>(m)] != kNoOp && t.msg_recv_op[static_cast<std::size_t>(m)] != kNoOp)
      ++s.first[static_cast<std::size_t>(t.msg_send_op[static_cast<std::size_t>(m)]) + 1];
  for (std::size_t i = 0; i < n; ++i) s.first[i + 1] += s.first[i];
  s.recv.resize(static_cast<std::size_t>(s.first[n]));
  std::vector<std::int32_t> fill(s.first.begin(), s.first.end() - 1);
  for (std::int32_t m = 0; m < t.message_count(); ++m) {
    const OpIndex snd = t.msg_send_op[static_cast<std::size_t>(m)], rcv = t.msg_recv_op[static_cast<std::size_t>(m)];
    if (snd != kNoOp && rcv != kNoOp) s.recv[static_cast<std::size_t>(fill[static_cast<std::size_t>(snd)]++)] = rcv;
  }
  return s;
}

// Kahn's algorithm over nodes with a "lowest unfinished op" fallback for
// cycles; `visit(op)` handles one ready op and calls release() on successors.
class OpSweep {
 public:
  explicit OpSweep(std::int32_t ops) : pending_(static_cast<std::size_t>(ops), 0), done_(static_cast<std::size_t>(ops), 0) {}
  std::vector<std::int32_t>& pending() { return pending_; }
  bool done(OpIndex op) const { return done_[static_cast<std::size_t>(op)] != 0; }
  void release(OpIndex op) {
    if (!done(op) && --pending_[static_cast<std::size_t>(op)] == 0) ready_.push_back(op);
  }
  template <class Visit>
  std::int32_t run(Visit visit) {
    for (std::size_t i = 0; i < pending_.size(); ++i)
      if (pending_[i] == 0) ready_.push_back(static_cast<OpIndex>(i));
    std::size_t finished = 0, cursor = 0;
    std::int32_t forced = 0;
    while (finished < pending_.size()) {
      if (ready_.empty()) {
        while (done_[cursor]) ++cursor;
        ready_.push_back(static_cast<OpIndex>(cursor));
        ++forced;
      }
      const OpIndex op = ready_.back();
      ready_.pop_back();
      if (done(op)) continue;
      finished += static_cast<std::size_t>(visit(op));
    }
    return forced;
  }
  void mark_done(OpIndex op) { done_[static_cast<std::size_t>(op)] = 1; }

 private:
  std::vector<std::int32_t> pending_;
  std::vector<char> done_;
  std::vector<OpIndex> ready_;
};

}  // namespace

std::vector<std::int32_t> message_passing_clocks(const CommTrace& t, const Partitioning& parts,
                                                 const ReceivedMessages& received) {
  const auto n = static_cast<std::size_t>(t.op_count());
  const SentTo sent = index_sent_to(t);
  auto part = [&](OpIndex op) { return parts.of_op[static_cast<std::size_t>(op)]; };
  auto prev_in_part = [&](OpIndex op) {
    const OpIndex p = t.prev_on_process(op);
    return p != kNoOp && part(p) == part(op) ? p : kNoOp;
  };
  std::vector<std::int32_t> w(n, 0), receive_max(n, -1);
  OpSweep sweep(t.op_count());
  for (OpIndex op = 0; op < t.op_count(); ++op) {
    auto& p = sweep.pending()[static_cast<std::size_t>(op)];
    p = prev_in_part(op) != kNoOp;
    for (std::int32_t m : received.of(op)) {
      const OpIndex s = t.msg_send_op[static_cast<std::size_t>(m)];
      if (s != kNoOp && part(s) == part(op)) ++p;
    }
  }
  sweep.run([&](OpIndex op) {
    const auto i = static_cast<std::size_t>(op);
    const OpIndex prev = prev_in_part(op);
    const std::int32_t before = prev == kNoOp ? -1 : receive_max[static_cast<std::size_t>(prev)];
    if (is_receive(t, received, op)) {
      std::int32_t in = -1;
      for (std::int32_t m : received.of(op)) {
        const OpIndex s = t.msg_send_op[static_cast<std::size_t>(m)];
        if (s != kNoOp && part(s) == part(op)) in = std::max(in, w[static_cast<std::size_t>(s)]);
      }
      w[i] = in + 1;
      receive_max[i] = std::max(before, w[i]);
    } else {
      w[i] = before + 1;
      receive_max[i] = before;
    }
    sweep.mark_done(op);
    const OpIndex next = t.next_on_process(op);
    if (next != kNoOp && part(next) == part(op)) sweep.release(next);
    for (std::int32_t k = sent.first[i]; k < sent.first[i + 1]; ++k) {
      const OpIndex r = sent.recv[static_cast<std::size_t>(k)];
      if (part(r) == part(op)) sweep.release(r);
    }
    return 1;
  });
  return w;
}

std::vector<OpIndex> reorder_process_runs(const CommTrace& t, const PartitionRuns& runs,
                                          const ReceivedMessages& received, const std::vector<std::int32_t>& w) {
  std::vector<OpIndex> order(static_cast<std::size_t>(t.op_count()));
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int32_t> fixed_w;
  std::vector<OpIndex> fixed;
  std::vector<std::tuple<std::int32_t, std::int32_t, ProcessIndex, OpIndex>> recvs;  // (group, w, sender, op)
  for (std::size_t r = 0; r < runs.first_op.size(); ++r) {
    fixed.clear();
    fixed_w.clear();
    recvs.clear();
    for (OpIndex op = runs.first_op[r]; op <= runs.last_op[r]; ++op) {
      const std::int32_t wo = w[static_cast<std::size_t>(op)];
      if (!is_receive(t, received, op)) {
        fixed.push_back(op);
        fixed_w.push_back(wo);
        continue;
      }
      // Before the first later-or-equal non-receive whose w exceeds its own.
      const auto by_w = static_cast<std::int32_t>(std::upper_bound(fixed_w.begin(), fixed_w.end(), wo) - fixed_w.begin());
      const OpIndex s = t.msg_send_op[static_cast<std::size_t>(received.of(op)[0])];
      const ProcessIndex sender = s == kNoOp ? t.process[static_cast<std::size_t>(op)] : t.process[static_cast<std::size_t>(s)];
      recvs.emplace_back(by_w, wo, sender, op);
    }
    std::sort(recvs.begin(), recvs.end());
    auto at = static_cast<std::size_t>(runs.first_op[r]);
    std::size_t k = 0;
    for (std::size_t g = 0; g <= fixed.size(); ++g) {
      for (; k < recvs.size() && static_cast<std::size_t>(std::get<0>(recvs[k])) == g; ++k) order[at++] = std::get<3>(recvs[k]);
      if (g < fixed.size()) order[at++] = fixed[g];
    }
  }
  return order;
}

LocalSteps assign_reordered_local_steps(const CommTrace& t, const Partitioning& parts, const PartitionRuns& runs,
                                        const ReceivedMessages& received, const CollectiveOfOps& coll_of,
                                        std::int32_t* forced) {
  const auto n = static_cast<std::size_t>(t.op_count());
  const std::vector<std::int32_t> w = message_passing_clocks(t, parts, received);
  const std::vector<OpIndex> order = reorder_process_runs(t, runs, received, w);
  std::vector<OpIndex> prev(n, kNoOp), next(n, kNoOp);
  for (std::size_t r = 0; r < runs.first_op.size(); ++r)
    for (OpIndex i = runs.first_op[r]; i < runs.last_op[r]; ++i) {
      const OpIndex a = order[static_cast<std::size_t>(i)], b = order[static_cast<std::size_t>(i) + 1];
      next[static_cast<std::size_t>(a)] = b;
      prev[static_cast<std::size_t>(b)] = a;
    }
  const SentTo sent = index_sent_to(t);
  auto part = [&](OpIndex op) { return parts.of_op[static_cast<std::size_t>(op)]; };
  LocalSteps steps;
  steps.raw.assign(n, 0);
  std::vector<std::int32_t> earliest(n, 0);  // one past the latest finished predecessor
  OpSweep sweep(t.op_count());
  for (OpIndex op = 0; op < t.op_count(); ++op) {
    auto& p = sweep.pending()[static_cast<std::size_t>(op)];
    p = prev[static_cast<std::size_t>(op)] != kNoOp;
    for (std::int32_t m : received.of(op)) {
      const OpIndex s = t.msg_send_op[static_cast<std::size_t>(m)];
      if (s != kNoOp && part(s) == part(op)) ++p;
    }
  }
  // A collective completes when all its members are ready (or forced).
  std::vector<std::int32_t> coll_ready(static_cast<std::size_t>(t.collective_count()), 0);
  auto finish = [&](OpIndex op, std::int32_t step) {
    const auto i = static_cast<std::size_t>(op);
    steps.raw[i] = step;
    sweep.mark_done(op);
    auto feed = [&](OpIndex to) {
      auto& e = earliest[static_cast<std::size_t>(to)];
      e = std::max(e, step + 1);
      sweep.release(to);
    };
    if (next[i] != kNoOp) feed(next[i]);
    for (std::int32_t k = sent.first[i]; k < sent.first[i + 1]; ++k) {
      const OpIndex r = sent.recv[static_cast<std::size_t>(k)];
      if (part(r) == part(op)) feed(r);
    }
  };
  *forced = sweep.run([&](OpIndex op) -> std::int32_t {
    const std::int32_t c = coll_of[static_cast<std::size_t>(op)];
    if (c < 0) {
      finish(op, earliest[static_cast<std::size_t>(op)]);
      return 1;
    }
    const auto uc = static_cast<std::size_t>(c);
    const auto members = t.coll_first[uc + 1] - t.coll_first[uc];
    if (++coll_ready[uc] < members) {
      sweep.mark_done(op);  // waits for the others; counted when they finish
      return 0;
    }
    std::int32_t step = 0;
    for (auto k = t.coll_first[uc]; k < t.coll_first[uc + 1]; ++k)
      step = std::max(step, earliest[static_cast<std::size_t>(t.coll_members[static_cast<std::size_t>(k)])]);
    for (auto k = t.coll_first[uc]; k < t.coll_first[uc + 1]; ++k) finish(t.coll_members[static_cast<std::size_t>(k)], step);
    return static_cast<std::int32_t>(members);
  });
  steps.partition_width.assign(static_cast<std::size_t>(parts.count), 0);
  for (std::size_t i = 0; i < n; ++i) {
    auto& width = steps.partition_width[static_cast<std::size_t>(parts.of_op[i])];
    width = std::max(width, steps.raw[i] + 1);
  }
  return steps;
}

}  // namespace weft::structure
