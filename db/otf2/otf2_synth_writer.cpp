#include "otf2/otf2_synth_writer.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <span>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "otf2/otf2_archive.h"
#include "synth/simulator.h"

namespace weft::db {
namespace {

namespace fs = std::filesystem;
using synth::CollectiveOp;
using synth::Record;
using synth::RecordType;

constexpr const char* kArchiveName = "traces";
// OTF2 touches a whole chunk per open event writer, so the chunk size times
// kSynthRanksPerBlock bounds the writer's memory: 256 KiB (OTF2's minimum) ×
// 256 writers = 64 MiB, where 1 MiB chunks measured 271 MB RSS at n = 4096.
constexpr std::uint64_t kEventChunkBytes = 256 * 1024;
// Also the buffer of every local definition writer, which OTF2 touches whole:
// keep it at the minimum, the global definitions just span more chunks.
constexpr std::uint64_t kDefinitionChunkBytes = 256 * 1024;

// OTF2 asks before flushing a full chunk; we always flush, so each open
// writer holds at most one chunk in memory.
OTF2_FlushType always_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
  return OTF2_FLUSH;
}
const OTF2_FlushCallbacks kFlushCallbacks = {always_flush, nullptr};

void check(OTF2_ErrorCode code, const std::string& path, const char* what) {
  if (code == OTF2_SUCCESS) return;
  std::string why = take_last_otf2_error();
  throw Error(path, std::string("cannot write OTF2 archive: ") + what + ": " +
                        (why.empty() ? OTF2_Error_GetDescription(code) : why));
}

OTF2_TimeStamp ticks(TimeNs t) { return kSynthGlobalOffset + static_cast<std::uint64_t>(t); }

// Owns the OTF2_Archive; closes it on every path out (errors included).
class ArchiveHandle {
 public:
  ArchiveHandle(const std::string& dir, const std::string& anchor) : anchor_(anchor) {
    archive_ = OTF2_Archive_Open(dir.c_str(), kArchiveName, OTF2_FILEMODE_WRITE, kEventChunkBytes,
                                 kDefinitionChunkBytes, OTF2_SUBSTRATE_POSIX,
                                 OTF2_COMPRESSION_NONE);
    if (!archive_) check(OTF2_ERROR_FILE_INTERACTION, anchor_, "OTF2_Archive_Open");
  }
  ~ArchiveHandle() {
    if (archive_) OTF2_Archive_Close(archive_);
  }
  ArchiveHandle(const ArchiveHandle&) = delete;
  ArchiveHandle& operator=(const ArchiveHandle&) = delete;

  OTF2_Archive* get() const { return archive_; }
  const std::string& anchor() const { return anchor_; }
  void close() {
    OTF2_Archive* archive = archive_;
    archive_ = nullptr;
    check(OTF2_Archive_Close(archive), anchor_, "OTF2_Archive_Close");
  }

 private:
  std::string anchor_;
  OTF2_Archive* archive_ = nullptr;
};

// Writes the records of one block of ranks through their open event writers.
class BlockEventWriter final : public synth::RecordSink {
 public:
  BlockEventWriter(ArchiveHandle& archive, std::int32_t first_rank, std::int32_t end_rank)
      : archive_(archive), first_rank_(first_rank) {
    writers_.reserve(static_cast<std::size_t>(end_rank - first_rank));
    for (std::int32_t r = first_rank; r < end_rank; ++r) {
      OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive.get(), static_cast<std::uint64_t>(r));
      if (!writer) check(OTF2_ERROR_MEM_ALLOC_FAILED, archive.anchor(), "OTF2_Archive_GetEvtWriter");
      writers_.push_back(writer);
    }
  }

  void consume(std::span<const Record> records) override {
    for (const Record& record : records) write(record);
  }

  // Adds each location's record count to `counts` (indexed by rank) and closes the writers.
  void close(std::vector<std::uint64_t>& counts) {
    for (std::size_t k = 0; k < writers_.size(); ++k) {
      std::uint64_t events = 0;
      check(OTF2_EvtWriter_GetNumberOfEvents(writers_[k], &events), archive_.anchor(),
            "OTF2_EvtWriter_GetNumberOfEvents");
      counts[static_cast<std::size_t>(first_rank_) + k] = events;
      check(OTF2_Archive_CloseEvtWriter(archive_.get(), writers_[k]), archive_.anchor(),
            "OTF2_Archive_CloseEvtWriter");
    }
    writers_.clear();
  }

 private:
  static OTF2_CollectiveOp otf2_op(CollectiveOp op) {
    return op == CollectiveOp::Barrier ? OTF2_COLLECTIVE_OP_BARRIER : OTF2_COLLECTIVE_OP_ALLREDUCE;
  }

  void write(const Record& r) {
    OTF2_EvtWriter* w = writers_[r.rank - static_cast<std::uint32_t>(first_rank_)];
    const OTF2_TimeStamp t = ticks(r.time);
    OTF2_ErrorCode code = OTF2_SUCCESS;
    switch (r.type) {
      case RecordType::Enter: code = OTF2_EvtWriter_Enter(w, nullptr, t, r.region); break;
      case RecordType::Leave: code = OTF2_EvtWriter_Leave(w, nullptr, t, r.region); break;
      case RecordType::MpiSend:
        code = OTF2_EvtWriter_MpiSend(w, nullptr, t, r.peer, r.comm, r.tag, r.bytes);
        break;
      case RecordType::MpiRecv:
        code = OTF2_EvtWriter_MpiRecv(w, nullptr, t, r.peer, r.comm, r.tag, r.bytes);
        break;
      case RecordType::MpiIsend:
        code = OTF2_EvtWriter_MpiIsend(w, nullptr, t, r.peer, r.comm, r.tag, r.bytes, r.request);
        break;
      case RecordType::MpiIsendComplete:
        code = OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, r.request);
        break;
      case RecordType::MpiIrecvRequest:
        code = OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, r.request);
        break;
      case RecordType::MpiIrecv:
        code = OTF2_EvtWriter_MpiIrecv(w, nullptr, t, r.peer, r.comm, r.tag, r.bytes, r.request);
        break;
      case RecordType::CollectiveBegin: code = OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t); break;
      case RecordType::CollectiveEnd:
        code = OTF2_EvtWriter_MpiCollectiveEnd(
            w, nullptr, t, otf2_op(r.op), r.comm,
            r.peer == synth::kNoRoot ? OTF2_UNDEFINED_UINT32 : r.peer, r.bytes, r.bytes_received);
        break;
    }
    if (code != OTF2_SUCCESS) check(code, archive_.anchor(), "writing an event record");
  }

  ArchiveHandle& archive_;
  std::int32_t first_rank_;
  std::vector<OTF2_EvtWriter*> writers_;
};

// Definition strings, numbered in order of first use.
class StringTable {
 public:
  OTF2_StringRef ref(const std::string& text) {
    auto [it, added] = refs_.try_emplace(text, static_cast<OTF2_StringRef>(texts_.size()));
    if (added) texts_.push_back(text);
    return it->second;
  }
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  std::unordered_map<std::string, OTF2_StringRef> refs_;
  std::vector<std::string> texts_;
};

OTF2_RegionRole otf2_role(synth::RegionRole role) {
  switch (role) {
    case synth::RegionRole::Function: return OTF2_REGION_ROLE_FUNCTION;
    case synth::RegionRole::Point2point: return OTF2_REGION_ROLE_POINT2POINT;
    case synth::RegionRole::Collective: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case synth::RegionRole::Barrier: return OTF2_REGION_ROLE_BARRIER;
  }
  return OTF2_REGION_ROLE_UNKNOWN;
}

// Group references: the COMM_LOCATIONS group, world, then one per sub-communicator.
constexpr OTF2_GroupRef kLocationsGroup = 0;
constexpr OTF2_GroupRef kWorldGroup = 1;
constexpr OTF2_GroupRef sub_group(std::size_t sub) { return static_cast<OTF2_GroupRef>(2 + sub); }

void write_global_definitions(OTF2_Archive* archive, const std::string& anchor,
                              const synth::Simulator& simulator, TimeNs trace_end_ns,
                              const std::vector<std::uint64_t>& events_per_rank) {
  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive);
  if (!defs) check(OTF2_ERROR_MEM_ALLOC_FAILED, anchor, "OTF2_Archive_GetGlobalDefWriter");
  const std::int32_t n = simulator.options().procs;
  const synth::CommLayout& comms = simulator.comms();

  // Every string a definition refers to, so that strings precede their use.
  StringTable strings;
  const OTF2_StringRef empty = strings.ref("");
  const OTF2_StringRef machine = strings.ref("weft synth");
  const OTF2_StringRef machine_class = strings.ref("machine");
  const OTF2_StringRef thread_name = strings.ref("Master thread");
  std::vector<OTF2_StringRef> rank_names(static_cast<std::size_t>(n));
  for (std::int32_t r = 0; r < n; ++r)
    rank_names[static_cast<std::size_t>(r)] = strings.ref("MPI Rank " + std::to_string(r));
  std::vector<OTF2_StringRef> region_names;
  for (const synth::RegionInfo& region : synth::kRegions) region_names.push_back(strings.ref(region.name));
  const OTF2_StringRef locations_name = strings.ref("MPI_COMM_LOCATIONS");
  const OTF2_StringRef world_name = strings.ref("MPI_COMM_WORLD");
  std::vector<OTF2_StringRef> sub_names;
  for (const synth::SubComm& sub : comms.subs) sub_names.push_back(strings.ref(sub.name));

  auto ok = [&](OTF2_ErrorCode code, const char* what) { check(code, anchor, what); };
  ok(OTF2_GlobalDefWriter_WriteClockProperties(defs, kSynthTimerResolution, kSynthGlobalOffset,
                                               static_cast<std::uint64_t>(trace_end_ns),
                                               OTF2_UNDEFINED_TIMESTAMP),
     "clock properties");
  for (std::size_t s = 0; s < strings.texts().size(); ++s)
    ok(OTF2_GlobalDefWriter_WriteString(defs, static_cast<OTF2_StringRef>(s),
                                        strings.texts()[s].c_str()),
       "string definition");
  ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, machine, machine_class,
                                              OTF2_UNDEFINED_SYSTEM_TREE_NODE),
     "system tree node");
  for (std::int32_t r = 0; r < n; ++r)
    ok(OTF2_GlobalDefWriter_WriteLocationGroup(defs, static_cast<OTF2_LocationGroupRef>(r),
                                               rank_names[static_cast<std::size_t>(r)],
                                               OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                               OTF2_UNDEFINED_LOCATION_GROUP),
       "location group");
  for (std::int32_t r = 0; r < n; ++r)
    ok(OTF2_GlobalDefWriter_WriteLocation(defs, static_cast<OTF2_LocationRef>(r), thread_name,
                                          OTF2_LOCATION_TYPE_CPU_THREAD,
                                          events_per_rank[static_cast<std::size_t>(r)],
                                          static_cast<OTF2_LocationGroupRef>(r)),
       "location");
  for (std::size_t k = 0; k < std::size(synth::kRegions); ++k) {
    const synth::RegionInfo& region = synth::kRegions[k];
    ok(OTF2_GlobalDefWriter_WriteRegion(
           defs, static_cast<OTF2_RegionRef>(k), region_names[k], region_names[k], empty,
           otf2_role(region.role), region.is_mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
           OTF2_REGION_FLAG_NONE, empty, 0, 0),
       "region");
  }

  // COMM_LOCATIONS maps MPI rank k to location members[k]; COMM_GROUP members are such ranks.
  std::vector<std::uint64_t> members(static_cast<std::size_t>(n));
  for (std::int32_t r = 0; r < n; ++r) members[static_cast<std::size_t>(r)] = static_cast<std::uint64_t>(r);
  ok(OTF2_GlobalDefWriter_WriteGroup(defs, kLocationsGroup, locations_name,
                                     OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(n),
                                     members.data()),
     "locations group");
  ok(OTF2_GlobalDefWriter_WriteGroup(defs, kWorldGroup, world_name, OTF2_GROUP_TYPE_COMM_GROUP,
                                     OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                     static_cast<std::uint32_t>(n), members.data()),
     "world group");
  for (std::size_t s = 0; s < comms.subs.size(); ++s) {
    const synth::SubComm& sub = comms.subs[s];
    members.resize(static_cast<std::size_t>(sub.size));
    for (std::int32_t k = 0; k < sub.size; ++k)
      members[static_cast<std::size_t>(k)] = static_cast<std::uint64_t>(sub.world_rank(k));
    ok(OTF2_GlobalDefWriter_WriteGroup(defs, sub_group(s), sub_names[s], OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                       static_cast<std::uint32_t>(sub.size), members.data()),
       "sub-communicator group");
  }
  ok(OTF2_GlobalDefWriter_WriteComm(defs, synth::kWorldComm, world_name, kWorldGroup,
                                    OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
     "world communicator");
  for (std::size_t s = 0; s < comms.subs.size(); ++s)
    ok(OTF2_GlobalDefWriter_WriteComm(defs, synth::CommLayout::sub_comm_id(s), sub_names[s],
                                      sub_group(s), synth::kWorldComm, OTF2_COMM_FLAG_NONE),
       "sub-communicator");
}

// Empty local definition files, one per location, as readers expect them.
void write_local_definitions(OTF2_Archive* archive, const std::string& anchor, std::int32_t n) {
  check(OTF2_Archive_OpenDefFiles(archive), anchor, "OTF2_Archive_OpenDefFiles");
  for (std::int32_t r = 0; r < n; ++r) {
    OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(archive, static_cast<OTF2_LocationRef>(r));
    if (!writer) check(OTF2_ERROR_MEM_ALLOC_FAILED, anchor, "OTF2_Archive_GetDefWriter");
    check(OTF2_Archive_CloseDefWriter(archive, writer), anchor, "OTF2_Archive_CloseDefWriter");
  }
  check(OTF2_Archive_CloseDefFiles(archive), anchor, "OTF2_Archive_CloseDefFiles");
}

// Makes room for the archive in `dir`: creates it, or clears a previous archive when allowed.
void prepare_output_directory(const std::string& dir, bool overwrite) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw Error(dir, "exists and is not a directory");
  const std::string parts[] = {dir + "/traces.otf2", dir + "/traces.def", dir + "/traces"};
  for (const std::string& part : parts) {
    if (!fs::exists(fs::symlink_status(part, ec))) continue;
    if (!overwrite) throw Error(part, "already exists (use --force to overwrite)");
    fs::remove_all(part, ec);
    if (ec) throw Error(part, "cannot remove: " + ec.message());
  }
  fs::create_directories(dir, ec);
  if (ec) throw Error(dir, "cannot create directory: " + ec.message());
}

}  // namespace

SynthArchiveInfo write_synth_archive(const synth::SynthOptions& options, const std::string& out_dir,
                                     bool overwrite) {
  const synth::Simulator simulator(options);  // validates before touching the disk
  prepare_output_directory(out_dir, overwrite);
  install_otf2_error_capture();
  take_last_otf2_error();

  SynthArchiveInfo info;
  info.anchor_path = out_dir + "/" + kArchiveName + ".otf2";
  ArchiveHandle archive(out_dir, info.anchor_path);
  check(OTF2_Archive_SetFlushCallbacks(archive.get(), &kFlushCallbacks, nullptr), info.anchor_path,
        "OTF2_Archive_SetFlushCallbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive.get()), info.anchor_path,
        "OTF2_Archive_SetSerialCollectiveCallbacks");
  check(OTF2_Archive_SetCreator(archive.get(), "weft synth"), info.anchor_path, "OTF2_Archive_SetCreator");
  const std::string description = "synthetic " + std::string(synth::pattern_name(options.pattern)) +
                                  " trace, n=" + std::to_string(options.procs) +
                                  " i=" + std::to_string(options.iterations);
  check(OTF2_Archive_SetDescription(archive.get(), description.c_str()), info.anchor_path,
        "OTF2_Archive_SetDescription");
  check(OTF2_Archive_OpenEvtFiles(archive.get()), info.anchor_path, "OTF2_Archive_OpenEvtFiles");

  // One block of ranks at a time: open their writers, re-simulate the whole
  // run emitting only their records, close them. Simulating is far cheaper
  // than writing, and open writers (one chunk buffer each) stay bounded.
  const std::int32_t n = options.procs;
  std::vector<std::uint64_t> events_per_rank(static_cast<std::size_t>(n), 0);
  for (std::int32_t first = 0; first < n; first += kSynthRanksPerBlock) {
    const std::int32_t end = std::min(n, first + kSynthRanksPerBlock);
    BlockEventWriter block(archive, first, end);
    const synth::SimulationSummary summary = simulator.run(first, end, block);
    block.close(events_per_rank);
    info.trace_end_ns = summary.trace_end_ns;
  }
  check(OTF2_Archive_CloseEvtFiles(archive.get()), info.anchor_path, "OTF2_Archive_CloseEvtFiles");
  for (std::uint64_t events : events_per_rank) info.records += events;

  write_local_definitions(archive.get(), info.anchor_path, n);
  write_global_definitions(archive.get(), info.anchor_path, simulator, info.trace_end_ns,
                           events_per_rank);
  archive.close();
  return info;
}

}  // namespace weft::db
