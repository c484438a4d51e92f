#include "charm/task_trace_builder.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace weft::charm {

ChareIndex TaskTraceBuilder::chare(bool runtime) {
  t_.chare_runtime.push_back(runtime ? 1 : 0);
  return t_.chare_count() - 1;
}

EntryIndex TaskTraceBuilder::entry(const std::string& name) {
  t_.entry_name.push_back(name);
  return static_cast<EntryIndex>(t_.entry_name.size()) - 1;
}

std::int32_t TaskTraceBuilder::block(ChareIndex chare, PeIndex pe, EntryIndex entry, TimeNs start, TimeNs end) {
  t_.block_chare.push_back(chare);
  t_.block_pe.push_back(pe);
  t_.block_entry.push_back(entry);
  t_.block_start.push_back(start);
  t_.block_end.push_back(end);
  t_.block_event_id.push_back(t_.block_count() - 1);
  return t_.block_count() - 1;
}

std::int32_t TaskTraceBuilder::source(std::int32_t block, TimeNs time) {
  t_.event_block.push_back(block);
  t_.event_time.push_back(time);
  t_.event_kind.push_back(DepKind::Source);
  t_.event_partner.push_back(kNone);
  return t_.event_count() - 1;
}

std::int32_t TaskTraceBuilder::sink(std::int32_t block, std::int32_t source) {
  t_.event_block.push_back(block);
  t_.event_time.push_back(t_.block_start[static_cast<std::size_t>(block)]);
  t_.event_kind.push_back(DepKind::Sink);
  t_.event_partner.push_back(source);
  if (source != kNone) t_.event_partner[static_cast<std::size_t>(source)] = t_.event_count() - 1;
  return t_.event_count() - 1;
}

void TaskTraceBuilder::idle(PeIndex pe, TimeNs start, TimeNs end) {
  t_.idle_pe.push_back(pe);
  t_.idle_start.push_back(start);
  t_.idle_end.push_back(end);
}

TaskTrace TaskTraceBuilder::build() {
  TaskTrace out;
  out.pe_count = t_.pe_count;
  out.chare_runtime = t_.chare_runtime;
  out.entry_name = t_.entry_name;
  out.idle_pe = t_.idle_pe;
  out.idle_start = t_.idle_start;
  out.idle_end = t_.idle_end;
  out.lb_step_time = t_.lb_step_time;
  std::sort(out.lb_step_time.begin(), out.lb_step_time.end());

  std::vector<std::int32_t> blocks(static_cast<std::size_t>(t_.block_count()));
  std::iota(blocks.begin(), blocks.end(), 0);
  std::sort(blocks.begin(), blocks.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (t_.block_pe[ua] != t_.block_pe[ub]) return t_.block_pe[ua] < t_.block_pe[ub];
    if (t_.block_start[ua] != t_.block_start[ub]) return t_.block_start[ua] < t_.block_start[ub];
    return a < b;
  });
  block_map_.assign(blocks.size(), kNone);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto b = static_cast<std::size_t>(blocks[i]);
    block_map_[b] = static_cast<BlockIndex>(i);
    out.block_chare.push_back(t_.block_chare[b]);
    out.block_pe.push_back(t_.block_pe[b]);
    out.block_entry.push_back(t_.block_entry[b]);
    out.block_start.push_back(t_.block_start[b]);
    out.block_end.push_back(t_.block_end[b]);
    out.block_event_id.push_back(t_.block_event_id[b]);
  }
  std::vector<std::int32_t> events(static_cast<std::size_t>(t_.event_count()));
  std::iota(events.begin(), events.end(), 0);
  auto key = [&](std::int32_t e) {
    const auto u = static_cast<std::size_t>(e);
    return std::make_tuple(block_map_[static_cast<std::size_t>(t_.event_block[u])],
                           t_.event_kind[u] == DepKind::Sink ? 0 : 1, t_.event_time[u], e);
  };
  std::sort(events.begin(), events.end(), [&](std::int32_t a, std::int32_t b) { return key(a) < key(b); });
  event_map_.assign(events.size(), kNone);
  for (std::size_t i = 0; i < events.size(); ++i) event_map_[static_cast<std::size_t>(events[i])] = static_cast<EventIndex>(i);
  for (std::int32_t e : events) {
    const auto u = static_cast<std::size_t>(e);
    out.event_block.push_back(block_map_[static_cast<std::size_t>(t_.event_block[u])]);
    out.event_time.push_back(t_.event_time[u]);
    out.event_kind.push_back(t_.event_kind[u]);
    const std::int32_t partner = t_.event_partner[u];
    out.event_partner.push_back(partner == kNone ? kNone : event_map_[static_cast<std::size_t>(partner)]);
  }
  return out;
}

}  // namespace weft::charm
