#include "otf2/otf2_importer.h"

#include <climits>
#include <cstdlib>

#include <algorithm>
#include <array>
#include <chrono>

#include "common/error.h"
#include "common/region_kind.h"
#include "otf2/message_matching.h"
#include "otf2/otf2_definitions.h"
#include "otf2/otf2_event_decoder.h"
#include "otf2/otf2_location_reader.h"
#include "otf2/otf2_process_layout.h"
#include "store/atomic_output.h"
#include "store/batch_insert.h"
#include "store/event_buckets.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace weft::db {
namespace {

// The database is private to this process until the rename, so durability
// and journaling buy nothing: a failed import deletes the file anyway.
void apply_bulk_load_pragmas(Database& db) {
  db.exec(
      "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
      "PRAGMA cache_size=-65536; PRAGMA temp.cache_size=-65536;");
}

// weft_bucket(start_ns, end_ns, shift): the events table key (event_buckets.h),
// so that the staged rows can be copied in key order with one INSERT ... SELECT.
void sql_bucket_key(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_result_int64(ctx, bucket_key(sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]),
                                       static_cast<int>(sqlite3_value_int64(argv[2]))));
}

void register_bucket_function(Database& db) {
  if (sqlite3_create_function(db.handle(), "weft_bucket", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                              nullptr, sql_bucket_key, nullptr, nullptr) != SQLITE_OK)
    db.fail("cannot register weft_bucket");
}

std::string absolute_path(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (!resolved) return path;
  std::string result = resolved;
  free(resolved);
  return result;
}

class MetaWriter {
 public:
  explicit MetaWriter(Database& db) : insert_(db.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)")) {}
  void put(const char* key, const std::string& value) {
    insert_.bind(1, std::string_view(key));
    insert_.bind(2, std::string_view(value));
    insert_.run();
  }
  void put(const char* key, std::int64_t value) { put(key, std::to_string(value)); }
  void put(const char* key, std::uint64_t value) { put(key, std::to_string(value)); }

 private:
  Statement insert_;
};

void write_regions(Database& db, const Otf2Definitions& defs) {
  Statement insert = db.prepare("INSERT OR REPLACE INTO regions VALUES (?, ?, ?, ?, ?)");
  for (const Otf2RegionDef& r : defs.regions) {
    bool is_mpi = r.paradigm == OTF2_PARADIGM_MPI;
    // Regions of threading and accelerator models are not MPI's logical
    // structure: they get their own kind whatever their names look like.
    bool compute_like = is_mpi || r.paradigm == OTF2_PARADIGM_UNKNOWN ||
                        r.paradigm == OTF2_PARADIGM_USER || r.paradigm == OTF2_PARADIGM_COMPILER ||
                        r.paradigm == OTF2_PARADIGM_SAMPLING ||
                        r.paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM ||
                        r.paradigm == OTF2_PARADIGM_NONE;
    RegionKind kind = compute_like ? classify_region(r.name, is_mpi) : RegionKind::OtherParadigm;
    insert.bind(1, static_cast<std::int64_t>(r.ref));
    insert.bind(2, std::string_view(r.name));
    insert.bind(3, std::string_view(paradigm_name(r.paradigm)));
    insert.bind(4, std::string_view(region_role_name(r.role)));
    insert.bind(5, static_cast<int>(kind));
    insert.run();
  }
}

void write_communicators(Database& db, const ProcessLayout& layout) {
  Statement comm = db.prepare("INSERT OR REPLACE INTO communicators VALUES (?, ?, ?, ?, ?)");
  Statement member = db.prepare("INSERT OR REPLACE INTO comm_members VALUES (?, ?, ?)");
  for (const CommInfo& c : layout.comms) {
    comm.bind(1, static_cast<std::int64_t>(c.ref));
    comm.bind(2, std::string_view(c.name));
    comm.bind(3, static_cast<std::int64_t>(c.self_like ? 1 : c.process_of_rank.size()));
    if (c.parent == OTF2_UNDEFINED_COMM)
      comm.bind_null(4);
    else
      comm.bind(4, static_cast<std::int64_t>(c.parent));
    comm.bind(5, c.self_like ? 1 : 0);
    comm.run();
    for (size_t rank = 0; rank < c.process_of_rank.size(); ++rank) {
      if (c.process_of_rank[rank] < 0) continue;
      member.bind(1, static_cast<std::int64_t>(c.ref));
      member.bind(2, static_cast<std::int64_t>(rank));
      member.bind(3, c.process_of_rank[rank]);
      member.run();
    }
  }
}

struct ProcessCounts {
  EventId first_event = 0;
  std::int64_t events = 0;
  std::uint64_t records = 0;
};

void write_processes(Database& db, const ProcessLayout& layout, size_t first,
                     const std::vector<ProcessCounts>& counts) {
  Statement insert = db.prepare("INSERT INTO processes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (size_t i = 0; i < counts.size(); ++i) {
    const ProcessInfo& p = layout.processes[first + i];
    insert.bind(1, static_cast<std::int64_t>(first + i));
    insert.bind(2, std::string_view(p.name));
    insert.bind(3, std::string_view(p.kind));
    if (p.rank >= 0)
      insert.bind(4, p.rank);
    else
      insert.bind_null(4);
    insert.bind(5, static_cast<std::int64_t>(p.location_ref));
    insert.bind(6, std::string_view(p.group_name));
    insert.bind(7, counts[i].first_event);
    insert.bind(8, counts[i].events);
    insert.bind(9, static_cast<std::int64_t>(counts[i].records));
    insert.run();
  }
}

std::int64_t or_null(std::int64_t v) { return v < 0 ? kSqlNull : v; }
std::int64_t time_or_null(TimeNs t) { return t == kNoTime ? kSqlNull : t; }

void write_messages(Database& db, const MatchedMessages& matched) {
  BatchInserter insert(db, "messages", "", 12);
  std::int64_t id = 0;
  for (const MessageRow& m : matched.rows) {
    std::array<std::int64_t, 12> row{id++,
                                     or_null(m.src),
                                     or_null(m.dst),
                                     m.comm,
                                     m.tag,
                                     static_cast<std::int64_t>(m.bytes),
                                     or_null(m.send_event),
                                     or_null(m.send_done_event),
                                     or_null(m.recv_post_event),
                                     or_null(m.recv_event),
                                     time_or_null(m.send_ns),
                                     time_or_null(m.recv_ns)};
    insert.add(row);
  }
  insert.flush();
}

void write_collectives(Database& db, const std::vector<CollectiveRow>& rows,
                       const std::vector<CollectiveMemberRecord>& members) {
  BatchInserter collectives(db, "collectives", "", 7);
  BatchInserter member_rows(db, "collective_members", "", 7);
  std::int64_t id = 0;
  for (const CollectiveRow& c : rows) {
    std::array<std::int64_t, 7> row{id, c.comm, c.region, or_null(c.root),
                                    c.begin_ns, c.end_ns, c.members};
    collectives.add(row);
    for (std::uint32_t k = 0; k < c.members; ++k) {
      const CollectiveMemberRecord& m = members[c.first_member + k];
      std::array<std::int64_t, 7> mrow{id, m.process, or_null(m.event), m.start_ns, m.end_ns,
                                       static_cast<std::int64_t>(m.bytes_sent),
                                       static_cast<std::int64_t>(m.bytes_received)};
      member_rows.add(mrow);
    }
    ++id;
  }
  collectives.flush();
  member_rows.flush();
}

// Loads event rows into the time-clustered events table.
//
// Two ways, chosen by what the definitions tell us:
// - direct: when the clock properties give the trace length, the bucket shift
//   is known up front and rows go straight into events (location by location,
//   so at scattered positions of the tree);
// - staged: otherwise rows are appended to a plain rowid table in arrival
//   order and copied into events in key order once the trace end is known.
// Measured on jacobi-cpu-2 (10 locations, 110K rows, 2 cores): direct 0.114 s
// and 3.95 MB; staged 0.070 s + 0.079 s for the ordered copy and 4.03 MB. So
// direct is the default; at thousands of locations the scattered inserts may
// tip the balance (not measured yet: no large archive was available).
class EventTableLoader {
 public:
  EventTableLoader(Database& db, TimeNs trace_length_ns)
      : db_(db),
        direct_(trace_length_ns > 0),
        shift_(direct_ ? choose_bucket_shift(trace_length_ns) : 0),
        insert_(db, direct_ ? "events" : "temp.event_stage", "", direct_ ? 7 : 6) {}

  static void create_staging_table(Database& db) {
    db.exec(
        "CREATE TEMP TABLE event_stage(process INTEGER, start_ns INTEGER, id INTEGER,"
        " end_ns INTEGER, region INTEGER, depth INTEGER)");
  }

  void add(std::span<const EventRow> rows) {
    for (const EventRow& r : rows) {
      if (direct_) {
        std::array<std::int64_t, 7> row{bucket_key(r.start_ns, r.end_ns, shift_),
                                        r.process, r.start_ns, r.id, r.end_ns, r.region, r.depth};
        insert_.add(row);
      } else {
        std::array<std::int64_t, 6> row{r.process, r.start_ns, r.id, r.end_ns, r.region, r.depth};
        insert_.add(row);
      }
    }
  }

  // Returns the bucket shift the events table was written with.
  int finish(TimeNs trace_end_ns) {
    insert_.flush();
    if (direct_) return shift_;
    shift_ = choose_bucket_shift(trace_end_ns);
    db_.exec("INSERT INTO events SELECT weft_bucket(start_ns, end_ns, " + std::to_string(shift_) +
             ") AS b, process, start_ns, id, end_ns, region, depth FROM temp.event_stage "
             "ORDER BY b, process, start_ns, id");
    db_.exec("DELETE FROM temp.event_stage");
    return shift_;
  }

 private:
  Database& db_;
  bool direct_;
  int shift_;
  BatchInserter insert_;
};

std::string warn_unmatched(const MatchedMessages& m) {
  return std::to_string(m.unmatched_sends) + " unmatched send(s) and " +
         std::to_string(m.unmatched_recvs) +
         " unmatched receive(s) kept with NULLs on the missing side";
}

}  // namespace

ImportSummary import_otf2(const ImportOptions& options) {
  auto started = std::chrono::steady_clock::now();
  Otf2Archive archive(options.trace_path);
  Otf2Definitions defs = read_global_definitions(archive);
  if (defs.locations.empty()) throw Error(options.trace_path, "the archive has no locations");
  ProcessLayout layout = build_process_layout(defs);

  size_t first = static_cast<size_t>(std::min<std::uint64_t>(options.locations.first,
                                                             layout.processes.size()));
  size_t count = static_cast<size_t>(
      std::min<std::uint64_t>(options.locations.count, layout.processes.size() - first));
  if (count == 0) throw Error(options.trace_path, "the location range selects no location");

  AtomicOutput output(options.output_path, options.overwrite);
  ImportSummary summary;
  {
    Database db(output.temp_path(), Database::Mode::ReadWrite);
    apply_bulk_load_pragmas(db);
    register_bucket_function(db);
    Transaction tx(db);
    create_tables(db);
    EventTableLoader::create_staging_table(db);
    write_regions(db, defs);
    write_communicators(db, layout);

    // Decode location by location, in display order, so event ids come out
    // contiguous per process.
    std::vector<std::uint64_t> locations;
    ImportProgress progress;
    for (size_t i = 0; i < count; ++i) {
      locations.push_back(layout.processes[first + i].location_ref);
      progress.records_total += layout.processes[first + i].expected_records;
    }
    progress.locations_total = count;
    open_location_files(archive, locations.data(), locations.size());

    TickConverter ticks{defs.timer_resolution, defs.global_offset};
    EventTableLoader events(db, TickConverter{defs.timer_resolution, 0}.to_ns(defs.trace_length));
    EventRowBuffer rows([&](std::span<const EventRow> batch) { events.add(batch); });
    DecodedRecords decoded;
    std::vector<ProcessCounts> counts(count);
    EventId next_event = 0;
    for (size_t i = 0; i < count; ++i) {
      const ProcessInfo& info = layout.processes[first + i];
      std::uint64_t done_before = progress.records_done;
      LocationSummary s = decode_location(
          archive, layout, static_cast<ProcessIndex>(first + i), next_event, ticks, decoded, rows,
          [&](std::uint64_t done) {
            progress.records_done = done_before + done;
            if (options.progress) options.progress(progress);
          });
      if (info.expected_records != 0 && s.records < info.expected_records)
        throw Error(archive.location_file(info.location_ref, ".evt"),
                    "truncated event file: " + std::to_string(s.records) + " records, the definitions promise " +
                        std::to_string(info.expected_records));
      counts[i] = {next_event, s.events, s.records};
      next_event += s.events;
      progress.records_done = done_before + s.records;
      ++progress.locations_done;
      if (options.progress) options.progress(progress);
    }
    rows.flush();
    close_location_files(archive);

    int shift = events.finish(decoded.trace_end_ns);
    write_processes(db, layout, first, counts);
    MatchedMessages matched = match_messages(decoded.sends, decoded.recvs);
    write_messages(db, matched);
    std::vector<CollectiveRow> collectives = group_collectives(decoded.collective_members);
    write_collectives(db, collectives, decoded.collective_members);
    create_indexes(db);

    summary.processes = count;
    summary.records = decoded.records;
    summary.events = static_cast<std::uint64_t>(next_event);
    summary.messages = matched.rows.size();
    summary.unmatched_sends = matched.unmatched_sends;
    summary.unmatched_recvs = matched.unmatched_recvs;
    summary.collectives = collectives.size();
    summary.unclosed_regions = decoded.unclosed_regions;
    summary.unknown_records = decoded.records - decoded.handled_records;
    summary.trace_end_ns = decoded.trace_end_ns;

    int max_level = static_cast<int>(
        db.query_int("SELECT max(bucket) FROM events", 0) / kBucketLevelStride);
    MetaWriter meta(db);
    meta.put("schema_version", std::int64_t{kSchemaVersion});
    meta.put("weft_version", options.weft_version);
    meta.put("source_format", std::string("otf2"));
    meta.put("source_path", absolute_path(options.trace_path));
    meta.put("creator", archive.creator());
    meta.put("timer_resolution", defs.timer_resolution);
    meta.put("global_offset", defs.global_offset);
    meta.put("trace_end_ns", summary.trace_end_ns);
    meta.put("bucket_shift", std::int64_t{shift});
    meta.put("max_level", std::int64_t{max_level});
    meta.put("max_message_ns", matched.max_message_ns);
    meta.put("count_processes", summary.processes);
    meta.put("count_records", summary.records);
    meta.put("count_events", summary.events);
    meta.put("count_messages", summary.messages);
    meta.put("count_unmatched_sends", summary.unmatched_sends);
    meta.put("count_unmatched_recvs", summary.unmatched_recvs);
    meta.put("count_collectives", summary.collectives);
    meta.put("count_unclosed_regions", summary.unclosed_regions);
    meta.put("count_unmatched_leaves", decoded.unmatched_leaves);
    meta.put("count_unknown_records", summary.unknown_records);
    tx.commit();
    db.set_user_version(kSchemaVersion);
    if (options.before_publish) options.before_publish(db);
  }
  output.commit();

  if (summary.unmatched_sends || summary.unmatched_recvs)
    summary.warnings.push_back(warn_unmatched(
        {{}, summary.unmatched_sends, summary.unmatched_recvs, 0}));
  if (summary.unclosed_regions)
    summary.warnings.push_back(std::to_string(summary.unclosed_regions) +
                               " region(s) never left, closed at their location's last timestamp");
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace weft::db
