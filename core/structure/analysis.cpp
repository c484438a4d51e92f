#include "structure/analysis.h"

#include <algorithm>

#include "common/beside.h"
#include "common/phase_timer.h"
#include "common/progress.h"
#include "common/release_memory.h"
#include "common/two_parts.h"

#include "structure/isend_coalescing.h"
#include "structure/mandatory_partitions.h"
#include "structure/message_passing_reorder.h"

namespace weft::structure {
namespace {

// A partition's shape for phase detection: its step width, op count and
// process count, mixed into one 64-bit value.
std::vector<std::uint64_t> partition_signatures(const StructureResult& r) {
  const auto n = static_cast<std::size_t>(r.parts.count);
  std::vector<std::uint64_t> ops(n, 0);
  for (std::int32_t p : r.parts.of_op) ++ops[static_cast<std::size_t>(p)];
  std::vector<std::uint64_t> sig(n);
  for (std::size_t p = 0; p < n; ++p) {
    auto processes = static_cast<std::uint64_t>(r.partition_processes[p]);
    std::uint64_t h = static_cast<std::uint64_t>(r.partition_width[p]) * 0x9E3779B97F4A7C15ull;
    h ^= (ops[p] + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2));
    h ^= (processes + 0x85EBCA77C2B2AE63ull + (h << 6) + (h >> 2));
    sig[p] = h;
  }
  return sig;
}

void count_input_facts(const CommTrace& in, AnalysisReport& report) {
  report.ops = in.op_count();
  report.messages = in.message_count();
  report.collectives = in.collective_count();
  for (ProcessIndex p = 0; p < in.process_count; ++p)
    if (in.end_op(p) == in.first_op(p)) ++report.silent_processes;
  for (std::int32_t m = 0; m < in.message_count(); ++m) {
    OpIndex s = in.msg_send_op[static_cast<std::size_t>(m)];
    OpIndex r = in.msg_recv_op[static_cast<std::size_t>(m)];
    if (s != kNoOp && r != kNoOp && in.end[static_cast<std::size_t>(r)] < in.start[static_cast<std::size_t>(s)])
      ++report.messages_back_in_time;
  }
}

}  // namespace

std::unique_ptr<StructureResult> analyze_structure(CommTrace input, const AnalysisOptions& options) {
  PhaseTimer timer("WEFT_ANALYZE_TIMING");
  // Each pass's end as a share of the passes' time (16,384 processes x 200
  // iterations), for a progress bar.
  auto begin = [&options](const char* pass, double until) { progress_stage(options.progress, pass, until); };
  begin("checking the input", 0.05);
  validate_comm_trace(input);
  auto result = std::make_unique<StructureResult>();
  StructureResult& r = *result;
  AnalysisReport& report = r.report;
  const bool second_thread = options.threads > 1;  // else the side tasks are deferred to their get()
  // Both only read the input: with two threads, side by side.
  Beside<void> facts = run_beside(second_thread, [&] { count_input_facts(input, report); });
  RankBits run_starts = isend_run_starts(input, options.isend_coalescing);
  facts.get();
  timer.mark("input checked and counted");

  begin("keeping the input ops", 0.19);
  // What is written back is kept of the input ops (compactly) before they
  // are coalesced in place: the analyzed trace reuses the input's memory.
  r.input = InputOps(input, std::move(run_starts), options.threads);
  timer.mark("input ops kept");
  begin("coalescing Isends", 0.22);
  report.coalesced_isends = coalesce_isends(input, r.input.starts(), options.threads);
  r.trace = std::move(input);
  const CommTrace& t = r.trace;
  report.analyzed_ops = t.op_count();
  timer.mark("isend coalescing");

  // §3.1: mandatory partitions, cycles merged, then leaps completed.
  begin("mandatory partitions", 0.32);
  r.parts = mandatory_partitions(t, options.threads);
  report.mandatory_partitions = r.parts.count;
  // Which Irecv posted a message and which wait completed an Isend only unite
  // partitions; released here, they are not at the strides' peak memory.
  release_memory(r.trace.msg_post_op);
  release_memory(r.trace.msg_send_done_op);
  timer.mark("mandatory partitions");
  // Which messages each op completes and the collective of each op depend on
  // the analyzed ops only: with two threads the other one indexes them while
  // this one merges the partitions (started only now: the index is not
  // beside the mandatory partitions' union-find and the two released columns
  // at the peak memory of a 65,536-process run).
  struct OpIndexes {
    ReceivedMessages received;
    CollectiveOfOps coll_of;
  };
  Beside<OpIndexes> op_indexes =
      run_beside(second_thread, [&t] { return OpIndexes{index_received_messages(t), CollectiveOfOps(t)}; });

  begin("merging cycles", 0.33);
  // The partition graph is built from the ops once; the merges and
  // renumberings carry it along.
  r.graph = build_partition_graph(t, r.parts, options.threads);
  report.cycle_merged_partitions = merge_strongly_connected(r.parts, r.graph);
  timer.mark("cycle merge");
  // In a DAG each (partition, process) pair is one run of ops (partition_graph.h).
  PartitionRuns runs;
  begin("merging leaps", 0.37);
  if (options.leap_merge && t.segment.empty()) {
    // Its partitions come out in topological order, and it has their runs.
    report.leaps = merge_by_leap(t, r.parts, r.graph, options.leap_force, options.threads, &runs);
    timer.mark("leap merge");
  } else {
    order_partitions_topologically(t, r.parts, r.graph, options.threads);
    runs = collect_runs(t, r.parts, options.threads);
    timer.mark("topological order");
  }
  report.partitions = r.parts.count;

  // §3.2: strides, local steps, global steps.
  begin("strides", 0.81);
  OpIndexes indexes = op_indexes.get();
  r.received = std::move(indexes.received);
  const CollectiveOfOps& coll_of = indexes.coll_of;
  {
    StrideResult strides;
    if (!options.reorder) {
      strides = assign_strides(t, runs, r.received, coll_of, options.threads);
      report.forced_orderings = strides.forced_orderings;
      report.split_collectives = strides.split_collectives;
      timer.mark("strides");
    }
    r.partition_processes.resize(static_cast<std::size_t>(r.parts.count));
    for (std::size_t p = 0; p < r.partition_processes.size(); ++p)
      r.partition_processes[p] = runs.first[p + 1] - runs.first[p];
    LocalSteps local;
    begin("local steps", 0.98);
    if (options.reorder) {
      local = assign_reordered_local_steps(t, r.parts, runs, r.received, coll_of, &report.forced_orderings);
      timer.mark("reordering");
    } else {
      local = assign_local_steps(t, r.parts, runs, r.received, strides, options.threads);
    }
    r.global_raw_step = std::move(local.raw);  // made global below
    r.partition_width = std::move(local.partition_width);
  }
  runs = PartitionRuns{};  // ~8 MB at 16,384 processes, not needed past the steps
  timer.mark("local steps");
  begin("global steps, lateness", 0.99);
  r.partition_offset = assign_global_steps(r.graph, r.partition_width);
  run_in_two_parts(two_part_split(t.op_count(), options.threads), t.op_count(), [&](int, OpIndex first, OpIndex end) {
    for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(end); ++i)
      r.global_raw_step[i] += r.partition_offset[static_cast<std::size_t>(r.parts.of_op[i])];
  });
  std::int64_t slots = 0;
  for (std::size_t p = 0; p < r.partition_width.size(); ++p)
    slots = std::max<std::int64_t>(slots, r.partition_offset[p] + r.partition_width[p]);
  report.global_steps = 2 * slots + 1;  // work slot 0, op slots 1, 3, ..., trailing work slot

  // §4 metrics and phases.
  r.metrics = LatenessMetrics(t, r.parts, r.global_raw_step, r.partition_width, r.partition_offset, r.received,
                              std::move(indexes.coll_of), options.threads);
  timer.mark("global steps, lateness");
  begin("phases", 1.0);
  r.phases = detect_phases(partition_signatures(r));
  report.phases = r.phases.count;
  report.phase_period = r.phases.period;
  timer.mark("phases");
  return result;
}

std::vector<std::pair<std::string, std::int64_t>> report_facts(const AnalysisReport& r) {
  return {
      {"communication_events", r.ops},
      {"coalesced_isends", r.coalesced_isends},
      {"analyzed_operations", r.analyzed_ops},
      {"mandatory_partitions", r.mandatory_partitions},
      {"cycle_merged_partitions", r.cycle_merged_partitions},
      {"leap_backward_merges", r.leaps.backward_merges},
      {"leap_forward_absorbs", r.leaps.forward_absorbs},
      {"leap_forced_merges", r.leaps.forced_merges},
      {"incomplete_leaps", r.leaps.incomplete_leaps},
      {"partitions", r.partitions},
      {"phases", r.phases},
      {"phase_period", r.phase_period},
      {"global_steps", r.global_steps},
      {"forced_orderings", r.forced_orderings},
      {"split_collectives", r.split_collectives},
      {"messages_back_in_time", r.messages_back_in_time},
      {"silent_processes", r.silent_processes},
  };
}

}  // namespace weft::structure
