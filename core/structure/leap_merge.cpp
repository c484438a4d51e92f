#include "structure/leap_merge.h"

#include <algorithm>
#include <limits>

#include "structure/union_find.h"

namespace weft::structure {
namespace {

constexpr TimeNs kFar = std::numeric_limits<TimeNs>::max() / (2 * kBackwardMergeFactor);

class LeapMerger {
 public:
  LeapMerger(const CommTrace& t, Partitioning& parts, PartitionGraph& graph, bool force, int threads)
      : t_(t), parts_(parts), graph_(graph), force_(force), threads_(threads),
        seen_(static_cast<std::size_t>(t.process_count), 0) {
    for (ProcessIndex p = 0; p < t.process_count; ++p)
      if (t.end_op(p) > t.first_op(p)) ++communicating_;
  }

  LeapMergeStats run() {
    // The partition graph is rebuilt only after a merge: a complete or
    // accepted leap just moves k on, so a trace whose leaps are already
    // complete costs one graph build, not one per leap.
    std::int32_t k = 0;
    bool stable_seen = false;  // the current leap went through a pass without change
    recompute();
    while (k < leap_count_) {
      ++stats_.passes;
      if (leap_complete(k)) {
        ++k;
        stable_seen = false;
        continue;
      }
      if (!stable_seen) {
        if (merge_pass(k)) {
          recompute();
          continue;
        }
        stable_seen = true;
      }
      if (force_ && absorb_next_leap(k)) {
        recompute();
        stable_seen = false;
        continue;
      }
      ++stats_.incomplete_leaps;
      ++k;
      stable_seen = false;
    }
    return stats_;
  }

  // The runs of the partitions run() left: every change is followed by a
  // recompute().
  PartitionRuns take_runs() { return std::move(runs_); }

 private:
  void recompute() {
    merge_cycles_and_order(t_, parts_, graph_, threads_);
    leap_ = compute_leaps(graph_, parts_.count);
    runs_ = collect_runs(t_, parts_, threads_);
    leap_count_ = parts_.count ? *std::max_element(leap_.begin(), leap_.end()) + 1 : 0;
    // Partitions of each leap, in id order (CSR).
    leap_first_.assign(static_cast<std::size_t>(leap_count_) + 1, 0);
    for (std::int32_t l : leap_) ++leap_first_[static_cast<std::size_t>(l) + 1];
    for (std::size_t i = 0; i + 1 < leap_first_.size(); ++i) leap_first_[i + 1] += leap_first_[i];
    leap_members_.resize(leap_.size());
    std::vector<std::int32_t> fill(leap_first_.begin(), leap_first_.end() - 1);
    for (std::int32_t p = 0; p < parts_.count; ++p)
      leap_members_[static_cast<std::size_t>(fill[static_cast<std::size_t>(leap_[static_cast<std::size_t>(p)])]++)] = p;
  }

  std::span<const std::int32_t> members(std::int32_t leap) const {
    return {leap_members_.data() + leap_first_[static_cast<std::size_t>(leap)],
            leap_members_.data() + leap_first_[static_cast<std::size_t>(leap) + 1]};
  }

  // Marks the processes of the leap's partitions; returns how many distinct.
  std::int32_t mark_leap_processes(std::int32_t leap) {
    ++epoch_;
    std::int32_t distinct = 0;
    for (std::int32_t p : members(leap)) distinct += mark_processes(p);
    return distinct;
  }

  std::int32_t mark_processes(std::int32_t partition) {
    std::int32_t added = 0;
    for (auto r = runs_.first[static_cast<std::size_t>(partition)];
         r < runs_.first[static_cast<std::size_t>(partition) + 1]; ++r) {
      auto& s = seen_[static_cast<std::size_t>(runs_.process[static_cast<std::size_t>(r)])];
      if (s != epoch_) {
        s = epoch_;
        ++added;
      }
    }
    return added;
  }

  bool will_expand(std::int32_t partition) const {
    for (auto r = runs_.first[static_cast<std::size_t>(partition)];
         r < runs_.first[static_cast<std::size_t>(partition) + 1]; ++r)
      if (seen_[static_cast<std::size_t>(runs_.process[static_cast<std::size_t>(r)])] != epoch_)
        return true;
    return false;
  }

  bool leap_complete(std::int32_t leap) { return mark_leap_processes(leap) >= communicating_; }

  // Leap distances (Algorithm 1): incoming = the smallest gap between the
  // partition's first op on a process and the op before it there (in a
  // predecessor); outgoing = the smallest gap between its last op on a process
  // and the op after it. kFar when there is no such neighbour.
  TimeNs incoming_distance(std::int32_t partition) const { return smallest_gap(partition, true); }
  TimeNs outgoing_distance(std::int32_t partition) const { return smallest_gap(partition, false); }

  TimeNs smallest_gap(std::int32_t partition, bool incoming) const {
    TimeNs best = kFar;
    for (auto r = runs_.first[static_cast<std::size_t>(partition)];
         r < runs_.first[static_cast<std::size_t>(partition) + 1]; ++r) {
      auto ur = static_cast<std::size_t>(r);
      OpIndex own = incoming ? runs_.first_op[ur] : runs_.last_op[ur];
      OpIndex other = incoming ? t_.prev_on_process(own) : t_.next_on_process(own);
      if (other == kNoOp) continue;
      OpIndex earlier = incoming ? other : own, later = incoming ? own : other;
      best = std::min(best, t_.start[static_cast<std::size_t>(later)] - t_.end[static_cast<std::size_t>(earlier)]);
    }
    return best;
  }

  // One pass of Algorithm 1's inner loop over the leap; returns true when it merged.
  bool merge_pass(std::int32_t k) {
    UnionFind sets(parts_.count);
    bool changed = false;
    mark_leap_processes(k);
    for (std::int32_t p : members(k)) {
      TimeNs incoming = k > 0 ? incoming_distance(p) : kFar;
      TimeNs outgoing = outgoing_distance(p);
      bool backward = incoming < kFar && std::max<TimeNs>(incoming, 0) * kBackwardMergeFactor <
                                             std::max<TimeNs>(outgoing, 0);
      if (backward) {
        for (std::int32_t q : graph_.predecessors(p))
          if (leap_[static_cast<std::size_t>(q)] == k - 1 && sets.unite(p, q)) {
            changed = true;
            ++stats_.backward_merges;
          }
        continue;
      }
      for (std::int32_t c : graph_.successors(p)) {
        if (!will_expand(c)) continue;
        mark_processes(c);
        sets.unite(p, c);
        ++stats_.forward_absorbs;
        changed = true;
      }
    }
    if (changed) apply(sets);
    return changed;
  }

  // --leap-force: every partition of the leap absorbs all its successors.
  bool absorb_next_leap(std::int32_t k) {
    UnionFind sets(parts_.count);
    bool changed = false;
    for (std::int32_t p : members(k))
      for (std::int32_t c : graph_.successors(p)) changed |= sets.unite(p, c);
    if (changed) {
      ++stats_.forced_merges;
      apply(sets);
    }
    return changed;
  }

  void apply(UnionFind& sets) {
    std::int32_t count = 0;
    std::vector<std::int32_t> label = std::move(sets).labels(&count);
    relabel_partitions(parts_, label, count);
    graph_ = relabeled_graph(graph_, label, count);
  }

  const CommTrace& t_;
  Partitioning& parts_;
  PartitionGraph& graph_;  // of parts_
  bool force_;
  int threads_;
  LeapMergeStats stats_;
  std::int32_t communicating_ = 0;
  std::vector<std::uint32_t> seen_;
  std::uint32_t epoch_ = 0;
  std::vector<std::int32_t> leap_;
  std::int32_t leap_count_ = 0;
  std::vector<std::int32_t> leap_first_, leap_members_;
  PartitionRuns runs_;
};

}  // namespace

std::vector<std::int32_t> compute_leaps(const PartitionGraph& g, std::int32_t partitions) {
  std::vector<std::int32_t> leap(static_cast<std::size_t>(partitions), 0);
  for (std::int32_t p = 0; p < partitions; ++p)
    for (std::int32_t q : g.predecessors(p))
      leap[static_cast<std::size_t>(p)] =
          std::max(leap[static_cast<std::size_t>(p)], leap[static_cast<std::size_t>(q)] + 1);
  return leap;
}

LeapMergeStats merge_by_leap(const CommTrace& trace, Partitioning& parts, PartitionGraph& graph, bool force,
                             int threads, PartitionRuns* runs) {
  LeapMerger merger(trace, parts, graph, force, threads);
  const LeapMergeStats stats = merger.run();
  if (runs) *runs = merger.take_runs();
  return stats;
}

}  // namespace weft::structure
