#include "app/analysis_options.h"

#include "common/text.h"

#include <cstdio>

namespace weft::app {

void add_analysis_options(CLI::App* cmd, db::AnalysisSettings& s) {
  cmd->add_flag("--no-isend-coalescing{false}", s.options.isend_coalescing,
                "keep each MPI_Isend its own operation (default: coalesce runs of Isends)");
  cmd->add_flag("--no-leap-merge{false}", s.options.leap_merge,
                "keep the partitions of the SCC merge (no leap merge)");
  cmd->add_flag("--leap-force", s.options.leap_force,
                "merge partitions until every leap covers every communicating process");
  cmd->add_flag("--reorder", s.options.reorder,
                "reorder receives within each partition by their logical clocks (charm paper §3.2.1) "
                "before assigning steps");
  cmd->add_flag("--no-reorder{false}", s.task_reorder,
                "Charm++ runs: order each chare's events by physical time within a phase (default: "
                "reorder by logical clocks, charm paper §3.2.1)");
  cmd->add_option("--partition-function", s.partition_function,
                  "break partitions at each entry of this region (e.g. an iteration marker)");
}

void print_analysis_report(const std::string& path, const structure::AnalysisReport& r, bool quiet) {
  if (!quiet)
    std::printf("%s: %lld communication events, %d partitions, %d phases, %lld global steps\n",
                escape_control_chars(path).c_str(), static_cast<long long>(r.ops), r.partitions, r.phases,
                static_cast<long long>(r.global_steps));
  auto repair = [](long long count, const char* what) {
    if (count) std::fprintf(stderr, "weft: warning: %lld %s\n", count, what);
  };
  repair(r.forced_orderings, "happened-before cycle(s) broken to order operations");
  repair(r.split_collectives, "collective member(s) stepped apart to break a cycle");
  repair(r.leaps.incomplete_leaps, "leap(s) left without every process (use --leap-force to complete)");
  repair(r.messages_back_in_time, "message(s) received before they were sent (clock skew); ordered logically");
}

void print_task_report(const std::string& path, const db::TaskRunReport& r, bool quiet) {
  const charm::TaskAnalysisReport& a = r.analysis;
  if (!quiet)
    std::printf("%s: task structure: %lld serial blocks, %lld dependency events, %d phases (%d runtime), "
                "%lld global steps, %lld chare rows; imbalance %.1f %%\n",
                escape_control_chars(path).c_str(), static_cast<long long>(a.blocks),
                static_cast<long long>(a.events), a.phases, a.runtime_phases,
                static_cast<long long>(a.global_steps), static_cast<long long>(r.rows), r.lambda_percent);
  if (a.forced_orderings)
    std::fprintf(stderr, "weft: warning: %d dependency cycle(s) broken to order events\n", a.forced_orderings);
}

}  // namespace weft::app
