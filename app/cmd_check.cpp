// `weft check RUN.weft`: verifies the stored logical structure against the
// invariants of core/structure/structure_check.h and reports violation counts.
// Exit status 0 only when every invariant holds (1 when some do not).
#include <cstdio>
#include <memory>
#include <string>

#include "app/commands.h"
#include "common/release_memory.h"
#include "common/text.h"
#include "app/resource_options.h"
#include "charm/task_structure_store.h"
#include "projections/projections_check.h"
#include "store/schema.h"
#include "structure/structure_check.h"
#include "structure/structure_store.h"

namespace weft::app {
namespace {

int print_check_line(const char* what, long long count) {
  std::printf("%-46s %s\n", what, count == 0 ? "ok" : (std::to_string(count) + " violation(s)").c_str());
  return 0;
}

// A Projections run: the Charm++ tables against the events and messages
// (the MPI logical structure does not apply to it).
int run_projections_check(db::Database& db, const std::string& path) {
  db::ProjectionsCheck r = db::check_projections_run(db);
  std::printf("%s: %lld events, %lld entry executions, %lld messages\n", escape_control_chars(path).c_str(),
              static_cast<long long>(r.events), static_cast<long long>(r.executions),
              static_cast<long long>(r.messages));
  for (const db::ProjectionsCheck::Line& l : r.lines) print_check_line(l.what.c_str(), l.violations);
  if (r.executed_before_created)
    std::printf("note: %lld message(s) executed before their creation time (clock skew between PEs)\n",
                static_cast<long long>(r.executed_before_created));
  if (!db::has_task_structure(db)) return r.ok() ? 0 : 1;
  // The task-based logical structure (charm paper §3.2).
  const db::TaskCheck t = db::check_task_structure(db);
  std::printf("task structure: %lld dependency events, %lld messages\n", static_cast<long long>(t.events),
              static_cast<long long>(t.messages));
  print_check_line("every event's row is a chare of logical_rows", t.rows_out_of_range);
  print_check_line("no two events of one chare on one step", t.shared_steps);
  print_check_line("step(sink) > step(source)", t.sink_not_after_source);
  print_check_line("every message's sink is stored at its step", t.sinks_without_record);
  return r.ok() && t.ok() ? 0 : 1;
}

int run_check(const std::string& path, const ResourceOptions& resources) {
  db::Database db = db::open_run(path);
  apply_cache_size(db, resources);
  if (db::is_projections_run(db)) return run_projections_check(db, path);
  db::LoadedCommTrace loaded = db::load_comm_trace(db, {});
  // Only the trace is checked: the store ids and regions (16 bytes per op and
  // message) go before the stored results are read.
  release_memory(loaded.region);
  release_memory(loaded.message_id);
  release_memory(loaded.collective_id);
  db::StoredStructure stored = db::read_structure(db, loaded.trace);
  structure::CheckResult r =
      structure::check_structure(loaded.trace, stored.partition, stored.step, stored.lateness);
  r.ops_without_structure += stored.rows_without_op;
  auto line = print_check_line;
  std::printf("%s: %d communication events, %d messages, %d collectives\n", escape_control_chars(path).c_str(),
              loaded.trace.op_count(), loaded.trace.message_count(), loaded.trace.collective_count());
  line("every event has a stored step", r.ops_without_structure);
  line("step(send) < step(receive)", r.send_not_before_receive);
  line("steps increase along each process", r.steps_not_increasing);
  line("collective members share one step", r.collectives_split);
  line("each (partition, step) has lateness 0", r.groups_without_zero_lateness);
  line("partition graph is acyclic", r.partitions_in_cycles);
  return r.ok() ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto resources = std::make_shared<ResourceOptions>();
  CLI::App* cmd = app.add_subcommand("check", "Verify the invariants of a run's logical structure");
  cmd->add_option("run", *path, "run database (RUN.weft)")->required();
  add_cache_option(cmd, *resources);
  cmd->callback([path, resources] {
    int status = run_check(*path, *resources);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

}  // namespace weft::app
