#include "structure/comm_event_blocks.h"

#include <algorithm>
#include <string>

#include "common/error.h"

namespace weft::db {

int choose_step_shift(std::int64_t events, std::int64_t processes, std::int64_t step_slots) {
  // 2^S steps of an average process hold events * 2^S / (processes * steps) events.
  int shift = 0;
  while (shift < 30 && (events << shift) < kCommEventsPerBlock * std::max<std::int64_t>(processes, 1) *
                                                std::max<std::int64_t>(step_slots, 1))
    ++shift;
  return shift;
}

CommEventBlockWriter::CommEventBlockWriter(Database& db, int step_shift, std::int64_t rows, std::int64_t step_slots)
    : step_shift_(step_shift),
      key_{std::max<std::int64_t>(rows, 1)},
      insert_(db.prepare("INSERT INTO comm_event_blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
  const std::int64_t blocks = ((std::max<std::int64_t>(step_slots, 1) - 1) >> step_shift) + 1;
  if (blocks > CommEventBlockKey::kMaxPairs / key_.rows)
    throw Error(db.path(), "comm_event_blocks: " + std::to_string(blocks) + " step blocks of " +
                               std::to_string(key_.rows) + " rows do not fit the table's key");
}

void CommEventBlockWriter::add(const CommEventRecord& event) {
  const std::int64_t step_block = event.step >> step_shift_;
  if (block_.count() != 0 && (event.process != process_ || step_block != step_block_)) flush();
  if (block_.count() == 0) {
    step_block_ = step_block;
    process_ = event.process;
    first_event_ = event.event;
    first_step_ = last_step_ = event.step;
    first_record_ = records_;
  }
  last_event_ = event.event;
  // Steps normally grow along a process, but a repaired (bad) trace may not
  // keep them monotone: first_step/last_step are the block's true extremes.
  first_step_ = std::min(first_step_, event.step);
  last_step_ = std::max(last_step_, event.step);
  block_.add(event);
  ++records_;
}

void CommEventBlockWriter::flush() {
  if (block_.count() == 0) return;
  if (step_block_ < 0 || process_ < 0 || process_ >= key_.rows)
    throw Error("comm_event_blocks: a record of row " + std::to_string(process_) + " at step block " +
                std::to_string(step_block_) + " is outside the analysis (" + std::to_string(key_.rows) + " rows)");
  const std::span<const std::uint8_t> blob = block_.blob();
  insert_.bind(1, key_.first(step_block_, process_) | first_record_);
  insert_.bind(2, step_block_);
  insert_.bind(3, static_cast<std::int64_t>(process_));
  insert_.bind(4, first_event_);
  insert_.bind(5, last_event_);
  insert_.bind(6, static_cast<std::int64_t>(block_.count()));
  insert_.bind(7, first_step_);
  insert_.bind(8, last_step_);
  insert_.bind_blob_static(9, blob.data(), blob.size());
  insert_.run();
  block_.clear();
}

void CommEventBlockWriter::finish() { flush(); }

}  // namespace weft::db
