// `weft export RUN.weft --what steps|messages --format csv|json [-o FILE]`:
// the logical structure or the matched messages as a table. With -o the file
// appears complete or not at all (written beside it, renamed at the end).
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>

#include "app/commands.h"
#include "app/resource_options.h"
#include "app/table_writer.h"
#include "common/error.h"
#include "store/atomic_output.h"
#include "store/record_scan.h"
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
  ResourceOptions resources;
};

void value_or_null(TableWriter& w, const db::Statement& s, int col) {
  if (s.column_is_null(col))
    w.null();
  else
    w.integer(s.column_int(col));
}

void export_steps(db::Database& db, TableWriter& w) {
  if (!db::has_structure(db))
    throw Error(db.path(), "no logical structure stored; run `weft analyze " + db.path() + "` first");
  db::Statement s = db.prepare(
      "SELECT c.event, c.process, r.name, c.kind, c.start_ns, c.end_ns, c.partition, c.step,"
      " c.collective, c.message, c.lateness_ns, c.global_lateness_ns, c.diff_lateness_ns"
      " FROM comm_events c LEFT JOIN regions r ON r.region = c.region ORDER BY c.event");
  while (s.step()) {
    w.integer(s.column_int(0));
    w.integer(s.column_int(1));
    w.text(s.column_text(2));
    w.text(structure::op_kind_name(static_cast<structure::OpKind>(s.column_int(3))));
    for (int col = 4; col <= 7; ++col) w.integer(s.column_int(col));
    value_or_null(w, s, 8);
    value_or_null(w, s, 9);
    for (int col = 10; col <= 12; ++col) w.integer(s.column_int(col));
    w.end_row();
  }
}

void export_messages(db::Database& db, TableWriter& w) {
  auto ref = [&w](std::int64_t v) { v == db::kNullRef ? w.null() : w.integer(v); };
  db::scan_messages(db, [&](std::span<const db::MessageRecord> batch) {
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

const std::vector<std::string> kStepColumns = {
    "event_id", "process", "function", "kind", "start_ns", "end_ns", "partition", "step",
    "collective_id", "message_id", "lateness_ns", "global_lateness_ns", "diff_lateness_ns"};
const std::vector<std::string> kMessageColumns = {"message_id", "send_event_id", "recv_event_id",
                                                  "src", "dst", "tag", "communicator", "bytes",
                                                  "send_ns", "recv_ns"};

void write_export(db::Database& db, const ExportArgs& args, std::FILE* out) {
  TableFormat format = parse_table_format(args.format);
  if (args.what == "steps") {
    TableWriter w(out, format, kStepColumns);
    export_steps(db, w);
    w.finish();
  } else if (args.what == "messages") {
    TableWriter w(out, format, kMessageColumns);
    export_messages(db, w);
    w.finish();
  } else {
    throw Error("export: unknown --what '" + args.what + "' (steps or messages)");
  }
}

void run_export(const ExportArgs& args) {
  parse_table_format(args.format);
  db::Database db = db::open_run(args.run);
  apply_cache_size(db, args.resources);
  if (args.output.empty()) {
    write_export(db, args, stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      throw Error("standard output", "write failed: " + db::write_error_text(errno));
    return;
  }
  db::AtomicOutput output(args.output, true);
  std::FILE* f = std::fopen(output.temp_path().c_str(), "w");
  if (!f) throw Error(args.output, "cannot write: " + db::write_error_text(errno));
  try {
    write_export(db, args, f);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  errno = 0;
  bool failed = std::fflush(f) != 0 || std::ferror(f);
  int error_number = errno;
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
  cmd->add_option("--what", args->what, "steps (one row per communication event) or messages")
      ->check(CLI::IsMember({"steps", "messages"}));
  cmd->add_option("--format", args->format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
  cmd->add_option("-o,--output", args->output, "output file (default: standard output)");
  add_cache_option(cmd, args->resources);
  cmd->callback([args] { run_export(*args); });
}

}  // namespace weft::app
