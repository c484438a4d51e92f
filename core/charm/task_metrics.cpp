#include "charm/task_metrics.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace weft::charm {

std::vector<TimeNs> idle_experienced(const TaskTrace& t, const std::vector<EventIndex>& block_first) {
  std::vector<TimeNs> out(static_cast<std::size_t>(t.block_count()), 0);
  std::vector<std::int32_t> idles(static_cast<std::size_t>(t.idle_count()));
  std::iota(idles.begin(), idles.end(), 0);
  std::sort(idles.begin(), idles.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (t.idle_pe[ua] != t.idle_pe[ub]) return t.idle_pe[ua] < t.idle_pe[ub];
    return t.idle_start[ua] < t.idle_start[ub];
  });
  // The blocks of PE p are a contiguous range (sorted by (pe, start)).
  auto pe_less = [&](BlockIndex b, std::pair<PeIndex, TimeNs> key) {
    const auto ub = static_cast<std::size_t>(b);
    return t.block_pe[ub] != key.first ? t.block_pe[ub] < key.first : t.block_start[ub] < key.second;
  };
  std::vector<BlockIndex> all(static_cast<std::size_t>(t.block_count()));
  std::iota(all.begin(), all.end(), 0);
  auto first_block_at = [&](PeIndex pe, TimeNs at) {
    return std::lower_bound(all.begin(), all.end(), std::make_pair(pe, at), pe_less);
  };
  for (std::size_t k = 0; k < idles.size();) {
    const PeIndex pe = t.idle_pe[static_cast<std::size_t>(idles[k])];
    // "The event occurring directly after recorded idle time has idle
    // experienced of the length corresponding to the preceding idle": idle
    // intervals with no block between them (back to back) are one idle, their
    // lengths added, ending where the last one ends.
    TimeNs length = 0, idle_end = std::numeric_limits<TimeNs>::min();
    for (;;) {
      const auto i = static_cast<std::size_t>(idles[k]);
      length += t.idle_end[i] - t.idle_start[i];
      idle_end = std::max(idle_end, t.idle_end[i]);
      if (++k == idles.size() || t.idle_pe[static_cast<std::size_t>(idles[k])] != pe) break;
      const auto between = first_block_at(pe, idle_end);
      if (between != all.end() && t.block_pe[static_cast<std::size_t>(*between)] == pe &&
          t.block_start[static_cast<std::size_t>(*between)] < t.idle_start[static_cast<std::size_t>(idles[k])])
        break;
    }
    const TimeNs next_idle = k < idles.size() && t.idle_pe[static_cast<std::size_t>(idles[k])] == pe
                                 ? t.idle_start[static_cast<std::size_t>(idles[k])]
                                 : std::numeric_limits<TimeNs>::max();
    auto it = first_block_at(pe, idle_end);
    for (bool first = true; it != all.end(); ++it, first = false) {
      const auto b = static_cast<std::size_t>(*it);
      if (t.block_pe[b] != pe || t.block_start[b] >= next_idle) break;
      if (!first) {
        // Later blocks: only one whose first event waited on a dependency is
        // assigned, and the walk stops only at one "dependent on an event that
        // happened after the recorded idle time". A block without a traced
        // sink (an SDAG serial, started by the runtime) depends on no recorded
        // event: it gets nothing and the walk goes on past it.
        const EventIndex e = block_first[b];
        const bool has_sink = e < block_first[b + 1] && t.event_kind[static_cast<std::size_t>(e)] == DepKind::Sink &&
                              t.event_partner[static_cast<std::size_t>(e)] != kNone;
        if (!has_sink) continue;
        if (t.event_time[static_cast<std::size_t>(t.event_partner[static_cast<std::size_t>(e)])] >= idle_end) break;
      }
      out[b] += length;
    }
  }
  return out;
}

std::vector<TimeNs> idle_experienced_of_events(const TaskTrace& t, const std::vector<EventIndex>& block_first,
                                               const std::vector<TimeNs>& idle_of_block) {
  // §4 assigns idle experienced to "the event occurring directly after
  // recorded idle time" and to "the first event of each subsequent serial
  // block": the block's first event carries it, the others 0, so sums over
  // events (per step, per row) count each block's idle once.
  std::vector<TimeNs> out(static_cast<std::size_t>(t.event_count()), 0);
  for (std::size_t b = 0; b + 1 < block_first.size(); ++b)
    if (block_first[b] < block_first[b + 1]) out[static_cast<std::size_t>(block_first[b])] = idle_of_block[b];
  return out;
}

std::vector<TimeNs> sub_block_durations(const TaskTrace& t, const std::vector<EventIndex>& block_first) {
  std::vector<TimeNs> d(static_cast<std::size_t>(t.event_count()), 0);
  for (std::size_t b = 0; b + 1 < block_first.size(); ++b) {
    const EventIndex first = block_first[b], end = block_first[b + 1];
    if (first == end) continue;
    TimeNs prev = t.block_start[b];
    for (EventIndex e = first; e < end; ++e) {
      d[static_cast<std::size_t>(e)] = t.event_time[static_cast<std::size_t>(e)] - prev;
      prev = t.event_time[static_cast<std::size_t>(e)];
    }
    const EventIndex rest_to = t.event_kind[static_cast<std::size_t>(first)] == DepKind::Sink ? first : end - 1;
    d[static_cast<std::size_t>(rest_to)] += t.block_end[b] - prev;
  }
  return d;
}

std::vector<TimeNs> differential_durations(const std::vector<TimeNs>& sub, const std::vector<std::int32_t>& phase,
                                           const std::vector<std::int32_t>& step) {
  std::vector<EventIndex> order(sub.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](EventIndex e) {
    return std::make_pair(phase[static_cast<std::size_t>(e)], step[static_cast<std::size_t>(e)]);
  };
  std::sort(order.begin(), order.end(), [&](EventIndex a, EventIndex b) { return key(a) < key(b); });
  std::vector<TimeNs> diff(sub.size(), 0);
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    TimeNs shortest = std::numeric_limits<TimeNs>::max();
    for (; j < order.size() && key(order[j]) == key(order[i]); ++j)
      shortest = std::min(shortest, sub[static_cast<std::size_t>(order[j])]);
    for (std::size_t k = i; k < j; ++k)
      diff[static_cast<std::size_t>(order[k])] = sub[static_cast<std::size_t>(order[k])] - shortest;
    i = j;
  }
  return diff;
}

PhaseImbalance phase_imbalance(const TaskTrace& t, const std::vector<TimeNs>& sub,
                               const std::vector<std::int32_t>& phase, std::int32_t phase_count) {
  // Per (phase, PE) sums through a sort of the events by that pair.
  std::vector<EventIndex> order(sub.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](EventIndex e) { return std::make_pair(phase[static_cast<std::size_t>(e)], t.pe_of_event(e)); };
  std::sort(order.begin(), order.end(), [&](EventIndex a, EventIndex b) { return key(a) < key(b); });
  PhaseImbalance r;
  r.phase.assign(static_cast<std::size_t>(phase_count), 0);
  r.pe_of_event.assign(sub.size(), 0);
  std::vector<std::pair<std::size_t, TimeNs>> group_total;  // (end index in order, total) per (phase, PE)
  for (std::size_t i = 0; i < order.size();) {
    const auto p = static_cast<std::size_t>(phase[static_cast<std::size_t>(order[i])]);
    group_total.clear();
    std::size_t j = i;
    while (j < order.size() && static_cast<std::size_t>(phase[static_cast<std::size_t>(order[j])]) == p) {
      std::size_t k = j;
      TimeNs total = 0;
      for (; k < order.size() && key(order[k]) == key(order[j]); ++k) total += sub[static_cast<std::size_t>(order[k])];
      group_total.emplace_back(k, total);
      j = k;
    }
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = 0;
    for (const auto& g : group_total) lo = std::min(lo, g.second), hi = std::max(hi, g.second);
    r.phase[p] = hi - lo;
    std::size_t k = i;
    for (const auto& g : group_total)
      for (; k < g.first; ++k) r.pe_of_event[static_cast<std::size_t>(order[k])] = g.second - lo;
    i = j;
  }
  return r;
}

PeUtilization pe_utilization(const TaskTrace& t) {
  PeUtilization u;
  const auto pes = static_cast<std::size_t>(t.pe_count);
  u.busy.assign(pes, 0);
  u.idle.assign(pes, 0);
  u.busy_percent.assign(pes, 0.0);
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  for (std::size_t b = 0; b < t.block_pe.size(); ++b) {
    u.busy[static_cast<std::size_t>(t.block_pe[b])] += t.block_end[b] - t.block_start[b];
    lo = std::min(lo, t.block_start[b]);
    hi = std::max(hi, t.block_end[b]);
  }
  for (std::size_t i = 0; i < t.idle_pe.size(); ++i) {
    u.idle[static_cast<std::size_t>(t.idle_pe[i])] += t.idle_end[i] - t.idle_start[i];
    lo = std::min(lo, t.idle_start[i]);
    hi = std::max(hi, t.idle_end[i]);
  }
  if (lo > hi) lo = hi = 0;
  u.run_begin = lo;
  u.run_end = hi;
  if (hi > lo)
    for (std::size_t p = 0; p < pes; ++p) u.busy_percent[p] = 100.0 * static_cast<double>(u.busy[p]) / static_cast<double>(hi - lo);
  return u;
}

double percent_imbalance(const std::vector<TimeNs>& busy) {
  if (busy.empty()) return 0.0;
  TimeNs hi = 0;
  double sum = 0;
  for (TimeNs b : busy) hi = std::max(hi, b), sum += static_cast<double>(b);
  if (sum <= 0) return 0.0;
  // (max / (sum / n) - 1) x 100 rearranged to one division, exact for integer loads.
  return 100.0 * (static_cast<double>(hi) * static_cast<double>(busy.size()) - sum) / sum;
}

std::vector<IntervalImbalance> interval_percent_imbalance(const TaskTrace& t, const PeUtilization& u) {
  // Interval boundaries: run begin, each load-balancing step, run end.
  std::vector<TimeNs> bound{u.run_begin};
  for (TimeNs s : t.lb_step_time)
    if (s > bound.back() && s < u.run_end) bound.push_back(s);
  bound.push_back(u.run_end);
  const std::size_t intervals = bound.size() - 1;
  const auto pes = static_cast<std::size_t>(t.pe_count);
  std::vector<TimeNs> busy(intervals * pes, 0);
  for (std::size_t b = 0; b < t.block_pe.size(); ++b) {
    const TimeNs s = t.block_start[b], e = t.block_end[b];
    // First interval the block overlaps, then on while it does.
    auto k = static_cast<std::size_t>(std::upper_bound(bound.begin() + 1, bound.end() - 1, s) - (bound.begin() + 1));
    for (; k < intervals && bound[k] < e; ++k)
      busy[k * pes + static_cast<std::size_t>(t.block_pe[b])] += std::min(e, bound[k + 1]) - std::max(s, bound[k]);
  }
  // Each λ with the bounds it was computed over (LB times at or before the
  // run's start, at or after its end, or not after the previous one bound
  // nothing, so lb_step_time[k] is not the end of interval k in general).
  std::vector<IntervalImbalance> lambda(intervals);
  for (std::size_t k = 0; k < intervals; ++k) {
    lambda[k].begin = bound[k];
    lambda[k].end = bound[k + 1];
    lambda[k].lambda_percent = percent_imbalance(std::vector<TimeNs>(
        busy.begin() + static_cast<std::ptrdiff_t>(k * pes), busy.begin() + static_cast<std::ptrdiff_t>((k + 1) * pes)));
  }
  return lambda;
}

MetricByKey aggregate_metric(const std::vector<TimeNs>& value, const std::vector<std::int32_t>& key,
                             std::int32_t key_count) {
  MetricByKey m;
  m.sum.assign(static_cast<std::size_t>(key_count), 0);
  m.max.assign(static_cast<std::size_t>(key_count), 0);
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto k = static_cast<std::size_t>(key[i]);
    m.sum[k] += value[i];
    m.max[k] = std::max(m.max[k], value[i]);
  }
  return m;
}

EntryStats entry_method_stats(const TaskTrace& t) {
  EntryStats s;
  const auto n = t.entry_name.size();
  s.count.assign(n, 0);
  s.total.assign(n, 0);
  s.max.assign(n, 0);
  s.mean.assign(n, 0.0);
  for (std::size_t b = 0; b < t.block_entry.size(); ++b) {
    const auto e = static_cast<std::size_t>(t.block_entry[b]);
    const TimeNs d = t.block_end[b] - t.block_start[b];
    ++s.count[e];
    s.total[e] += d;
    s.max[e] = std::max(s.max[e], d);
  }
  for (std::size_t e = 0; e < n; ++e)
    if (s.count[e]) s.mean[e] = static_cast<double>(s.total[e]) / static_cast<double>(s.count[e]);
  return s;
}

}  // namespace weft::charm
