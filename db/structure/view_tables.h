#pragma once
// What the logical timeline needs of an analysis beyond the per-event rows of
// comm_events: the message lines (structure/message_step_blocks.h), the level
// of detail and the time bins, and the largest value of every metric, so that
// a color scale is the same in every window.
#include <cstdint>
#include <string>
#include <vector>

#include "store/sqlite.h"
#include "structure/analysis.h"
#include "structure/comm_trace_loader.h"
#include "structure/message_step_blocks.h"
#include "structure/step_lod.h"
#include "structure/time_metrics.h"

namespace weft::db {

// The meta facts of the view tables (analysis_max_message_steps,
// analysis_max_*_ns), written after the other analysis_ facts.
struct ViewTableFacts {
  std::int64_t max_message_steps = 0;
  TimeNs max_lateness = 0, max_global_lateness = 0, max_diff_lateness = 0, max_wait = 0, max_duration = 0;
};

// What building the view tables needs of the database, read beforehand.
struct ViewTableInputs {
  std::string path;             // for errors
  RegionClasses region_classes;
  TimeNs trace_end_ns = 0;
  std::size_t max_message_blob = 0;  // largest_message_step_blob
};
ViewTableInputs read_view_table_inputs(Database& db);

// The contents of message_step_blocks, step_lod and time_metrics and the
// facts, built from an analysis without the database: the analysis builds
// them on a second thread while it writes comm_event_blocks. They are small
// beside the analysis (about 5 bytes per message line).
struct ViewTables {
  MessageStepBlocks message_steps;
  StepLodTiles step_lod;
  TimeMetricBins time_metrics;
  ViewTableFacts facts;
};
// How the time bins and the step level of detail walk the ops: in one walk
// when its memory fits (Auto, view_tables.cpp), or as asked (for tests: both
// give the same tables).
enum class MetricsWalks { Auto, One, Two };
// Needs the loaded trace's messages: call it before they are released. Only
// reads `loaded` and `result`.
// With `share`, the message lines and part of the step level of detail are
// offered to the thread that helps there (JobExchange).
ViewTables build_view_tables(const ViewTableInputs& inputs, const LoadedCommTrace& loaded,
                             const structure::StructureResult& result, MetricsWalks walks = MetricsWalks::Auto,
                             JobExchange* share = nullptr);
// Creates and fills the tables inside the caller's transaction.
void write_view_tables(Database& db, const ViewTables& tables);
void write_view_facts(Database& db, const ViewTableFacts& facts);

}  // namespace weft::db
