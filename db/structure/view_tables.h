#pragma once
// What the logical timeline needs of an analysis beyond the per-event rows of
// comm_events (docs/schema.md, "message_steps"): each matched message with the
// global steps of its send and receive, so that a step window reads its message
// lines with one index range scan, and the largest value of every metric, so
// that a color scale is the same in every window.
#include "store/sqlite.h"
#include "structure/analysis.h"
#include "structure/comm_trace_loader.h"

namespace weft::db {

// Creates and fills message_steps and writes the meta facts
// analysis_max_message_steps and analysis_max_*_ns. Runs inside the caller's
// transaction, after the analysis_ meta facts were replaced.
void write_view_tables(Database& db, const LoadedCommTrace& loaded,
                       const structure::StructureResult& result);

}  // namespace weft::db
