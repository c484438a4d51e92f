#include "structure/lateness.h"

#include <algorithm>
#include <limits>

namespace weft::structure {
namespace {

constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();

}  // namespace

LatenessMetrics::LatenessMetrics(const CommTrace& t, const Partitioning& parts,
                                 const std::vector<std::int32_t>& global_raw,
                                 const std::vector<std::int32_t>& width,
                                 const std::vector<std::int32_t>& offset,
                                 const ReceivedMessages& received, CollectiveOfOps collective_of)
    : t_(&t), parts_(&parts), global_raw_(&global_raw), received_(&received), coll_of_(std::move(collective_of)) {
  local_base_.resize(width.size());
  std::int64_t local_slots = 0, global_width = 0;
  for (std::size_t p = 0; p < width.size(); ++p) {
    local_base_[p] = local_slots - offset[p];
    local_slots += width[p];
    global_width = std::max<std::int64_t>(global_width, offset[p] + width[p]);
  }
  local_min_.assign(static_cast<std::size_t>(local_slots), kNone);
  global_min_.assign(static_cast<std::size_t>(global_width), kNone);
  // The latest exit of each slot too: the largest lateness of a slot is its
  // latest exit less its earliest, so the run's largest are known without
  // computing every op's.
  std::vector<TimeNs> local_max(local_min_.size(), std::numeric_limits<TimeNs>::min());
  std::vector<TimeNs> global_max(global_min_.size(), std::numeric_limits<TimeNs>::min());
  for (OpIndex op = 0; op < t.op_count(); ++op) {
    auto i = static_cast<std::size_t>(op);
    auto part = static_cast<std::size_t>(parts.of_op[i]);
    const auto slot = static_cast<std::size_t>(local_base_[part] + global_raw[i]);
    local_min_[slot] = std::min(local_min_[slot], t.end[i]);
    local_max[slot] = std::max(local_max[slot], t.end[i]);
    const auto global_slot = static_cast<std::size_t>(global_raw[i]);
    global_min_[global_slot] = std::min(global_min_[global_slot], t.end[i]);
    global_max[global_slot] = std::max(global_max[global_slot], t.end[i]);
  }
  for (std::size_t s = 0; s < local_min_.size(); ++s)
    if (local_min_[s] != kNone) max_lateness_ = std::max(max_lateness_, local_max[s] - local_min_[s]);
  for (std::size_t s = 0; s < global_min_.size(); ++s)
    if (global_min_[s] != kNone) max_global_lateness_ = std::max(max_global_lateness_, global_max[s] - global_min_[s]);
  coll_last_start_.assign(static_cast<std::size_t>(t.collective_count()), std::numeric_limits<TimeNs>::min());
  for (OpIndex op = 0; op < t.op_count(); ++op) {
    std::int32_t c = coll_of_[static_cast<std::size_t>(op)];
    if (c >= 0) {
      auto& s = coll_last_start_[static_cast<std::size_t>(c)];
      s = std::max(s, t.start[static_cast<std::size_t>(op)]);
    }
  }
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
    if (c >= 0) partner_start = coll_last_start_[static_cast<std::size_t>(c)];
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
    partner_start = c >= 0 ? coll_last_start_[static_cast<std::size_t>(c)] : std::numeric_limits<TimeNs>::min();
  }
  if (partner_start != std::numeric_limits<TimeNs>::min())
    m.wait = std::clamp<TimeNs>(partner_start - start, 0, end - start);
  return m;
}

}  // namespace weft::structure
