#include "projections/projections_importer.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "common/error.h"
#include "common/phase_timer.h"
#include "common/region_kind.h"
#include "common/release_memory.h"
#include "projections/chare_table.h"
#include "projections/log_reader.h"
#include "projections/sts_reader.h"
#include "projections/virtual_ranks.h"
#include "store/atomic_output.h"
#include "store/batch_insert.h"
#include "store/block_writer.h"
#include "store/bulk_load.h"
#include "store/event_buckets.h"
#include "store/schema.h"

namespace weft::db {
namespace {

constexpr TimeNs kNsPerUs = 1000;
// A PE's events are handed to the block writer in pieces of this many once
// nothing is open, so one huge PE does not hold all its events in memory.
constexpr std::size_t kFlushEvents = std::size_t{1} << 20;

// A message creation, kept until every PE is read (the receiver may come later).
struct Creation {
  TimeNs time_ns;
  EventId send_event;  // kNullRef outside any execution
  std::int64_t event;  // the sequence number receivers carry
  std::int64_t bytes;
  std::int32_t entry;
};

// An execution's claim on a creation: (source PE, event number).
struct Receipt {
  std::uint64_t key;
  EventId recv_event;
  TimeNs begin_ns;
  std::int32_t dst;
};

std::uint64_t creation_key(std::int64_t pe, std::int64_t event) {
  return (static_cast<std::uint64_t>(pe) << 40) | (static_cast<std::uint64_t>(event) & ((std::uint64_t{1} << 40) - 1));
}

bool is_ampi_name(std::string_view name) {
  return name.substr(0, 5) == "AMPI_" || name.substr(0, 4) == "MPI_";
}

struct RegionRow {
  std::string name;
  std::string paradigm;
  std::string role;
  RegionKind kind;
};

// Region ids: entry method e is region e (0..TOTAL_EPS-1), Idle is
// TOTAL_EPS, user events and AMPI functions follow in order of appearance
// (.sts EVENT lines first).
class RegionTable {
 public:
  explicit RegionTable(const StsDefinitions& sts) : sts_(sts), idle_(static_cast<std::int64_t>(sts.entries.size())) {
    for (const StsUserEvent& e : sts.user_events) user_event_region(e.id);
  }
  std::int64_t idle() const { return idle_; }
  std::int64_t entry_region(int entry) {
    used_entries_.insert(entry);
    return entry;
  }
  std::int64_t user_event_region(int id) {
    auto it = user_.find(id);
    if (it != user_.end()) return it->second;
    const std::string* name = sts_.user_event_name(id);
    return user_[id] = add_extra(name ? *name : "user event " + std::to_string(id));
  }
  std::int64_t function_region(int id) {
    auto it = func_.find(id);
    if (it != func_.end()) return it->second;
    return func_[id] = add_extra("function " + std::to_string(id));
  }
  bool is_ampi(std::int64_t region) const {
    return region > idle_ && extra_[static_cast<std::size_t>(region - idle_ - 1)].paradigm == "ampi";
  }
  bool is_migrate(std::int64_t region) const {
    return region > idle_ && extra_[static_cast<std::size_t>(region - idle_ - 1)].name.find("Migrate") != std::string::npos;
  }
  void write(Database& db) const {
    Statement insert = db.prepare("INSERT INTO regions VALUES (?, ?, ?, ?, ?)");
    auto put = [&](std::int64_t id, const RegionRow& r) {
      insert.bind(1, id);
      insert.bind(2, std::string_view(r.name));
      insert.bind(3, std::string_view(r.paradigm));
      insert.bind(4, std::string_view(r.role));
      insert.bind(5, static_cast<int>(r.kind));
      insert.run();
    };
    for (int e : used_entries_)
      put(e, {sts_.entry_display_name(e), "charm", "function", RegionKind::Compute});
    put(idle_, {"Idle", "charm", "idle", RegionKind::OtherParadigm});
    for (std::size_t i = 0; i < extra_.size(); ++i) put(idle_ + 1 + static_cast<std::int64_t>(i), extra_[i]);
  }

 private:
  // A user event or function region: AMPI functions (AMPI_* / MPI_*) get the
  // MPI kinds (AMPI_Send → send, ...) by the rules OTF2's MPI regions follow;
  // classify_region reads the MPI_ prefix.
  std::int64_t add_extra(std::string name) {
    while (!name.empty() && name.back() == ' ') name.pop_back();
    const bool ampi = is_ampi_name(name);
    const RegionKind kind =
        ampi ? classify_region(name.substr(0, 5) == "AMPI_" ? name.substr(1) : name, true) : RegionKind::Compute;
    extra_.push_back({name, ampi ? "ampi" : "charm", ampi ? "function" : "user", kind});
    return idle_ + static_cast<std::int64_t>(extra_.size());
  }

  const StsDefinitions& sts_;
  std::int64_t idle_;
  std::set<int> used_entries_;
  std::unordered_map<int, std::int64_t> user_;
  std::unordered_map<int, std::int64_t> func_;
  std::vector<RegionRow> extra_;
};

struct Totals {
  std::uint64_t records = 0;
  std::uint64_t unknown = 0;
  std::uint64_t creation_records = 0;  // type 1
  std::uint64_t broadcast_records = 0;  // types 20, 21
  std::uint64_t executions = 0;
  std::uint64_t idle = 0;
  std::uint64_t brackets = 0;
  std::uint64_t unclosed = 0;
  std::uint64_t unmatched_ends = 0;
  std::uint64_t header_mismatches = 0;
  TimeNs end_ns = 0;
};

struct PeCounts {
  EventId first_event = 0;
  std::int64_t events = 0;
  std::uint64_t records = 0;
};

// One PE's log → events (ids from `first_event`), creations, receipts,
// executions rows, AMPI brackets.
class PeDecoder {
 public:
  PeDecoder(const StsDefinitions& sts, RegionTable& regions, ChareTable& chares, BatchInserter& executions,
            std::vector<AmpiBracket>& brackets, Totals& totals)
      : sts_(sts), regions_(regions), chares_(chares), executions_(executions), brackets_(brackets), totals_(totals) {}

  template <typename Flush>
  PeCounts decode(const std::string& path, std::int32_t pe, EventId first_event, std::vector<Creation>& creations,
                  std::vector<Receipt>& receipts, Flush&& flush) {
    pe_ = pe;
    first_event_ = first_event;
    flushed_ = 0;
    events_.clear();
    exec_ = idle_ = -1;
    stack_.clear();
    last_ns_ = 0;
    LogReader reader(path, sts_.papi_events, read_buffer_);
    LogRecord r;
    while (reader.next(r)) {
      if (r.time_us > INT64_MAX / kNsPerUs)
        throw Error(path, "line " + std::to_string(reader.line()) + ": time out of range");
      // Records without a time (or a negative one) take the PE's latest time.
      const TimeNs t = r.time_us >= 0 ? r.time_us * kNsPerUs : last_ns_;
      last_ns_ = std::max(last_ns_, t);
      switch (r.type) {
        case kCreation:
        case kCreationBcast:
        case kCreationMulticast:
          (r.type == kCreation ? totals_.creation_records : totals_.broadcast_records)++;
          creations.push_back({t, exec_ >= 0 ? id_of(exec_) : kNullRef, r.event, r.msglen, r.entry});
          break;
        case kBeginProcessing: {
          check_entry(reader, r.entry);
          close_idle(t);
          close_top_level_brackets(t);
          if (exec_ >= 0) {
            ++totals_.unclosed;
            close_exec(t);
          }
          exec_ = open(t, regions_.entry_region(r.entry), 0);
          ++totals_.executions;
          const StsEntry& e = sts_.entries[static_cast<std::size_t>(r.entry)];
          bool is_array = sts_.chares[static_cast<std::size_t>(e.chare)].dimensions >= 1;
          std::int64_t chare = chares_.chare_of(e.chare, is_array, r.index, r.index_count, pe);
          std::array<std::int64_t, 3> row{id_of(exec_), chare, r.entry};
          executions_.add(row);
          if (r.pe >= 0 && r.event >= 0)
            receipts.push_back({creation_key(r.pe, r.event), id_of(exec_), t, pe});
          break;
        }
        case kEndProcessing:
          if (exec_ < 0) {
            ++totals_.unmatched_ends;
            break;
          }
          close_exec(t);
          maybe_flush(flush);
          break;
        case kBeginIdle:
          if (idle_ < 0 && exec_ < 0) {
            close_top_level_brackets(t);
            idle_ = open(t, regions_.idle(), 0);
            ++totals_.idle;
          }
          break;
        case kEndIdle:
          if (idle_ >= 0) close_idle(t);
          else ++totals_.unmatched_ends;
          maybe_flush(flush);
          break;
        case kBeginUserEventPair:
          push_bracket(t, regions_.user_event_region(r.entry), r.type, r.entry, r.nested_id);
          break;
        case kEndUserEventPair:
          pop_bracket(t, r.type - 1, r.entry);
          break;
        case kUserEventPair:
          // Two records with the same id: the first opens, the second closes.
          if (!stack_.empty() && stack_.back().type == kUserEventPair && stack_.back().id == r.entry)
            pop_bracket(t, kUserEventPair, r.entry);
          else
            push_bracket(t, regions_.user_event_region(r.entry), kUserEventPair, r.entry, r.nested_id);
          break;
        case kBeginFunc:
          push_bracket(t, regions_.function_region(r.entry), kBeginFunc, r.entry, -1);
          break;
        case kEndFunc:
          pop_bracket(t, kBeginFunc, r.entry);
          break;
        default:
          // Known records that carry no interval weft stores yet (enqueue,
          // pack, interrupts, notes, memory, stats, computation bounds):
          // their times still bound the PE's span.
          break;
      }
    }
    if (reader.header_count() >= 0 && static_cast<std::uint64_t>(reader.header_count()) != reader.records())
      ++totals_.header_mismatches;
    // Whatever is still open ends at the PE's last timestamp.
    while (!stack_.empty()) {
      ++totals_.unclosed;
      pop_bracket(last_ns_, stack_.back().type, stack_.back().id);
    }
    if (exec_ >= 0) {
      ++totals_.unclosed;
      close_exec(last_ns_);
    }
    if (idle_ >= 0) close_idle(last_ns_);
    totals_.records += reader.records();
    totals_.unknown += reader.unknown_records();
    totals_.end_ns = std::max(totals_.end_ns, last_ns_);
    std::int64_t count = flushed_ + static_cast<std::int64_t>(events_.size());
    flush(std::span<EventRecord>(events_), last_ns_, true);
    return {first_event, count, reader.records()};
  }

 private:
  struct Open {
    std::int64_t index;
    int type;
    int id;
    int vp;
  };

  EventId id_of(std::int64_t index) const { return first_event_ + flushed_ + index; }

  void check_entry(const LogReader& reader, int entry) const {
    if (entry < 0 || static_cast<std::size_t>(entry) >= sts_.entries.size())
      throw Error(reader.path(), "line " + std::to_string(reader.line()) + ": entry " + std::to_string(entry) +
                                     " is beyond TOTAL_EPS " + std::to_string(sts_.entries.size()) + " of " + sts_.path);
    if (!sts_.entries[static_cast<std::size_t>(entry)].defined)
      throw Error(reader.path(), "line " + std::to_string(reader.line()) + ": entry " + std::to_string(entry) +
                                     " has no ENTRY line in " + sts_.path);
  }

  std::int64_t open(TimeNs t, std::int64_t region, std::int32_t depth) {
    events_.push_back({id_of(static_cast<std::int64_t>(events_.size())), pe_, t, -1, region, depth});
    return static_cast<std::int64_t>(events_.size()) - 1;
  }
  void close(std::int64_t index, TimeNs t) {
    EventRecord& e = events_[static_cast<std::size_t>(index)];
    e.end_ns = std::max(t, e.start_ns);
  }
  void close_exec(TimeNs t) {
    // Brackets left open when their execution ends (an AMPI call across a
    // thread suspension) end with it, so events stay nested.
    while (!stack_.empty()) {
      ++totals_.unclosed;
      pop_bracket(t, stack_.back().type, stack_.back().id);
    }
    close(exec_, t);
    exec_ = -1;
  }
  // A bracket opened outside any execution is a depth-0 event; it ends
  // where the next execution or idle period begins (counted as unclosed; its
  // end record then counts as unmatched), so depth-0 events never overlap.
  void close_top_level_brackets(TimeNs t) {
    if (exec_ >= 0) return;
    while (!stack_.empty()) {
      ++totals_.unclosed;
      finish_bracket(stack_.back(), t);
      stack_.pop_back();
    }
  }
  void close_idle(TimeNs t) {
    if (idle_ < 0) return;
    close(idle_, t);
    idle_ = -1;
  }
  void push_bracket(TimeNs t, std::int64_t region, int type, int id, int vp) {
    std::int32_t depth = (exec_ >= 0 ? 1 : 0) + static_cast<std::int32_t>(stack_.size());
    stack_.push_back({open(t, region, depth), type, id, vp});
    ++totals_.brackets;
  }
  void pop_bracket(TimeNs t, int type, int id) {
    // The innermost open bracket of this id (brackets nest; a stray end is counted).
    for (std::size_t k = stack_.size(); k-- > 0;) {
      if (stack_[k].type != type || stack_[k].id != id) continue;
      while (stack_.size() > k + 1) {
        ++totals_.unclosed;
        finish_bracket(stack_.back(), t);
        stack_.pop_back();
      }
      finish_bracket(stack_.back(), t);
      stack_.pop_back();
      return;
    }
    ++totals_.unmatched_ends;
  }
  void finish_bracket(const Open& o, TimeNs t) {
    close(o.index, t);
    const EventRecord& e = events_[static_cast<std::size_t>(o.index)];
    if (o.vp >= 0 && regions_.is_ampi(e.region))
      brackets_.push_back({o.vp, pe_, e.start_ns, e.end_ns, regions_.is_migrate(e.region)});
  }
  template <typename Flush>
  void maybe_flush(Flush& flush) {
    if (events_.size() < kFlushEvents || exec_ >= 0 || idle_ >= 0 || !stack_.empty()) return;
    flush(std::span<EventRecord>(events_), last_ns_, false);
    flushed_ += static_cast<std::int64_t>(events_.size());
    events_.clear();
  }

  const StsDefinitions& sts_;
  RegionTable& regions_;
  ChareTable& chares_;
  BatchInserter& executions_;
  std::vector<AmpiBracket>& brackets_;
  Totals& totals_;
  std::int32_t pe_ = 0;
  EventId first_event_ = 0;
  std::int64_t flushed_ = 0;
  std::vector<EventRecord> events_;
  std::vector<char> read_buffer_;
  std::int64_t exec_ = -1;
  std::int64_t idle_ = -1;
  std::vector<Open> stack_;
  TimeNs last_ns_ = 0;
};

std::string chare_name(const StsDefinitions& sts, const ChareRow& c) {
  std::string name = sts.chares[static_cast<std::size_t>(c.chare_type)].name;
  if (c.index_count == 0) return name + " (PE " + std::to_string(c.home_pe) + ")";
  name += '[';
  for (int i = 0; i < c.index_count; ++i) {
    if (i) name += ',';
    name += std::to_string(c.index[i]);
  }
  return name + ']';
}

void write_chare_tables(Database& db, const StsDefinitions& sts, const ChareTable& chares) {
  Statement type = db.prepare("INSERT INTO chare_types VALUES (?, ?, ?)");
  for (std::size_t i = 0; i < sts.chares.size(); ++i) {
    if (!sts.chares[i].defined) continue;
    type.bind(1, static_cast<std::int64_t>(i));
    type.bind(2, std::string_view(sts.chares[i].name));
    type.bind(3, sts.chares[i].dimensions);
    type.run();
  }
  Statement row = db.prepare("INSERT INTO chares VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?, ?)");
  std::int64_t id = 0;
  for (const ChareRow& c : chares.rows()) {
    row.bind(1, id++);
    row.bind(2, c.chare_type);
    for (int i = 0; i < 4; ++i) {
      if (i < c.index_count)
        row.bind(3 + i, c.index[i]);
      else
        row.bind_null(3 + i);
    }
    row.bind(7, std::string_view(chare_name(sts, c)));
    row.bind(8, is_runtime_chare_type(sts.chares[static_cast<std::size_t>(c.chare_type)].name) ? 1 : 0);
    row.bind(9, c.home_pe);
    row.run();
  }
}

void write_processes(Database& db, const std::vector<PeCounts>& counts) {
  Statement insert = db.prepare("INSERT INTO processes VALUES (?, ?, 'cpu', ?, ?, '', ?, ?, ?)");
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const auto pe = static_cast<std::int64_t>(i);
    insert.bind(1, pe);
    insert.bind(2, "PE " + std::to_string(i));
    insert.bind(3, pe);
    insert.bind(4, pe);
    insert.bind(5, counts[i].first_event);
    insert.bind(6, counts[i].events);
    insert.bind(7, static_cast<std::int64_t>(counts[i].records));
    insert.run();
  }
}

struct MessageTotals {
  std::uint64_t messages = 0;
  std::uint64_t unmatched_sends = 0;
  std::uint64_t receipts_without_creation = 0;
  TimeNs max_message_ns = 0;
};

// Every creation with each execution it triggers, owner by owner (the
// creating PE) in creation order: the ids come out in (src, send time) order.
MessageTotals write_messages(MessageBlockWriter& writer, const std::vector<Creation>& creations,
                             const std::vector<std::size_t>& first_creation, std::vector<Receipt>& receipts) {
  std::sort(receipts.begin(), receipts.end(), [](const Receipt& a, const Receipt& b) {
    return a.key != b.key ? a.key < b.key : a.recv_event < b.recv_event;
  });
  std::vector<std::uint8_t> taken(receipts.size(), 0);
  MessageTotals t;
  std::vector<MessageRecord> rows;
  std::int64_t id = 0;
  std::size_t cursor = 0;
  std::uint64_t cursor_key = 0;
  for (std::size_t pe = 0; pe + 1 < first_creation.size(); ++pe) {
    rows.clear();
    for (std::size_t c = first_creation[pe]; c < first_creation[pe + 1]; ++c) {
      const Creation& cr = creations[c];
      MessageRecord m{};
      m.src = static_cast<std::int64_t>(pe);
      m.comm = kNullRef;
      m.tag = cr.entry;
      m.bytes = cr.bytes;
      m.send_event = cr.send_event;
      m.send_done_event = m.recv_post_event = kNullRef;
      m.send_ns = cr.time_ns;
      m.has_send_ns = true;
      bool matched = false;
      if (cr.event >= 0) {
        const std::uint64_t key = creation_key(static_cast<std::int64_t>(pe), cr.event);
        // Creations come in (PE, event number) order almost always, like the
        // sorted receipts: walk forward from the last match, and search only
        // when the key goes back or jumps far.
        if (key < cursor_key || (cursor + 16 < receipts.size() && receipts[cursor + 16].key < key))
          cursor = static_cast<std::size_t>(
              std::lower_bound(receipts.begin(), receipts.end(), key,
                               [](const Receipt& r, std::uint64_t k) { return r.key < k; }) -
              receipts.begin());
        while (cursor < receipts.size() && receipts[cursor].key < key) ++cursor;
        cursor_key = key;
        for (auto it = receipts.begin() + static_cast<std::ptrdiff_t>(cursor); it != receipts.end() && it->key == key;
             ++it) {
          auto k = static_cast<std::size_t>(it - receipts.begin());
          if (taken[k]) continue;
          taken[k] = 1;
          matched = true;
          m.id = id++;
          m.dst = it->dst;
          m.recv_event = it->recv_event;
          m.recv_ns = it->begin_ns;
          m.has_recv_ns = true;
          t.max_message_ns = std::max(t.max_message_ns, m.recv_ns - m.send_ns);
          rows.push_back(m);
        }
      }
      if (!matched) {
        m.id = id++;
        m.dst = kNullRef;
        m.recv_event = kNullRef;
        m.recv_ns = 0;
        m.has_recv_ns = false;
        ++t.unmatched_sends;
        rows.push_back(m);
      }
    }
    t.messages += rows.size();
    if (!rows.empty()) writer.write(static_cast<std::int64_t>(pe), rows);
  }
  for (std::uint8_t k : taken) t.receipts_without_creation += k ? 0 : 1;
  return t;
}

void write_virtual_ranks(Database& db, const VirtualRankHistory& h) {
  BatchInserter ranks(db, "virtual_ranks", "", 4);
  for (const VirtualRankSpan& s : h.spans) {
    std::array<std::int64_t, 4> row{s.vp, s.pe, s.start_ns, s.end_ns};
    ranks.add(row);
  }
  ranks.flush();
  BatchInserter migrations(db, "migrations", "", 4);
  for (const Migration& m : h.migrations) {
    std::array<std::int64_t, 4> row{m.vp, m.from_pe, m.to_pe, m.time_ns};
    migrations.add(row);
  }
  migrations.flush();
  // The virtual-rank lanes read one window of ranks at a time (virtual_rank_query.h).
  db.exec("CREATE INDEX IF NOT EXISTS virtual_ranks_by_vp ON virtual_ranks(vp, start_ns)");
}

}  // namespace

bool is_projections_path(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".sts") == 0;
}

ImportSummary import_projections(const ImportOptions& options) {
  auto started = std::chrono::steady_clock::now();
  PhaseTimer timer("WEFT_IMPORT_TIMING");
  StsDefinitions sts = read_sts(options.trace_path);
  const auto pes = static_cast<std::size_t>(sts.pes);
  // Every PE log must be there before anything is written.
  for (std::size_t pe = 0; pe < pes; ++pe) {
    std::string log = pe_log_path(options.trace_path, static_cast<std::int64_t>(pe));
    if (access(log.c_str(), R_OK) != 0)
      throw Error(log, "missing PE log: the .sts says PROCESSORS " + std::to_string(pes));
  }

  AtomicOutput output(options.output_path, options.overwrite);
  ImportSummary summary;
  {
    Database db = open_bulk_load(output.temp_path(), options.output_path, load_cache_mib(options.cache_mib));
    Transaction tx(db);
    create_tables(db);
    create_projections_tables(db);

    RegionTable regions(sts);
    ChareTable chares;
    BatchInserter executions(db, "executions", "", 3);
    std::vector<AmpiBracket> brackets;
    Totals totals;
    PeDecoder decoder(sts, regions, chares, executions, brackets, totals);
    std::vector<Creation> creations;
    std::vector<std::size_t> first_creation{0};
    std::vector<Receipt> receipts;
    std::vector<PeCounts> counts(pes);
    std::optional<EventBlockWriter> events;
    int shift = 0;
    ImportProgress progress;
    progress.locations_total = pes;
    EventId next_event = 0;
    for (std::size_t pe = 0; pe < pes; ++pe) {
      std::string log = pe_log_path(options.trace_path, static_cast<std::int64_t>(pe));
      // The bucket shift comes from the first PE written (the PEs of one
      // run share one time axis): blocks of about kTargetEventsPerBlock
      // events of a PE like it.
      auto flush = [&](std::span<EventRecord> batch, TimeNs last_ns, bool) {
        if (!events) {
          shift = choose_block_shift(last_ns, static_cast<std::int64_t>(batch.size()));
          events.emplace(db, shift);
          size_load_cache(db, options.cache_mib, last_ns >> shift);
        }
        if (!batch.empty()) events->write(static_cast<ProcessIndex>(pe), batch);
      };
      counts[pe] = decoder.decode(log, static_cast<std::int32_t>(pe), next_event, creations, receipts, flush);
      next_event += counts[pe].events;
      first_creation.push_back(creations.size());
      progress.locations_done = pe + 1;
      progress.records_done = totals.records;
      if (options.progress) options.progress(progress);
    }
    executions.flush();
    timer.mark("decode PEs, event blocks, executions");
    write_processes(db, counts);
    regions.write(db);
    write_chare_tables(db, sts, chares);
    MessageBlockWriter message_writer(db, shift);
    MessageTotals mt = write_messages(message_writer, creations, first_creation, receipts);
    release_memory(creations);
    release_memory(receipts);
    timer.mark("match and write messages");
    VirtualRankHistory history = virtual_rank_history(brackets);
    write_virtual_ranks(db, history);

    summary.processes = pes;
    summary.records = totals.records;
    summary.events = static_cast<std::uint64_t>(next_event);
    summary.messages = mt.messages;
    summary.unmatched_sends = mt.unmatched_sends;
    summary.unclosed_regions = totals.unclosed;
    summary.unknown_records = totals.unknown;
    summary.trace_end_ns = totals.end_ns;

    MetaWriter meta(db);
    meta.put("schema_version", std::int64_t{kSchemaVersion});
    meta.put("weft_version", options.weft_version);
    meta.put("source_format", std::string("projections"));
    meta.put("source_path", absolute_path(options.trace_path));
    meta.put("creator", "Charm++ Projections " + sts.version_text +
                            (sts.machine.empty() ? "" : " (" + sts.machine + ")"));
    meta.put("projections_version", sts.version_text);
    meta.put("timer_resolution", std::int64_t{1000000});
    meta.put("global_offset", std::int64_t{0});
    meta.put("trace_end_ns", summary.trace_end_ns);
    meta.put("bucket_shift", std::int64_t{shift});
    meta.put("max_level", std::int64_t{events ? events->max_level() : 0});
    meta.put("max_message_ns", mt.max_message_ns);
    meta.put("count_processes", summary.processes);
    meta.put("count_pes", summary.processes);
    meta.put("count_records", summary.records);
    meta.put("count_events", summary.events);
    meta.put("count_messages", summary.messages);
    meta.put("count_unmatched_sends", summary.unmatched_sends);
    meta.put("count_unmatched_recvs", std::uint64_t{0});
    meta.put("count_collectives", std::uint64_t{0});
    meta.put("count_unclosed_regions", summary.unclosed_regions);
    meta.put("count_unmatched_leaves", totals.unmatched_ends);
    meta.put("count_unknown_records", summary.unknown_records);
    meta.put("count_chares", static_cast<std::uint64_t>(chares.rows().size()));
    meta.put("count_executions", totals.executions);
    meta.put("count_idle", totals.idle);
    meta.put("count_user_brackets", totals.brackets);
    meta.put("count_creation_records", totals.creation_records);
    meta.put("count_broadcast_records", totals.broadcast_records);
    meta.put("count_executions_without_creation", mt.receipts_without_creation);
    meta.put("count_header_mismatches", totals.header_mismatches);
    meta.put("count_virtual_ranks", static_cast<std::uint64_t>(history.vps));
    meta.put("count_migrations", static_cast<std::uint64_t>(history.migrations.size()));
    finish_bulk_load(db, tx, options.before_publish, timer);
  }
  output.commit();
  timer.mark("close, rename");
  if (summary.unmatched_sends)
    summary.warnings.push_back(std::to_string(summary.unmatched_sends) +
                               " message creation(s) never executed, kept with NULLs on the receiving side");
  if (summary.unclosed_regions)
    summary.warnings.push_back(std::to_string(summary.unclosed_regions) +
                               " execution(s) or bracket(s) never ended, closed at the next record or the PE's last timestamp");
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace weft::db
