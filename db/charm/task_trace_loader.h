#pragma once
// Reads a Projections run (docs/schema.md, "Charm++ runs") into the input of
// the task-based analysis, charm::TaskTrace, with whole-table range scans
// (db/store/record_scan.h and one SELECT per small table), never a query per
// row.
//
// Mapping:
//  - chares -> chare_runtime (chare ids are dense, numbered by first execution);
//  - regions of entry methods -> entry_name (entry index = region id; the
//    `Chare::` prefix is dropped so that SDAG serials keep their "_serial_N");
//  - executions (depth-0 events with a row in `executions`) -> blocks;
//  - Idle events -> idle intervals;
//  - each creation -> one source at its send_ns inside its send_event's block
//    (a broadcast's message rows, which share src, send_event, send_ns, tag
//    and bytes and have consecutive ids, are one source); each triggered
//    execution -> a sink at its begin whose partner is that source;
//  - migrations -> lb_step_time (each distinct migration time).
#include <cstdint>
#include <vector>

#include "charm/task_trace.h"
#include "projections/projections_check.h"  // is_projections_run
#include "store/sqlite.h"

namespace weft::db {

struct LoadedTaskTrace {
  charm::TaskTrace trace;
  // Per chare: its name (`Jacobi[3,1]`, `CkReductionMgr (PE 2)`).
  std::vector<std::string> chare_name;
  // Per dependency event: the message id of its first message row (a source:
  // the creation's; a sink: the one that triggered it), or -1.
  std::vector<std::int64_t> event_message;
  std::int64_t creations_outside_executions = 0;  // sources with no block (send_event NULL)
};

// Throws weft::Error naming the file when the run is not a Projections run or
// its tables disagree (an execution with no events row, a chare out of range).
LoadedTaskTrace load_task_trace(Database& db);

}  // namespace weft::db
