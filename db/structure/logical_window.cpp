#include "structure/logical_window.h"

#include <algorithm>
#include <optional>
#include <string>

#include "common/error.h"
#include "store/block_codec.h"
#include "store/meta.h"
#include "structure/comm_event_blocks.h"
#include "structure/message_step_blocks.h"

namespace weft::db {

namespace {

// comm_event_blocks' rowid (CommEventBlockKey) makes a window one range of
// rowids: from the first process's first block to the last's last; the
// processes outside the window in the step blocks between are skipped.
constexpr const char* kEventsSql =
    "SELECT process, data FROM comm_event_blocks"
    " WHERE block BETWEEN ?5 AND ?6 AND step_block BETWEEN ?1 AND ?2 AND process BETWEEN ?3 AND ?4";
// Files analyzed before the rowid key have the table keyed WITHOUT ROWID by
// (step_block, process, first_id), which serves the same window.
constexpr const char* kEventsWithoutKeySql =
    "SELECT process, data FROM comm_event_blocks"
    " WHERE step_block BETWEEN ?1 AND ?2 AND process BETWEEN ?3 AND ?4";

}  // namespace

bool has_logical_structure(Database& db) {
  return has_table(db, "comm_event_blocks") && has_message_steps(db);
}

Database& require_logical_structure(Database& db) {
  if (!has_logical_structure(db))
    throw Error(db.path(), "no logical structure stored; run `weft analyze " + db.path() + "` first");
  return db;
}

PartitionSpans read_partition_spans(Database& db) {
  PartitionSpans spans;
  Statement s(db,
              "SELECT first_step, last_step, begin_ns, end_ns, partition FROM partitions ORDER BY begin_ns");
  while (s.step()) {
    spans.first_step.push_back(s.column_int(0));
    spans.last_step.push_back(s.column_int(1));
    spans.begin_ns.push_back(s.column_int(2));
    spans.end_ns.push_back(s.column_int(3));
    const std::int64_t id = s.column_int(4);
    if (id < 0 || id > (std::int64_t{1} << 31) - 2) throw Error(db.path(), "partition id out of range");
    spans.partition.push_back(static_cast<std::int32_t>(id));
    if (static_cast<std::size_t>(id) >= spans.index_of.size())
      spans.index_of.resize(static_cast<std::size_t>(id) + 1, -1);
    spans.index_of[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(spans.size() - 1);
  }
  return spans;
}

double step_at_time(const PartitionSpans& spans, double t_ns) {
  if (spans.size() == 0) return 0.0;
  // The last partition that began at or before t.
  auto it = std::upper_bound(spans.begin_ns.begin(), spans.begin_ns.end(), t_ns,
                             [](double t, TimeNs begin) { return t < static_cast<double>(begin); });
  if (it == spans.begin_ns.begin()) return static_cast<double>(spans.first_step.front());
  const auto i = static_cast<std::size_t>(it - spans.begin_ns.begin()) - 1;
  const double begin = static_cast<double>(spans.begin_ns[i]);
  const double end = static_cast<double>(spans.end_ns[i]);
  const double first = static_cast<double>(spans.first_step[i]);
  const double last = static_cast<double>(spans.last_step[i]) + 1.0;
  if (t_ns >= end || end <= begin) return last;
  return first + (last - first) * (t_ns - begin) / (end - begin);
}

void StepEvents::clear() {
  event.clear();
  process.clear();
  region.clear();
  kind.clear();
  step.clear();
  send_step.clear();
  partition.clear();
  start_ns.clear();
  end_ns.clear();
  lateness_ns.clear();
  global_lateness_ns.clear();
  diff_lateness_ns.clear();
  wait_ns.clear();
}

void StepMessages::clear() {
  message.clear();
  src.clear();
  dst.clear();
  send_step.clear();
  recv_step.clear();
}

LogicalWindowQuery::LogicalWindowQuery(Database& db)
    : db_(require_logical_structure(db)),
      key_(read_comm_event_block_key(db_)),
      events_stmt_(db_, key_ ? kEventsSql : kEventsWithoutKeySql),
      messages_(db_) {
  const std::string hint = "re-run `weft analyze " + db_.path() + "`";
  step_shift_ = static_cast<int>(read_meta_int(db_, "analysis_step_shift", hint));
  if (step_shift_ < 0 || step_shift_ > 40) throw Error(db_.path(), "meta analysis_step_shift is out of range");
  facts_.global_steps = read_meta_int(db_, "analysis_global_steps", hint);
  facts_.partitions = read_meta_int(db_, "analysis_partitions", hint);
  facts_.max_message_steps = read_meta_int(db_, "analysis_max_message_steps", hint);
  facts_.max_lateness_ns = read_meta_int(db_, "analysis_max_lateness_ns", hint);
  facts_.max_global_lateness_ns = read_meta_int(db_, "analysis_max_global_lateness_ns", hint);
  facts_.max_diff_lateness_ns = read_meta_int(db_, "analysis_max_diff_lateness_ns", hint);
  facts_.max_duration_ns = read_meta_int(db_, "analysis_max_duration_ns", hint);
}

void LogicalWindowQuery::read_events(const StepWindow& w, StepEvents& out) {
  out.clear();
  if (w.s1 < w.s0 || w.p1 < w.p0) return;
  const std::int64_t b0 = std::max<std::int64_t>(w.s0, 0) >> step_shift_;
  const std::int64_t b1 = std::max<std::int64_t>(w.s1, 0) >> step_shift_;
  events_stmt_.bind(1, b0);
  events_stmt_.bind(2, b1);
  events_stmt_.bind(3, static_cast<std::int64_t>(w.p0));
  events_stmt_.bind(4, static_cast<std::int64_t>(w.p1));
  if (key_) {
    events_stmt_.bind(5, key_->first(b0, w.p0));
    events_stmt_.bind(6, key_->last(b1, w.p1));
  }
  auto narrow = [](std::int64_t v) { return static_cast<std::int32_t>(v); };
  while (events_stmt_.step()) {
    scratch_.clear();
    decode_comm_event_block(events_stmt_.column_blob(1), static_cast<ProcessIndex>(events_stmt_.column_int(0)),
                            scratch_, db_.path());
    for (const CommEventRecord& e : scratch_) {
      if (e.step < w.s0 || e.step > w.s1) continue;
      out.event.push_back(e.event);
      out.process.push_back(e.process);
      out.region.push_back(e.region);
      out.kind.push_back(static_cast<std::int8_t>(e.kind));
      out.step.push_back(narrow(e.step));
      out.send_step.push_back(e.send_step == kNullRef ? -1 : narrow(e.send_step));
      out.partition.push_back(narrow(e.partition));
      out.start_ns.push_back(e.start_ns);
      out.end_ns.push_back(e.end_ns);
      out.lateness_ns.push_back(e.lateness_ns);
      out.global_lateness_ns.push_back(e.global_lateness_ns);
      out.diff_lateness_ns.push_back(e.diff_lateness_ns);
      out.wait_ns.push_back(e.wait_ns);
    }
  }
  events_stmt_.reset();
}

void LogicalWindowQuery::read_messages(const StepWindow& w, StepMessages& out) {
  out.clear();
  if (w.s1 < w.s0 || w.p1 < w.p0) return;
  // A line reaching step s0 was sent at most max_message_steps before it.
  lines_.clear();
  messages_.read(std::max<std::int64_t>(0, w.s0 - facts_.max_message_steps), w.s1, w.s0, w.p0, w.p1, lines_);
  for (const MessageStepRecord& m : lines_) {
    out.message.push_back(m.message);
    out.src.push_back(static_cast<ProcessIndex>(m.src));
    out.dst.push_back(static_cast<ProcessIndex>(m.dst));
    out.send_step.push_back(static_cast<std::int32_t>(m.send_step));
    out.recv_step.push_back(static_cast<std::int32_t>(m.recv_step));
  }
}

}  // namespace weft::db
