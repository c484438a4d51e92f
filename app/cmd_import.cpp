// `weft import TRACE.otf2 -o RUN.weft`: converts an OTF2 archive into a run
// database. The work is db::import_otf2; this file parses options, shows
// progress and prints the summary.
#include <cstdio>
#include <memory>
#include <string>

#include "app/analysis_options.h"
#include "common/text.h"
#include "app/commands.h"
#include "app/malloc_tuning.h"
#include "app/progress_bar.h"
#include "app/resource_options.h"
#include "common/error.h"
#include "otf2/otf2_decode_only.h"
#include "otf2/otf2_importer.h"
#include "projections/projections_importer.h"
#include "summary/view_summaries.h"

namespace weft::app {
namespace {

struct ImportArgs {
  std::string trace;
  std::string output;
  bool force = false;
  bool quiet = false;
  bool decode_only = false;
  bool no_analyze = false;
  db::AnalysisSettings analysis;
  ResourceOptions resources;
};

void run_decode_only(const ImportArgs& args) {
  if (db::is_projections_path(args.trace)) throw Error(args.trace, "--decode-only reads OTF2 archives only");
  db::DecodeOnlyResult r = db::decode_only_otf2(args.trace);
  std::printf("records=%llu seconds=%.6f\n", static_cast<unsigned long long>(r.records), r.seconds);
}

void run_import(const ImportArgs& args) {
  if (args.output.empty()) throw Error("import: missing -o RUN.weft");
  db::ImportOptions options;
  options.trace_path = args.trace;
  options.output_path = args.output;
  options.overwrite = args.force;
  options.weft_version = WEFT_VERSION;
  options.threads = args.resources.threads;
  options.cache_mib = args.resources.cache_mib;
  ProgressBar bar("importing", !args.quiet);
  options.progress = [&bar](const db::ImportProgress& p) {
    double fraction = p.records_total ? static_cast<double>(p.records_done) /
                                            static_cast<double>(p.records_total)
                                      : static_cast<double>(p.locations_done) /
                                            static_cast<double>(p.locations_total);
    bar.update(fraction, std::to_string(p.locations_done) + "/" +
                             std::to_string(p.locations_total) + " locations");
  };
  structure::AnalysisReport report;
  const bool projections = db::is_projections_path(args.trace);
  // The records are all read by then: the bar stays full and tells the
  // analysis' stage and share.
  Progress analysis_progress([&bar](const std::string& stage, double done) {
    bar.update(1.0, "analyzing structure " + std::to_string(static_cast<int>(done * 100)) + "%: " + stage);
  });
  if (!args.no_analyze && !projections)
    options.before_publish = [&](db::Database& db) {
      bar.update(1.0, "analyzing structure");
      db::AnalysisSettings settings = args.analysis;
      settings.threads = std::min(args.resources.threads, 2);
      settings.progress = &analysis_progress;
      share_one_malloc_arena();  // the import's workers are done
      report = db::analyze_run(db, settings);
      db::write_view_summaries(db);
    };
  // A Projections run gets the task-based structure (charm paper §3).
  db::TaskRunReport task_report;
  if (!args.no_analyze && projections)
    options.before_publish = [&](db::Database& db) {
      bar.update(1.0, "analyzing task structure");
      task_report = db::analyze_task_run(db, {args.analysis.task_reorder});
      db::write_view_summaries(db);
    };
  db::ImportSummary s = projections ? db::import_projections(options) : db::import_otf2(options);
  bar.finish();
  for (const std::string& w : s.warnings) std::fprintf(stderr, "weft: warning: %s\n", escape_control_chars(w).c_str());
  if (!args.quiet)
    std::printf("%s: %llu processes, %llu events from %llu records, %llu messages, "
                "%llu collectives in %.2f s\n",
                escape_control_chars(args.output).c_str(), static_cast<unsigned long long>(s.processes),
                static_cast<unsigned long long>(s.events),
                static_cast<unsigned long long>(s.records),
                static_cast<unsigned long long>(s.messages),
                static_cast<unsigned long long>(s.collectives), s.seconds);
  if (!args.no_analyze) {
    if (projections)
      print_task_report(args.output, task_report, args.quiet);
    else
      print_analysis_report(args.output, report, args.quiet);
  }
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Import an OTF2 trace or a Charm++ Projections run into a .weft run database");
  cmd->add_option("trace", args->trace, "OTF2 anchor file (traces.otf2) or Projections definitions (PROG.sts)")->required();
  cmd->add_option("-o,--output", args->output, "output run database (RUN.weft)");
  cmd->add_flag("-f,--force", args->force, "replace an existing output (once the new one is complete)");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress bar and no summary line");
  cmd->add_flag("--no-analyze", args->no_analyze, "skip the logical structure analysis (run `weft analyze` later)");
  add_analysis_options(cmd, args->analysis);
  add_threads_option(cmd, args->resources, 64);
  add_load_cache_option(cmd, args->resources);
  // Benchmark baseline: read every event with the importer's reader, store nothing.
  cmd->add_flag("--decode-only", args->decode_only, "")->group("");
  cmd->callback([args] {
    if (args->decode_only)
      run_decode_only(*args);
    else
      run_import(*args);
  });
}

}  // namespace weft::app
