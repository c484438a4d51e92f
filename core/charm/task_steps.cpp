#include "charm/task_steps.h"

#include <algorithm>
#include <numeric>

#include "charm/counting_sort.h"
#include "structure/step_assignment.h"

namespace weft::charm {
namespace {

// Block parts: maximal runs of consecutive events with one serial unit and
// one phase. The unit, not the execution: an entry method absorbed into the
// serial that follows it (§2.1, TaskPartitions::unit_of_block) is one serial
// block "for our ordering algorithm", so its events and the serial's keep
// their order and the serial's sends count up from the absorbed receive's w
// (§3.2.1). The units' events are consecutive (initial_partitions).
struct BlockParts {
  std::vector<std::int32_t> of_event;
  std::vector<EventIndex> first, last;
};

BlockParts block_parts(const TaskTrace& t, const TaskPartitions& phases) {
  BlockParts bp;
  const auto n = static_cast<std::size_t>(t.event_count());
  bp.of_event.resize(n);
  auto unit = [&](std::size_t e) {
    const auto b = t.event_block[e];
    return phases.unit_of_block.empty() ? b : phases.unit_of_block[static_cast<std::size_t>(b)];
  };
  for (std::size_t e = 0; e < n; ++e) {
    if (e == 0 || unit(e) != unit(e - 1) || phases.of_event[e] != phases.of_event[e - 1]) {
      bp.first.push_back(static_cast<EventIndex>(e));
      bp.last.push_back(static_cast<EventIndex>(e));
    }
    bp.of_event[e] = static_cast<std::int32_t>(bp.first.size()) - 1;
    bp.last.back() = static_cast<EventIndex>(e);
  }
  return bp;
}

// The source of a sink when both are in one phase, else kNone.
EventIndex phase_source(const TaskTrace& t, const TaskPartitions& phases, EventIndex e) {
  const auto i = static_cast<std::size_t>(e);
  if (t.event_kind[i] != DepKind::Sink || t.event_partner[i] == kNone) return kNone;
  const EventIndex s = t.event_partner[i];
  return phases.of_event[static_cast<std::size_t>(s)] == phases.of_event[i] ? s : kNone;
}

Clocks clocks_of_parts(const TaskTrace& t, const TaskIndex& ix, const TaskPartitions& phases, const BlockParts& bp) {
  // Parts in a topological order of the messages between them (a part waits
  // only for the source of its first event), each part counted up from its
  // first event's w.
  const auto parts = bp.first.size();
  Clocks c;
  c.w.assign(static_cast<std::size_t>(t.event_count()), 0);
  std::vector<char> done(parts, 0);
  std::vector<std::int32_t> ready;
  for (std::size_t p = 0; p < parts; ++p)
    if (phase_source(t, phases, bp.first[p]) == kNone) ready.push_back(static_cast<std::int32_t>(p));
  std::size_t cursor = 0, finished = 0;
  while (finished < parts) {
    if (ready.empty()) {  // a message cycle: only in inconsistent input
      while (done[cursor]) ++cursor;
      ready.push_back(static_cast<std::int32_t>(cursor));
      ++c.forced;
    }
    const auto p = static_cast<std::size_t>(ready.back());
    ready.pop_back();
    if (done[p]) continue;
    done[p] = 1;
    ++finished;
    const EventIndex first = bp.first[p];
    const EventIndex src = phase_source(t, phases, first);
    c.w[static_cast<std::size_t>(first)] = src == kNone ? 0 : c.w[static_cast<std::size_t>(src)] + 1;
    for (EventIndex e = first + 1; e <= bp.last[p]; ++e) c.w[static_cast<std::size_t>(e)] = c.w[static_cast<std::size_t>(e) - 1] + 1;
    for (EventIndex e = first; e <= bp.last[p]; ++e)
      for (std::int32_t k = ix.sink_first[static_cast<std::size_t>(e)]; k < ix.sink_first[static_cast<std::size_t>(e) + 1]; ++k) {
        const EventIndex sink = ix.sinks[static_cast<std::size_t>(k)];
        if (phases.of_event[static_cast<std::size_t>(sink)] != phases.of_event[static_cast<std::size_t>(e)]) continue;
        const auto q = static_cast<std::size_t>(bp.of_event[static_cast<std::size_t>(sink)]);
        if (!done[q] && bp.first[q] == sink) ready.push_back(static_cast<std::int32_t>(q));
      }
  }
  return c;
}

}  // namespace

Clocks assign_clocks(const TaskTrace& t, const TaskIndex& ix, const TaskPartitions& phases) {
  return clocks_of_parts(t, ix, phases, block_parts(t, phases));
}

TaskSteps assign_task_steps(const TaskTrace& t, const TaskIndex& ix, const TaskPartitions& phases,
                            const structure::PartitionGraph& graph, bool reorder) {
  const BlockParts bp = block_parts(t, phases);
  const auto parts = bp.first.size();
  const auto n = static_cast<std::size_t>(t.event_count());
  TaskSteps s;
  Clocks clocks;
  if (reorder) {
    clocks = clocks_of_parts(t, ix, phases, bp);
    s.forced_orderings += clocks.forced;
  }
  // The order of the parts of each (phase, chare).
  auto chare_of_part = [&](std::size_t p) { return t.chare_of_event(bp.first[p]); };
  auto invoker = [&](EventIndex first) -> ChareIndex {
    const auto i = static_cast<std::size_t>(first);
    if (t.event_kind[i] != DepKind::Sink || t.event_partner[i] == kNone) return kNone;
    return t.chare_of_event(t.event_partner[i]);
  };
  auto source_part = [&](EventIndex first) -> std::int32_t {
    const EventIndex src = phase_source(t, phases, first);
    return src == kNone ? kNone : bp.of_event[static_cast<std::size_t>(src)];
  };
  // Grouped by (phase, chare) with two counting sorts (linear), then each
  // group, usually a handful of parts, sorted by the ordering keys.
  auto phase_of_part = [&](std::int32_t p) {
    return phases.of_event[static_cast<std::size_t>(bp.first[static_cast<std::size_t>(p)])];
  };
  std::vector<std::int32_t> by_chare = counting_sort(parts, t.chare_count(), [&](std::int32_t p) {
    return chare_of_part(static_cast<std::size_t>(p));
  });
  std::vector<std::int32_t> order = counting_sort_of(by_chare, phases.count, phase_of_part);
  auto before = [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    const EventIndex fa = bp.first[ua], fb = bp.first[ub];
    if (reorder) {
      const std::int32_t wa = clocks.w[static_cast<std::size_t>(fa)], wb = clocks.w[static_cast<std::size_t>(fb)];
      if (wa != wb) return wa < wb;
      if (invoker(fa) != invoker(fb)) return invoker(fa) < invoker(fb);
      const std::int32_t sa = source_part(fa), sb = source_part(fb);
      if (sa != kNone && sb != kNone && sa != sb) {
        const EventIndex ga = bp.first[static_cast<std::size_t>(sa)], gb = bp.first[static_cast<std::size_t>(sb)];
        const std::int32_t va = clocks.w[static_cast<std::size_t>(ga)], vb = clocks.w[static_cast<std::size_t>(gb)];
        if (va != vb) return va < vb;
        if (invoker(ga) != invoker(gb)) return invoker(ga) < invoker(gb);
      }
    }
    const TimeNs ta = t.block_start[static_cast<std::size_t>(t.event_block[static_cast<std::size_t>(fa)])];
    const TimeNs tb = t.block_start[static_cast<std::size_t>(t.event_block[static_cast<std::size_t>(fb)])];
    if (ta != tb) return ta < tb;
    return fa < fb;
  };
  for (std::size_t i = 0; i < parts;) {
    std::size_t j = i + 1;
    while (j < parts && phase_of_part(order[j]) == phase_of_part(order[i]) &&
           chare_of_part(static_cast<std::size_t>(order[j])) == chare_of_part(static_cast<std::size_t>(order[i])))
      ++j;
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(j), before);
    i = j;
  }
  s.chare_prev.assign(n, kNone);
  std::vector<EventIndex> chare_next(n, kNone);
  for (std::size_t i = 0; i < parts; ++i) {
    const auto p = static_cast<std::size_t>(order[i]);
    for (EventIndex e = bp.first[p] + 1; e <= bp.last[p]; ++e) s.chare_prev[static_cast<std::size_t>(e)] = e - 1;
    if (i == 0) continue;
    const auto q = static_cast<std::size_t>(order[i - 1]);
    if (chare_of_part(p) != chare_of_part(q) ||
        phases.of_event[static_cast<std::size_t>(bp.first[p])] != phases.of_event[static_cast<std::size_t>(bp.first[q])])
      continue;
    s.chare_prev[static_cast<std::size_t>(bp.first[p])] = bp.last[q];
  }
  for (std::size_t e = 0; e < n; ++e)
    if (s.chare_prev[e] != kNone) chare_next[static_cast<std::size_t>(s.chare_prev[e])] = static_cast<EventIndex>(e);

  // Replay: a step is one more than the latest predecessor (chare order, and
  // the source of a sink in the same phase).
  std::vector<std::int32_t> waiting(n, 0);
  for (std::size_t e = 0; e < n; ++e)
    waiting[e] = (s.chare_prev[e] != kNone) + (phase_source(t, phases, static_cast<EventIndex>(e)) != kNone);
  s.local_step.assign(n, 0);
  std::vector<char> done(n, 0);
  std::vector<EventIndex> ready;
  for (std::size_t e = 0; e < n; ++e)
    if (waiting[e] == 0) ready.push_back(static_cast<EventIndex>(e));
  auto release = [&](EventIndex from, EventIndex to) {
    auto& st = s.local_step[static_cast<std::size_t>(to)];
    st = std::max(st, s.local_step[static_cast<std::size_t>(from)] + 1);
    if (--waiting[static_cast<std::size_t>(to)] == 0) ready.push_back(to);
  };
  std::size_t cursor = 0, finished = 0;
  while (finished < n) {
    if (ready.empty()) {  // a dependency cycle: only in inconsistent input
      while (done[cursor]) ++cursor;
      ready.push_back(static_cast<EventIndex>(cursor));
      ++s.forced_orderings;
    }
    const EventIndex e = ready.back();
    ready.pop_back();
    const auto ue = static_cast<std::size_t>(e);
    if (done[ue]) continue;
    done[ue] = 1;
    ++finished;
    if (chare_next[ue] != kNone && !done[static_cast<std::size_t>(chare_next[ue])]) release(e, chare_next[ue]);
    for (std::int32_t k = ix.sink_first[ue]; k < ix.sink_first[ue + 1]; ++k) {
      const EventIndex sink = ix.sinks[static_cast<std::size_t>(k)];
      if (phases.of_event[static_cast<std::size_t>(sink)] == phases.of_event[ue] && !done[static_cast<std::size_t>(sink)])
        release(e, sink);
    }
  }
  s.phase_width.assign(static_cast<std::size_t>(phases.count), 0);
  for (std::size_t e = 0; e < n; ++e) {
    auto& w = s.phase_width[static_cast<std::size_t>(phases.of_event[e])];
    w = std::max(w, s.local_step[e] + 1);
  }
  s.phase_offset = structure::assign_global_steps(graph, s.phase_width);
  if (reorder) s.w = std::move(clocks.w);
  return s;
}

}  // namespace weft::charm
