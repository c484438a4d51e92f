#include "otf2/location_workers.h"

#include <algorithm>
#include <span>
#include <thread>

#include "common/error.h"
#include "common/release_memory.h"
#include "otf2/otf2_location_reader.h"

namespace weft::db {

// One location between its decoding and its storing.
struct LocationWorkers::Slot {
  bool done = false;  // decoded (or failed)
  LocationSummary summary;
  DecodeTotals totals;  // of this location alone
  LocationRecords records;
  EncodedEventBlocks blocks;       // ids from 0
  std::vector<EventRecord> rows;   // staged mode, ids from 0
  std::exception_ptr error;
  EventId base = 0;                // its first event id, once ordered
  MatchedMessages matched;         // what ordering it completed

  void reset() {
    done = false;
    summary = {};
    totals = {};
    records.clear();
    blocks.clear();
    rows.clear();
    error = nullptr;
    base = 0;
    matched.clear();
  }
};

// A worker's own state: the rows of its current piece, its encoder.
class LocationWorkers::Worker {
 public:
  Worker(int shift, std::size_t piece_events)
      : encoder_(shift < 0 ? 0 : shift),
        staged_(shift < 0),
        piece_events_(piece_events),
        rows_([this](std::vector<EventRow>& batch) { add(batch); },
              std::min(EventRowBuffer::kBatchRows, piece_events)) {}

  EventRowBuffer& start_location(Slot& slot) {
    slot_ = &slot;
    next_part_ = 0;
    return rows_;
  }
  // After the location's last record.
  void end_location() {
    rows_.flush();
    flush();
  }

 private:
  // Takes a decoder batch (Leave order).
  void add(std::vector<EventRecord>& batch) {
    if (piece_.empty())
      std::swap(piece_, batch);
    else
      piece_.insert(piece_.end(), batch.begin(), batch.end());
    batch.clear();
    if (piece_.size() >= piece_events_) flush();
  }

  // Encodes (or, staged, keeps) the rows of the piece.
  void flush() {
    if (piece_.empty()) return;
    if (staged_)
      slot_->rows.insert(slot_->rows.end(), piece_.begin(), piece_.end());
    else
      encoder_.encode(in_id_order(piece_), next_part_++, slot_->blocks);
    piece_.clear();
  }

  // Rows arrive in Leave order; ids follow Enter order, which is start order
  // within a process. When the rows are exactly the ids lo..hi (a whole
  // location, or a piece without a pending region), placing each at id - lo
  // sorts them in one pass; otherwise the encoder sorts.
  std::span<EventRecord> in_id_order(std::vector<EventRecord>& rows) {
    auto [lo, hi] = std::minmax_element(rows.begin(), rows.end(),
                                        [](const EventRecord& a, const EventRecord& b) { return a.id < b.id; });
    const EventId first = lo->id;
    if (hi->id - first + 1 != static_cast<EventId>(rows.size())) return rows;
    ordered_.resize(rows.size());
    for (const EventRecord& e : rows) ordered_[static_cast<std::size_t>(e.id - first)] = e;
    return ordered_;
  }

  EventBlockEncoder encoder_;
  bool staged_;
  std::size_t piece_events_;
  EventRowBuffer rows_;
  Slot* slot_ = nullptr;
  std::int32_t next_part_ = 0;
  std::vector<EventRecord> piece_;
  std::vector<EventRecord> ordered_;
};

LocationWorkers::LocationWorkers(const Otf2Archive& archive, const ProcessLayout& layout, Database& db,
                                 const LocationWorkPlan& plan, LocationRecordsSink order_sink,
                                 MatchedMessagesSink store_sink, LocationProgress progress)
    : archive_(archive),
      layout_(layout),
      db_(db),
      plan_(plan),
      order_sink_(std::move(order_sink)),
      store_sink_(std::move(store_sink)),
      progress_(std::move(progress)),
      counts_(plan.count) {
  for (std::size_t i = 0; i < plan_.count; ++i)
    locations_.push_back(layout_.processes[plan_.first + i].location_ref);
  for (std::size_t i = 0; i < kRing; ++i) slots_.push_back(std::make_unique<Slot>());
  if (plan_.shift >= 0) writer_ = std::make_unique<EventBlockWriter>(db_, plan_.shift);
}

LocationWorkers::~LocationWorkers() = default;

void LocationWorkers::run() {
  // OTF2 readers are not shared between threads: each helper opens the
  // archive again (its definitions are already known from `archive_`). All
  // are opened before any thread starts, so a failure leaves none running.
  std::vector<std::unique_ptr<Otf2Archive>> archives;
  for (int t = 1; t < plan_.threads && static_cast<std::size_t>(t) < plan_.count; ++t)
    archives.push_back(std::make_unique<Otf2Archive>(archive_.anchor_path()));
  for (auto& a : archives) open_location_files(*a, locations_.data(), locations_.size());
  open_location_files(archive_, locations_.data(), locations_.size());
  std::vector<std::thread> helpers;
  for (auto& a : archives) helpers.emplace_back([this, &archive = *a] { work(archive); });
  work(archive_);
  for (std::thread& t : helpers) t.join();
  close_location_files(archive_);
  for (auto& a : archives) close_location_files(*a);
  if (error_) std::rethrow_exception(error_);
}

bool LocationWorkers::can_order() const {
  // Only a claimed location owns its slot: with kRing locations ordered and
  // not stored, the slot of the next one still holds the first of them.
  return !ordering_ && ordered_ < next_claim_ && slots_[ordered_ % kRing]->done;
}

bool LocationWorkers::can_store() const { return !storing_ && stored_ < ordered_; }

bool LocationWorkers::can_claim() const {
  return next_claim_ < plan_.count && next_claim_ < stored_ + kRing;
}

void LocationWorkers::work(const Otf2Archive& archive) {
  Worker worker(plan_.shift, plan_.piece_events > 0 ? plan_.piece_events : kPieceEvents);
  try {
    for (;;) {
      std::size_t k = 0;
      {
        std::unique_lock lock(mutex_);
        // The serial stages first: they are the run's critical path.
        changed_.wait(lock, [this] {
          return stop_ || can_order() || can_store() || can_claim() || next_claim_ >= plan_.count;
        });
        if (stop_) return;
        if (can_order() || can_store()) {
          lock.unlock();
          run_serial_stages();
          continue;
        }
        // Every location is claimed and no stage is free: the workers still
        // decoding or in a stage finish the rest.
        if (!can_claim()) return;
        k = next_claim_++;
      }
      Slot& slot = *slots_[k % kRing];  // this worker's until it is done
      const auto process = static_cast<ProcessIndex>(plan_.first + k);
      const ProcessInfo& info = layout_.processes[static_cast<std::size_t>(process)];
      try {
        EventRowBuffer& rows = worker.start_location(slot);
        std::uint64_t reported = 0;
        slot.summary = decode_location(archive, layout_, process, 0, plan_.ticks, slot.totals, slot.records, rows,
                                       [&](std::uint64_t done) {
                                         {
                                           std::lock_guard lock(progress_mutex_);
                                           records_decoded_ += done - reported;
                                         }
                                         reported = done;
                                         report_progress();
                                       });
        if (info.expected_records != 0 && slot.summary.records < info.expected_records)
          throw Error(archive.location_file(info.location_ref, ".evt"),
                      "truncated event file: " + std::to_string(slot.summary.records) +
                          " records, the definitions promise " + std::to_string(info.expected_records));
        worker.end_location();
      } catch (...) {
        slot.error = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      slot.done = true;
      changed_.notify_all();
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
    stop_ = true;
    changed_.notify_all();
  }
}

// Takes the next location of whichever stage is free and has one, until
// neither has. Ordering goes first: it makes work for storing.
void LocationWorkers::run_serial_stages() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    const bool ordering = can_order();
    if (!ordering && !can_store()) return;
    bool& busy = ordering ? ordering_ : storing_;
    std::size_t& next = ordering ? ordered_ : stored_;
    const std::size_t k = next;
    Slot& slot = *slots_[k % kRing];
    busy = true;
    lock.unlock();
    std::exception_ptr failed;
    try {
      if (ordering)
        order(k, slot);
      else
        store(k, slot);
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    busy = false;
    if (failed) {
      if (!error_) error_ = failed;
      stop_ = true;
    } else {
      if (!ordering) slot.reset();
      ++next;
    }
    changed_.notify_all();
  }
}

// Location k, the next in process order: ids shifted to the run's, records
// handed on.
void LocationWorkers::order(std::size_t k, Slot& slot) {
  if (slot.error) std::rethrow_exception(slot.error);
  const auto process = static_cast<ProcessIndex>(plan_.first + k);
  const EventId base = next_event_;
  slot.base = base;
  // Receives are matched in posting order, numbered by records handled so
  // far in the whole run.
  const std::uint64_t seq_base = totals_.handled_records;
  auto shift_event = [base](EventId& e) {
    if (e >= 0) e += base;
  };
  for (SendRecord& s : slot.records.sends) {
    shift_event(s.send_event);
    shift_event(s.send_done_event);
  }
  for (RecvRecord& r : slot.records.recvs) {
    r.seq += seq_base;
    shift_event(r.recv_post_event);
    shift_event(r.recv_event);
  }
  for (CollectiveMemberRecord& m : slot.records.collective_members) shift_event(m.event);
  order_sink_(process, slot.records, slot.matched);

  counts_[k] = {base, slot.summary.events, slot.summary.records};
  next_event_ += slot.summary.events;
  totals_.records += slot.totals.records;
  totals_.handled_records += slot.totals.handled_records;
  totals_.unclosed_regions += slot.totals.unclosed_regions;
  totals_.unmatched_leaves += slot.totals.unmatched_leaves;
  totals_.trace_end_ns = std::max(totals_.trace_end_ns, slot.totals.trace_end_ns);
}

// Location k, the next in process order after ordering: its blocks and the
// messages its ordering matched are written.
void LocationWorkers::store(std::size_t k, Slot& slot) {
  const auto process = static_cast<ProcessIndex>(plan_.first + k);
  if (writer_) {
    writer_->write_encoded(process, slot.blocks, slot.base);
  } else {
    for (EventRecord& e : slot.rows) e.id += slot.base;
    staged_rows_.emplace_back(process, std::move(slot.rows));
    slot.rows = {};
  }
  store_sink_(slot.matched);
  // Vectors grown for one long location are not kept for the next ones.
  if (slot.blocks.bytes.capacity() > (std::size_t{16} << 20)) release_memory(slot.blocks.bytes);
  report_progress();
}

void LocationWorkers::report_progress() {
  if (!progress_) return;
  std::unique_lock lock(progress_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another worker is reporting
  std::size_t stored = 0;
  {
    std::lock_guard state(mutex_);
    stored = stored_;
  }
  progress_(records_decoded_, stored);
}

int LocationWorkers::finish(int shift) {
  if (!writer_) {
    writer_ = std::make_unique<EventBlockWriter>(db_, shift);
    for (auto& [process, rows] : staged_rows_) {
      writer_->write(process, rows);
      release_memory(rows);
    }
    staged_rows_.clear();
  }
  return writer_->max_level();
}

}  // namespace weft::db
