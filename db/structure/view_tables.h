#pragma once
// What the logical timeline needs of an analysis beyond the per-event rows of
// comm_events (docs/schema.md, "message_steps"): each matched message with the
// global steps of its send and receive, so that a step window reads its message
// lines with one index range scan, and the largest value of every metric, so
// that a color scale is the same in every window.
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

// One message line of the logical view: the message's store id, the rows
// (processes, or chares of a task run) and global steps of its two ends.
struct MessageStepRow {
  std::int64_t message;
  std::int64_t src, dst;
  std::int64_t send_step, recv_step;
};

// Creates message_steps and fills it with `rows` (reordered in place): a
// table clustered by (send_step, message), so the lines of a step window are
// one primary-key range scan and the rows go in as appends, with no second
// index to build. Returns the largest recv_step - send_step.
std::int64_t write_message_steps(Database& db, std::vector<MessageStepRow>& rows);

// Creates and fills message_steps, step_lod and time_metrics inside the caller's
// transaction. Needs the loaded trace's messages: call it before they are
// released.
ViewTableFacts write_view_tables(Database& db, const LoadedCommTrace& loaded,
                                 const structure::StructureResult& result);
void write_view_facts(Database& db, const ViewTableFacts& facts);

}  // namespace weft::db
