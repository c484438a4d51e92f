#include "structure/comm_event_blocks.h"

#include <algorithm>

#include "store/block_codec.h"

namespace weft::db {

int choose_step_shift(std::int64_t events, std::int64_t processes, std::int64_t step_slots) {
  // 2^S steps of an average process hold events * 2^S / (processes * steps) events.
  int shift = 0;
  while (shift < 30 && (events << shift) < kCommEventsPerBlock * std::max<std::int64_t>(processes, 1) *
                                                std::max<std::int64_t>(step_slots, 1))
    ++shift;
  return shift;
}

CommEventBlockWriter::CommEventBlockWriter(Database& db, int step_shift)
    : step_shift_(step_shift),
      insert_(db.prepare("INSERT INTO comm_event_blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {}

void CommEventBlockWriter::add(const CommEventRecord& event) {
  if (!pending_.empty() && (event.process != pending_.back().process ||
                            event.step >> step_shift_ != pending_.back().step >> step_shift_))
    flush();
  pending_.push_back(event);
}

void CommEventBlockWriter::flush() {
  if (pending_.empty()) return;
  blob_.clear();
  encode_comm_event_block(pending_, blob_);
  // Steps normally grow along a process, but a repaired (bad) trace may not
  // keep them monotone: first_step/last_step are the block's true extremes.
  auto [lo, hi] = std::minmax_element(pending_.begin(), pending_.end(),
                                      [](const auto& a, const auto& b) { return a.step < b.step; });
  insert_.bind(1, pending_.front().step >> step_shift_);
  insert_.bind(2, static_cast<std::int64_t>(pending_.front().process));
  insert_.bind(3, pending_.front().event);
  insert_.bind(4, pending_.back().event);
  insert_.bind(5, static_cast<std::int64_t>(pending_.size()));
  insert_.bind(6, lo->step);
  insert_.bind(7, hi->step);
  insert_.bind_blob_static(8, blob_.data(), blob_.size());
  insert_.run();
  pending_.clear();
}

void CommEventBlockWriter::finish() { flush(); }

}  // namespace weft::db
