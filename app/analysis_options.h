#pragma once
// The structure-analysis options shared by `weft import` and `weft analyze`,
// and the report both print.
#include <CLI/CLI.hpp>

#include "charm/task_structure_store.h"
#include "structure/structure_store.h"

namespace weft::app {

// Adds --no-isend-coalescing, --no-leap-merge, --leap-force, --reorder, --no-reorder (task runs), --partition-function.
void add_analysis_options(CLI::App* cmd, db::AnalysisSettings& settings);

// Prints the analysis summary (one line, unless `quiet`) and any repairs it
// made (stderr, always: --quiet hides progress, not what was done to the input).
void print_analysis_report(const std::string& path, const structure::AnalysisReport& report, bool quiet);
// The same for the task-based analysis of a Projections run.
void print_task_report(const std::string& path, const db::TaskRunReport& report, bool quiet);

}  // namespace weft::app
