#pragma once
// The structure-analysis options shared by `weft import` and `weft analyze`,
// and the report both print.
#include <CLI/CLI.hpp>

#include "structure/structure_store.h"

namespace weft::app {

// Adds --no-isend-coalescing, --no-leap-merge, --leap-force, --reorder, --partition-function.
void add_analysis_options(CLI::App* cmd, db::AnalysisSettings& settings);

// Prints the analysis summary (one line) and any repairs it made (stderr).
void print_analysis_report(const std::string& path, const structure::AnalysisReport& report);

}  // namespace weft::app
