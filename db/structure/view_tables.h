#pragma once
// What the logical timeline needs of an analysis beyond the per-event rows of
// comm_events: the message lines (structure/message_step_blocks.h), the level
// of detail and the time bins, and the largest value of every metric, so that
// a color scale is the same in every window.
#include <cstdint>
#include <vector>

#include "store/sqlite.h"
#include "structure/analysis.h"
#include "structure/comm_trace_loader.h"

namespace weft::db {

// The meta facts of the view tables (analysis_max_message_steps,
// analysis_max_*_ns), written after the other analysis_ facts.
struct ViewTableFacts {
  std::int64_t max_message_steps = 0;
  TimeNs max_lateness = 0, max_global_lateness = 0, max_diff_lateness = 0, max_wait = 0, max_duration = 0;
};

// Creates and fills message_step_blocks, step_lod and time_metrics inside the caller's
// transaction. Needs the loaded trace's messages: call it before they are
// released.
ViewTableFacts write_view_tables(Database& db, const LoadedCommTrace& loaded,
                                 const structure::StructureResult& result);
void write_view_facts(Database& db, const ViewTableFacts& facts);

}  // namespace weft::db
