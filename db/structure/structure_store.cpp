#include "structure/structure_store.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <future>
#include <limits>

#include "common/error.h"
#include "common/beside.h"
#include "common/phase_timer.h"
#include "store/batch_insert.h"
#include "store/meta.h"
#include "structure/rank_bits.h"
#include "structure/view_tables.h"
#include "store/record_scan.h"
#include "structure/comm_event_blocks.h"
#include "structure/job_exchange.h"
#include "structure/shared_ordered_tasks.h"

namespace weft::db {
namespace {

using structure::OpIndex;
using structure::StructureResult;

// The tables of the analysis; comm_events was a table of one row per event
// before comm_event_blocks replaced it (now it is a view).
constexpr const char* kStructureTables[] = {"comm_event_blocks", "comm_events", "partitions",
                                            "partition_edges", "phases", "step_metrics",
                                            "process_metrics", "message_steps", "message_step_blocks", "step_lod",
                                            "time_metrics", "logical_rows", "pe_metrics",
                                            "imbalance_intervals", "entry_stats"};

// Those that hold a record per event or message, or a grid of them: the
// ones set aside while the new analysis is written (below). The others are a
// few pages each and are dropped at once: every rename rereads the schema
// (~2 ms each).
constexpr const char* kLargeStructureTables[] = {"comm_event_blocks", "comm_events", "message_step_blocks",
                                                 "message_steps", "step_lod"};

bool is_large_structure_table(std::string_view table) {
  return std::find(std::begin(kLargeStructureTables), std::end(kLargeStructureTables), table) !=
         std::end(kLargeStructureTables);
}

// The name a previous analysis' table has while the new one is written.
std::string set_aside_name(const char* table) { return std::string("weft_previous_") + table; }

}  // namespace

// Why the previous analysis' large tables are set aside rather than dropped
// first: the pages a transaction frees and then reuses held data before it,
// so SQLite copies each to the rollback journal (or, in WAL mode, the
// readers' snapshot needs them) before overwriting it. Dropped first, the
// previous analysis' ~70 MB at 16,384 processes were all freed and reused,
// and `weft analyze` of an analyzed run wrote them twice: its write took
// twice as long as the first analysis'. Set aside, the new tables take pages
// that were free before the transaction (SQLite neither journals nor reads
// those) or grow the file; the previous tables are dropped last, and their
// pages stay free for the next analysis. The file keeps room for two
// analyses.
void set_aside_structure_tables(Database& db) {
  drop_previous_structure_tables(db);  // none, unless an older weft left them
  for (const char* table : kStructureTables) {
    // The comm_events view is an eponymous virtual table: only a stored one is set aside.
    if (!has_table(db, table)) continue;
    if (!is_large_structure_table(table)) {
      db.exec(std::string("DROP TABLE ") + table);
      continue;
    }
    // Index names are the schema's, not the table's: the new table's indexes
    // need them (the previous ones are small; their pages are copied, once).
    std::vector<std::string> indexes;
    {
      Statement s = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL");
      s.bind(1, std::string_view(table));
      while (s.step()) indexes.push_back(s.column_text(0));
    }
    for (const std::string& index : indexes) db.exec("DROP INDEX \"" + index + "\"");
    db.exec(std::string("ALTER TABLE ") + table + " RENAME TO " + set_aside_name(table));
  }
}

void drop_previous_structure_tables(Database& db) {
  for (const char* table : kLargeStructureTables)
    if (has_table(db, set_aside_name(table))) db.exec("DROP TABLE " + set_aside_name(table));
}

void create_structure_tables(Database& db) {
  set_aside_structure_tables(db);
  // `block` is the rowid (CommEventBlockKey). No index by process: a
  // process's rows are one rowid range per step block (scan_comm_events).
  // The index comm_event_blocks_by_process(process, first_id) that served
  // that order took a fifth of writing the table at 16,384 processes: the
  // rows arrive step block by step block, so from the second step block on
  // each entry went into the middle of a page of the index.
  db.exec(R"sql(
    CREATE TABLE comm_event_blocks(
      block INTEGER PRIMARY KEY,
      step_block INTEGER NOT NULL, process INTEGER NOT NULL, first_id INTEGER NOT NULL,
      last_id INTEGER NOT NULL, count INTEGER NOT NULL,
      first_step INTEGER NOT NULL, last_step INTEGER NOT NULL, data BLOB NOT NULL);
  )sql");
}

void create_summary_tables(Database& db) {
  db.exec(R"sql(
    CREATE TABLE partitions(
      partition INTEGER PRIMARY KEY, phase INTEGER NOT NULL,
      first_step INTEGER NOT NULL, last_step INTEGER NOT NULL,
      ops INTEGER NOT NULL, processes INTEGER NOT NULL,
      begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, max_lateness_ns INTEGER NOT NULL);
    CREATE TABLE partition_edges(src INTEGER, dst INTEGER, PRIMARY KEY(src, dst)) WITHOUT ROWID;
    CREATE TABLE phases(
      phase INTEGER PRIMARY KEY, first_partition INTEGER NOT NULL, last_partition INTEGER NOT NULL,
      first_step INTEGER NOT NULL, last_step INTEGER NOT NULL,
      begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL);
    CREATE TABLE step_metrics(
      step INTEGER PRIMARY KEY, ops INTEGER NOT NULL,
      max_lateness_ns INTEGER NOT NULL, sum_lateness_ns INTEGER NOT NULL,
      max_diff_lateness_ns INTEGER NOT NULL, sum_diff_lateness_ns INTEGER NOT NULL,
      sum_wait_ns INTEGER NOT NULL);
    CREATE TABLE process_metrics(
      process INTEGER PRIMARY KEY, ops INTEGER NOT NULL,
      max_lateness_ns INTEGER NOT NULL, sum_lateness_ns INTEGER NOT NULL,
      max_diff_lateness_ns INTEGER NOT NULL, sum_diff_lateness_ns INTEGER NOT NULL,
      sum_wait_ns INTEGER NOT NULL, comm_ns INTEGER NOT NULL);
  )sql");
}

namespace {

void write_meta_facts(Database& db, const structure::AnalysisReport& report,
                      const AnalysisSettings& settings, std::int64_t unmatched, int step_shift,
                      ProcessIndex processes) {
  db.exec("DELETE FROM meta WHERE key LIKE 'analysis_%'");
  write_meta_text(db, "analysis_kind", "mpi");
  Statement put = db.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)");
  auto fact = [&](const std::string& key, const std::string& value) {
    put.bind(1, std::string_view("analysis_" + key));
    put.bind(2, std::string_view(value));
    put.run();
  };
  for (const auto& [key, value] : structure::report_facts(report)) fact(key, std::to_string(value));
  fact("one_sided_messages", std::to_string(unmatched));
  fact("step_shift", std::to_string(step_shift));
  fact("block_key_rows", std::to_string(processes));
  fact("isend_coalescing", settings.options.isend_coalescing ? "1" : "0");
  fact("leap_merge", settings.options.leap_merge ? "1" : "0");
  fact("leap_force", settings.options.leap_force ? "1" : "0");
  fact("reorder", settings.options.reorder ? "1" : "0");
  fact("partition_function", settings.partition_function);
}

// For each input op, the message (index into loaded.message_id) with the
// smallest store id among those it sends; -1: none. (The messages an op
// completes are r.received's; receives are never coalesced.) A bit per input
// op and an entry per op that sends, since most ops do not: 5.6 MB instead of
// 13 MB at 16,384 processes, at the write's peak memory.
class FirstSentMessages {
 public:
  FirstSentMessages(const LoadedCommTrace& loaded, const StructureResult& r)
      : senders_(static_cast<std::size_t>(r.input.count())) {
    const structure::InputOps& input = r.input;
    for (std::int32_t m = 0; m < input.message_count(); ++m)
      if (const OpIndex op = input.message_send_op(m); op != structure::kNoOp)
        senders_.set(static_cast<std::size_t>(op));
    senders_.count_members();
    message_.assign(static_cast<std::size_t>(senders_.members()), -1);
    for (std::int32_t m = 0; m < input.message_count(); ++m) {
      const OpIndex op = input.message_send_op(m);
      if (op == structure::kNoOp) continue;
      auto& slot = message_[static_cast<std::size_t>(senders_.rank(static_cast<std::size_t>(op)))];
      if (slot < 0 ||
          loaded.message_id[static_cast<std::size_t>(m)] < loaded.message_id[static_cast<std::size_t>(slot)])
        slot = m;
    }
  }
  std::int32_t of(OpIndex op) const {
    const auto i = static_cast<std::size_t>(op);
    return senders_.test(i) ? message_[static_cast<std::size_t>(senders_.rank(i))] : -1;
  }

 private:
  structure::RankBits senders_;
  std::vector<std::int32_t> message_;  // per sending op, in op order
};

// The store id at `index` of `ids`, or kNullRef for index -1.
template <class Id>
std::int64_t stored_id(const std::vector<Id>& ids, std::int32_t index) {
  return index < 0 ? kNullRef : ids[static_cast<std::size_t>(index)];
}

// One comm_event_blocks record per input op (a call split into a send and a
// receive op is one record), in the order of the table's primary key: step
// block by step block, and in one block process by process (its key,
// CommEventBlockKey). SQLite then appends every row at the end of its b-tree.
// Written process by process, each process's first block went into the
// middle of the table, splitting pages there and scattering its leaves over
// the file (at 16,384 processes 39% of the leaf pages followed the one before
// them in the file; now 99%), so that a window of steps read pages from all
// over it. The rows are the same: a process's records still come in their
// order, each walk resuming where its process's last one stopped.
//
// The records are made in tasks, a chunk of processes in one step block each,
// in key order, which the main thread and the helper share once the helper
// has built the view tables (shared_ordered_tasks.h): the main thread inserts
// every row, the helper's from memory.
class CommEventRecordWalk {
 public:
  CommEventRecordWalk(const LoadedCommTrace& loaded, const StructureResult& r, const FirstSentMessages& sent_message,
                      int step_shift)
      : loaded_(loaded), r_(r), sent_message_(sent_message), step_shift_(step_shift),
        processes_(r.trace.process_count),
        chunk_(std::max<ProcessIndex>(1, std::min<ProcessIndex>(kTaskProcesses, (processes_ + kMinChunks - 1) / kMinChunks))),
        chunks_((processes_ + chunk_ - 1) / chunk_),
        blocks_((std::max<std::int64_t>(r.report.global_steps - 1, 0) >> step_shift) + 1),
        next_(static_cast<std::size_t>(processes_)) {
    for (ProcessIndex p = 0; p < processes_; ++p) next_[static_cast<std::size_t>(p)] = r.input.process_start(p);
  }

  std::int64_t task_count() const { return blocks_ * chunks_; }
  // A task resumes its processes' walks where the task of the step block
  // before stopped, kMinChunks tasks earlier: SharedOrderedTasks never runs
  // two tasks that far apart at once and starts the later one after the
  // earlier is done. With fewer chunks the helper does not help.
  bool can_share() const { return chunks_ >= kMinChunks; }

  // Adds task t's records to `sink` (add(const CommEventRecord&)) and `totals`.
  // Tasks of one chunk of processes never run at once (can_share), so
  // threads share the per-process totals.
  template <class Sink>
  void walk(std::int64_t task, Sink& sink, RecordTotals totals) {
    const std::int64_t block = task / chunks_;
    const auto first = static_cast<ProcessIndex>((task % chunks_) * chunk_);
    const ProcessIndex end = std::min(processes_, first + chunk_);
    for (ProcessIndex p = first; p < end; ++p) walk_process(p, block, sink, totals);
  }

  void check_every_op_walked(const Database& db) const {
    for (ProcessIndex p = 0; p < processes_; ++p)
      if (next_[static_cast<std::size_t>(p)].op != r_.input.process_end(p))
        throw Error(db.path(), "internal error: process " + std::to_string(p) + " has ops past the last step block");
  }

 private:
  // A few ms of records at 16,384 processes; at least kMinChunks per block.
  static constexpr ProcessIndex kTaskProcesses = 256;
  static constexpr ProcessIndex kMinChunks = SharedOrderedTasks<EncodedCommEventRows>::kMaxPending + 2;

  template <class Sink>
  void walk_process(ProcessIndex p, std::int64_t block, Sink& sink, RecordTotals& totals) {
    const LoadedCommTrace& loaded = loaded_;
    const StructureResult& r = r_;
    std::int64_t send_half_step = kNullRef;
    OpIndex previous_analyzed = structure::kNoOp;
    structure::OpMetrics metrics;
    auto& at = next_[static_cast<std::size_t>(p)];
    at = r.input.for_each_while(r.trace, at, r.input.process_end(p), [&](const structure::InputOp& op) {
      const OpIndex a = op.analyzed;
      const std::int32_t step = r.global_step(a);
      // A send half is stored with its receive half, in the receive's block.
      const std::int32_t record_step =
          op.shares_event_with_next ? r.global_step(r.input.analyzed_op(op.index + 1)) : step;
      if (record_step >> step_shift_ > block) return false;  // this process's next block
      const auto ui = static_cast<std::size_t>(op.index);
      // Its message: the smallest store id among those it sends and, for the
      // first input op of an analyzed op, those the analyzed op completes.
      // The metrics are the analyzed op's: computed once for a coalesced run.
      std::int32_t message = sent_message_.of(op.index);
      if (a != previous_analyzed) {
        for (std::int32_t m : r.received.of(a))
          if (message < 0 || loaded.message_id[static_cast<std::size_t>(m)] < loaded.message_id[static_cast<std::size_t>(message)])
            message = m;
        // The store ids of the messages it completes are at random places too.
        const OpIndex ahead = a + structure::LatenessMetrics::kPrefetchOps;
        if (ahead < r.trace.op_count())
          for (std::int32_t m : r.received.of(ahead)) __builtin_prefetch(&loaded.message_id[static_cast<std::size_t>(m)]);
        metrics = r.metrics.all_in_op_order(a);
      }
      previous_analyzed = a;
      if (op.shares_event_with_next) {
        send_half_step = step;
        return true;
      }
      const std::int32_t part = r.parts.of_op[static_cast<std::size_t>(a)];
      sink.add({op.event_id, op.process, loaded.region[ui], static_cast<std::int32_t>(op.kind),
                op.start, op.end, part, step, r.step(a), stored_id(loaded.collective_id, r.metrics.collective_of(a)),
                stored_id(loaded.message_id, message),
                send_half_step, metrics.lateness, metrics.global_lateness, metrics.diff_lateness, metrics.wait});
      totals.add(step, op.process, part, op.start, op.end, metrics.lateness, metrics.diff_lateness, metrics.wait);
      send_half_step = kNullRef;
      return true;
    });
  }

  const LoadedCommTrace& loaded_;
  const StructureResult& r_;
  const FirstSentMessages& sent_message_;
  const int step_shift_;
  const ProcessIndex processes_, chunk_;
  const std::int64_t chunks_, blocks_;
  std::vector<structure::InputOps::Position> next_;  // per process, where its walk resumes
};

// The two sides of writing comm_event_blocks (see CommEventRecordWalk).
class CommEventRecordTasks {
 public:
  CommEventRecordTasks(const LoadedCommTrace& loaded, const StructureResult& r, const FirstSentMessages& sent_message,
                       int step_shift)
      : walk_(loaded, r, sent_message, step_shift), step_shift_(step_shift),
        tasks_(walk_.task_count()),
        helper_totals_(r.report.global_steps, 0, r.parts.count) {}

  // The main thread: every row inserted, in key order; the records' totals
  // in `totals`, the helper's included. between() runs before each task
  // (SharedOrderedTasks::run_writer).
  template <class Between>
  void write(Database& db, std::int64_t rows, std::int64_t step_slots, SummaryTotals& totals, Between&& between) {
    CommEventBlockWriter blocks(db, step_shift_, rows, step_slots);
    tasks_.run_writer(
        [&](std::int64_t t) {
          walk_.walk(t, blocks, {totals, totals.per_process});
          blocks.flush();
        },
        [&](const EncodedCommEventRows& encoded) { blocks.insert(encoded); }, between);
    blocks.finish();
    walk_.check_every_op_walked(db);
  }
  // The helper, once its own work is done, while the main thread writes
  // into `totals`: the per-process ones are shared, the others are merged by
  // merge_helper_totals after it has returned.
  void help(SummaryTotals& totals) {
    if (!walk_.can_share()) return;
    tasks_.run_helper([&](std::int64_t t) {
      CommEventRowBuffer buffer(step_shift_);
      walk_.walk(t, buffer, {helper_totals_, totals.per_process});
      return buffer.take();
    });
  }
  void merge_helper_totals(SummaryTotals& totals) const { totals.merge(helper_totals_); }
  // The share of the tasks claimed so far by either thread.
  double claimed_share() const { return tasks_.claimed_share(); }
  // Stops the helper when the main thread gives up (an error).
  void abandon() { tasks_.abandon(); }

 private:
  CommEventRecordWalk walk_;
  const int step_shift_;
  SharedOrderedTasks<EncodedCommEventRows> tasks_;
  SummaryTotals helper_totals_;
};

// The page cache size for the analysis, restored afterwards. The loader reads
// each block once or twice in sequence and the writer appends, so a large
// cache buys nothing here; its memory goes to the analysis arrays instead (in
// WAL mode a full cache spills dirty pages to the WAL, which is written at
// commit anyway). 1 MiB, not 8: the writer's pages stayed dirty in the cache
// until it was full, and the commit then wrote them all and waited for their
// sync (16-20 ms of the commit at 4,096 processes, 13-14 ms with 1 MiB, whose
// pages go out as they are spilled, among the early writeback's syncs); the
// peak memory falls by 3-7 MB.
constexpr std::int64_t kAnalysisCacheKiB = 1024;

class ScopedCacheSize {
 public:
  ScopedCacheSize(Database& db, std::int64_t kib) : db_(db), old_(db.query_int("PRAGMA cache_size")) {
    db_.exec("PRAGMA cache_size=" + std::to_string(-kib));
  }
  ~ScopedCacheSize() {
    try {
      db_.exec("PRAGMA cache_size=" + std::to_string(old_));
    } catch (const Error&) {
      // Restoring a setting must not hide the error being unwound.
    }
  }

 private:
  Database& db_;
  std::int64_t old_;
};

}  // namespace

void write_partition_edges(Database& db, const structure::PartitionGraph& graph, std::int32_t partitions) {
  BatchInserter edges(db, "partition_edges", "", 2);
  for (std::int32_t p = 0; p < partitions; ++p)
    for (std::int32_t s : graph.successors(p)) {
      std::array<std::int64_t, 2> row{p, s};
      edges.add(row);
    }
  edges.flush();
}

void write_metric_tables(Database& db, const std::vector<MetricTotals>& per_step,
                         const std::vector<MetricTotals>& per_process) {
  BatchInserter rows(db, "step_metrics", "", 7);
  for (std::size_t s = 0; s < per_step.size(); ++s) {
    const MetricTotals& m = per_step[s];
    if (m.ops == 0) continue;
    std::array<std::int64_t, 7> row{static_cast<std::int64_t>(s), m.ops, m.max_lateness, m.sum_lateness,
                                    m.max_diff, m.sum_diff, m.sum_wait};
    rows.add(row);
  }
  rows.flush();
  BatchInserter procs(db, "process_metrics", "", 8);
  for (std::size_t p = 0; p < per_process.size(); ++p) {
    const MetricTotals& m = per_process[p];
    std::array<std::int64_t, 8> row{static_cast<std::int64_t>(p), m.ops, m.max_lateness, m.sum_lateness,
                                    m.max_diff, m.sum_diff, m.sum_wait, m.comm};
    procs.add(row);
  }
  procs.flush();
}

bool has_structure(Database& db) {
  return has_table(db, "comm_event_blocks");
}

structure::AnalysisReport analyze_run(Database& db, const AnalysisSettings& settings) {
  PhaseTimer timer("WEFT_ANALYZE_TIMING");
  ScopedCacheSize cache(db, kAnalysisCacheKiB);
  // The shares of the time of the load, the passes and the write (16,384
  // processes x 200 iterations), for a progress bar.
  progress_scope(settings.progress, 0, 0.30);
  // One read transaction for the whole load: in autocommit mode each of its
  // ~30 statements took and dropped the file's shared lock, checking for a
  // hot journal each time (~8 system calls).
  LoadedCommTrace loaded = [&] {
    Transaction read(db);
    LoadedCommTrace trace = load_comm_trace(
        db, {settings.partition_function, settings.threads > 1, /*validate=*/false, settings.progress});
    read.commit();
    return trace;
  }();
  db.release_cache_memory();  // the blocks are decoded; the analysis arrays need the room
  timer.mark("load");
  structure::AnalysisOptions options = settings.options;
  options.threads = settings.threads;
  if (!settings.partition_function.empty()) options.leap_merge = false;
  options.progress = settings.progress;
  progress_scope(settings.progress, 0.30, 0.67);
  std::unique_ptr<StructureResult> result = structure::analyze_structure(std::move(loaded.trace), options);
  timer.mark("analysis (all passes)");
  progress_scope(settings.progress, 0.67, 1.0);
  write_structure(db, loaded, *result, settings);
  timer.mark("write");
  return result->report;
}

void write_structure(Database& db, const LoadedCommTrace& loaded, const StructureResult& r,
                     const AnalysisSettings& settings) {
  PhaseTimer timer("WEFT_ANALYZE_TIMING");
  progress_stage(settings.progress, "writing the tables", 1.0);
  Transaction tx(db, "BEGIN IMMEDIATE");
  create_structure_tables(db);
  timer.mark("  drop and create tables");

  const std::int64_t step_slots = r.report.global_steps;
  const int step_shift = choose_step_shift(r.input.count(), r.trace.process_count, step_slots);
  const FirstSentMessages sent_message(loaded, r);
  CommEventRecordTasks records(loaded, r, sent_message, step_shift);
  SummaryTotals totals(step_slots, r.trace.process_count, r.parts.count);
  timer.mark("  first message of ops");
  // The view tables are built on a second thread meanwhile: they only read
  // the analysis, and the SQLite inserts stay on this one. Then that thread
  // makes comm_event_blocks rows too. This one, once its rows are written,
  // takes the part of the step level of detail that thread offers, if it has
  // not started it yet (in small runs).
  //
  // The view tables are handed over as soon as they are built, and the main
  // thread inserts them between two of its comm_event_blocks tasks while the
  // helper makes rows ahead, rather than after the last row, when the helper
  // has nothing left to do (15 ms at 16,384 processes).
  const ViewTableInputs view_inputs = read_view_table_inputs(db);
  const bool two_threads = settings.threads > 1;
  JobExchange view_share;
  std::promise<ViewTables> built_views;
  std::future<ViewTables> view_tables = built_views.get_future();
  Beside<void> helper = run_beside(two_threads, [&] {
    try {
      const JobExchange::CloseOnExit no_more_offers(two_threads ? &view_share : nullptr);
      built_views.set_value(
          build_view_tables(view_inputs, loaded, r, MetricsWalks::Auto, two_threads ? &view_share : nullptr));
    } catch (...) {
      built_views.set_exception(std::current_exception());
      return;
    }
    PhaseTimer helper_timer("WEFT_ANALYZE_TIMING");
    records.help(totals);
    helper_timer.mark("  (helper) comm_event_blocks rows");
  });
  struct StopHelperOnExit {  // before the helper's destructor waits for it
    CommEventRecordTasks& records;
    ~StopHelperOnExit() { records.abandon(); }
  } stop_helper{records};
  // view_tables is valid until its tables are taken (and written).
  ViewTables views;
  auto write_views = [&] {
    views = view_tables.get();  // rethrows the helper's error
    write_view_tables(db, views);
  };
  records.write(db, r.trace.process_count, step_slots, totals, [&] {
    if (settings.progress) settings.progress->within(records.claimed_share());
    if (view_tables.valid() && view_tables.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      write_views();
  });
  // The bulk of the analysis' pages is written: their sync starts now, while
  // the rest is built and written, rather than at the commit (a run of 1,024
  // processes writes ~4 MB, under the 8 MiB that start one otherwise).
  db.sync_written_pages_soon();
  timer.mark("  comm_event_blocks");
  if (two_threads) view_share.help_until_closed();
  helper.get();  // with one thread, the deferred view tables are built here
  records.merge_helper_totals(totals);
  timer.mark("  wait for the view tables");
  if (view_tables.valid()) {
    write_views();
    db.sync_written_pages_soon();  // the level of detail and message lines, before the small tables
  }
  timer.mark("  view tables");
  // Created only now: an empty root page made at the start would be spilled
  // to the WAL early and rewritten here, and one rewritten frame makes the
  // commit re-read the whole WAL to redo its checksums.
  create_summary_tables(db);
  {
    BatchInserter rows(db, "partitions", "", 9);
    for (std::int32_t p = 0; p < r.parts.count; ++p) {
      auto up = static_cast<std::size_t>(p);
      const PartitionTotals& pt = totals.per_partition[up];
      std::array<std::int64_t, 9> row{p, r.phases.of_partition[up],
                                      structure::comm_step(r.partition_offset[up]),
                                      structure::comm_step(r.partition_offset[up] + r.partition_width[up] - 1),
                                      pt.ops, r.partition_processes[up],
                                      pt.begin, pt.end, pt.max_lateness};
      rows.add(row);
    }
    rows.flush();
  }
  write_partition_edges(db, r.graph, r.parts.count);
  {
    BatchInserter rows(db, "phases", "", 7);
    for (std::int32_t first = 0; first < r.parts.count;) {
      std::int32_t phase = r.phases.of_partition[static_cast<std::size_t>(first)];
      std::int32_t last = first;
      std::int64_t first_step = INT64_MAX, last_step = 0;
      TimeNs begin = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
      for (; last < r.parts.count && r.phases.of_partition[static_cast<std::size_t>(last)] == phase; ++last) {
        auto ul = static_cast<std::size_t>(last);
        first_step = std::min<std::int64_t>(first_step, structure::comm_step(r.partition_offset[ul]));
        last_step = std::max<std::int64_t>(
            last_step, structure::comm_step(r.partition_offset[ul] + r.partition_width[ul] - 1));
        begin = std::min(begin, totals.per_partition[ul].begin);
        end = std::max(end, totals.per_partition[ul].end);
      }
      std::array<std::int64_t, 7> row{phase, first, last - 1, first_step, last_step, begin, end};
      rows.add(row);
      first = last;
    }
    rows.flush();
  }
  write_metric_tables(db, totals.per_step, totals.per_process);
  write_meta_facts(db, r.report, settings, loaded.unmatched_messages, step_shift, r.trace.process_count);
  write_view_facts(db, views.facts);
  timer.mark("  small tables");
  drop_previous_structure_tables(db);
  timer.mark("  drop the previous analysis");
  tx.commit();
  timer.mark("  commit");
}

StoredStructure read_structure(Database& db, const structure::CommTrace& t) {
  if (!has_structure(db))
    throw Error(db.path(), "no logical structure stored; run `weft analyze " + db.path() + "` first");
  StoredStructure s;
  const auto n = static_cast<std::size_t>(t.op_count());
  s.partition.assign(n, -1);
  s.step.assign(n, -1);
  s.lateness.assign(n, 0);
  // The records come row by row in event order, so the op after the last one
  // found is nearly always the next record's: searched for only otherwise.
  std::size_t next = 0;
  auto op_of = [&](EventId event) {
    return next < n && t.event_id[next] == event ? static_cast<OpIndex>(next) : op_of_event(t, event);
  };
  scan_comm_events(db, [&](std::span<const CommEventRecord> batch) {
    for (const CommEventRecord& e : batch) {
      OpIndex op = op_of(e.event);
      if (op == structure::kNoOp) {
        ++s.rows_without_op;
        continue;
      }
      if (is_split_send_half(t, op)) {
        auto h = static_cast<std::size_t>(op);
        s.partition[h] = static_cast<std::int32_t>(e.partition);
        s.step[h] = e.send_step;  // kNullRef (-1) when missing
        ++op;
      }
      auto i = static_cast<std::size_t>(op);
      s.partition[i] = static_cast<std::int32_t>(e.partition);
      s.step[i] = e.step;
      s.lateness[i] = e.lateness_ns;
      next = i + 1;
    }
  });
  return s;
}

}  // namespace weft::db
