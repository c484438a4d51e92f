#pragma once
// The analysis tables of a .weft run (docs/schema.md, "Logical structure"):
// writing a StructureResult, and reading the per-event results back for
// `weft check` and `weft export`.
//
// write_structure replaces any earlier analysis inside one transaction, so a
// reader (a viewer with the file open, in WAL mode) sees either the old or the
// new structure, never a mix.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "store/sqlite.h"
#include "structure/analysis.h"
#include "structure/comm_trace_loader.h"
#include "structure/summary_totals.h"

namespace weft::db {

struct AnalysisSettings {
  structure::AnalysisOptions options;
  bool task_reorder = true;  // task runs (Projections): §3.2.1 reordering; --no-reorder
  std::string partition_function;
  // 2: the messages are loaded on a second thread while the events are, and
  // the view tables are built on one while comm_event_blocks is written; 1:
  // all on the calling thread.
  int threads = 2;
  // Told of the analysis' stages as it goes (MPI runs), on the calling
  // thread; none: nothing.
  Progress* progress = nullptr;
};

// Runs the analysis on `db` and stores it, replacing an earlier one. Returns
// the report of what it did.
structure::AnalysisReport analyze_run(Database& db, const AnalysisSettings& settings);

// `loaded` is what the analysis was run on (its trace consumed by it: the
// input ops are result.input).
void write_structure(Database& db, const LoadedCommTrace& loaded,
                     const structure::StructureResult& result, const AnalysisSettings& settings);

bool has_structure(Database& db);

// partition_edges: every edge of the partition DAG (MPI and task runs alike).
void write_partition_edges(Database& db, const structure::PartitionGraph& graph, std::int32_t partitions);

// Fills step_metrics (steps with events) and process_metrics (every row).
void write_metric_tables(Database& db, const std::vector<MetricTotals>& per_step,
                         const std::vector<MetricTotals>& per_process);

// Sets every analysis table (MPI and task) of a previous analysis aside
// (renamed weft_previous_*, see structure_store.cpp) and creates
// comm_event_blocks and its index, inside the caller's transaction. The
// writer calls drop_previous_structure_tables once its tables are written.
void create_structure_tables(Database& db);
void set_aside_structure_tables(Database& db);
void drop_previous_structure_tables(Database& db);
// Creates the shared summary tables (partitions, partition_edges, phases,
// step_metrics, process_metrics). Writers create them just before filling
// them, after the large tables (see write_structure).
void create_summary_tables(Database& db);

// The stored per-event results that `weft check` verifies, aligned with the
// ops of a loaded CommTrace (-1 where no record names the op).
struct StoredStructure {
  std::vector<std::int32_t> partition;
  std::vector<std::int64_t> step;  // global step
  std::vector<TimeNs> lateness;
  std::int64_t rows_without_op = 0;  // comm_events rows whose event is not an op
};

StoredStructure read_structure(Database& db, const structure::CommTrace& trace);

}  // namespace weft::db
