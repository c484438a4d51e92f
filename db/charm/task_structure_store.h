#pragma once
// The task-based logical structure of a Projections run, stored in the
// analysis tables the MPI analysis uses (docs/schema.md, "Task runs"), so
// that the logical timeline shows it unchanged: comm_event_blocks,
// message_steps, step_lod, time_metrics, partitions, phases, step_metrics and
// process_metrics with `process` = the logical row (a chare in
// charm::chare_row_order), plus logical_rows, pe_metrics,
// imbalance_intervals and entry_stats, and meta analysis_kind = `task`.
// Everything is replaced in one transaction, like write_structure.
#include <cstdint>
#include <string>
#include <vector>

#include "charm/task_structure.h"
#include "store/sqlite.h"

namespace weft::db {

struct TaskStoreSettings {
  bool reorder = true;  // §3.2.1, as the paper; `--no-reorder` turns it off
};

struct TaskRunReport {
  charm::TaskAnalysisReport analysis;
  double lambda_percent = 0;                  // λ of the whole run
  std::vector<double> interval_lambda_percent;  // per load-balancing interval
  std::int64_t rows = 0;
};

TaskRunReport analyze_task_run(Database& db, const TaskStoreSettings& settings);

// Whether the stored analysis is the task one (meta analysis_kind = task).
bool has_task_structure(Database& db);

// logical_rows, by row: the chare names and runtime flags (empty for an MPI run).
struct LogicalRows {
  std::vector<std::string> name;
  std::vector<std::uint8_t> runtime;
};
LogicalRows read_logical_rows(Database& db);

// imbalance_intervals rows, by interval.
struct ImbalanceInterval {
  TimeNs start_ns = 0, end_ns = 0;
  double lambda_percent = 0;
};
std::vector<ImbalanceInterval> read_imbalance_intervals(Database& db);

// The stored per-event results of a task analysis, for `weft check`.
struct StoredTaskEvent {
  std::int64_t row, step, message;
  std::int32_t kind;  // 0 source, 2 sink (structure::OpKind Send / Recv)
};
std::vector<StoredTaskEvent> read_task_events(Database& db);

}  // namespace weft::db
