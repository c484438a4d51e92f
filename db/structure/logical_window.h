#pragma once
// Reads what the logical timeline shows: the communication events of a
// global-step × process window with their structure and metrics (comm_events),
// and the message lines crossing it (message_step_blocks). One range scan per
// query, so the cost follows the window, not the run.
#include <cstdint>
#include <optional>
#include <vector>

#include "common/types.h"
#include "store/records.h"
#include "store/sqlite.h"
#include "structure/comm_event_blocks.h"
#include "structure/message_step_blocks.h"

namespace weft::db {

// Global steps [s0, s1] × processes [p0, p1], both ends inclusive.
struct StepWindow {
  std::int64_t s0 = 0;
  std::int64_t s1 = 0;
  ProcessIndex p0 = 0;
  ProcessIndex p1 = 0;
};

// The analysis facts a logical view needs, from meta.
struct StructureFacts {
  std::int64_t global_steps = 0;  // step slots: steps run from 0 to global_steps - 1
  std::int64_t partitions = 0;
  std::int64_t max_message_steps = 0;
  TimeNs max_lateness_ns = 0;
  TimeNs max_global_lateness_ns = 0;
  TimeNs max_diff_lateness_ns = 0;
  TimeNs max_duration_ns = 0;
};

// Communication events of a window, one entry per column. `send_step` is the
// step of the send half of a send-and-receive call (-1: none).
struct StepEvents {
  std::vector<EventId> event;
  std::vector<ProcessIndex> process;
  std::vector<std::int64_t> region;  // region reference, as in events.region
  std::vector<std::int8_t> kind;     // structure::OpKind
  std::vector<std::int32_t> step;
  std::vector<std::int32_t> send_step;
  std::vector<std::int32_t> partition;
  std::vector<TimeNs> start_ns;
  std::vector<TimeNs> end_ns;
  std::vector<TimeNs> lateness_ns;
  std::vector<TimeNs> global_lateness_ns;
  std::vector<TimeNs> diff_lateness_ns;
  std::vector<TimeNs> wait_ns;
  std::size_t size() const { return event.size(); }
  void clear();
};

// Message lines whose [send_step, recv_step] meets the window's steps and whose
// sender or receiver is in its processes.
struct StepMessages {
  std::vector<std::int64_t> message;
  std::vector<ProcessIndex> src;
  std::vector<ProcessIndex> dst;
  std::vector<std::int32_t> send_step;
  std::vector<std::int32_t> recv_step;
  std::size_t size() const { return message.size(); }
  void clear();
};

class LogicalWindowQuery {
 public:
  // Throws weft::Error naming the file when `db` holds no analysis (the
  // message says which command makes one).
  explicit LogicalWindowQuery(Database& db);

  const StructureFacts& facts() const { return facts_; }
  void read_events(const StepWindow& window, StepEvents& out);
  void read_messages(const StepWindow& window, StepMessages& out);

 private:
  Database& db_;
  StructureFacts facts_;
  std::optional<CommEventBlockKey> key_;  // none: a file analyzed before the key
  int step_shift_ = 0;  // step_block = step >> step_shift_
  Statement events_stmt_;
  MessageStepReader messages_;
  std::vector<MessageStepRecord> lines_;  // reused between reads
  std::vector<CommEventRecord> scratch_;  // one decoded block, reused
};

// Where each partition lies in steps and in time, for mapping a time to the
// step being worked on then (the logical clock of the timeline slider).
struct PartitionSpans {
  std::vector<std::int32_t> partition;  // ids (partitions.partition)
  std::vector<std::int32_t> index_of;   // position by partition id (-1: none)
  std::vector<std::int64_t> first_step, last_step;
  std::vector<TimeNs> begin_ns, end_ns;
  std::size_t size() const { return first_step.size(); }
};
// Sorted by begin_ns.
PartitionSpans read_partition_spans(Database& db);
// The global step that time `t_ns` falls in: interpolated inside the partition
// running at that time (the latest one begun, when several overlap).
double step_at_time(const PartitionSpans& spans, double t_ns);

// Whether `db` holds an analysis that a logical view can show.
bool has_logical_structure(Database& db);
// `db`, or a weft::Error naming the file and the command that makes an analysis.
Database& require_logical_structure(Database& db);

}  // namespace weft::db
