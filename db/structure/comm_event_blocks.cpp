#include "structure/comm_event_blocks.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "store/meta.h"

namespace weft::db {

int choose_step_shift(std::int64_t events, std::int64_t processes, std::int64_t step_slots) {
  // 2^S steps of an average process hold events * 2^S / (processes * steps) events.
  int shift = 0;
  while (shift < 30 && (events << shift) < kCommEventsPerBlock * std::max<std::int64_t>(processes, 1) *
                                                std::max<std::int64_t>(step_slots, 1))
    ++shift;
  return shift;
}

void CommEventRow::add(const CommEventRecord& event) {
  if (empty()) {
    step_block_ = event.step >> step_shift_;
    process_ = event.process;
    first_event_ = event.event;
    first_step_ = last_step_ = event.step;
  }
  last_event_ = event.event;
  // Steps normally grow along a process, but a repaired (bad) trace may not
  // keep them monotone: first_step/last_step are the block's true extremes.
  first_step_ = std::min(first_step_, event.step);
  last_step_ = std::max(last_step_, event.step);
  block_.add(event);
}

void CommEventRowBuffer::end_row() {
  if (row_.empty()) return;
  const std::span<const std::uint8_t> blob = row_.blob();
  out_.rows.push_back({row_.step_block(), row_.process(), row_.first_event(), row_.last_event(), row_.first_step(),
                       row_.last_step(), row_.count(), out_.bytes.size(), blob.size()});
  out_.bytes.insert(out_.bytes.end(), blob.begin(), blob.end());
  row_.clear();
}

EncodedCommEventRows CommEventRowBuffer::take() {
  end_row();
  EncodedCommEventRows rows = std::move(out_);
  out_ = {};
  return rows;
}

CommEventBlockWriter::CommEventBlockWriter(Database& db, int step_shift, std::int64_t rows, std::int64_t step_slots)
    : key_{std::max<std::int64_t>(rows, 1)},
      insert_(db.prepare("INSERT INTO comm_event_blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")),
      row_(step_shift) {
  const std::int64_t blocks = ((std::max<std::int64_t>(step_slots, 1) - 1) >> step_shift) + 1;
  if (blocks > CommEventBlockKey::kMaxPairs / key_.rows)
    throw Error(db.path(), "comm_event_blocks: " + std::to_string(blocks) + " step blocks of " +
                               std::to_string(key_.rows) + " rows do not fit the table's key");
}

void CommEventBlockWriter::flush() {
  if (row_.empty()) return;
  insert_row(row_.step_block(), row_.process(), row_.first_event(), row_.last_event(), row_.count(),
             row_.first_step(), row_.last_step(), row_.blob());
  row_.clear();
}

void CommEventBlockWriter::insert(const EncodedCommEventRows& encoded) {
  flush();
  for (const EncodedCommEventRows::Row& r : encoded.rows)
    insert_row(r.step_block, r.process, r.first_event, r.last_event, r.count, r.first_step, r.last_step,
               std::span<const std::uint8_t>(encoded.bytes).subspan(r.offset, r.size));
}

void CommEventBlockWriter::insert_row(std::int64_t step_block, ProcessIndex process, EventId first_event,
                                      EventId last_event, std::int64_t count, std::int64_t first_step,
                                      std::int64_t last_step, std::span<const std::uint8_t> blob) {
  if (step_block < 0 || process < 0 || process >= key_.rows)
    throw Error("comm_event_blocks: a record of row " + std::to_string(process) + " at step block " +
                std::to_string(step_block) + " is outside the analysis (" + std::to_string(key_.rows) + " rows)");
  // n of the key: the records inserted before the row's first.
  insert_.bind(1, key_.first(step_block, process) | records_);
  insert_.bind(2, step_block);
  insert_.bind(3, static_cast<std::int64_t>(process));
  insert_.bind(4, first_event);
  insert_.bind(5, last_event);
  insert_.bind(6, count);
  insert_.bind(7, first_step);
  insert_.bind(8, last_step);
  insert_.bind_blob_static(9, blob.data(), blob.size());
  insert_.run();
  records_ += count;
}

std::optional<CommEventBlockKey> read_comm_event_block_key(Database& db) {
  const std::optional<std::int64_t> rows = find_meta_int(db, "analysis_block_key_rows");
  if (!rows) return std::nullopt;
  // The writers key the run's rows (a task run's chares, an MPI run's
  // processes; at least one): any other count would read the wrong ranges.
  const std::optional<std::int64_t> logical = find_meta_int(db, "analysis_logical_rows");
  const std::int64_t run_rows =
      std::max<std::int64_t>(logical ? *logical : db.query_int("SELECT count(*) FROM processes"), 1);
  if (*rows != run_rows || *rows > (std::int64_t{1} << 31))
    throw Error(db.path(), "meta analysis_block_key_rows is " + std::to_string(*rows) + ", not the run's " +
                               std::to_string(run_rows) + " rows");
  return CommEventBlockKey{*rows};
}

namespace {

constexpr std::size_t kScanBatch = 4096;

// The step blocks of the run's comm_event_blocks: those of its steps, which
// every row's key must be within. A writer chooses the step shift so that
// rows x blocks stays under about one per 128 records (choose_step_shift),
// and records take bytes of the file: more (row, block) pairs than the file
// could hold is a damaged meta fact, refused before the scan probes them all.
std::int64_t step_block_count(Database& db, const CommEventBlockKey& key) {
  const std::string hint = "re-run `weft analyze " + db.path() + "`";
  const std::int64_t shift = read_meta_int(db, "analysis_step_shift", hint);
  const std::int64_t steps = read_meta_int(db, "analysis_global_steps", hint);
  if (shift < 0 || shift > 40 || steps < 0) throw Error(db.path(), "meta analysis_step_shift or analysis_global_steps is out of range");
  const std::int64_t blocks = ((std::max<std::int64_t>(steps, 1) - 1) >> shift) + 1;
  const std::int64_t file_bytes = db.query_int("PRAGMA page_count") * db.query_int("PRAGMA page_size");
  if (blocks > (file_bytes / 16) / key.rows + 2)
    throw Error(db.path(), "meta analysis_global_steps and analysis_step_shift give " + std::to_string(blocks) +
                               " step blocks of " + std::to_string(key.rows) + " rows, more than the file holds");
  const std::int64_t last = db.query_int("SELECT coalesce(max(block), -1) FROM comm_event_blocks");
  if (last >= 0 && (last >> CommEventBlockKey::kPairShift) >= key.pair(blocks, 0))
    throw Error(db.path(), "comm_event_blocks has a row beyond the run's " + std::to_string(blocks) + " step blocks");
  return blocks;
}

// Puts a row's records in event id order. Its rows come step block by step
// block, which is that order when steps grow along the row (always, for an
// analysis of a sound trace); a repaired trace whose steps fall back, or a
// task run's chare whose events moved between PEs, interleaves them.
void order_row_by_event(std::vector<CommEventRecord>& records, std::size_t row_begin) {
  const auto by_event = [](const CommEventRecord& a, const CommEventRecord& b) { return a.event < b.event; };
  const auto begin = records.begin() + static_cast<std::ptrdiff_t>(row_begin);
  if (!std::is_sorted(begin, records.end(), by_event)) std::stable_sort(begin, records.end(), by_event);
}

}  // namespace

void scan_comm_events(Database& db, const RowSink<CommEventRecord>& sink) {
  std::vector<CommEventRecord> batch;
  batch.reserve(kScanBatch);
  auto decode_row = [&](Statement& rows) {
    decode_comm_event_block(rows.column_blob(1), static_cast<ProcessIndex>(rows.column_int(0)), batch, db.path());
  };
  auto flush_full_batch = [&] {
    if (batch.size() < kScanBatch) return;
    sink(batch);
    batch.clear();
  };
  if (const std::optional<CommEventBlockKey> key = read_comm_event_block_key(db)) {
    const std::int64_t blocks = step_block_count(db, *key);
    Statement range = db.prepare("SELECT process, data FROM comm_event_blocks WHERE block BETWEEN ?1 AND ?2");
    for (std::int64_t row = 0; row < key->rows; ++row) {
      const std::size_t row_begin = batch.size();
      for (std::int64_t b = 0; b < blocks; ++b) {
        range.bind(1, key->first(b, row));
        range.bind(2, key->last(b, row));
        while (range.step()) decode_row(range);
        range.reset();
      }
      order_row_by_event(batch, row_begin);
      flush_full_batch();
    }
  } else {
    // Files from before the key: by the index, rows in (process, first_id) order.
    Statement all = db.prepare("SELECT process, data FROM comm_event_blocks ORDER BY process, first_id");
    while (all.step()) {
      decode_row(all);
      flush_full_batch();
    }
  }
  if (!batch.empty()) sink(batch);
}

}  // namespace weft::db
