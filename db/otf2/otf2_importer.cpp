#include "otf2/otf2_importer.h"

#include <sys/stat.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>

#include "common/error.h"
#include "common/phase_timer.h"
#include "common/region_kind.h"
#include "common/release_memory.h"
#include "otf2/collective_grouping.h"
#include "otf2/message_matching.h"
#include "otf2/otf2_definitions.h"
#include "otf2/otf2_event_decoder.h"
#include "otf2/location_workers.h"
#include "otf2/otf2_location_reader.h"
#include "otf2/otf2_process_layout.h"
#include "store/atomic_output.h"
#include "store/batch_insert.h"
#include "store/block_codec.h"
#include "store/block_writer.h"
#include "store/bulk_load.h"
#include "store/event_buckets.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace weft::db {
namespace {

// The record count a location's definition claims is untrusted input: it
// sizes reservations and the progress bar, so it is capped by what the event
// file can hold (every OTF2 event record takes at least one byte) before use.
// A claim above the file size is still caught as a truncated file after the
// location is read.
std::uint64_t plausible_record_count(const Otf2Archive& archive, const ProcessInfo& info) {
  struct stat st {};
  std::string evt = archive.location_file(info.location_ref, ".evt");
  if (stat(evt.c_str(), &st) != 0 || st.st_size < 0) return 0;
  return std::min<std::uint64_t>(info.expected_records, static_cast<std::uint64_t>(st.st_size));
}

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

void write_processes(Database& db, const ProcessLayout& layout, size_t first,
                     const std::vector<LocationCounts>& counts) {
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

// One collectives row and one packed member block per instance.
void write_collectives(Database& db, const GroupedCollectives& grouped, const CollectiveGrouper& members) {
  BatchInserter collectives(db, "collectives", "", 7);
  Statement member_block = db.prepare("INSERT INTO collective_member_blocks VALUES(?1, ?2, ?3)");
  std::vector<PackedCollectiveMember> packed;
  std::vector<std::uint8_t> blob;
  std::int64_t id = 0;
  for (const CollectiveRow& c : grouped.rows) {
    std::array<std::int64_t, 7> row{id, c.comm, c.region, or_null(c.root),
                                    c.begin_ns, c.end_ns, c.members};
    collectives.add(row);
    packed.clear();
    for (std::uint32_t k = 0; k < c.members; ++k) {
      const CollectiveMemberRecord& m = members.member(grouped.member_order[c.first_member + k]);
      packed.push_back({{id, m.process, m.event < 0 ? kNullRef : m.event, m.start_ns, m.end_ns},
                        static_cast<std::int64_t>(m.bytes_sent),
                        static_cast<std::int64_t>(m.bytes_received)});
    }
    blob.clear();
    encode_member_block(packed, blob);
    member_block.bind(1, id);
    member_block.bind(2, static_cast<std::int64_t>(packed.size()));
    member_block.bind_blob_static(3, blob.data(), blob.size());
    member_block.run();
    ++id;
  }
  collectives.flush();
}

std::string warn_unmatched(std::uint64_t sends, std::uint64_t recvs) {
  return std::to_string(sends) + " unmatched send(s) and " + std::to_string(recvs) +
         " unmatched receive(s) kept with NULLs on the missing side";
}

// Message blocks need the bucket shift. Without a trace length in the
// definitions it is known only after the last location, so the messages
// wait in memory until then.
//
// With the shift known, the ordering stage encodes the messages it matched
// (encode) and the storing stage inserts them (insert): the encoder and the
// statement are separate objects, each used by one stage at a time.
class MessageOutput {
 public:
  MessageOutput(Database& db, int shift) : db_(db) {
    if (shift < 0) return;
    encoder_.emplace(shift);
    writer_.emplace(db, shift);
  }
  // Ordering stage: one owner's messages, into its location's blocks.
  void encode(std::int64_t owner, std::span<MessageRecord> messages, MatchedMessages& matched) {
    if (encoder_)
      encoder_->encode(owner, messages, matched.blocks);
    else
      staged_.insert(staged_.end(), messages.begin(), messages.end());
  }
  // Storing stage: the blocks a location's ordering encoded.
  void insert(const MatchedMessages& matched) {
    if (writer_) writer_->insert(matched.blocks);
  }
  // After the workers: one owner's messages, encoded and inserted at once.
  void write(std::int64_t owner, std::span<MessageRecord> messages) {
    if (!encoder_) {
      staged_.insert(staged_.end(), messages.begin(), messages.end());
      return;
    }
    scratch_.clear();
    encode(owner, messages, scratch_);
    insert(scratch_);
  }
  void finish(int shift) {
    if (writer_) return;
    writer_.emplace(db_, shift);
    writer_->write_any(staged_);
    release_memory(staged_);
  }

 private:
  Database& db_;
  std::optional<MessageBlockEncoder> encoder_;
  std::optional<MessageBlockWriter> writer_;
  std::vector<MessageRecord> staged_;
  MatchedMessages scratch_;
};

}  // namespace

ImportSummary import_otf2(const ImportOptions& options) {
  auto started = std::chrono::steady_clock::now();
  PhaseTimer timer("WEFT_IMPORT_TIMING");
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
    Database db = open_bulk_load(output.temp_path(), options.output_path, load_cache_mib(options.cache_mib));
    Transaction tx(db);
    create_tables(db);
    write_regions(db, defs);
    write_communicators(db, layout);

    // Event ids come out contiguous per process, in display order.
    ImportProgress progress;
    for (size_t i = 0; i < count; ++i)
      progress.records_total += plausible_record_count(archive, layout.processes[first + i]);
    progress.locations_total = count;

    // The bucket shift: blocks of about kTargetEventsPerBlock events, from the
    // trace length and the record counts of the definitions (an event is at
    // least two records). Without a trace length the rows are staged until
    // the end is known.
    TickConverter ticks{defs.timer_resolution, defs.global_offset};
    const TimeNs trace_length = TickConverter{defs.timer_resolution, 0}.to_ns(defs.trace_length);
    const auto events_per_process =
        static_cast<std::int64_t>(progress.records_total / 2 / count);
    const int direct_shift =
        trace_length > 0 ? choose_block_shift(trace_length, events_per_process) : -1;
    if (direct_shift >= 0) size_load_cache(db, options.cache_mib, trace_length >> direct_shift);

    int shift = direct_shift;
    // Fed by the ordering stage as locations complete, in process order. The
    // messages it matches wait with their location for the storing stage;
    // those matched after the last location are written at once.
    MessageOutput messages(db, direct_shift);
    MatchedMessages* matched_now = nullptr;
    MessageMatcher matcher(layout.rank_process, first, count,
                           [&](std::int64_t owner, std::span<MessageRecord> run) {
                             if (matched_now)
                               messages.encode(owner, run, *matched_now);
                             else
                               messages.write(owner, run);
                           });
    CollectiveGrouper collectives;
    LocationWorkPlan plan{first, count, ticks, direct_shift, std::max(1, options.threads), options.piece_events};
    LocationWorkers workers(
        archive, layout, db, plan,
        [&](ProcessIndex process, LocationRecords& records, MatchedMessages& matched) {
          matched_now = &matched;
          matcher.add_process(process, records.sends, records.recvs);
          matched_now = nullptr;
          collectives.add(records.collective_members);
        },
        [&](MatchedMessages& matched) { messages.insert(matched); },
        [&](std::uint64_t records, std::size_t locations) {
          progress.records_done = records;
          progress.locations_done = locations;
          if (options.progress) options.progress(progress);
        });
    workers.run();
    timer.mark("decode");
    const DecodeTotals& decoded = workers.totals();
    if (shift < 0) {
      shift = choose_block_shift(decoded.trace_end_ns, static_cast<std::int64_t>(decoded.records / 2 / count));
      size_load_cache(db, options.cache_mib, decoded.trace_end_ns >> shift);
    }
    const int max_level = workers.finish(shift);
    timer.mark("staged event blocks");
    const std::vector<LocationCounts>& counts = workers.counts();
    const EventId next_event = workers.events();

    write_processes(db, layout, first, counts);
    matcher.finish();
    messages.finish(shift);
    timer.mark("last messages");
    GroupedCollectives grouped = collectives.finish();
    write_collectives(db, grouped, collectives);
    timer.mark("collectives");

    summary.processes = count;
    summary.records = decoded.records;
    summary.events = static_cast<std::uint64_t>(next_event);
    summary.messages = matcher.messages();
    summary.unmatched_sends = matcher.unmatched_sends();
    summary.unmatched_recvs = matcher.unmatched_recvs();
    summary.collectives = grouped.rows.size();
    summary.unclosed_regions = decoded.unclosed_regions;
    summary.unknown_records = decoded.records - decoded.handled_records;
    summary.trace_end_ns = decoded.trace_end_ns;

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
    meta.put("max_message_ns", matcher.max_message_ns());
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
    finish_bulk_load(db, tx, options.before_publish, timer);
  }
  output.commit();
  timer.mark("close, rename");

  if (summary.unmatched_sends || summary.unmatched_recvs)
    summary.warnings.push_back(warn_unmatched(summary.unmatched_sends, summary.unmatched_recvs));
  if (summary.unclosed_regions)
    summary.warnings.push_back(std::to_string(summary.unclosed_regions) +
                               " region(s) never left, closed at their location's last timestamp");
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace weft::db
