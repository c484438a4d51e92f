#pragma once
// Builds a valid TaskTrace from blocks and events given in any order (the
// synthetic generator and the tests use it; a loader that reads sorted data
// can fill TaskTrace directly). Ids returned by add_* are provisional; build()
// sorts blocks by (pe, start) and events by (block, time) and returns, through
// block_id/event_id, where each provisional id went.
#include <cstdint>
#include <string>
#include <vector>

#include "charm/task_trace.h"

namespace weft::charm {

class TaskTraceBuilder {
 public:
  explicit TaskTraceBuilder(std::int32_t pe_count) { t_.pe_count = pe_count; }
  ChareIndex chare(bool runtime);
  EntryIndex entry(const std::string& name);
  std::int32_t block(ChareIndex chare, PeIndex pe, EntryIndex entry, TimeNs start, TimeNs end);
  // A message creation inside `block` at `time`.
  std::int32_t source(std::int32_t block, TimeNs time);
  // The start of `block` as the execution triggered by `source` (kNone: untraced).
  std::int32_t sink(std::int32_t block, std::int32_t source);
  void idle(PeIndex pe, TimeNs start, TimeNs end);
  void lb_step(TimeNs time) { t_.lb_step_time.push_back(time); }
  // The start time given to a provisional block.
  TimeNs start_of(std::int32_t block) const { return t_.block_start[static_cast<std::size_t>(block)]; }

  TaskTrace build();
  // After build(): the final index of a provisional block/event id.
  BlockIndex block_id(std::int32_t provisional) const { return block_map_[static_cast<std::size_t>(provisional)]; }
  EventIndex event_id(std::int32_t provisional) const { return event_map_[static_cast<std::size_t>(provisional)]; }

 private:
  TaskTrace t_;
  std::vector<BlockIndex> block_map_;
  std::vector<EventIndex> event_map_;
};

}  // namespace weft::charm
