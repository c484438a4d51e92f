#include "charm/task_trace.h"

#include <string_view>

#include "common/error.h"

namespace weft::charm {

void validate_task_trace(const TaskTrace& t) {
  const auto blocks = t.block_chare.size();
  if (t.block_pe.size() != blocks || t.block_entry.size() != blocks || t.block_start.size() != blocks ||
      t.block_end.size() != blocks || t.block_event_id.size() != blocks)
    throw Error("task trace: block arrays differ in length");
  const auto events = t.event_block.size();
  if (t.event_time.size() != events || t.event_kind.size() != events || t.event_partner.size() != events)
    throw Error("task trace: event arrays differ in length");
  if (t.idle_start.size() != t.idle_pe.size() || t.idle_end.size() != t.idle_pe.size())
    throw Error("task trace: idle arrays differ in length");
  for (std::size_t b = 0; b < blocks; ++b) {
    if (t.block_chare[b] < 0 || t.block_chare[b] >= t.chare_count())
      throw Error("task trace: block " + std::to_string(b) + " names chare " + std::to_string(t.block_chare[b]) +
                  " of " + std::to_string(t.chare_count()));
    if (t.block_pe[b] < 0 || t.block_pe[b] >= t.pe_count)
      throw Error("task trace: block " + std::to_string(b) + " runs on PE " + std::to_string(t.block_pe[b]) +
                  " of " + std::to_string(t.pe_count));
    if (t.block_entry[b] < 0 || t.block_entry[b] >= static_cast<std::int32_t>(t.entry_name.size()))
      throw Error("task trace: block " + std::to_string(b) + " names an unknown entry method");
    if (t.block_end[b] < t.block_start[b]) throw Error("task trace: block " + std::to_string(b) + " ends before it starts");
    if (b > 0 && (t.block_pe[b] < t.block_pe[b - 1] ||
                  (t.block_pe[b] == t.block_pe[b - 1] && t.block_start[b] < t.block_start[b - 1])))
      throw Error("task trace: blocks not sorted by (pe, start) at block " + std::to_string(b));
  }
  for (std::size_t e = 0; e < events; ++e) {
    const BlockIndex b = t.event_block[e];
    if (b < 0 || static_cast<std::size_t>(b) >= blocks)
      throw Error("task trace: event " + std::to_string(e) + " names block " + std::to_string(b));
    if (e > 0 && (b < t.event_block[e - 1] || (b == t.event_block[e - 1] && t.event_time[e] < t.event_time[e - 1])))
      throw Error("task trace: events not sorted by (block, time) at event " + std::to_string(e));
    const EventIndex partner = t.event_partner[e];
    if (partner != kNone && (partner < 0 || static_cast<std::size_t>(partner) >= events))
      throw Error("task trace: event " + std::to_string(e) + " names partner " + std::to_string(partner));
    if (t.event_kind[e] == DepKind::Sink) {
      if (e > 0 && t.event_block[e - 1] == b)
        throw Error("task trace: sink event " + std::to_string(e) + " is not the first event of its block");
      if (partner != kNone && t.event_kind[static_cast<std::size_t>(partner)] != DepKind::Source)
        throw Error("task trace: sink event " + std::to_string(e) + " is matched to a sink");
    }
  }
  for (std::size_t i = 0; i < t.idle_pe.size(); ++i)
    if (t.idle_pe[i] < 0 || t.idle_pe[i] >= t.pe_count || t.idle_end[i] < t.idle_start[i])
      throw Error("task trace: bad idle interval " + std::to_string(i));
}

std::vector<EventIndex> index_block_events(const TaskTrace& t) {
  std::vector<EventIndex> first(static_cast<std::size_t>(t.block_count()) + 1, 0);
  for (BlockIndex b : t.event_block) ++first[static_cast<std::size_t>(b) + 1];
  for (std::size_t b = 0; b + 1 < first.size(); ++b) first[b + 1] += first[b];
  return first;
}

std::int32_t sdag_serial_number(const std::string& name) {
  // charmxi names the entry method of the n-th `serial` (formerly `atomic`)
  // "_serial_n" / "_atomic_n"; Projections may append the signature "(void)".
  std::string_view s(name);
  for (std::string_view prefix : {std::string_view("_serial_"), std::string_view("_atomic_")}) {
    if (s.substr(0, prefix.size()) != prefix) continue;
    std::int64_t n = 0;
    std::size_t i = prefix.size(), digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 9) n = n * 10 + (s[i++] - '0'), ++digits;
    if (digits == 0 || (i < s.size() && s[i] != '(')) return -1;
    return static_cast<std::int32_t>(n);
  }
  return -1;
}

}  // namespace weft::charm
