// §3.1.1 Initial partitions and the shared indices of the phase finding.
#include <algorithm>
#include <numeric>

#include "charm/task_partitions.h"

namespace weft::charm {

TaskIndex index_task_trace(const TaskTrace& t) {
  TaskIndex ix;
  ix.block_first = index_block_events(t);
  const auto n = static_cast<std::size_t>(t.event_count());
  ix.sink_first.assign(n + 1, 0);
  for (std::size_t e = 0; e < n; ++e)
    if (t.event_kind[e] == DepKind::Sink && t.event_partner[e] != kNone)
      ++ix.sink_first[static_cast<std::size_t>(t.event_partner[e]) + 1];
  for (std::size_t e = 0; e < n; ++e) ix.sink_first[e + 1] += ix.sink_first[e];
  ix.sinks.resize(static_cast<std::size_t>(ix.sink_first[n]));
  std::vector<std::int32_t> fill(ix.sink_first.begin(), ix.sink_first.end() - 1);
  for (std::size_t e = 0; e < n; ++e)
    if (t.event_kind[e] == DepKind::Sink && t.event_partner[e] != kNone)
      ix.sinks[static_cast<std::size_t>(fill[static_cast<std::size_t>(t.event_partner[e])]++)] =
          static_cast<EventIndex>(e);
  return ix;
}

namespace {

// An event is a runtime dependency when its own chare or a chare at the other
// end of its message is a runtime chare (§3.1: dependencies between
// application and runtime, or among runtime chares, form runtime partitions).
std::vector<std::uint8_t> runtime_dependencies(const TaskTrace& t) {
  const auto n = static_cast<std::size_t>(t.event_count());
  std::vector<std::uint8_t> rt(n);
  for (std::size_t e = 0; e < n; ++e)
    rt[e] = t.chare_runtime[static_cast<std::size_t>(t.chare_of_event(static_cast<EventIndex>(e)))];
  for (std::size_t e = 0; e < n; ++e) {
    const EventIndex src = t.event_partner[e];
    if (t.event_kind[e] != DepKind::Sink || src == kNone) continue;
    const auto s = static_cast<std::size_t>(src);
    const std::uint8_t either = rt[e] | t.chare_runtime[static_cast<std::size_t>(t.chare_of_event(src))];
    rt[e] = either;
    rt[s] = static_cast<std::uint8_t>(rt[s] | either);
  }
  return rt;
}

// §2.1: "If we find an entry method that occurs right before a serial, we
// absorb it into that serial's entry method": an execution directly followed
// on its PE by an SDAG serial of the same chare joins that serial's block.
std::vector<BlockIndex> serial_units(const TaskTrace& t, const std::vector<std::int32_t>& serial_of_entry) {
  const auto blocks = static_cast<std::size_t>(t.block_count());
  std::vector<BlockIndex> unit(blocks);
  std::iota(unit.begin(), unit.end(), 0);
  for (std::size_t b = blocks; b-- > 1;) {
    if (serial_of_entry[static_cast<std::size_t>(t.block_entry[b])] < 0) continue;
    if (t.block_pe[b - 1] == t.block_pe[b] && t.block_chare[b - 1] == t.block_chare[b] &&
        serial_of_entry[static_cast<std::size_t>(t.block_entry[b - 1])] < 0)
      unit[b - 1] = unit[b];
  }
  return unit;
}

// §2.1: serial n observed before serial n + 1 on one chare happened before it.
// A block absorbed into a serial counts as that serial (its events start it).
void add_sdag_edges(const TaskTrace& t, const TaskIndex& ix, const std::vector<std::int32_t>& serial_of_entry,
                    const std::vector<BlockIndex>& unit, TaskEdges& edges) {
  auto serial_of_block = [&](std::size_t b) {
    return serial_of_entry[static_cast<std::size_t>(t.block_entry[static_cast<std::size_t>(unit[b])])];
  };
  std::vector<BlockIndex> order;
  for (BlockIndex b = 0; b < t.block_count(); ++b)
    if (ix.block_first[static_cast<std::size_t>(b) + 1] > ix.block_first[static_cast<std::size_t>(b)]) order.push_back(b);
  std::sort(order.begin(), order.end(), [&](BlockIndex a, BlockIndex b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (t.block_chare[ua] != t.block_chare[ub]) return t.block_chare[ua] < t.block_chare[ub];
    if (t.block_start[ua] != t.block_start[ub]) return t.block_start[ua] < t.block_start[ub];
    return a < b;
  });
  for (std::size_t i = 0; i + 1 < order.size(); ++i) {
    const auto a = static_cast<std::size_t>(order[i]), b = static_cast<std::size_t>(order[i + 1]);
    if (t.block_chare[a] != t.block_chare[b]) continue;
    const std::int32_t na = serial_of_block(a), nb = serial_of_block(b);
    if (na >= 0 && nb == na + 1) edges.add(ix.block_first[a + 1] - 1, ix.block_first[b]);
  }
}

}  // namespace

TaskPartitions initial_partitions(const TaskTrace& t, const TaskIndex& ix, TaskEdges& edges) {
  std::vector<std::int32_t> serial_of_entry(t.entry_name.size());
  for (std::size_t i = 0; i < t.entry_name.size(); ++i) serial_of_entry[i] = sdag_serial_number(t.entry_name[i]);
  TaskPartitions parts;
  parts.event_runtime = runtime_dependencies(t);
  parts.unit_of_block = serial_units(t, serial_of_entry);
  const auto n = static_cast<std::size_t>(t.event_count());
  parts.of_event.resize(n);
  // Events of one serial unit are consecutive: absorbed blocks precede their
  // serial on the same PE, and blocks are sorted by (pe, start).
  for (std::size_t e = 0; e < n; ++e) {
    const auto unit = parts.unit_of_block[static_cast<std::size_t>(t.event_block[e])];
    const bool same_unit = e > 0 && parts.unit_of_block[static_cast<std::size_t>(t.event_block[e - 1])] == unit;
    if (same_unit && parts.event_runtime[e] == parts.event_runtime[e - 1]) {
      parts.of_event[e] = parts.count - 1;
      continue;
    }
    if (same_unit) edges.add(static_cast<EventIndex>(e - 1), static_cast<EventIndex>(e));  // (2) split block
    parts.of_event[e] = parts.count++;
    parts.runtime.push_back(parts.event_runtime[e]);
  }
  for (std::size_t e = 0; e < n; ++e)  // (1) remote invocations
    if (t.event_kind[e] == DepKind::Sink && t.event_partner[e] != kNone)
      edges.add(t.event_partner[e], static_cast<EventIndex>(e));
  if (std::any_of(serial_of_entry.begin(), serial_of_entry.end(), [](std::int32_t serial) { return serial >= 0; }))
    add_sdag_edges(t, ix, serial_of_entry, parts.unit_of_block, edges);  // (3)
  return parts;
}

}  // namespace weft::charm
