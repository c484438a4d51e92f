#include "charm/task_structure_store.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

#include "charm/task_metrics.h"
#include "common/error.h"
#include "charm/task_trace_loader.h"
#include "common/phase_timer.h"
#include "store/batch_insert.h"
#include "store/meta.h"
#include "store/record_scan.h"
#include "structure/comm_event_blocks.h"
#include "structure/message_step_blocks.h"
#include "structure/step_lod.h"
#include "structure/structure_store.h"
#include "structure/time_metrics.h"
#include "structure/view_tables.h"

namespace weft::db {
namespace {

// Inserts `n` rows through `sql`: bind(put, i) binds row i's values.
template <class Bind>
void insert_rows(Database& db, const char* sql, std::size_t n, Bind bind) {
  Statement put = db.prepare(sql);
  for (std::size_t i = 0; i < n; ++i) {
    bind(put, i);
    put.run();
    put.reset();
  }
}

using charm::EventIndex;

// OpKind values in comm_event_blocks.kind: a source is drawn as a send, a sink as a receive.
constexpr std::int32_t kSourceKind = 0;  // structure::OpKind::Send
constexpr std::int32_t kSinkKind = 2;    // structure::OpKind::Recv

// Everything the writer needs, per dependency event.
struct TaskEventResults {
  std::vector<std::int32_t> row;         // logical row of the event's chare
  std::vector<std::int32_t> step;        // global step
  std::vector<TimeNs> idle_experienced;  // on the first event of its block, else 0 -> lateness_ns
  std::vector<TimeNs> sub_block;         // -> wait_ns and the drawn duration
  std::vector<TimeNs> diff_duration;     // -> diff_lateness_ns
  std::vector<TimeNs> imbalance;         // its PE's imbalance in its phase -> global_lateness_ns
  std::vector<TimeNs> begin, end;        // the sub-block's interval
};

TaskEventResults event_results(const charm::TaskTrace& t, const charm::TaskStructure& s,
                               const std::vector<std::int32_t>& row_of_chare) {
  TaskEventResults r;
  const auto n = static_cast<std::size_t>(t.event_count());
  const std::vector<EventIndex>& first = s.index.block_first;
  r.step.resize(n);
  r.row.resize(n);
  for (EventIndex e = 0; e < t.event_count(); ++e) {
    r.step[static_cast<std::size_t>(e)] = s.global_step(e);
    r.row[static_cast<std::size_t>(e)] = row_of_chare[static_cast<std::size_t>(t.chare_of_event(e))];
  }
  r.idle_experienced = charm::idle_experienced_of_events(t, first, charm::idle_experienced(t, first));
  r.sub_block = charm::sub_block_durations(t, first);
  r.diff_duration = charm::differential_durations(r.sub_block, s.phases.of_event, r.step);
  r.imbalance = charm::phase_imbalance(t, r.sub_block, s.phases.of_event, s.phases.count).pe_of_event;
  // The sub-block of an event as an interval (charm::sub_block_durations):
  // from the previous event (or the block start) to the event; the block's
  // tail after its last event belongs to its sink, or else to its last event.
  r.begin.resize(n);
  r.end.resize(n);
  for (std::size_t b = 0; b + 1 < first.size(); ++b) {
    const EventIndex lo = first[b], hi = first[b + 1];
    if (lo == hi) continue;
    TimeNs prev = t.block_start[b];
    for (EventIndex e = lo; e < hi; ++e) {
      const auto ue = static_cast<std::size_t>(e);
      r.begin[ue] = prev;
      r.end[ue] = t.event_time[ue];
      prev = t.event_time[ue];
    }
    const auto tail = static_cast<std::size_t>(t.is_sink(lo) ? lo : hi - 1);
    if (tail == static_cast<std::size_t>(hi - 1)) {
      r.end[tail] = t.block_end[b];
    } else {  // the sink is at the block start: its sub-block is the tail
      r.begin[tail] = prev;
      r.end[tail] = t.block_end[b];
    }
  }
  return r;
}

// A phase's events: how many, their time span and largest idle experienced.
struct PhaseSpan {
  std::int64_t ops = 0;
  TimeNs max_late = 0;
  TimeNs begin = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
  void add(TimeNs late, TimeNs b, TimeNs e) {
    ++ops;
    max_late = std::max(max_late, late);
    begin = std::min(begin, b);
    end = std::max(end, e);
  }
};

void write_task_tables(Database& db, const LoadedTaskTrace& loaded, const charm::TaskStructure& s,
                       const TaskEventResults& r, const std::vector<charm::ChareIndex>& row_order,
                       const TaskStoreSettings& settings, const TaskRunReport& report) {
  const charm::TaskTrace& t = loaded.trace;
  const auto n = static_cast<std::size_t>(t.event_count());
  const std::int64_t rows = static_cast<std::int64_t>(row_order.size());
  const std::int64_t steps = s.report.global_steps;
  Transaction tx(db, "BEGIN IMMEDIATE");
  create_structure_tables(db);

  // comm_event_blocks: a row's events by (step, time), step block by step
  // block and in one row by row, the table's key order (CommEventBlockKey).
  const int step_shift = choose_step_shift(static_cast<std::int64_t>(n), rows, steps);
  std::vector<EventIndex> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](EventIndex a, EventIndex b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (r.step[ua] >> step_shift != r.step[ub] >> step_shift) return r.step[ua] >> step_shift < r.step[ub] >> step_shift;
    if (r.row[ua] != r.row[ub]) return r.row[ua] < r.row[ub];
    if (r.step[ua] != r.step[ub]) return r.step[ua] < r.step[ub];
    return a < b;
  });
  std::vector<MetricTotals> per_step(static_cast<std::size_t>(std::max<std::int64_t>(steps, 0)));
  std::vector<MetricTotals> per_row(static_cast<std::size_t>(rows));
  std::vector<PhaseSpan> per_phase(static_cast<std::size_t>(s.phases.count));
  TimeNs max_late = 0, max_global = 0, max_diff = 0, max_wait = 0;
  {
    CommEventBlockWriter blocks(db, step_shift, rows, steps);
    for (EventIndex e : order) {
      const auto ue = static_cast<std::size_t>(e);
      const auto b = static_cast<std::size_t>(t.event_block[ue]);
      const std::int32_t phase = s.phases.of_event[ue];
      blocks.add({t.block_event_id[b], r.row[ue], t.block_entry[b], t.is_sink(e) ? kSinkKind : kSourceKind,
                  r.begin[ue], r.end[ue], phase, r.step[ue], s.steps.local_step[ue], kNullRef,
                  loaded.event_message[ue], kNullRef, r.idle_experienced[ue], r.imbalance[ue],
                  r.diff_duration[ue], r.sub_block[ue]});
      per_step[static_cast<std::size_t>(r.step[ue])].add(r.idle_experienced[ue], r.diff_duration[ue],
                                                         r.sub_block[ue], r.sub_block[ue]);
      per_row[static_cast<std::size_t>(r.row[ue])].add(r.idle_experienced[ue], r.diff_duration[ue],
                                                       r.sub_block[ue], r.sub_block[ue]);
      per_phase[static_cast<std::size_t>(phase)].add(r.idle_experienced[ue], r.begin[ue], r.end[ue]);
      max_late = std::max(max_late, r.idle_experienced[ue]);
      max_global = std::max(max_global, r.imbalance[ue]);
      max_diff = std::max(max_diff, r.diff_duration[ue]);
      max_wait = std::max(max_wait, r.sub_block[ue]);
    }
    blocks.finish();
  }

  // message_steps: each traced source -> sink pair.
  std::int64_t max_span = 0;
  {
    max_span = write_message_step_blocks(db, n, [&](std::size_t e, MessageLine& line) {
      if (t.event_kind[e] != charm::DepKind::Sink || t.event_partner[e] == charm::kNone) return false;
      const auto src = static_cast<std::size_t>(t.event_partner[e]);
      line = {loaded.event_message[e], r.row[src], r.row[e], r.step[src], r.step[e]};
      return true;
    });
  }

  // Phases: one partition each (partition = phase).
  create_summary_tables(db);
  {
    const charm::PartitionChares chares = charm::partition_chares(t, s.phases);
    BatchInserter parts(db, "partitions", "", 9);
    BatchInserter phases(db, "phases", "", 7);
    for (std::int32_t p = 0; p < s.phases.count; ++p) {
      const auto up = static_cast<std::size_t>(p);
      const PhaseSpan& pt = per_phase[up];
      const std::int64_t first_step = s.steps.phase_offset[up];
      const std::int64_t last_step = first_step + s.steps.phase_width[up] - 1;
      const std::int64_t members = chares.first[up + 1] - chares.first[up];
      std::array<std::int64_t, 9> part{p, p, first_step, last_step, pt.ops, members,
                                       pt.ops ? pt.begin : 0, pt.ops ? pt.end : 0, pt.max_late};
      parts.add(part);
      std::array<std::int64_t, 7> phase{p, p, p, first_step, last_step, pt.ops ? pt.begin : 0, pt.ops ? pt.end : 0};
      phases.add(phase);
    }
    parts.flush();
    phases.flush();
  }
  write_partition_edges(db, s.graph, s.phases.count);
  write_metric_tables(db, per_step, per_row);
  write_step_lod_items(db, rows, steps, [&](const auto& emit) {
    for (std::size_t e = 0; e < n; ++e)
      emit(StepLodItem{r.row[e], r.step[e], r.idle_experienced[e], r.diff_duration[e], r.imbalance[e],
                       r.end[e] - r.begin[e], t.block_entry[static_cast<std::size_t>(t.event_block[e])]});
  });
  write_time_metric_items(db, [&](const auto& emit) {
    for (std::size_t e = 0; e < n; ++e)
      emit(TimeMetricItem{r.end[e], r.idle_experienced[e], r.imbalance[e], r.diff_duration[e], r.sub_block[e]});
  });

  // logical_rows: the chares in row order; pe = the PE of the chare's first block.
  db.exec(
      "CREATE TABLE logical_rows(row INTEGER PRIMARY KEY, chare INTEGER NOT NULL, name TEXT NOT NULL,"
      " runtime INTEGER NOT NULL, pe INTEGER NOT NULL)");
  {
    std::vector<charm::PeIndex> first_pe(static_cast<std::size_t>(t.chare_count()), -1);
    std::vector<TimeNs> first_t(first_pe.size(), std::numeric_limits<TimeNs>::max());
    for (std::size_t b = 0; b < t.block_chare.size(); ++b) {
      const auto c = static_cast<std::size_t>(t.block_chare[b]);
      if (t.block_start[b] < first_t[c]) first_t[c] = t.block_start[b], first_pe[c] = t.block_pe[b];
    }
    insert_rows(db, "INSERT INTO logical_rows VALUES (?, ?, ?, ?, ?)", row_order.size(),
                [&](Statement& put, std::size_t row) {
                  const auto c = static_cast<std::size_t>(row_order[row]);
                  put.bind(1, static_cast<std::int64_t>(row));
                  put.bind(2, static_cast<std::int64_t>(c));
                  put.bind(3, std::string_view(loaded.chare_name[c]));
                  put.bind(4, static_cast<std::int64_t>(t.chare_runtime[c]));
                  put.bind(5, static_cast<std::int64_t>(first_pe[c]));
                });
  }
  // pe_metrics, imbalance_intervals, entry_stats (ampi-projections.txt §2-3).
  const charm::PeUtilization util = charm::pe_utilization(t);
  db.exec(
      "CREATE TABLE pe_metrics(pe INTEGER PRIMARY KEY, busy_ns INTEGER NOT NULL, idle_ns INTEGER NOT NULL,"
      " busy_percent REAL NOT NULL)");
  insert_rows(db, "INSERT INTO pe_metrics VALUES (?, ?, ?, ?)", util.busy.size(), [&](Statement& put, std::size_t pe) {
    put.bind(1, static_cast<std::int64_t>(pe));
    put.bind(2, util.busy[pe]);
    put.bind(3, util.idle[pe]);
    put.bind(4, util.busy_percent[pe]);
  });
  db.exec(
      "CREATE TABLE imbalance_intervals(interval INTEGER PRIMARY KEY, start_ns INTEGER NOT NULL,"
      " end_ns INTEGER NOT NULL, lambda_percent REAL NOT NULL)");
  // The bounds come with each λ: the metric drops LB times outside the run
  // or not after the previous one, so lb_step_time[i] need not bound row i.
  insert_rows(db, "INSERT INTO imbalance_intervals VALUES (?, ?, ?, ?)", report.intervals.size(),
              [&](Statement& put, std::size_t i) {
                put.bind(1, static_cast<std::int64_t>(i));
                put.bind(2, report.intervals[i].begin);
                put.bind(3, report.intervals[i].end);
                put.bind(4, report.intervals[i].lambda_percent);
              });
  db.exec(
      "CREATE TABLE entry_stats(region INTEGER PRIMARY KEY, name TEXT NOT NULL, count INTEGER NOT NULL,"
      " total_ns INTEGER NOT NULL, mean_ns REAL NOT NULL, max_ns INTEGER NOT NULL)");
  {
    const charm::EntryStats stats = charm::entry_method_stats(t);
    Statement put = db.prepare("INSERT INTO entry_stats SELECT ?, name, ?, ?, ?, ? FROM regions WHERE region = ?");
    for (std::size_t e = 0; e < stats.count.size(); ++e) {
      if (stats.count[e] == 0) continue;
      put.bind(1, static_cast<std::int64_t>(e));
      put.bind(2, stats.count[e]);
      put.bind(3, stats.total[e]);
      put.bind(4, stats.mean[e]);
      put.bind(5, stats.max[e]);
      put.bind(6, static_cast<std::int64_t>(e));
      put.run();
      put.reset();
    }
  }

  db.exec("DELETE FROM meta WHERE key LIKE 'analysis_%'");
  write_meta_text(db, "analysis_kind", "task");
  for (const auto& [key, value] : charm::report_facts(s.report))
    write_meta_text(db, "analysis_" + key, std::to_string(value));
  TimeNs max_duration = 0;
  for (std::size_t e = 0; e < n; ++e) max_duration = std::max(max_duration, r.end[e] - r.begin[e]);
  // The facts the logical view reads for any analysis: a phase is one partition here.
  write_meta_ints(db, {{"analysis_partitions", s.phases.count},
                       {"analysis_communication_events", static_cast<std::int64_t>(n)},
                       {"analysis_step_shift", step_shift},
                       {"analysis_block_key_rows", std::max<std::int64_t>(rows, 1)},  // as CommEventBlockWriter keys them
                       {"analysis_reorder", settings.reorder ? 1 : 0},
                       {"analysis_logical_rows", rows},
                       {"analysis_one_sided_messages", loaded.creations_outside_executions},
                       {"analysis_max_message_steps", max_span},
                       {"analysis_max_lateness_ns", max_late},
                       {"analysis_max_global_lateness_ns", max_global},
                       {"analysis_max_diff_lateness_ns", max_diff},
                       {"analysis_max_wait_ns", max_wait},
                       {"analysis_max_duration_ns", max_duration}});
  write_meta_text(db, "analysis_lambda_percent", std::to_string(report.lambda_percent));
  drop_previous_structure_tables(db);
  tx.commit();
}

}  // namespace

TaskRunReport analyze_task_run(Database& db, const TaskStoreSettings& settings) {
  PhaseTimer timer("WEFT_ANALYZE_TIMING");
  LoadedTaskTrace loaded = load_task_trace(db);
  timer.mark("load");
  charm::TaskAnalysisOptions options;
  options.reorder = settings.reorder;
  const charm::TaskStructure s = charm::analyze_task_structure(loaded.trace, options);
  timer.mark("analysis (all passes)");
  const std::vector<charm::ChareIndex> row_order = charm::chare_row_order(loaded.trace);
  std::vector<std::int32_t> row_of_chare(row_order.size(), 0);
  for (std::size_t row = 0; row < row_order.size(); ++row)
    row_of_chare[static_cast<std::size_t>(row_order[row])] = static_cast<std::int32_t>(row);
  const TaskEventResults r = event_results(loaded.trace, s, row_of_chare);
  TaskRunReport report;
  report.analysis = s.report;
  report.rows = static_cast<std::int64_t>(row_order.size());
  const charm::PeUtilization util = charm::pe_utilization(loaded.trace);
  report.lambda_percent = charm::percent_imbalance(util.busy);
  report.intervals = charm::interval_percent_imbalance(loaded.trace, util);
  timer.mark("metrics");
  write_task_tables(db, loaded, s, r, row_order, settings, report);
  timer.mark("write");
  return report;
}

bool has_task_structure(Database& db) {
  const std::optional<std::string> kind = find_meta_text(db, "analysis_kind");
  return kind && *kind == "task" && has_table(db, "logical_rows");
}

LogicalRows read_logical_rows(Database& db) {
  LogicalRows rows;
  if (!has_task_structure(db)) return rows;
  Statement s(db, "SELECT row, name, runtime FROM logical_rows ORDER BY row");
  while (s.step()) {
    if (s.column_int(0) != static_cast<std::int64_t>(rows.name.size()))
      throw Error(db.path(), "logical_rows: rows are not dense (row " + std::to_string(s.column_int(0)) + ")");
    rows.name.push_back(s.column_text(1));
    rows.runtime.push_back(s.column_int(2) != 0 ? 1 : 0);
  }
  return rows;
}

std::vector<ImbalanceInterval> read_imbalance_intervals(Database& db) {
  std::vector<ImbalanceInterval> out;
  Statement s(db, "SELECT start_ns, end_ns, lambda_percent FROM imbalance_intervals ORDER BY interval");
  while (s.step()) out.push_back({s.column_int(0), s.column_int(1), s.column_double(2)});
  return out;
}

TaskCheck check_task_structure(Database& db) {
  TaskCheck c;
  const std::int64_t rows = db.query_int("SELECT count(*) FROM logical_rows");
  // (row, step) of every event, and (message, row, step) of every sink.
  std::vector<std::pair<std::int64_t, std::int64_t>> at;
  std::vector<std::array<std::int64_t, 3>> sinks;
  scan_comm_events(db, [&](std::span<const CommEventRecord> batch) {
    for (const CommEventRecord& e : batch) {
      ++c.events;
      if (e.process < 0 || e.process >= rows) ++c.rows_out_of_range;
      at.emplace_back(e.process, e.step);
      if (e.kind == kSinkKind) sinks.push_back({e.message, e.process, e.step});
    }
  });
  std::sort(at.begin(), at.end());
  for (std::size_t i = 1; i < at.size(); ++i) c.shared_steps += at[i] == at[i - 1] ? 1 : 0;
  std::sort(sinks.begin(), sinks.end());
  std::vector<MessageStepRecord> lines;
  MessageStepReader(db).read_all(lines);
  for (const MessageStepRecord& m : lines) {
    ++c.messages;
    const std::array<std::int64_t, 3> sink{m.message, m.dst, m.recv_step};
    if (m.recv_step <= m.send_step) ++c.sink_not_after_source;
    if (!std::binary_search(sinks.begin(), sinks.end(), sink)) ++c.sinks_without_record;
  }
  return c;
}

}  // namespace weft::db
