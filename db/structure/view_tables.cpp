#include "structure/view_tables.h"

#include <algorithm>
#include <array>
#include <string>

#include "store/batch_insert.h"
#include "store/meta.h"
#include "structure/step_lod.h"

namespace weft::db {

namespace {

// The largest lateness, global lateness, differential lateness and duration of
// any analyzed op: the top of each color scale.
void write_metric_ranges(Database& db, const structure::StructureResult& r) {
  TimeNs late = 0, global = 0, diff = 0, duration = 0, wait = 0;
  for (structure::OpIndex a = 0; a < r.trace.op_count(); ++a) {
    auto ua = static_cast<std::size_t>(a);
    late = std::max(late, r.metrics.lateness(a));
    global = std::max(global, r.metrics.global_lateness(a));
    diff = std::max(diff, r.metrics.diff_lateness(a));
    wait = std::max(wait, r.metrics.wait(a));
    duration = std::max(duration, r.trace.end[ua] - r.trace.start[ua]);
  }
  write_meta_ints(db, {{"analysis_max_lateness_ns", late},
                       {"analysis_max_global_lateness_ns", global},
                       {"analysis_max_diff_lateness_ns", diff},
                       {"analysis_max_wait_ns", wait},
                       {"analysis_max_duration_ns", duration}});
}

}  // namespace

void write_view_tables(Database& db, const LoadedCommTrace& loaded,
                       const structure::StructureResult& r) {
  const structure::CommTrace& in = loaded.trace;
  db.exec("DROP TABLE IF EXISTS message_steps");
  db.exec(
      "CREATE TABLE message_steps(message INTEGER PRIMARY KEY, src INTEGER NOT NULL,"
      " dst INTEGER NOT NULL, send_step INTEGER NOT NULL, recv_step INTEGER NOT NULL)");
  std::int64_t max_span = 0;
  {
    BatchInserter rows(db, "message_steps", "", 5);
    for (std::int32_t m = 0; m < in.message_count(); ++m) {
      auto um = static_cast<std::size_t>(m);
      structure::OpIndex send = in.msg_send_op[um];
      structure::OpIndex recv = in.msg_recv_op[um];
      if (send == structure::kNoOp || recv == structure::kNoOp) continue;  // one-sided
      const std::int64_t send_step = r.global_step(r.op_of_input[static_cast<std::size_t>(send)]);
      const std::int64_t recv_step = r.global_step(r.op_of_input[static_cast<std::size_t>(recv)]);
      max_span = std::max(max_span, recv_step - send_step);
      std::array<std::int64_t, 5> row{loaded.message_id[um],
                                      in.process[static_cast<std::size_t>(send)],
                                      in.process[static_cast<std::size_t>(recv)], send_step,
                                      recv_step};
      rows.add(row);
    }
    rows.flush();
  }
  db.exec("CREATE INDEX message_steps_by_send ON message_steps(send_step)");
  write_meta_ints(db, {{"analysis_max_message_steps", max_span}});
  write_metric_ranges(db, r);
  write_step_lod(db, loaded, r);
}

}  // namespace weft::db
