#pragma once
// Writes the per-event results of the analysis as comm_event_blocks rows
// (docs/schema.md, "comm_events"): one row per (step block, process) holding
// the packed records of that process's events whose global step lies in the
// block, so a logical-timeline window (steps x processes) is one range scan
// and the analysis writes a few thousand rows instead of one per event.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "store/block_codec.h"
#include "store/record_scan.h"
#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

// The shift S of step_block = step >> S: the smallest S whose blocks hold
// about kCommEventsPerBlock events of an average process.
constexpr std::int64_t kCommEventsPerBlock = 128;
int choose_step_shift(std::int64_t events, std::int64_t processes, std::int64_t step_slots);

// comm_event_blocks' rowid, `block`: (step_block * rows + row) << kPairShift
// | n, where rows is the run's count of rows (processes, or chares of a task
// run; meta analysis_block_key_rows) and n the count of records written
// before the row's first (distinct per row, and under 2^31: no analysis has
// more events). Rowid order is (step block, row, first event) order, so a
// window of steps and rows is a range of rowids, and a writer that goes step
// block by step block appends every row at the end of the table's b-tree.
// Keyed WITHOUT ROWID by those columns, the table rebalanced its pages two or
// three times each as they filled (SQLite appends without rebalancing only to
// rowid tables): a third of the instructions of inserting the rows.
struct CommEventBlockKey {
  static constexpr int kPairShift = 31;
  static constexpr std::int64_t kMaxPairs = std::int64_t{1} << 32;  // the key stays under 2^63
  std::int64_t rows = 1;
  // The smallest and largest keys of (step_block, row) pairs, clamped to the
  // key's range: a window may reach past the run.
  std::int64_t first(std::int64_t step_block, std::int64_t row) const { return pair(step_block, row) << kPairShift; }
  std::int64_t last(std::int64_t step_block, std::int64_t row) const {
    return first(step_block, row) | ((std::int64_t{1} << kPairShift) - 1);
  }
  std::int64_t pair(std::int64_t step_block, std::int64_t row) const {
    if (step_block < 0 || row < 0) return 0;
    if (step_block >= kMaxPairs / rows) return kMaxPairs - 1;
    return std::min(step_block * rows + row, kMaxPairs - 1);
  }
};

// The key of the run's comm_event_blocks (meta analysis_block_key_rows), or
// none for a file analyzed before the key existed. Throws weft::Error, naming
// the file, when the meta value is not the run's count of rows (meta
// analysis_logical_rows of a task run, else its processes; at least 1).
std::optional<CommEventBlockKey> read_comm_event_block_key(Database& db);

// Every communication event record of the run, row by row (process by
// process) and in event id order within a row: each row's rows of the table
// through one rowid range per step block, sorted by id when the steps fell
// back along the row (a repaired trace). Files analyzed before the key are
// read through their index comm_event_blocks_by_process instead, in
// (process, first_id) order of the table's rows. Throws weft::Error when a
// row's key lies beyond the run's step blocks, or the meta facts give more
// step blocks than the file could hold (a damaged file).
void scan_comm_events(Database& db, const RowSink<CommEventRecord>& sink);

// The comm_event_blocks row being built: the records of one process (row)
// in one step block, encoded as they come, and the row's columns.
class CommEventRow {
 public:
  explicit CommEventRow(int step_shift) : step_shift_(step_shift) {}
  bool empty() const { return block_.count() == 0; }
  // Whether `event` belongs to another row than the one being built.
  bool ends_before(const CommEventRecord& event) const {
    return !empty() && (event.process != process_ || (event.step >> step_shift_) != step_block_);
  }
  void add(const CommEventRecord& event);
  void clear() { block_.clear(); }

  std::int64_t step_block() const { return step_block_; }
  ProcessIndex process() const { return process_; }
  EventId first_event() const { return first_event_; }
  EventId last_event() const { return last_event_; }
  std::int64_t first_step() const { return first_step_; }
  std::int64_t last_step() const { return last_step_; }
  std::int64_t count() const { return static_cast<std::int64_t>(block_.count()); }
  // The row's data blob; valid until the next add or clear.
  std::span<const std::uint8_t> blob() { return block_.blob(); }

 private:
  int step_shift_;
  CommEventBlockEncoder block_;
  std::int64_t step_block_ = 0;
  ProcessIndex process_ = 0;
  EventId first_event_ = 0, last_event_ = 0;
  std::int64_t first_step_ = 0, last_step_ = 0;  // the smallest and largest step
};

// Rows encoded into memory by a thread that cannot insert them (the
// connection is another thread's), for CommEventBlockWriter::insert.
struct EncodedCommEventRows {
  struct Row {
    std::int64_t step_block;
    ProcessIndex process;
    EventId first_event, last_event;
    std::int64_t first_step, last_step, count;
    std::size_t offset, size;  // of its blob in `bytes`
  };
  std::vector<Row> rows;
  std::vector<std::uint8_t> bytes;
};

// Builds EncodedCommEventRows from records given as to CommEventBlockWriter::add.
class CommEventRowBuffer {
 public:
  explicit CommEventRowBuffer(int step_shift) : row_(step_shift) {}
  void add(const CommEventRecord& event) {
    if (row_.ends_before(event)) end_row();
    row_.add(event);
  }
  // The rows, the last one ended.
  EncodedCommEventRows take();

 private:
  void end_row();

  CommEventRow row_;
  EncodedCommEventRows out_;
};

class CommEventBlockWriter {
 public:
  // `rows`: processes (MPI) or chares (task runs); every event's process is
  // below it. Throws weft::Error if the run's step blocks times its rows do
  // not fit the key (choose_step_shift keeps them under 2^26).
  CommEventBlockWriter(Database& db, int step_shift, std::int64_t rows, std::int64_t step_slots);
  // Events must arrive grouped by process, in event id order within one;
  // best in step block order (then SQLite appends each row).
  void add(const CommEventRecord& event) {
    if (row_.ends_before(event)) flush();
    row_.add(event);
  }
  // Ends the row being built: the next record starts a row of its own, or
  // rows from `insert` follow.
  void flush();
  // Inserts rows encoded elsewhere, after the ones added so far (flushed).
  void insert(const EncodedCommEventRows& encoded);
  // Writes the last block.
  void finish() { flush(); }

 private:
  void insert_row(std::int64_t step_block, ProcessIndex process, EventId first_event, EventId last_event,
                  std::int64_t count, std::int64_t first_step, std::int64_t last_step,
                  std::span<const std::uint8_t> blob);

  CommEventBlockKey key_;
  Statement insert_;
  CommEventRow row_;
  std::int64_t records_ = 0;  // records inserted
};

}  // namespace weft::db
