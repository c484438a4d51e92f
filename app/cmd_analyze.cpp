// `weft analyze RUN.weft`: (re)computes the logical structure in place. The
// new result replaces the old one in one transaction (WAL mode), so a viewer
// reading the file meanwhile sees one or the other, never a mix.
#include <memory>
#include <string>

#include "app/analysis_options.h"
#include "app/commands.h"
#include "app/malloc_tuning.h"
#include "app/progress_bar.h"
#include "app/resource_options.h"
#include "charm/task_trace_loader.h"
#include "store/schema.h"
#include "store/write_journal.h"
#include "summary/view_summaries.h"

namespace weft::app {
namespace {

struct AnalyzeArgs {
  std::string run;
  db::AnalysisSettings settings;
  bool summaries_only = false;
  bool quiet = false;
  ResourceOptions resources;
};

void run_analyze(const AnalyzeArgs& args) {
  // The rollback journal while no one else has the file open, else WAL so
  // that readers keep reading the old analysis (store/write_journal.h).
  // synchronous=NORMAL: a commit is atomic either way; in WAL mode its
  // durability across a power cut is deferred to the next checkpoint. The
  // syncs wait for less with early writeback. It is set before the switch to
  // the rollback journal, so that the switch's own transaction syncs its
  // journal once (FULL syncs it again after rewriting its header).
  db::Database db = db::open_run(args.run, db::Database::Mode::ReadWrite, db::Database::Writeback::Early);
  db.exec("PRAGMA synchronous=NORMAL;");
  const db::WriteJournal journal(db);
  // Debian's SQLite zeroes every freed page (SECURE_DELETE), which makes
  // dropping the previous analysis write (and journal) all its pages.
  db.exec("PRAGMA secure_delete=OFF;");
  apply_cache_size(db, args.resources);
  if (args.summaries_only) {
    // For runs too large to analyze here: the physical view and slider still work.
    db::write_view_summaries(db);
    return;
  }
  // A Projections run gets the task-based structure (charm paper §3), an
  // OTF2 run the MPI one.
  if (db::is_projections_run(db)) {
    const db::TaskRunReport report = db::analyze_task_run(db, {args.settings.task_reorder});
    if (!db::has_view_summaries(db)) db::write_view_summaries(db);
    print_task_report(args.run, report, args.quiet);
    return;
  }
  db::AnalysisSettings settings = args.settings;
  settings.threads = args.resources.threads;
  // A bar on a terminal for runs that take over a second (tens of seconds
  // at 100M events): the stage and the share of the usual time done.
  ProgressBar bar("analyzing", !args.quiet);
  Progress progress([&bar](const std::string& stage, double done) { bar.update(done, stage); });
  settings.progress = &progress;
  structure::AnalysisReport report;
  // The slider's graph and the level of detail depend on the events only:
  // the ones written at import stay right; a run imported without them gets
  // them after the analysis.
  const bool write_summaries = !db::has_view_summaries(db);
  {
    const AnalysisMalloc analysis_malloc(
        db, write_summaries ? AnalysisMalloc::Then::MoreWork : AnalysisMalloc::Then::Exit);
    report = db::analyze_run(db, settings);
  }
  bar.finish();
  if (write_summaries) db::write_view_summaries(db);
  print_analysis_report(args.run, report, args.quiet);
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand("analyze", "Recompute the logical structure and lateness metrics of a run");
  cmd->add_option("run", args->run, "run database (RUN.weft)")->required();
  add_analysis_options(cmd, args->settings);
  cmd->add_flag("--summaries-only", args->summaries_only,
                "write only the viewer's summaries (start histogram, level of detail), no structure");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress bar and no summary line (repairs are still reported)");
  add_cache_option(cmd, args->resources);
  add_threads_option(cmd, args->resources, 2);
  cmd->callback([args] { run_analyze(*args); });
}

}  // namespace weft::app
