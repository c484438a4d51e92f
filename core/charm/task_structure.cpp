#include "charm/task_structure.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "common/phase_timer.h"
#include "structure/leap_merge.h"

namespace weft::charm {

TaskStructure analyze_task_structure(const TaskTrace& t, const TaskAnalysisOptions& options) {
  PhaseTimer timer("WEFT_ANALYZE_TIMING");
  validate_task_trace(t);
  TaskStructure r;
  TaskAnalysisReport& rep = r.report;
  rep.blocks = t.block_count();
  rep.events = t.event_count();
  for (EventIndex e = 0; e < t.event_count(); ++e)
    if (t.is_sink(e) && t.event_partner[static_cast<std::size_t>(e)] != kNone) ++rep.messages;
  r.index = index_task_trace(t);
  timer.mark("validate, index");
  // §3.1.1 .. §3.1.3
  r.phases = initial_partitions(t, r.index, r.edges);
  rep.initial_partitions = r.phases.count;
  timer.mark("initial partitions");
  rep.dependency_merged = dependency_merge(t, r.phases, r.edges);
  timer.mark("dependency merge");
  rep.repair_merged = repair_merge(t, r.phases, r.edges);
  timer.mark("repair merge");
  // §3.1.4
  if (options.infer_dependencies) {
    rep.inferred_edges = infer_dependencies(t, r.phases, r.edges);
    timer.mark("infer dependencies");
    rep.leap_merges = merge_by_leap(t, r.phases, r.edges);
    timer.mark("merge by leap");
  }
  rep.ordering_edges = order_overlapping_phases(t, r.phases, r.edges);
  timer.mark("order overlapping phases");
  rep.chare_path_edges = enforce_chare_paths(t, r.phases, r.edges);
  timer.mark("enforce chare paths");
  r.graph = order_partitions(t, r.phases, r.edges);
  r.leap = structure::compute_leaps(r.graph, r.phases.count);
  rep.phases = r.phases.count;
  for (std::uint8_t rt : r.phases.runtime) rep.runtime_phases += rt;
  // §3.2
  timer.mark("topological order");
  r.steps = assign_task_steps(t, r.index, r.phases, r.graph, options.reorder);
  timer.mark("steps");
  rep.forced_orderings = r.steps.forced_orderings;
  for (std::size_t p = 0; p < r.steps.phase_width.size(); ++p)
    rep.global_steps = std::max<std::int64_t>(rep.global_steps, r.steps.phase_offset[p] + r.steps.phase_width[p]);
  return r;
}

std::vector<std::pair<std::string, std::int64_t>> report_facts(const TaskAnalysisReport& r) {
  return {
      {"serial_blocks", r.blocks},
      {"dependency_events", r.events},
      {"messages", r.messages},
      {"initial_partitions", r.initial_partitions},
      {"dependency_merged_partitions", r.dependency_merged},
      {"repair_merged_partitions", r.repair_merged},
      {"inferred_edges", r.inferred_edges},
      {"leap_merges", r.leap_merges},
      {"ordering_edges", r.ordering_edges},
      {"chare_path_edges", r.chare_path_edges},
      {"phases", r.phases},
      {"runtime_phases", r.runtime_phases},
      {"global_steps", r.global_steps},
      {"forced_orderings", r.forced_orderings},
  };
}

std::vector<ChareIndex> chare_row_order(const TaskTrace& t) {
  std::vector<PeIndex> pe(static_cast<std::size_t>(t.chare_count()), std::numeric_limits<PeIndex>::max());
  std::vector<TimeNs> first(pe.size(), std::numeric_limits<TimeNs>::max());
  for (std::size_t b = 0; b < t.block_chare.size(); ++b) {
    const auto c = static_cast<std::size_t>(t.block_chare[b]);
    if (t.block_start[b] < first[c]) first[c] = t.block_start[b], pe[c] = t.block_pe[b];
  }
  std::vector<ChareIndex> rows(pe.size());
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](ChareIndex a, ChareIndex b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (t.chare_runtime[ua] != t.chare_runtime[ub]) return t.chare_runtime[ua] < t.chare_runtime[ub];
    if (t.chare_runtime[ua] && pe[ua] != pe[ub]) return pe[ua] < pe[ub];
    return a < b;
  });
  return rows;
}

}  // namespace weft::charm
