#include "structure/view_tables.h"

#include <algorithm>
#include <array>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "common/phase_timer.h"
#include "store/batch_insert.h"
#include "store/meta.h"
#include "structure/job_exchange.h"

namespace weft::db {

namespace {

// The largest lateness, global lateness and differential lateness of any
// analyzed op: the top of their color scales. Every op ends in one of the
// time bins, so they are the bins' maxima (the wait is summed per bin: its
// maximum is taken while the bins are filled).
void find_lateness_ranges(const TimeMetricBins& bins, ViewTableFacts& f) {
  const TimeMetrics& m = bins.metrics;
  for (std::size_t b = 0; b < static_cast<std::size_t>(m.bins); ++b) {
    f.max_lateness = std::max(f.max_lateness, m.values[kTimeLateness][b]);
    f.max_global_lateness = std::max(f.max_global_lateness, m.values[kTimeGlobalLateness][b]);
    f.max_diff_lateness = std::max(f.max_diff_lateness, m.values[kTimeDiffLateness][b]);
  }
}

// The facts that need each analyzed op's metrics: the largest wait and duration.
void note_op_facts(const structure::CommTrace& t, structure::OpIndex a, const structure::OpMetrics& m,
                   ViewTableFacts& f) {
  const auto ua = static_cast<std::size_t>(a);
  f.max_wait = std::max(f.max_wait, m.wait);
  f.max_duration = std::max(f.max_duration, t.end[ua] - t.start[ua]);
}

// Whether one walk of the ops may make both the time bins and the step level
// of detail: its finest cells then keep a raw differential lateness each
// (StepLodBuilder::Diff::FromItems), 8 bytes per cell, which small runs with
// many steps (more cells than ops) would pay for with their peak memory.
// Allowed up to 1 MiB, or up to 2 bytes per op: 1.2 MB (1,024 blocks × 141
// bins of two steps) is 0.35 bytes per op at 16,384 processes × 20
// iterations and 1.4 at 4,096; at 1,024 it would be 5.8, and two walks it is.
bool one_metrics_walk_fits(const structure::StructureResult& r) {
  const std::int64_t bytes =
      StepLodBuilder::diff_from_items_bytes(r.trace.process_count, r.report.global_steps, StepLodSteps::OddOnly);
  return bytes <= std::max<std::int64_t>(std::int64_t{1} << 20, std::int64_t{2} * r.input.count());
}

// The time bins and the step level of detail in one walk of the input ops:
// each analyzed op's metrics are computed once, for its time bin and for the
// cells of its input ops (a coalesced run of Isends is one analyzed op).
// The largest lateness and global lateness are known beforehand
// (LatenessMetrics), the largest differential lateness only after the walk.
void bin_and_level_in_one_walk(const ViewTableInputs& inputs, const LoadedCommTrace& loaded,
                               const structure::StructureResult& r, JobExchange* share, ViewTables& v) {
  const structure::CommTrace& t = r.trace;
  StepLodBuilder lod(t.process_count, r.report.global_steps, inputs.region_classes,
                     {r.metrics.max_lateness(), 0, r.metrics.max_global_lateness(), r.input.max_duration()},
                     {.diff = StepLodBuilder::Diff::FromItems, .used = StepLodSteps::OddOnly});
  TimeMetricBinner bins(inputs.trace_end_ns);
  structure::OpIndex previous = structure::kNoOp;
  structure::OpMetrics m;
  r.input.for_each(t, [&](const structure::InputOp& op) {
    const structure::OpIndex a = op.analyzed;
    if (a != previous) {
      m = r.metrics.all_in_op_order(a);
      bins.add(time_metric_item(t, a, m));
      note_op_facts(t, a, m, v.facts);
      previous = a;
    }
    lod.add(step_lod_item(loaded, r, op, m));
  });
  v.time_metrics = bins.take();
  find_lateness_ranges(v.time_metrics, v.facts);
  v.step_lod = lod.finish(share);
}

}  // namespace

ViewTableInputs read_view_table_inputs(Database& db) {
  return {db.path(), read_region_classes(db), read_meta_int(db, "trace_end_ns"), largest_message_step_blob(db)};
}

namespace {

// How many parts the message lines are encoded in: the two threads take
// them from the two ends, so that neither waits more than a part's time for
// the other (a part is 3 ms at 4,096 processes × 20 iterations, 8 ms at
// 1,024 × 320).
constexpr std::size_t kMessageLineParts = 8;

// The logical view's message lines, ordered by send step and encoded in
// parts (MessageLineOrder). Messages keep their indices through Isend
// coalescing; their analyzed ops have the processes and steps of the input
// ops. The send steps that order the lines read the send ops only, which are
// near each other in message order; the receive ops are all over the run.
class MessageLines {
 public:
  MessageLines(const ViewTableInputs& inputs, const LoadedCommTrace& loaded, const structure::StructureResult& r)
      : inputs_(inputs), loaded_(loaded), r_(r), parts_(kMessageLineParts) {}

  std::size_t parts() const { return parts_.size(); }

  // Encodes part `i` (each part once; parts may be encoded on two threads).
  // The first part to run orders the lines, the other thread waiting for it
  // if need be: the order is 4 bytes per line, held only from then on, and
  // the thread that makes the step level of detail is spared it when the
  // other one starts the lines.
  void encode(std::size_t i) {
    std::call_once(ordered_, [this] {
      order_.emplace(inputs_.path, static_cast<std::size_t>(r_.trace.message_count()),
                     [&t = r_.trace, &r = r_](std::size_t m, std::int32_t& send_step) {
                       const structure::OpIndex send = t.msg_send_op[m];
                       if (send == structure::kNoOp || t.msg_recv_op[m] == structure::kNoOp) return false;  // one-sided
                       send_step = r.global_step(send);
                       return true;
                     });
      bounds_ = order_->split_steps(parts_.size());
    });
    const structure::CommTrace& t = r_.trace;
    parts_[i] = order_->encode(
        bounds_[i], bounds_[i + 1],
        [&](std::size_t m, MessageLine& line) {
          const structure::OpIndex send = t.msg_send_op[m], recv = t.msg_recv_op[m];
          if (send == structure::kNoOp || recv == structure::kNoOp) return false;  // one-sided
          line = {loaded_.message_id[m], t.process[static_cast<std::size_t>(send)],
                  t.process[static_cast<std::size_t>(recv)], r_.global_step(send), r_.global_step(recv)};
          return true;
        },
        inputs_.max_message_blob,
        [&](std::size_t m) {
          // One send step's lines are one message of each sender, far apart in
          // message order, and the receive op's process and step are at random
          // places.
          __builtin_prefetch(&loaded_.message_id[m]);
          const structure::OpIndex send = t.msg_send_op[m], recv = t.msg_recv_op[m];
          if (send == structure::kNoOp || recv == structure::kNoOp) return;
          __builtin_prefetch(&t.process[static_cast<std::size_t>(send)]);
          __builtin_prefetch(&r_.global_raw_step[static_cast<std::size_t>(send)]);
          __builtin_prefetch(&t.process[static_cast<std::size_t>(recv)]);
          __builtin_prefetch(&r_.global_raw_step[static_cast<std::size_t>(recv)]);
        });
  }

  // The encoded parts, joined in step order (the order is dropped).
  MessageStepBlocks join() {
    order_.reset();
    MessageStepBlocks all;
    for (MessageStepBlocks& part : parts_) append_message_step_blocks(all, std::move(part));
    return all;
  }

 private:
  const ViewTableInputs& inputs_;
  const LoadedCommTrace& loaded_;
  const structure::StructureResult& r_;
  std::once_flag ordered_;
  std::optional<MessageLineOrder> order_;  // set once, by the first part to run
  std::vector<std::size_t> bounds_;
  std::vector<MessageStepBlocks> parts_;
};

}  // namespace

ViewTables build_view_tables(const ViewTableInputs& inputs, const LoadedCommTrace& loaded,
                             const structure::StructureResult& r, MetricsWalks walks, JobExchange* share) {
  PhaseTimer timer("WEFT_ANALYZE_TIMING");
  ViewTables v;
  // The message lines read the analysis only: their parts are offered to the
  // thread that helps (it may be idle, its own tables written) while this one
  // makes the time bins and the step level of detail.
  MessageLines lines(inputs, loaded, r);
  std::deque<JobExchange::Offer> line_parts;  // not moved: the exchange holds their addresses
  for (std::size_t i = 0; i < lines.parts(); ++i) line_parts.emplace_back(share, [&lines, i] { lines.encode(i); });
  if (walks == MetricsWalks::One || (walks == MetricsWalks::Auto && one_metrics_walk_fits(r))) {
    bin_and_level_in_one_walk(inputs, loaded, r, share, v);
    timer.mark("  (helper) time_metrics and step_lod");
  } else {
    v.time_metrics = bin_time_metrics(r, inputs.trace_end_ns, [&](structure::OpIndex a, const structure::OpMetrics& m) {
      note_op_facts(r.trace, a, m, v.facts);
    });
    find_lateness_ranges(v.time_metrics, v.facts);
    timer.mark("  (helper) time_metrics");
    // Every input op's metrics are its analyzed op's: the ranges are the maxima.
    v.step_lod = build_step_lod(loaded, r, inputs.region_classes, v.facts.max_lateness, v.facts.max_diff_lateness,
                                v.facts.max_global_lateness, share);
    timer.mark("  (helper) step_lod");
  }
  // The other thread claims the parts from the first on: this one runs them
  // from the last back, until it meets the parts that thread has claimed.
  for (auto part = line_parts.rbegin(); part != line_parts.rend(); ++part) part->run_or_wait();
  v.message_steps = lines.join();
  v.facts.max_message_steps = v.message_steps.max_span;
  timer.mark("  (helper) message_steps");
  return v;
}

void write_view_tables(Database& db, const ViewTables& v) {
  write_message_step_blocks(db, v.message_steps);
  write_step_lod(db, v.step_lod);
  write_time_metrics(db, v.time_metrics);
}

void write_view_facts(Database& db, const ViewTableFacts& f) {
  write_meta_ints(db, {{"analysis_max_message_steps", f.max_message_steps},
                       {"analysis_max_lateness_ns", f.max_lateness},
                       {"analysis_max_global_lateness_ns", f.max_global_lateness},
                       {"analysis_max_diff_lateness_ns", f.max_diff_lateness},
                       {"analysis_max_wait_ns", f.max_wait},
                       {"analysis_max_duration_ns", f.max_duration}});
}

}  // namespace weft::db
