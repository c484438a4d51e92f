#pragma once
// Writes the per-event results of the analysis as comm_event_blocks rows
// (docs/schema.md, "comm_events"): one row per (step block, process) holding
// the packed records of that process's events whose global step lies in the
// block, so a logical-timeline window (steps x processes) is one range scan
// and the analysis writes a few thousand rows instead of one per event.
#include <cstdint>
#include <vector>

#include "store/block_codec.h"
#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

// The shift S of step_block = step >> S: the smallest S whose blocks hold
// about kCommEventsPerBlock events of an average process.
constexpr std::int64_t kCommEventsPerBlock = 128;
int choose_step_shift(std::int64_t events, std::int64_t processes, std::int64_t step_slots);

class CommEventBlockWriter {
 public:
  CommEventBlockWriter(Database& db, int step_shift);
  // Events must arrive grouped by process, in event id order within one.
  void add(const CommEventRecord& event);
  // Writes the last block.
  void finish();

 private:
  void flush();

  int step_shift_;
  Statement insert_;
  // The block being built: its events encoded as they come, and the row's
  // other columns.
  CommEventBlockEncoder block_;
  std::int64_t step_block_ = 0;
  ProcessIndex process_ = 0;
  EventId first_event_ = 0, last_event_ = 0;
  std::int64_t first_step_ = 0, last_step_ = 0;  // the smallest and largest step
};

}  // namespace weft::db
