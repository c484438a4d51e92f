// `weft info RUN.weft`: what a run database holds, for people.
#include <cstdio>
#include <memory>
#include <string>

#include "app/commands.h"
#include "common/text.h"
#include "charm/task_structure_store.h"
#include "store/run_info.h"
#include "store/schema.h"

namespace weft::app {
namespace {

// The logical structure summary and every repair the analysis made.
void print_structure_facts(const db::RunInfo& info) {
  if (info.meta_or("analysis_partitions", "").empty()) {
    std::printf("%-16s %s\n", "structure", "not analyzed (run `weft analyze`)");
    return;
  }
  auto num = [&](const char* key) { return std::to_string(info.meta_int(key)); };
  std::printf("%-16s %s communication events, %s partitions, %s phases, %s global steps\n", "structure",
              num("analysis_communication_events").c_str(), num("analysis_partitions").c_str(),
              num("analysis_phases").c_str(), num("analysis_global_steps").c_str());
  const char* repairs[][2] = {
      {"analysis_forced_orderings", "happened-before cycles broken"},
      {"analysis_split_collectives", "collective members stepped apart"},
      {"analysis_incomplete_leaps", "leaps without every process"},
      {"analysis_messages_back_in_time", "messages received before sent (clock skew)"},
      {"analysis_one_sided_messages", "messages with one side only"},
      {"analysis_silent_processes", "processes without communication"},
  };
  for (const auto& [key, what] : repairs)
    if (info.meta_int(key)) std::printf("%-16s %s %s\n", "", num(key).c_str(), what);
}

// The task-based structure of a Projections run (charm paper §3) and the
// percent imbalance λ (ampi-projections.txt Eq. 1) of the run and of each
// interval between load-balancing steps.
void print_task_facts(const std::string& path, const db::RunInfo& info) {
  auto num = [&](const char* key) { return std::to_string(info.meta_int(key)); };
  std::printf("%-16s task-based: %s dependency events, %s phases (%s runtime), %s global steps, %s chare rows\n",
              "structure", num("analysis_communication_events").c_str(), num("analysis_phases").c_str(),
              num("analysis_runtime_phases").c_str(), num("analysis_global_steps").c_str(),
              num("analysis_logical_rows").c_str());
  std::printf("%-16s %.1f %% over the run\n", "imbalance", std::stod(info.meta_or("analysis_lambda_percent", "0")));
  db::Database db = db::open_run(path, db::Database::Mode::ReadOnly);
  const std::vector<db::ImbalanceInterval> intervals = db::read_imbalance_intervals(db);
  if (intervals.size() < 2) return;  // no balancing step: the run's λ says it all
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const std::string when = i == 0 ? "before LB step 1"
                                    : "after LB step " + std::to_string(i) +
                                          (i + 1 < intervals.size() ? " (before " + std::to_string(i + 1) + ")" : "");
    std::printf("%-16s %.1f %% %s [%s, %s]\n", "", intervals[i].lambda_percent, when.c_str(),
                db::format_duration_ns(intervals[i].start_ns).c_str(), db::format_duration_ns(intervals[i].end_ns).c_str());
  }
}

void print_info(const std::string& path) {
  db::RunInfo info = db::read_run_info(path);
  auto line = [](const char* label, const std::string& value) {
    std::printf("%-16s %s\n", label, escape_control_chars(value).c_str());
  };
  auto num = [](std::int64_t v) { return std::to_string(v); };
  line("run", info.path);
  line("schema version", num(info.schema_version));
  line("source", info.meta_or("source_format", "?") + " " + info.meta_or("source_path", "?"));
  line("creator", info.meta_or("creator", "?"));
  line("weft version", info.meta_or("weft_version", "?"));
  line("processes", num(info.processes));
  line("events", num(info.events));
  const bool projections = info.meta_or("source_format", "") == "projections";
  line(projections ? "log records" : "OTF2 records",
       num(info.records) + " (" + num(info.meta_int("count_unknown_records")) + (projections ? " unknown)" : " not used)"));
  if (projections) {
    // The Charm++ tables (docs/schema.md, "Charm++ runs").
    line("PEs", num(info.meta_int("count_pes")));
    line("chares", num(info.meta_int("count_chares")));
    line("executions", num(info.meta_int("count_executions")) + " (" + num(info.meta_int("count_idle")) +
                           " idle intervals, " + num(info.meta_int("count_user_brackets")) + " user brackets)");
    if (info.meta_int("count_virtual_ranks"))
      line("AMPI ranks", num(info.meta_int("count_virtual_ranks")) + " (" + num(info.meta_int("count_migrations")) +
                             " migrations)");
  }
  std::int64_t matched = info.messages - info.unmatched_sends - info.unmatched_recvs;
  line("messages", num(info.messages) + " (" + num(matched) + " matched, " +
                       num(info.unmatched_sends) + " unmatched sends, " +
                       num(info.unmatched_recvs) + " unmatched receives)");
  line("collectives", num(info.collectives));
  line("time span", db::format_duration_ns(info.trace_end_ns) + " (" + num(info.trace_end_ns) +
                        " ns)");
  std::int64_t unclosed = info.meta_int("count_unclosed_regions");
  if (unclosed) line("unclosed regions", num(unclosed));
  if (info.meta_or("analysis_kind", "") == "task")
    print_task_facts(path, info);
  else
    print_structure_facts(info);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("info", "Summarize a .weft run database");
  cmd->add_option("run", *path, "run database (RUN.weft)")->required();
  cmd->callback([path] { print_info(*path); });
}

}  // namespace weft::app
