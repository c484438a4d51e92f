#include "structure/lateness.h"

#include <algorithm>
#include <limits>

#include "common/two_parts.h"

namespace weft::structure {
namespace {

constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();

// The earliest and latest exit in each (partition, step) slot and each
// global step slot, over some of the ops.
struct SlotExtremes {
  std::vector<TimeNs> local_min, local_max, global_min, global_max;

  SlotExtremes(std::int64_t local_slots, std::int64_t global_slots)
      : local_min(static_cast<std::size_t>(local_slots), kNone),
        local_max(static_cast<std::size_t>(local_slots), std::numeric_limits<TimeNs>::min()),
        global_min(static_cast<std::size_t>(global_slots), kNone),
        global_max(static_cast<std::size_t>(global_slots), std::numeric_limits<TimeNs>::min()) {}

  void add(std::size_t local_slot, std::size_t global_slot, TimeNs end) {
    local_min[local_slot] = std::min(local_min[local_slot], end);
    local_max[local_slot] = std::max(local_max[local_slot], end);
    global_min[global_slot] = std::min(global_min[global_slot], end);
    global_max[global_slot] = std::max(global_max[global_slot], end);
  }
  void merge(const SlotExtremes& o) {
    for (std::size_t s = 0; s < local_min.size(); ++s) {
      local_min[s] = std::min(local_min[s], o.local_min[s]);
      local_max[s] = std::max(local_max[s], o.local_max[s]);
    }
    for (std::size_t s = 0; s < global_min.size(); ++s) {
      global_min[s] = std::min(global_min[s], o.global_min[s]);
      global_max[s] = std::max(global_max[s], o.global_max[s]);
    }
  }
  static TimeNs largest_spread(const std::vector<TimeNs>& min, const std::vector<TimeNs>& max) {
    TimeNs largest = 0;
    for (std::size_t s = 0; s < min.size(); ++s)
      if (min[s] != kNone) largest = std::max(largest, max[s] - min[s]);
    return largest;
  }
  TimeNs largest_local_spread() const { return largest_spread(local_min, local_max); }
  TimeNs largest_global_spread() const { return largest_spread(global_min, global_max); }
};

}  // namespace

LatenessMetrics::LatenessMetrics(const CommTrace& t, const Partitioning& parts,
                                 const std::vector<std::int32_t>& global_raw,
                                 const std::vector<std::int32_t>& width,
                                 const std::vector<std::int32_t>& offset,
                                 const ReceivedMessages& received, CollectiveOfOps collective_of, int threads)
    : t_(&t), parts_(&parts), global_raw_(&global_raw), received_(&received), coll_of_(std::move(collective_of)) {
  local_base_.resize(width.size());
  std::int64_t local_slots = 0, global_width = 0;
  for (std::size_t p = 0; p < width.size(); ++p) {
    local_base_[p] = local_slots - offset[p];
    local_slots += width[p];
    global_width = std::max<std::int64_t>(global_width, offset[p] + width[p]);
  }
  // Each part of the ops finds its slots' extremes apart, merged after: when
  // the slots are few (the partitions' widths, usually a few per process'
  // thousands of ops), so that the second part's copy costs little memory.
  const bool two_parts = two_copies_are_cheap(local_slots + global_width, t.op_count(), threads);
  std::vector<SlotExtremes> parts_extremes(two_parts ? 2 : 1, SlotExtremes(local_slots, global_width));
  run_in_two_parts(two_part_split(t.op_count(), two_parts ? 2 : 1), t.op_count(), [&](int half, OpIndex first, OpIndex end) {
    SlotExtremes& x = parts_extremes[static_cast<std::size_t>(half)];
    for (OpIndex op = first; op < end; ++op) {
      auto i = static_cast<std::size_t>(op);
      auto part = static_cast<std::size_t>(parts.of_op[i]);
      x.add(static_cast<std::size_t>(local_base_[part] + global_raw[i]), static_cast<std::size_t>(global_raw[i]), t.end[i]);
    }
  });
  SlotExtremes& x = parts_extremes[0];
  if (two_parts) x.merge(parts_extremes[1]);
  // The largest lateness of a slot is its latest exit less its earliest, so
  // the run's largest are known without computing every op's.
  max_lateness_ = x.largest_local_spread();
  max_global_lateness_ = x.largest_global_spread();
  local_min_ = std::move(x.local_min);
  global_min_ = std::move(x.global_min);
}

TimeNs LatenessMetrics::lateness(OpIndex op) const {
  auto i = static_cast<std::size_t>(op);
  auto part = static_cast<std::size_t>(parts_->of_op[i]);
  return t_->end[i] - local_min_[static_cast<std::size_t>(local_base_[part] + (*global_raw_)[i])];
}

TimeNs LatenessMetrics::global_lateness(OpIndex op) const {
  auto i = static_cast<std::size_t>(op);
  return t_->end[i] - global_min_[static_cast<std::size_t>((*global_raw_)[i])];
}

TimeNs LatenessMetrics::diff_lateness(OpIndex op) const {
  TimeNs before = 0;
  OpIndex prev = t_->prev_on_process(op);
  if (prev != kNoOp) before = std::max(before, lateness(prev));
  for (const OpIndex s : received_->senders(op))
    if (s != kNoOp) before = std::max(before, lateness(s));
  return std::max<TimeNs>(0, lateness(op) - before);
}

TimeNs LatenessMetrics::wait(OpIndex op) const {
  auto i = static_cast<std::size_t>(op);
  TimeNs partner_start = std::numeric_limits<TimeNs>::min();
  if (t_->kind[i] == OpKind::Collective) {
    std::int32_t c = coll_of_[i];
    if (c >= 0) partner_start = coll_of_.last_start(c);
  } else {
    for (const OpIndex s : received_->senders(op))
      if (s != kNoOp) partner_start = std::max(partner_start, t_->start[static_cast<std::size_t>(s)]);
  }
  if (partner_start == std::numeric_limits<TimeNs>::min()) return 0;
  return std::clamp<TimeNs>(partner_start - t_->start[i], 0, t_->end[i] - t_->start[i]);
}

void LatenessMetrics::prefetch(OpIndex op) const {
  if (op >= t_->op_count()) return;
  for (const OpIndex s : received_->senders(op))
    if (s != kNoOp) {
      auto i = static_cast<std::size_t>(s);
      __builtin_prefetch(&parts_->of_op[i]);
      __builtin_prefetch(&(*global_raw_)[i]);
      __builtin_prefetch(&t_->start[i]);
      __builtin_prefetch(&t_->end[i]);
    }
}

OpMetrics LatenessMetrics::all(OpIndex op) const {
  auto i = static_cast<std::size_t>(op);
  const auto part = static_cast<std::size_t>(parts_->of_op[i]);
  const auto global_raw = (*global_raw_)[i];
  const TimeNs end = t_->end[i], start = t_->start[i];
  OpMetrics m;
  m.lateness = end - local_min_[static_cast<std::size_t>(local_base_[part] + global_raw)];
  m.global_lateness = end - global_min_[static_cast<std::size_t>(global_raw)];
  TimeNs before = 0;
  OpIndex prev = t_->prev_on_process(op);
  if (prev != kNoOp) before = std::max(before, lateness(prev));
  TimeNs partner_start = std::numeric_limits<TimeNs>::min();
  for (const OpIndex s : received_->senders(op))
    if (s != kNoOp) {
      before = std::max(before, lateness(s));
      partner_start = std::max(partner_start, t_->start[static_cast<std::size_t>(s)]);
    }
  m.diff_lateness = std::max<TimeNs>(0, m.lateness - before);
  if (t_->kind[i] == OpKind::Collective) {  // as wait(): the last member's start, not senders'
    std::int32_t c = coll_of_[i];
    partner_start = c >= 0 ? coll_of_.last_start(c) : std::numeric_limits<TimeNs>::min();
  }
  if (partner_start != std::numeric_limits<TimeNs>::min())
    m.wait = std::clamp<TimeNs>(partner_start - start, 0, end - start);
  return m;
}

}  // namespace weft::structure
