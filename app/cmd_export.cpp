// `weft export RUN.weft --what steps|messages|migrations --format csv|json [-o FILE]`:
// the logical structure or the matched messages as a table. With -o the file
// appears complete or not at all (written beside it, renamed at the end).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/progress_bar.h"
#include "app/resource_options.h"
#include "app/table_writer.h"
#include "common/error.h"
#include "common/progress.h"
#include "store/atomic_output.h"
#include "store/background_sync.h"
#include "store/meta.h"
#include "store/record_scan.h"
#include "structure/comm_event_blocks.h"
#include "store/schema.h"
#include "structure/comm_trace.h"
#include "structure/structure_store.h"

namespace weft::app {
namespace {

struct ExportArgs {
  std::string run;
  std::string what = "steps";
  std::string format = "csv";
  std::string output;
  bool quiet = false;
  ResourceOptions resources;
};

// Region names indexed by region reference (references are dense in practice;
// the loader refuses huge ones).
std::vector<std::string> region_names(db::Database& db) {
  std::vector<std::string> names;
  db::Statement s = db.prepare("SELECT region, name FROM regions WHERE region >= 0 AND region < 16777216");
  while (s.step()) {
    auto ref = static_cast<std::size_t>(s.column_int(0));
    if (ref >= names.size()) names.resize(ref + 1);
    names[ref] = s.column_text(1);
  }
  return names;
}

void export_steps(db::Database& db, TableWriter& w, Progress& progress) {
  if (!db::has_structure(db))
    throw Error(db.path(), "no logical structure stored; run `weft analyze " + db.path() + "` first");
  const std::vector<std::string> names = region_names(db);
  auto ref = [&w](std::int64_t v) { v == db::kNullRef ? w.null() : w.integer(v); };
  const std::optional<db::CommEventBlockKey> key = db::read_comm_event_block_key(db);
  const std::int64_t rows = key ? key->rows : db.query_int("SELECT count(*) FROM processes");
  progress.stage("communication events", 1.0);
  db::scan_comm_events(db, [&](std::span<const db::CommEventRecord> batch) {
    // Rows (processes or chares) come in order: a batch's last row tells how far it is.
    if (!batch.empty()) progress_within(&progress, batch.back().process + 1, static_cast<double>(rows));
    for (const db::CommEventRecord& e : batch) {
      w.integer(e.event);
      w.integer(e.process);
      auto region = static_cast<std::size_t>(e.region);
      w.text(e.region >= 0 && region < names.size() ? names[region] : std::string());
      w.text(structure::op_kind_name(static_cast<structure::OpKind>(e.kind)));
      w.integer(e.start_ns);
      w.integer(e.end_ns);
      w.integer(e.partition);
      w.integer(e.step);
      ref(e.collective);
      ref(e.message);
      w.integer(e.lateness_ns);
      w.integer(e.global_lateness_ns);
      w.integer(e.diff_lateness_ns);
      w.end_row();
    }
  });
}

void export_messages(db::Database& db, TableWriter& w, Progress& progress) {
  auto ref = [&w](std::int64_t v) { v == db::kNullRef ? w.null() : w.integer(v); };
  const std::int64_t messages = db::find_meta_int(db, "count_messages").value_or(0);
  std::int64_t written = 0;
  progress.stage("messages", 1.0);
  db::scan_messages(db, [&](std::span<const db::MessageRecord> batch) {
    written += static_cast<std::int64_t>(batch.size());
    progress_within(&progress, written, static_cast<double>(messages));
    for (const db::MessageRecord& m : batch) {
      w.integer(m.id);
      ref(m.send_event);
      ref(m.recv_event);
      ref(m.src);
      ref(m.dst);
      w.integer(m.tag);
      w.integer(m.comm);
      w.integer(m.bytes);
      m.has_send_ns ? w.integer(m.send_ns) : w.null();
      m.has_recv_ns ? w.integer(m.recv_ns) : w.null();
      w.end_row();
    }
  });
}

// AMPI rank migrations of a Projections run (docs/schema.md, "migrations").
void export_migrations(db::Database& db, TableWriter& w) {
  if (!db::has_table(db, "migrations"))
    throw Error(db.path(), "no migrations table (only Projections runs have one)");
  db::Statement s = db.prepare("SELECT vp, from_pe, to_pe, time_ns FROM migrations ORDER BY time_ns, vp");
  while (s.step()) {
    for (int c = 0; c < 4; ++c) w.integer(s.column_int(c));
    w.end_row();
  }
}

const std::vector<std::string> kStepColumns = {
    "event_id", "process", "function", "kind", "start_ns", "end_ns", "partition", "step",
    "collective_id", "message_id", "lateness_ns", "global_lateness_ns", "diff_lateness_ns"};
const std::vector<std::string> kMessageColumns = {"message_id", "send_event_id", "recv_event_id",
                                                  "src", "dst", "tag", "communicator", "bytes",
                                                  "send_ns", "recv_ns"};

// Returns the errno of the first failed write, 0 if none.
int write_export(db::Database& db, const ExportArgs& args, std::FILE* out) {
  TableFormat format = parse_table_format(args.format);
  // On a terminal (stderr), for exports over a second: tens of millions of
  // rows take tens of seconds. Not among rows written to the terminal itself.
  ProgressBar bar("exporting", !args.quiet && (out != stdout || !isatty(STDOUT_FILENO)));
  Progress progress([&bar](const std::string& stage, double done) { bar.update(done, stage); });
  if (args.what == "steps") {
    TableWriter w(out, format, kStepColumns);
    export_steps(db, w, progress);
    w.finish();
    return w.write_errno();
  }
  if (args.what == "messages") {
    TableWriter w(out, format, kMessageColumns);
    export_messages(db, w, progress);
    w.finish();
    return w.write_errno();
  }
  if (args.what == "migrations") {
    TableWriter w(out, format, {"vp", "from_pe", "to_pe", "time_ns"});
    export_migrations(db, w);
    w.finish();
    return w.write_errno();
  }
  throw Error("export: unknown --what '" + args.what + "' (steps, messages or migrations)");
}

void run_export(const ExportArgs& args) {
  parse_table_format(args.format);
  db::Database db = db::open_run(args.run);
  apply_cache_size(db, args.resources);
  if (args.output.empty()) {
    const int write_errno = write_export(db, args, stdout);
    if (write_errno != 0 || std::fflush(stdout) != 0 || std::ferror(stdout))
      throw Error("standard output", "write failed: " + db::write_error_text(write_errno ? write_errno : errno));
    return;
  }
  db::AtomicOutput output(args.output, true);
  // Synced while it is written: commit() then waits for the last few MiB.
  std::FILE* f = db::open_with_early_writeback(output.temp_path());
  if (!f) throw Error(args.output, "cannot write: " + db::write_error_text(errno));
  int write_errno = 0;
  try {
    write_errno = write_export(db, args, f);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  errno = 0;
  bool failed = write_errno != 0 || std::fflush(f) != 0 || std::ferror(f);
  int error_number = write_errno ? write_errno : errno;
  if (std::fclose(f) != 0 && !failed) {
    failed = true;
    error_number = errno;
  }
  if (failed) throw Error(args.output, "write failed: " + db::write_error_text(error_number ? error_number : EIO));
  output.commit();
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Export the logical structure or the messages as CSV or JSON");
  cmd->add_option("run", args->run, "run database (RUN.weft)")->required();
  cmd->add_option("--what", args->what,
                  "steps (one row per communication event), messages, or migrations (AMPI, Projections runs)")
      ->check(CLI::IsMember({"steps", "messages", "migrations"}));
  cmd->add_option("--format", args->format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
  cmd->add_option("-o,--output", args->output, "output file (default: standard output)");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress bar");
  add_cache_option(cmd, args->resources);
  cmd->callback([args] { run_export(*args); });
}

}  // namespace weft::app
