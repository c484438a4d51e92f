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

#include "charm/task_metrics.h"
#include "charm/task_structure.h"
#include "store/sqlite.h"

namespace weft::db {

struct TaskStoreSettings {
  bool reorder = true;  // §3.2.1, as the paper; `--no-reorder` turns it off
};

struct TaskRunReport {
  charm::TaskAnalysisReport analysis;
  double lambda_percent = 0;                  // λ of the whole run
  // λ per load-balancing interval, with the bounds it was computed over.
  std::vector<charm::IntervalImbalance> intervals;
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

// `weft check` on a stored task structure (charm paper §3.2): violations of
// each property, read back from comm_event_blocks and message_steps.
struct TaskCheck {
  std::int64_t events = 0, messages = 0;
  std::int64_t shared_steps = 0;        // two events of one chare (row) on one step
  std::int64_t sink_not_after_source = 0;  // message_steps: recv_step <= send_step
  std::int64_t sinks_without_record = 0;   // a message's sink is not stored at (dst, recv_step)
  std::int64_t rows_out_of_range = 0;      // an event's row is not in logical_rows
  bool ok() const { return shared_steps + sink_not_after_source + sinks_without_record + rows_out_of_range == 0; }
};
TaskCheck check_task_structure(Database& db);

}  // namespace weft::db
